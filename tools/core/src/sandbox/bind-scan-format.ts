// The bind check memo's file format and place (bind-scan-memo.ts says what a memo is). Kept
// apart, importing only node:path (loaded with Node itself), because the launcher reads memos
// too (bind-stamps.ts) and `--help` must not load more than it needs.

import { join } from 'node:path'

/** File magic: "RLSCAN", NUL, format 3. */
export const MAGIC = Buffer.from('RLSCAN\0\x03', 'latin1')
/** The header: the magic, then the number of directories as a float64. */
export const HEAD_BYTES = 16
/** Per directory: dev, ino, mtimeMs, ctimeMs as float64s. The paths follow, NUL-separated. */
export const STAMP_BYTES = 32

/** A memo's file name: the sha256 of its root, in hex. */
export const MEMO_NAME = /^[0-9a-f]{64}\.bin$/

/** The most memos one process checks: one per system directory, a handful in practice. */
export const MAX_MEMOS = 16

/** Where the memos of the current user live by default. */
export function defaultScanMemoDir (): string {
  return join(process.getBuiltinModule('node:os').tmpdir(), `repairline-${process.geteuid?.() ?? 'user'}`, 'bind-scans')
}

/** The number of directories a memo's header announces, or undefined when the bytes are not a memo. */
export function memoCount (bytes: Buffer): number | undefined {
  if (bytes.length < HEAD_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
  const n = bytes.readDoubleLE(8)
  return Number.isSafeInteger(n) && n >= 1 && bytes.length >= HEAD_BYTES + n * STAMP_BYTES ? n : undefined
}

/** Where a memo of `n` directories has its NUL-separated paths. */
export function memoPathsAt (n: number): number {
  return HEAD_BYTES + n * STAMP_BYTES
}
