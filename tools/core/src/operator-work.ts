// The operator's work in the checkout (issue 37, seed 003's "byte-stable pre-existing operator
// work"): a digest of HEAD, the index, `git status --porcelain=v2 -z` (ignored files
// excluded) and the bytes of every file that status names, taken by admit and again by seal.
// Equal, the receipt says `unchanged`; different, it names what changed (paths only) and says
// repairline did not write there — a notice about the operator's checkout, never a failure of
// the candidate. Reads only: git runs hermetically with optional locks off (it never
// refreshes the index) and with the repository's filter drivers disabled, as assertClean does.
//
// The index is digested as `git ls-files --stage -z` (mode, blob id, stage and path of each
// entry), not as the file's bytes: those hold a stat cache that the operator's own
// `git status` rewrites without changing what is staged.

import { lstatSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { jcsSha256, sha256File, sha256Hex } from './digest.ts'
import { disableFilters, filterDrivers, git, gitFailure, gitOk } from './git.ts'
import { toolError } from './errors.ts'
import type { OperatorWork, OperatorWorkFile } from '@repairline/schemas'

export type { OperatorWork, OperatorWorkFile }

/** How many leading space-separated fields precede the path in each porcelain v2 record kind. */
const FIELDS_BEFORE_PATH: Record<string, number> = { 1: 8, 2: 9, u: 10, '?': 1, '!': 1 }

/** The paths of `git status --porcelain=v2 -z` output (a rename's original path too). */
export function statusPaths (out: Buffer): string[] {
  const records = out.toString('utf8').split('\0')
  const paths: string[] = []
  for (let i = 0; i < records.length; i++) {
    const r = records[i] ?? ''
    if (r === '' || r.startsWith('#')) continue
    const n = FIELDS_BEFORE_PATH[r.slice(0, 1)]
    if (n === undefined) throw toolError('GIT_FAILED', `git status printed a record of unknown kind: ${JSON.stringify(r.slice(0, 80))}`)
    let at = 0
    for (let k = 0; k < n; k++) at = r.indexOf(' ', at) + 1
    paths.push(r.slice(at))
    // A rename or copy is followed by its original path as a record of its own.
    if (r.startsWith('2 ')) paths.push(records[++i] ?? '')
  }
  return paths
}

function fileState (root: string, path: string): string {
  const abs = join(root, path)
  const st = lstatSync(abs, { throwIfNoEntry: false })
  if (st === undefined) return 'absent'
  if (st.isSymbolicLink()) return sha256Hex(readlinkSync(abs, { encoding: 'buffer' }))
  if (st.isDirectory()) return 'directory'
  if (!st.isFile()) return 'special'
  return sha256File(abs).sha256
}

/** The checkout's operator work now. Reads only. */
export async function readOperatorWork (root: string): Promise<OperatorWork> {
  const what = `source_root ${root}`
  const [drivers, symbolic, id, index] = await Promise.all([
    filterDrivers(root),
    git(root, ['symbolic-ref', '-q', 'HEAD']),
    git(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']),
    gitOk(root, ['ls-files', '--stage', '-z'], what, 'GIT_FAILED', { maxBuffer: 1 << 30 }),
  ])
  if (symbolic.spawnError !== undefined || symbolic.timedOut) throw toolError('GIT_FAILED', `${what}: git symbolic-ref failed: ${gitFailure(symbolic)}`)
  const head = `${symbolic.exitCode === 0 ? symbolic.stdout.toString('utf8').trim() : 'detached'} ${id.exitCode === 0 ? id.stdout.toString('utf8').trim() : 'unborn'}`
  const status = await gitOk(root, [...disableFilters(drivers), 'status', '--porcelain=v2', '-z', '--untracked-files=all', '--ignored=no', '--ignore-submodules=dirty'], what, 'GIT_FAILED', { maxBuffer: 1 << 30 })
  const files = [...new Set(statusPaths(status))].sort().map(path => ({ path, state: fileState(root, path) }))
  const fields = { head, index_sha256: sha256Hex(index), status_sha256: sha256Hex(status), files }
  return { sha256: jcsSha256(fields), ...fields }
}

export interface OperatorWorkChange {
  head: boolean
  index: boolean
  /** Paths whose state differs (present at one reading only included), sorted. */
  paths: string[]
}

/** What differs between two readings (no paths when only HEAD or the index moved). */
export function operatorWorkChange (before: OperatorWork, after: OperatorWork): OperatorWorkChange {
  const a = new Map(before.files.map(f => [f.path, f.state]))
  const b = new Map(after.files.map(f => [f.path, f.state]))
  const paths = [...new Set([...a.keys(), ...b.keys()])].filter(p => a.get(p) !== b.get(p)).sort()
  return { head: before.head !== after.head, index: before.index_sha256 !== after.index_sha256, paths }
}
