// The memo of a system directory's clean special-file scan, shared by the processes of one
// user. It holds the stamp (device, inode, mtime, ctime) of every directory under the source;
// it is trusted only while each of those directories still has that stamp. Creating, removing
// or renaming an entry changes its directory's mtime and ctime, and ctime cannot be set back
// from user space; a mount over a directory changes its device or inode. So a socket, FIFO or
// device that appears after the scan invalidates the memo and the next call walks again.
// Checking the stamps of /usr's 17,000 directories costs ~110 ms against ~650 ms for the walk:
// one lstat per directory, which is nearly all of it, so a stamp is kept as one string
// ("dev ino mtimeNs ctimeNs path") that the check compares whole.
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

import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync, rmSync, type BigIntStats } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sha256Hex } from '../digest.ts'

/** One directory's stamp: "<dev> <ino> <mtimeNs> <ctimeNs> <path>", the numbers in decimal. */
export type DirStamp = string

interface ScanMemo { v: 2, root: string, dirs: DirStamp[] }

const STAMP = /^\d+ \d+ \d+ \d+ /

function stampPrefix (s: BigIntStats): string {
  return `${s.dev} ${s.ino} ${s.mtimeNs} ${s.ctimeNs} `
}

/** The stamp of directory `dir` now; undefined when it is gone or not a directory. */
export function stampOf (dir: string): DirStamp | undefined {
  const s = lstatSync(dir, { bigint: true, throwIfNoEntry: false })
  return s?.isDirectory() === true ? `${stampPrefix(s)}${dir}` : undefined
}

/** Where the memos of the current user live by default. */
export function defaultScanMemoDir (): string {
  return join(tmpdir(), `repairline-${process.geteuid?.() ?? 'user'}`, 'bind-scans')
}

function ownedAndClosed (path: string, want: 'dir' | 'file'): boolean {
  try {
    const s = lstatSync(path)
    const kindOk = want === 'dir' ? s.isDirectory() : s.isFile()
    return kindOk && s.uid === (process.geteuid?.() ?? s.uid) && (s.mode & 0o022) === 0
  } catch {
    return false
  }
}

function memoFile (memoDir: string, root: string): string {
  return join(memoDir, `${sha256Hex(root)}.json`)
}

function isStamp (x: unknown): x is DirStamp {
  return typeof x === 'string' && STAMP.test(x)
}

/** The path of a stamp that isStamp accepted: everything after the fourth space. */
function pathOf (stamp: DirStamp): string {
  let at = -1
  for (let n = 0; n < 4; n++) at = stamp.indexOf(' ', at + 1)
  return stamp.slice(at + 1)
}

function parseMemo (text: string, root: string): ScanMemo | undefined {
  let doc: unknown
  try { doc = JSON.parse(text) } catch { return undefined }
  if (typeof doc !== 'object' || doc === null) return undefined
  const m = doc as Partial<ScanMemo>
  if (m.v !== 2 || m.root !== root || !Array.isArray(m.dirs) || !m.dirs.every(isStamp) || m.dirs[0] === undefined || pathOf(m.dirs[0]) !== root) return undefined
  return m as ScanMemo
}

/** True when a memo of a clean scan of `root` exists and every directory stamp still holds. */
export function loadScanMemo (memoDir: string, root: string): boolean {
  const file = memoFile(memoDir, root)
  if (!ownedAndClosed(memoDir, 'dir') || !ownedAndClosed(file, 'file')) return false
  let text: string
  try { text = readFileSync(file, 'utf8') } catch { return false }
  const memo = parseMemo(text, root)
  if (memo === undefined) return false
  for (const stamp of memo.dirs) {
    const path = pathOf(stamp)
    const s = lstatSync(path, { bigint: true, throwIfNoEntry: false })
    if (s?.isDirectory() !== true) return false
    // path is the stamp's tail, so the stamp holds exactly when its head is today's numbers.
    const prefix = stampPrefix(s)
    if (stamp.length !== prefix.length + path.length || !stamp.startsWith(prefix)) return false
  }
  return true
}

/** How much older than the walk every directory's ctime must be for the walk to be remembered. */
export const RACY_MARGIN_MS = 1000

/** The stamp's ctime in milliseconds (its fourth number). */
function ctimeMsOf (stamp: DirStamp): number {
  return Number(stamp.split(' ', 4)[3]) / 1e6
}

/**
 * Records a clean scan of `root` that started at `walkStartedMs` (Date.now()), unless a
 * directory changed within RACY_MARGIN_MS of that start (its stamp could miss a change made
 * in the same clock tick). Best effort: a memo that is not written costs a walk next time.
 * Returns whether it was written.
 */
export function saveScanMemo (memoDir: string, root: string, dirs: DirStamp[], walkStartedMs: number): boolean {
  if (dirs.some(d => ctimeMsOf(d) >= walkStartedMs - RACY_MARGIN_MS)) return false
  try {
    mkdirSync(memoDir, { recursive: true, mode: 0o700 })
    if (!ownedAndClosed(memoDir, 'dir')) return false
    const file = memoFile(memoDir, root)
    const temp = `${file}.${process.pid}.tmp`
    const memo: ScanMemo = { v: 2, root, dirs }
    try {
      writeFileSync(temp, JSON.stringify(memo), { mode: 0o600, flag: 'wx' })
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
