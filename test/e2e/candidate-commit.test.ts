// End to end (issue 37): a verified attempt on a repository built here, with AGENTS.md at two
// levels and a CODEOWNERS file, through the driver. The candidate is a commit in
// candidate.bundle that a reviewer fetches into a clone of the source; its diff against
// source_sha is candidate.patch; the checkout's bytes, refs and index are the same before
// and after; the receipt reads back valid.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CandidateCommit, Receipt } from '@repairline/schemas'
import { readbackAttempt } from '@repairline/core'
import { NODE_FILES } from '../helpers/fixture.ts'
import { NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'
import { createRepo, gitT } from '../helpers/git.ts'
import { tempDir } from '../helpers/tmp.ts'

const p: Provider = await startProvider({ after })
p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)

/** The source repository of these tests: instructions at the root and in src/, and owners. */
export const OWNED_FILES = {
  ...NODE_FILES,
  'AGENTS.md': '# Agents\n\nRun the tests with node --test.\n',
  'src/AGENTS.md': '# src\n\nKeep functions pure.\n',
  'CONTRIBUTING.md': '# Contributing\n',
  '.github/CODEOWNERS': '# owners\n* @org/everyone\n/src/ @org/src-team\n*.js @org/js\n/src/calc.js @calc-owner @org/math\ndocs/\n',
}

/** Every file under `dir` (.git included) with the sha256 of its bytes: what "untouched" means. */
function contentSnapshot (dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel)).flatMap(name => {
    const p = rel === '' ? name : `${rel}/${name}`
    const st = lstatSync(join(dir, p))
    if (st.isDirectory()) return [`${p}/`, ...contentSnapshot(dir, p)]
    return [`${p} ${st.mode.toString(8)} ${createHash('sha256').update(readFileSync(join(dir, p))).digest('hex')}`]
  }).sort()
}

