// The memo of a system directory's clean special-file scan, shared by the processes of one
// user. It holds the stamp (device, inode, mtime, ctime) of every directory under the source;
// it is trusted only while each of those directories still has that stamp. Creating, removing
// or renaming an entry changes its directory's mtime and ctime, and ctime cannot be set back
// from user space; a mount over a directory changes its device or inode. So a socket, FIFO or
// device that appears after the scan invalidates the memo and the next call walks again.
//
// Checking the stamps of /usr's 17,000 directories is one lstat per directory (~80–100 ms of
// it is the system calls) against ~650 ms for the walk. The memo is binary so the check does
// nothing else: a header, four float64s per directory (dev, ino, mtimeMs, ctimeMs, as Node's
// number Stats give them) and the paths, NUL-separated. Millisecond floats are exact enough:
// with the racy margin below, a later change moves a ctime by at least RACY_MARGIN_MS.
//
// A stamp taken in the same clock tick as a later change would still match (the kernel
// stamps times from a coarse clock: one tick is 1–10 ms), as git's racily clean index entries
// do. So a walk is remembered only when every directory's ctime is older than the walk's
// start by RACY_MARGIN_MS, far more than a tick: a change after the listing then always
// gets a later ctime. A directory changed within that margin costs the next process a walk.
//
// The memo is a cache, never evidence: it lives outside any attempt, is written only after a
// clean walk, and is ignored (the source is walked) when it, or its directory, is missing,
// malformed, a symlink, owned by another user, or writable by group or others.

import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sha256Hex } from '../digest.ts'

/** File magic: "RLSCAN", NUL, format 3. */
const MAGIC = Buffer.from('RLSCAN\0\x03', 'latin1')
/** The header: the magic, then the number of directories as a float64. */
const HEAD_BYTES = 16
/** Per directory: dev, ino, mtimeMs, ctimeMs as float64s. The paths follow, NUL-separated. */
const STAMP_BYTES = 32

/** Where the memos of the current user live by default. */
export function defaultScanMemoDir (): string {
  return join(tmpdir(), `repairline-${process.geteuid?.() ?? 'user'}`, 'bind-scans')
}

/** The number of directories a memo's header announces, or undefined when the bytes are not a memo. */
function memoCount (bytes: Buffer): number | undefined {
  if (bytes.length < HEAD_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
  const n = bytes.readDoubleLE(8)
  return Number.isSafeInteger(n) && n >= 1 && bytes.length >= HEAD_BYTES + n * STAMP_BYTES ? n : undefined
}

/** Where a memo of `n` directories has its NUL-separated paths. */
function memoPathsAt (n: number): number {
  return HEAD_BYTES + n * STAMP_BYTES
}

/** One directory's stamp, as lstat (number form) reads it. */
export interface DirStamp { path: string, dev: number, ino: number, mtimeMs: number, ctimeMs: number }

/** The stamp of directory `dir` now; undefined when it is gone or not a directory. */
export function stampOf (dir: string): DirStamp | undefined {
  const s = lstatSync(dir, { throwIfNoEntry: false })
  return s?.isDirectory() === true ? { path: dir, dev: s.dev, ino: s.ino, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs } : undefined
}

/** Whether a file's owner and mode (as lstat or fstat gave them) are this user's and closed to others. */
function closedToOthers (s: { uid: number, mode: number }): boolean {
  return s.uid === (process.geteuid?.() ?? s.uid) && (s.mode & 0o022) === 0
}

function ownedAndClosed (path: string, want: 'dir' | 'file'): boolean {
  try {
    const s = lstatSync(path)
    return (want === 'dir' ? s.isDirectory() : s.isFile()) && closedToOthers(s)
  } catch {
    return false
  }
}

function memoFile (memoDir: string, root: string): string {
  return join(memoDir, `${sha256Hex(root)}.bin`)
}

/** The memo's bytes for `dirs` (dirs[0] is the root). */
function encodeScanMemo (dirs: readonly DirStamp[]): Buffer {
  const nums = new Float64Array(dirs.length * 4)
  dirs.forEach((d, i) => { nums.set([d.dev, d.ino, d.mtimeMs, d.ctimeMs], i * 4) })
  const head = Buffer.alloc(HEAD_BYTES)
  MAGIC.copy(head)
  head.writeDoubleLE(dirs.length, 8)
  return Buffer.concat([head, Buffer.from(nums.buffer), Buffer.from(dirs.map(d => d.path).join('\0'), 'utf8')])
}

/** The stamps and paths of a memo (of `root`, when given), or undefined when it is not one. */
function decodeScanMemo (bytes: Buffer, root?: string): { nums: Float64Array, paths: string[] } | undefined {
  const n = memoCount(bytes)
  if (n === undefined) return undefined
  // Float64Array needs an 8-byte aligned offset; a pooled Buffer may not give one.
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes)
  // The stamps are this machine's own float64s, written by encodeScanMemo with the same byte order.
  const nums = new Float64Array(aligned.buffer, aligned.byteOffset + HEAD_BYTES, n * 4)
  const paths = aligned.toString('utf8', memoPathsAt(n)).split('\0')
  if (paths.length !== n || (root !== undefined && paths[0] !== root)) return undefined
  return { nums, paths }
}

/** True when a memo of a clean scan of `root` exists and every directory stamp still holds. */
export function loadScanMemo (memoDir: string, root: string): boolean {
  const file = memoFile(memoDir, root)
  if (!ownedAndClosed(memoDir, 'dir') || !ownedAndClosed(file, 'file')) return false
  let bytes: Buffer
  try { bytes = readFileSync(file) } catch { return false }
  const memo = decodeScanMemo(bytes, root)
  if (memo === undefined) return false
  const { nums, paths } = memo
  for (let i = 0; i < paths.length; i++) {
    const s = lstatSync(paths[i] as string, { throwIfNoEntry: false })
    if (s?.isDirectory() !== true) return false
    const at = i * 4
    if (s.dev !== nums[at] || s.ino !== nums[at + 1] || s.mtimeMs !== nums[at + 2] || s.ctimeMs !== nums[at + 3]) return false
  }
  return true
}

/** How much older than the walk every directory's ctime must be for the walk to be remembered. */
export const RACY_MARGIN_MS = 1000

/**
 * Records a clean scan of `root` that started at `walkStartedMs` (Date.now()), unless a
 * directory changed within RACY_MARGIN_MS of that start (its stamp could miss a change made
 * in the same clock tick). Best effort: a memo that is not written costs a walk next time.
 * Returns whether it was written.
 */
export function saveScanMemo (memoDir: string, root: string, dirs: readonly DirStamp[], walkStartedMs: number): boolean {
  if (dirs[0]?.path !== root || dirs.some(d => d.ctimeMs >= walkStartedMs - RACY_MARGIN_MS)) return false
  try {
    mkdirSync(memoDir, { recursive: true, mode: 0o700 })
    if (!ownedAndClosed(memoDir, 'dir')) return false
    const file = memoFile(memoDir, root)
    const temp = `${file}.${process.pid}.tmp`
    try {
      writeFileSync(temp, encodeScanMemo(dirs), { mode: 0o600, flag: 'wx' })
      renameSync(temp, file)
    } finally {
      rmSync(temp, { force: true })
    }
    return true
  } catch {
    // The memo is a cache: without it the next process walks the directory again.
    return false
  }
}
