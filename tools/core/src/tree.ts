// The tree at source_sha as `git ls-tree -r -z --long` lists it, and the bounds and path
// rules of DESIGN §8 checked from that listing alone — before any blob body is read. admit
// runs this cheap check so most unsafe trees are refused before the key is consumed;
// extract-tree runs it again and then rehashes every blob it streams.

import { toolError, type ErrorCode } from './errors.ts'
import { gitOk } from './git.ts'

export const MAX_TREE_ENTRIES = 20_000
export const MAX_TREE_BYTES = 16 * 1024 * 1024

export interface TreeEntry {
  /** Octal mode as git prints it: 100644 or 100755 for the files we accept. */
  mode: string
  type: string
  oid: string
  /** Blob size in bytes; -1 for entries without one (gitlinks). */
  size: number
  path: string
}

export interface TreeListing {
  entries: TreeEntry[]
  blobCount: number
  blobBytes: number
}

export interface TreeViolation { code: ErrorCode, path: string, message: string }

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Parses `ls-tree -r -z --long` output. Paths that are not valid UTF-8 become violations. */
export function parseLsTree (out: Buffer): { entries: TreeEntry[], violations: TreeViolation[] } {
  const entries: TreeEntry[] = []
  const violations: TreeViolation[] = []
  let start = 0
  while (start < out.length) {
    let end = out.indexOf(0, start)
    if (end === -1) end = out.length
    const rec = out.subarray(start, end)
    start = end + 1
    const tab = rec.indexOf(9)
    if (tab === -1) throw toolError('INTERNAL', 'unexpected ls-tree output: no tab')
    const meta = rec.subarray(0, tab).toString('latin1').trim().split(/ +/)
    const [mode = '', type = '', oid = '', sizeText = ''] = meta
    let path: string
    try {
      path = utf8.decode(rec.subarray(tab + 1))
    } catch {
      const shown = rec.subarray(tab + 1).toString('latin1')
      violations.push({ code: 'TREE_PATH_UNSAFE', path: shown, message: `path ${JSON.stringify(shown)} is not valid UTF-8` })
      continue
    }
    entries.push({ mode, type, oid, size: sizeText === '-' ? -1 : Number(sizeText), path })
  }
  return { entries, violations }
}

// Bidirectional-override and isolate controls can make a path read differently than it is.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u

/** Why a path is unsafe, or undefined when it is fine (DESIGN §8). */
export function unsafePathReason (path: string): string | undefined {
  if (path === '') return 'empty path'
  if (path.startsWith('/')) return 'absolute path'
  if (CONTROL.test(path)) return 'control character'
  if (BIDI.test(path)) return 'bidirectional control character'
  if (path.includes('\\')) return 'backslash'
  for (const part of path.split('/')) {
    if (part === '') return 'empty component'
    if (part === '.' || part === '..') return `"${part}" component`
    // .git in any case, and the aliases Windows and macOS resolve to it (CVE-2014-9390).
    const folded = part.toLowerCase().replace(/[. ]+$/u, '')
    if (folded === '.git' || folded === 'git~1') return '.git component'
  }
  return undefined
}

/** Checks a listing against every rule; returns all violations, listing order. */
export function checkTreeListing (entries: readonly TreeEntry[]): { violations: TreeViolation[], blobCount: number, blobBytes: number } {
  const violations: TreeViolation[] = []
  const seen = new Map<string, string>()
  const dirs = new Map<string, string>()
  let blobCount = 0
  let blobBytes = 0
  for (const e of entries) {
    const reason = unsafePathReason(e.path)
    if (reason !== undefined) violations.push({ code: 'TREE_PATH_UNSAFE', path: e.path, message: `unsafe path ${JSON.stringify(e.path)}: ${reason}` })
    if (e.mode === '120000') violations.push({ code: 'TREE_SYMLINK', path: e.path, message: `${e.path} is a symlink` })
    else if (e.mode === '160000') violations.push({ code: 'TREE_GITLINK', path: e.path, message: `${e.path} is a gitlink (submodule)` })
    else if ((e.mode !== '100644' && e.mode !== '100755') || e.type !== 'blob') violations.push({ code: 'TREE_MODE_UNSUPPORTED', path: e.path, message: `${e.path} has mode ${e.mode} (${e.type}); only regular files are accepted` })
    if (e.path.split('/').includes('node_modules')) violations.push({ code: 'TREE_NODE_MODULES', path: e.path, message: `${e.path} is tracked inside node_modules, the dependency mount point` })
    const folded = e.path.toLowerCase()
    const prior = seen.get(folded) ?? dirs.get(folded)
    if (prior !== undefined) violations.push({ code: 'TREE_PATH_DUPLICATE', path: e.path, message: prior === e.path ? `${e.path} appears twice` : `${e.path} and ${prior} differ only in case` })
    else seen.set(folded, e.path)
    const parts = e.path.split('/')
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      const dirFolded = dir.toLowerCase()
      const file = seen.get(dirFolded)
      if (file !== undefined && file !== e.path) violations.push({ code: 'TREE_PATH_DUPLICATE', path: e.path, message: `${dir} is both a file (${file}) and a directory` })
      const priorDir = dirs.get(dirFolded)
      if (priorDir === undefined) dirs.set(dirFolded, dir)
      else if (priorDir !== dir) violations.push({ code: 'TREE_PATH_DUPLICATE', path: e.path, message: `directories ${dir} and ${priorDir} differ only in case` })
    }
    if (e.type === 'blob' && e.size >= 0) {
      blobCount++
      blobBytes += e.size
    }
  }
  if (blobCount > MAX_TREE_ENTRIES) violations.unshift({ code: 'TREE_TOO_MANY_ENTRIES', path: '', message: `the tree has ${blobCount} blob entries; the bound is ${MAX_TREE_ENTRIES}` })
  if (blobBytes > MAX_TREE_BYTES) violations.unshift({ code: 'TREE_TOO_LARGE', path: '', message: `the tree has ${blobBytes} bytes of blobs; the bound is ${MAX_TREE_BYTES} (16 MiB of reviewed, owned source)` })
  return { violations, blobCount, blobBytes }
}

/** Lists the commit's tree; returns entries and all violations (sizes only, no blob read). */
export async function listTree (root: string, sha: string): Promise<TreeListing & { violations: TreeViolation[] }> {
  const out = await gitOk(root, ['ls-tree', '-r', '-z', '--long', '--full-tree', sha], `ls-tree ${sha}`, 'SOURCE_SHA_UNKNOWN', { maxBuffer: 256 << 20 })
  const parsed = parseLsTree(out)
  const checked = checkTreeListing(parsed.entries)
  return { entries: parsed.entries, blobCount: checked.blobCount, blobBytes: checked.blobBytes, violations: [...parsed.violations, ...checked.violations] }
}

/** Throws the first violation as a typed error that also says how many there are. */
export function assertNoViolations (violations: readonly TreeViolation[], exit?: 1): void {
  const first = violations[0]
  if (first === undefined) return
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''
  throw toolError(first.code, `${first.message}${more}`, { path: first.path, ...(exit === undefined ? {} : { exit }) })
}