test('a verified attempt retains candidate.bundle: the branch fetches into a clone, its diff is candidate.patch, and the checkout is untouched', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node', files: OWNED_FILES })
  const before = contentSnapshot(f.repo)
  const refsBefore = await gitT(f.repo, ['for-each-ref', '--format=%(refname) %(objectname)'])
  const r = await driveChain(f)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified', r.stderr)
  const dir = r.attemptDir ?? ''
  assert.deepEqual(contentSnapshot(f.repo), before, 'the checkout (work tree and .git) is byte for byte what it was')
  assert.equal(await gitT(f.repo, ['for-each-ref', '--format=%(refname) %(objectname)']), refsBefore)

  const cand = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as CandidateCommit
  const id = dir.slice(-16)
  assert.equal(cand.ref, `refs/heads/repairline/${id}`)
  const receipt = JSON.parse(readFileSync(join(dir, 'receipt.json'), 'utf8')) as Receipt
  assert.equal(receipt.v, 2)
  assert.deepEqual(receipt.candidate, { ref: cand.ref, commit: cand.commit, tree: cand.tree, committed_at: cand.committed_at, bundle_sha256: cand.bundle.sha256 })
  assert.equal(receipt.files.find(x => x.path === 'candidate.bundle')?.sha256, cand.bundle.sha256)
  // The instruction files of src/calc.js, root first, and the CODEOWNERS line that wins (the
  // last that matches: /src/calc.js, not *.js, /src/ or *), each from the blobs at source_sha.
  const blob = (path: string): string => createHash('sha256').update(OWNED_FILES[path as keyof typeof OWNED_FILES]).digest('hex')
  assert.deepEqual(receipt.repository, {
    codeowners: { path: '.github/CODEOWNERS', sha256: blob('.github/CODEOWNERS') },
    paths: [{
      path: 'src/calc.js',
      instructions: ['AGENTS.md', 'CONTRIBUTING.md', 'src/AGENTS.md'].map(path => ({ path, sha256: blob(path) })),
      owners: { file: '.github/CODEOWNERS', line: 5, pattern: '/src/calc.js', owners: ['@calc-owner', '@org/math'] },
    }],
  })
  assert.equal(receipt.operator_work?.status, 'unchanged')
  assert.equal(receipt.operator_work.admitted_sha256, receipt.operator_work.sealed_sha256)
  assert.deepEqual(receipt.operator_work.changed_paths, [])

  // What a reviewer does: fetch the branch from the bundle into a clone, and read it.
  const clone = join(tempDir(t), 'clone')
  await gitT(f.dir, ['clone', '-q', f.repo, clone])
  await gitT(clone, ['fetch', '-q', join(dir, 'candidate.bundle'), `repairline/${id}:repairline/${id}`])
  assert.equal((await gitT(clone, ['rev-parse', `repairline/${id}`])).trim(), cand.commit)
  assert.equal((await gitT(clone, ['rev-parse', `repairline/${id}^`])).trim(), f.sha)
  const diff = await gitT(clone, ['diff', '--full-index', f.sha, `repairline/${id}`])
  assert.equal(diff, readFileSync(join(dir, 'candidate.patch'), 'utf8'))
  const log = await gitT(clone, ['log', '-1', '--format=%an <%ae>|%cn <%ce>|%at|%B', `repairline/${id}`])
  const [author, committer, at, message] = log.split('|')
  assert.equal(author, 'repairline <repairline@invalid>')
  assert.equal(committer, 'repairline <repairline@invalid>')
  assert.equal(Number(at) * 1000, Date.parse(cand.committed_at))
  assert.match(message ?? '', new RegExp(`^${NODE_FIX_PROPOSAL.summary.change.replace(/[.+]/g, '\\$&')}\n`))
  assert.match(message ?? '', new RegExp(`\n\nRepairline-Attempt: ${r.outcome?.attempt_key ?? '?'}\n`))
  assert.equal((await gitT(clone, ['bundle', 'verify', '-q', join(dir, 'candidate.bundle')])).trim(), '')

  const rb = await readbackAttempt(dir)
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
  // Given the source repository, readback also runs git bundle verify there, which writes nothing.
  const withSource = await readbackAttempt(dir, { source: f.repo })
  assert.equal(withSource.valid, true, JSON.stringify(withSource.findings))
  assert.deepEqual(contentSnapshot(f.repo), before)
  // A repository without source_sha cannot complete the bundle: BUNDLE_UNVERIFIED.
  const other = join(tempDir(t), 'other')
  await createRepo(other, { 'README.md': 'another project\n' })
  const unverified = await readbackAttempt(dir, { source: other })
  assert.deepEqual(unverified.findings.filter(x => x.severity === 'error').map(x => x.code), ['BUNDLE_UNVERIFIED'])
})

test('an untracked file written in the checkout during the attempt is reported as changed operator work: a notice, not a failure', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node', files: OWNED_FILES })
  // The operator writes a note while the provider is being asked (admit has read the checkout by then).
  const onRequest = (): void => { writeFileSync(join(f.repo, 'notes', 'todo.txt'), 'look at add\n', { flag: 'w' }) }
  mkdirSync(join(f.repo, 'notes'))
  p.server.once('request', onRequest)
  t.after(() => { p.server.off('request', onRequest) })
  const r = await driveChain(f)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified', r.stderr)
  const dir = r.attemptDir ?? ''
  const receipt = JSON.parse(readFileSync(join(dir, 'receipt.json'), 'utf8')) as Receipt
  assert.equal(receipt.operator_work?.status, 'changed')
  assert.deepEqual(receipt.operator_work.changed_paths, ['notes/todo.txt'])
  assert.equal(receipt.operator_work.head_changed, false)
  assert.equal(receipt.operator_work.index_changed, false)
  assert.notEqual(receipt.operator_work.admitted_sha256, receipt.operator_work.sealed_sha256)
  // The driver keeps each step's stderr in logs/.
  assert.match(readFileSync(join(dir, 'logs', 'seal.stderr'), 'utf8'), /receipt: notice: the checkout's operator work changed during the attempt \(notes\/todo\.txt\); repairline did not write there/)
  const rb = await readbackAttempt(dir)
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
  assert.deepEqual(rb.findings.map(x => `${x.code} ${x.severity}`), ['OPERATOR_WORK_CHANGED notice'])
})
