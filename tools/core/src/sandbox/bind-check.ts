// Bind sources are checked before every spawn (DESIGN §11). A network namespace does not
// isolate path unix sockets: a socket anywhere under a bind source stays connectable from
// inside the sandbox (measured: threat matrix S3). A FIFO reaches a host reader or writer,
// and a device node is a door to the host kernel (binds are nodev, but we refuse anyway).
// So a bind source must hold none of them, and the sandbox user must be able to reach it.
//
// System directories (/usr, Node's prefix, GOROOT) are large (150,000 entries under /usr on
// the CI image: a 650 ms walk) and change only with package installs. Their clean scan is
// remembered for the life of the process and, across processes, in a directory snapshot
// (see bind-scan-memo.ts) that is trusted only while every directory under the source keeps
// its device, inode, mtime and ctime. Every other source (work trees, the GOCACHE copy, the
// reporter, module and dependency caches) is walked in full on every call.

import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs'
import { dirname, join } from 'node:path'
import { toolError } from '../errors.ts'
import { loadScanMemo, saveScanMemo, stampOf, type DirStamp } from './bind-scan-memo.ts'

export interface BindViolation { path: string, kind: 'socket' | 'fifo' | 'block device' | 'char device' | 'unreadable' | 'missing' }

const systemScans = new Map<string, BindViolation[]>()

function kindOf (e: Dirent | Stats): BindViolation['kind'] | undefined {
  if (e.isSocket()) return 'socket'
  if (e.isFIFO()) return 'fifo'
  if (e.isBlockDevice()) return 'block device'
  if (e.isCharacterDevice()) return 'char device'
  return undefined
}

/**
 * Walks `root` without following symlinks; returns up to `max` special files under it.
 * With `dirs`, also records the stamp of every directory walked (for the memo).
 */
export function scanSpecialFiles (root: string, max = 16, dirs?: DirStamp[]): BindViolation[] {
  const found: BindViolation[] = []
  let st: Stats
  try { st = lstatSync(root) } catch { return [{ path: root, kind: 'missing' }] }
  const k = kindOf(st)
  if (k !== undefined) return [{ path: root, kind: k }]
  if (!st.isDirectory()) return []
  const stack = [root]
  while (stack.length > 0 && found.length < max) {
    const dir = stack.pop() as string
    let entries: Dirent[]
    try {
      // The stamp before the listing: an entry made after the listing changes the stamp.
      if (dirs !== undefined) {
        const stamp = stampOf(dir)
        if (stamp === undefined) throw new Error('not a directory any more')
        dirs.push(stamp)
      }
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      found.push({ path: dir, kind: 'unreadable' })
      continue
    }
    for (const e of entries) {
      const p = join(dir, e.name)
      let kind = kindOf(e)
      let isDir = e.isDirectory()
      if (!isDir && kind === undefined && !e.isFile() && !e.isSymbolicLink()) {
        // DT_UNKNOWN on some filesystems: ask lstat.
        const s = lstatSync(p)
        kind = kindOf(s)
        isDir = s.isDirectory()
      }
      if (kind !== undefined) {
        found.push({ path: p, kind })
        if (found.length >= max) break
      } else if (isDir) {
        stack.push(p)
      }
    }
  }
  return found
}

/**
 * A system directory's clean scan, from this process, the memo on disk (held, as the
 * or a fresh walk.
 */
function scanSystemDir (path: string, memoDir: string | undefined): { found: BindViolation[], walked: boolean } {
  const known = systemScans.get(path)
  if (known !== undefined) return { found: known, walked: false }
  if (memoDir !== undefined && loadScanMemo(memoDir, path)) {
    systemScans.set(path, [])
    return { found: [], walked: false }
  }
  const dirs: DirStamp[] = []
  const walkStartedMs = Date.now()
  const found = scanSpecialFiles(path, 16, memoDir === undefined ? undefined : dirs)
  systemScans.set(path, found)
  if (found.length === 0 && memoDir !== undefined) saveScanMemo(memoDir, path, dirs, walkStartedMs)
  return { found, walked: true }
}

/** Forgets this process's scans of system directories (tests: a fresh process). */
export function forgetSystemScans (): void {
  systemScans.clear()
}

/** Why uid/gid cannot reach and read `path` (every ancestor searchable, the path readable), or undefined. */
export function unreachableBy (path: string, uid: number, gid: number): string | undefined {
  const allows = (s: Stats, bits: number): boolean => {
    if (uid === 0) return true
    if (s.uid === uid) return ((s.mode >> 6) & bits) === bits
    if (s.gid === gid) return ((s.mode >> 3) & bits) === bits
    return (s.mode & bits) === bits
  }
  let st: Stats
  try { st = statSync(path) } catch { return 'does not exist' }
  if (!allows(st, st.isDirectory() ? 5 : 4)) return `is not readable by uid ${uid}`
  for (let p = dirname(path); ; p = dirname(p)) {
    const a = statSync(p)
    if (!allows(a, 1)) return `has an ancestor ${p} that uid ${uid} cannot search`
    if (p === '/') break
  }
  return undefined
}

export interface BindSource { path: string, system?: boolean }

/**
 * Refuses (SANDBOX_BIND_UNSAFE) when any bind source holds a socket, FIFO or device, is
 * missing, or cannot be reached by the sandbox user. Returns how many sources were walked,
 * how many system directories were taken from this process's scans or the memo in `memoDir`
 * (undefined: no memo on disk).
 */
export function assertBindSourcesSafe (sources: readonly BindSource[], uid: number, gid: number, memoDir?: string): { walked: number, remembered: number } {
  let walked = 0
  let remembered = 0
  for (const s of sources) {
    const why = unreachableBy(s.path, uid, gid)
    if (why !== undefined) {
      throw toolError('SANDBOX_BIND_UNSAFE', `bind source ${s.path} ${why}`, { path: s.path, hint: `everything the sandbox mounts must be readable by uid ${uid}: directories o+rx, files o+r, every ancestor o+x` })
    }
    let found: BindViolation[]
    if (s.system === true && sources.some(o => o.system === true && s.path.startsWith(`${o.path}/`))) {
      // Inside another system source, whose walk descends into every subdirectory (mount
      // points included): GOROOT or Node's prefix under /usr costs no second check.
      found = []
      remembered++
    } else if (s.system === true) {
      const r = scanSystemDir(s.path, memoDir)
      found = r.found
      if (r.walked) walked++
      else remembered++
    } else {
      found = scanSpecialFiles(s.path)
      walked++
    }
    if (found.length > 0) {
      const list = found.slice(0, 4).map(f => `${f.path} (${f.kind})`).join(', ')
      throw toolError('SANDBOX_BIND_UNSAFE', `bind source ${s.path} holds ${found.length === 1 ? 'a special file' : 'special files'}: ${list}`, {
        path: found[0]?.path ?? s.path,
        hint: 'a socket, FIFO or device under a mounted directory reaches the host from inside the sandbox; remove it or mount another directory',
      })
    }
  }
  return { walked, remembered }
}
