// The tree at source_sha as `git ls-tree -r -z --long` lists it, and the bounds and path
// rules of DESIGN §8 checked from that listing alone — before any blob body is read. admit
// runs this cheap check so most unsafe trees are refused before the key is consumed;
// extract-tree runs it again and then rehashes every blob it streams.

import { isUtf8 } from 'node:buffer'
import { toolError, type ErrorCode } from './errors.ts'
import { gitOk } from './git.ts'
import { boundViolations } from './tree-rules/bounds.ts'
import { PathCollisions } from './tree-rules/collisions.ts'
import { entryKindViolation } from './tree-rules/entry-kind.ts'
import { isInNodeModules } from './tree-rules/node-modules.ts'
import { unsafePathReason } from './tree-rules/path-safety.ts'

export { MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './tree-rules/bounds.ts'
export { compareUtf8, foldPath } from './tree-rules/collisions.ts'
export { isDotGitAlias, MAX_COMPONENT_BYTES, MAX_PATH_BYTES, unsafePathReason } from './tree-rules/path-safety.ts'

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

/** Parses `ls-tree -r -z --long` output. Paths that are not valid UTF-8 become violations. */
export function parseLsTree (out: Buffer): { entries: TreeEntry[], violations: TreeViolation[] } {
  const entries: TreeEntry[] = []
  const violations: TreeViolation[] = []
  let start = 0
  // Each record: <mode> SP <type> SP <oid> SP <size, padded> TAB <path> NUL.
  while (start < out.length) {
    let end = out.indexOf(0, start)
    if (end === -1) end = out.length
    const tab = out.indexOf(9, start)
    const sp1 = out.indexOf(32, start)
    const sp2 = sp1 === -1 ? -1 : out.indexOf(32, sp1 + 1)
    const sp3 = sp2 === -1 ? -1 : out.indexOf(32, sp2 + 1)
    if (tab === -1 || tab > end || sp3 === -1 || sp3 > tab) throw toolError('GIT_FAILED', `unexpected ls-tree output: ${JSON.stringify(out.toString('latin1', start, Math.min(end, start + 120)))}`)
    const mode = out.toString('latin1', start, sp1)
    const type = out.toString('latin1', sp1 + 1, sp2)
    const oid = out.toString('latin1', sp2 + 1, sp3)
    if (!/^[0-7]{5,6}$/.test(mode) || !/^[0-9a-f]{40}$/.test(oid)) throw toolError('GIT_FAILED', `unexpected ls-tree output: ${JSON.stringify(out.toString('latin1', start, tab))}`)
    // Digits, or "-" for entries without a size (gitlinks); git prints "BAD" for a blob it cannot read.
    let size = 0
    let digits = 0
    for (let i = sp3 + 1; i < tab; i++) {
      const c = out[i] ?? 0
      if (c === 0x20 && digits === 0) continue
      if (c < 0x30 || c > 0x39 || digits >= 15) { size = -1; break }
      size = size * 10 + (c - 0x30)
      digits++
    }
    if (digits === 0) size = -1
    const raw = out.subarray(tab + 1, end)
    start = end + 1
    if (!isUtf8(raw)) {
      const shown = raw.toString('latin1')
      violations.push({ code: 'TREE_PATH_UNSAFE', path: shown, message: `path ${JSON.stringify(shown)} is not valid UTF-8` })
      continue
    }
    entries.push({ mode, type, oid, size, path: raw.toString('utf8') })
  }
  return { entries, violations }
}

/**
 * Checks a listing against every rule of DESIGN §8 (one rule per file in tree-rules/);
 * returns all violations, bounds first, then listing order.
 */
export function checkTreeListing (entries: readonly TreeEntry[]): { violations: TreeViolation[], blobCount: number, blobBytes: number } {
  const violations: TreeViolation[] = []
  const collisions = new PathCollisions()
  let blobCount = 0
  let blobBytes = 0
  for (const e of entries) {
    const reason = unsafePathReason(e.path)
    if (reason !== undefined) violations.push({ code: 'TREE_PATH_UNSAFE', path: e.path, message: `unsafe path ${JSON.stringify(e.path)}: ${reason}` })
    const kind = entryKindViolation(e)
    if (kind !== undefined) violations.push({ ...kind, path: e.path })
    if (isInNodeModules(e.path)) violations.push({ code: 'TREE_NODE_MODULES', path: e.path, message: `${e.path} is tracked inside node_modules, the dependency mount point` })
    violations.push(...collisions.add(e.path))
    if (e.type === 'blob' && e.size >= 0) {
      blobCount++
      blobBytes += e.size
    }
  }
  violations.unshift(...boundViolations(blobCount, blobBytes).map(v => ({ ...v, path: '' })))
  return { violations, blobCount, blobBytes }
}

/** Lists the commit's tree; returns entries and all violations (sizes only, no blob read). A blob whose size git cannot read is GIT_FAILED. */
export async function listTree (root: string, sha: string): Promise<TreeListing & { violations: TreeViolation[] }> {
  const out = await gitOk(root, ['ls-tree', '-r', '-z', '--long', '--full-tree', sha], `ls-tree ${sha}`, 'SOURCE_SHA_UNKNOWN', { maxBuffer: 256 << 20 })
  const parsed = parseLsTree(out)
  // A blob whose size ls-tree could not read: the store is incomplete.
  const unreadable = parsed.entries.find(e => e.type === 'blob' && e.size < 0)
  if (unreadable !== undefined) {
    throw toolError('GIT_FAILED', `blob ${unreadable.oid} of ${unreadable.path} is missing from the repository`, { path: unreadable.path, hint: 'the object store is incomplete; run git fsck in source_root' })
  }
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
