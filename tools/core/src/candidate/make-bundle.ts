// Makes candidate.bundle with git plumbing, in a scratch repository inside the attempt
// (work/candidate-git, never sealed). The scratch repository reads the source's objects
// through objects/info/alternates and writes its own (the changed blobs, their trees, the
// commit) into its own object store: nothing is written into the source repository, and the
// operator's checkout, refs, index and config are never opened for writing. Every git runs
// under core's hermetic environment (git.ts); the identity and dates are fixed by
// environment, the message is given on stdin, so nothing of the operator's config enters.
// The commit git makes must be the one expectedCandidate computes from bytes, or readback
// could not recompute it: a disagreement is INTERNAL, never a bundle.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Attempt } from '../attempt-dir.ts'
import { ensureDir } from '../atomic.ts'
import { toolError } from '../errors.ts'
import { gitOk, repoInfo } from '../git.ts'
import { openTreeReader } from '../tree-archive/index.ts'
import type { Proposal } from '@repairline/schemas'
import { CANDIDATE_EMAIL, CANDIDATE_NAME, candidateRef, commitSeconds, expectedCandidate, parseBundleHeader, type CandidateFileBytes } from './candidate.ts'

export const SCRATCH_REPO = 'candidate-git'

export interface MadeCandidate {
  bundle: Buffer
  commit: string
  tree: string
  ref: string
  /** The commit's date, whole seconds, as an ISO timestamp. */
  committedAt: string
}

/**
 * Commits `changed` on top of source_sha at `at` (the gate's decision time) and bundles it:
 * the bundle's bytes and what they hold. Writes only under work/candidate-git.
 */
export async function makeCandidateBundle (attempt: Attempt, changed: readonly CandidateFileBytes[], summary: Proposal['summary'], at: Date): Promise<MadeCandidate> {
  const sourceSha = attempt.config.source_sha
  const seconds = commitSeconds(at)
  const want = expectedCandidate({ entries: openTreeReader(attempt.dir).manifest.entries, changed, sourceSha, summary, key: attempt.key, seconds })
  const work = join(attempt.dir, 'work')
  ensureDir(attempt.stateRoot, work, 0o755)
  const repo = join(work, SCRATCH_REPO)
  rmSync(repo, { recursive: true, force: true })
  mkdirSync(repo, { mode: 0o700 })
  const what = 'the candidate commit'
  const g = async (args: readonly string[], opts: { input?: Uint8Array | string, env?: Record<string, string> } = {}): Promise<string> =>
    (await gitOk(repo, args, what, 'GIT_FAILED', opts)).toString('utf8').trim()
  await g(['init', '-q', '--template=', '--object-format=sha1'])
  const source = await repoInfo(attempt.config.source_root)
  // Read-only borrowing of the source's objects: git never writes into an alternate.
  writeFileSync(join(repo, '.git', 'objects', 'info', 'alternates'), `${join(source.commonDir, 'objects')}\n`)
  await g(['read-tree', sourceSha])
  let index = ''
  for (const f of changed) {
    const blob = await g(['hash-object', '-w', '--stdin'], { input: f.bytes })
    if (blob !== want.blobs.get(f.path)) throw toolError('INTERNAL', `${what}: git hashed ${f.path} to ${blob}, expected ${want.blobs.get(f.path) ?? '?'}`)
    index += `${f.mode} ${blob}\t${f.path}\0`
  }
  await g(['update-index', '-z', '--index-info'], { input: index })
  const tree = await g(['write-tree'])
  const date = `@${seconds} +0000`
  const env = { GIT_AUTHOR_NAME: CANDIDATE_NAME, GIT_AUTHOR_EMAIL: CANDIDATE_EMAIL, GIT_AUTHOR_DATE: date, GIT_COMMITTER_NAME: CANDIDATE_NAME, GIT_COMMITTER_EMAIL: CANDIDATE_EMAIL, GIT_COMMITTER_DATE: date }
  const commit = await g(['commit-tree', tree, '-p', sourceSha], { input: want.body.subarray(want.body.indexOf('\n\n') + 2), env })
  if (tree !== want.tree || commit !== want.commit) throw toolError('INTERNAL', `${what}: git made tree ${tree} and commit ${commit}; the recomputation gives ${want.tree} and ${want.commit}`)
  const ref = candidateRef(attempt.key)
  await g(['update-ref', ref, commit])
  const out = join(repo, 'candidate.bundle')
  await g(['-c', 'pack.threads=1', 'bundle', 'create', '-q', out, ref, `^${sourceSha}`])
  const bundle = readFileSync(out)
  const header = parseBundleHeader(bundle)
  if (typeof header === 'string' || header.refs.length !== 1 || header.refs[0]?.name !== ref || header.refs[0].id !== commit || header.prerequisites.map(p => p.id).join() !== sourceSha) {
    throw toolError('INTERNAL', `${what}: git bundle create wrote an unexpected header (${typeof header === 'string' ? header : JSON.stringify({ refs: header.refs, prerequisites: header.prerequisites })})`)
  }
  return { bundle, commit, tree, ref, committedAt: new Date(seconds * 1000).toISOString() }
}
