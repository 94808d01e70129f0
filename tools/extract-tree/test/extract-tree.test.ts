// extract-tree in process (index.ts with fake I/O) on real admitted fixtures: the files and
// records of a good extraction, determinism, rejected and fault outcomes with nothing
// written, the step protocol (existing outcome, lost lock, deadline) and --check.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { parseDocument, readTreeFile, readTreeManifest, writeOutcome, readOutcome, releaseLock } from '@repairline/core'
import { snapshot } from '../../../test/helpers/snapshot.ts'
import { makeFixture, rewriteConfig, type Fixture } from '../../../test/helpers/fixture.ts'
import { admitDirect, type DirectAttempt } from '../../../test/helpers/admit-direct.ts'
import { runInProcess, type InProcessRun } from '../../../test/helpers/in-process.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { gitT } from '../../../test/helpers/git.ts'
import { commitWithExtra, hashBlob, loosePath } from '../../../test/helpers/trees.ts'
import { extractTree } from '../src/index.ts'

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')

async function admitted (t: TestContext, runner: 'go' | 'node' = 'go'): Promise<{ f: Fixture, a: DirectAttempt }> {
  const f = await makeFixture(tempDir(t), { runner })
  return { f, a: await admitDirect(f) }
}

async function extract (dir: string, o: { check?: boolean, now?: Date, env?: Record<string, string> } = {}): Promise<InProcessRun> {
  return await runInProcess('extract-tree', async io => await extractTree({ attempt: dir, check: o.check ?? false }, io), { ...(o.now === undefined ? {} : { now: o.now }), ...(o.env === undefined ? {} : { env: o.env }) })
}

test('a clean go fixture: tree.tar and tree-manifest.json written, records in order, digests agree', async t => {
  const { f, a } = await admitted(t)
  const r = await extract(a.dir)
  assert.equal(r.exit, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'tree', 'result'])
  const tar = readFileSync(join(a.dir, 'tree.tar'))
  const manifestBytes = readFileSync(join(a.dir, 'tree-manifest.json'))
  const manifest = parseDocument('tree-manifest', manifestBytes, 'tree-manifest.json')
  const rec = r.records[2]
  assert.ok(rec?.kind === 'tree')
  assert.deepEqual(rec, { v: 1, kind: 'tree', source_sha: f.sha, entries: 4, bytes: manifest.total_bytes, tar_bytes: tar.length, tar_sha256: sha256(tar), manifest_sha256: sha256(manifestBytes) })
  assert.equal(manifest.attempt_key, a.key)
  assert.deepEqual(manifest.entries.map(e => e.path), ['.repairline/registers.json', 'calc.go', 'calc_test.go', 'go.mod'])
  assert.equal(readTreeFile(a.dir, 'calc.go').toString(), readFileSync(join(f.repo, 'calc.go'), 'utf8'))
  assert.equal(statSync(join(a.dir, 'tree.tar')).mode & 0o777, 0o644)
  assert.deepEqual(readdirSync(a.dir).filter(n => n.includes('.tmp-')), [], 'no temp file is left')
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false)
  assert.match(r.stderr, /^extract-tree: extracted 4 files/)
})

test('same commit, two attempts and a rerun: byte-identical tree.tar, manifests differ only in the key', async t => {
  const { f, a } = await admitted(t)
  assert.equal((await extract(a.dir)).exit, 0)
  const tar1 = readFileSync(join(a.dir, 'tree.tar'))
  const man1 = readFileSync(join(a.dir, 'tree-manifest.json'))
  // A rerun of the step on the same attempt rewrites the same bytes.
  assert.equal((await extract(a.dir)).exit, 0)
  assert.ok(readFileSync(join(a.dir, 'tree.tar')).equals(tar1))
  assert.ok(readFileSync(join(a.dir, 'tree-manifest.json')).equals(man1))
  // Another attempt (another case, so another key) of the same commit.
  releaseLock(a.stateRoot, a.key, a.dir)
  const g = { ...f, report: { ...f.report, cases: [{ ...f.report.cases[0]!, id: 'second' }] } }
  const b = await admitDirect(g)
  assert.notEqual(b.key, a.key)
  assert.equal((await extract(b.dir)).exit, 0)
  assert.ok(readFileSync(join(b.dir, 'tree.tar')).equals(tar1))
  const m1 = readTreeManifest(a.dir)
  const m2 = readTreeManifest(b.dir)
  assert.deepEqual({ ...m2, attempt_key: m1.attempt_key }, m1)
})

test('a tree that breaks a rule ends rejected with the rule\'s code, and nothing else is written', async t => {
  const f = await makeFixture(tempDir(t))
  // A symlink at a commit that admit never saw (admitDirect skips its tree check).
  const link = await commitWithExtra(f.repo, new Map([['escape', { mode: '120000', oid: await hashBlob(f.repo, '/etc/passwd') }]]))
  rewriteConfig(f, c => ({ ...c, source_sha: link }))
  const a = await admitDirect(f)
  const before = snapshot(a.dir)
  const r = await extract(a.dir)
  assert.equal(r.exit, 1)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'error', 'result'])
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'extract-tree', exit: 1, outcome: 'rejected' })
  const err = r.records[2]
  assert.ok(err?.kind === 'error')
  assert.equal(err.code, 'TREE_SYMLINK')
  assert.equal(err.path, 'escape')
  const outcome = readOutcome(a.dir, a.key)
  assert.equal(outcome?.outcome, 'rejected')
  assert.equal(outcome?.step, 'extract-tree')
  assert.equal(outcome?.reason.code, 'TREE_SYMLINK')
  assert.deepEqual(snapshot(a.dir).filter(l => !l.startsWith('outcome.json')), before)
  assert.match(r.stderr, /^extract-tree: rejected: TREE_SYMLINK: /)
})

test('git failing or the repository becoming unusable ends the attempt as a fault', async t => {
  // A blob removed from the object store after admission: cat-file reports it missing.
  const one = await admitted(t)
  const oid = (await gitT(one.f.repo, ['rev-parse', `${one.f.sha}:calc.go`])).trim()
  unlinkSync(loosePath(one.f.repo, oid))
  const r1 = await extract(one.a.dir)
  assert.equal(r1.exit, 1, JSON.stringify(r1.records) + r1.stderr)
  assert.deepEqual([readOutcome(one.a.dir, one.a.key)?.outcome, readOutcome(one.a.dir, one.a.key)?.reason.code], ['fault', 'GIT_FAILED'])
  assert.equal(existsSync(join(one.a.dir, 'tree.tar')), false)
  // The checkout's .git directory gone: not a git checkout any more.
  const two = await admitted(t)
  rmSync(join(two.f.repo, '.git'), { recursive: true })
  const r2 = await extract(two.a.dir)
  assert.equal(r2.exit, 1, JSON.stringify(r2.records) + r2.stderr)
  assert.deepEqual([readOutcome(two.a.dir, two.a.key)?.outcome, readOutcome(two.a.dir, two.a.key)?.reason.code], ['fault', 'SOURCE_NOT_GIT'])
  assert.equal(existsSync(join(two.a.dir, 'tree-manifest.json')), false)
})

test('an attempt with an outcome is not extracted again; a lost lock is 75; a passed deadline is timed_out', async t => {
  const { a } = await admitted(t)
  writeOutcome(a.stateRoot, a.dir, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'X_TEST', message: 'set by the test' }, new Date(), d => readOutcome(d, a.key))
  const done = await extract(a.dir)
  assert.equal(done.exit, 1)
  assert.deepEqual(done.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.equal(existsSync(join(a.dir, 'tree.tar')), false)

  const b = (await admitted(t)).a
  releaseLock(b.stateRoot, b.key, b.dir)
  const lost = await extract(b.dir)
  assert.equal(lost.exit, 75)
  assert.equal(lost.records.find(x => x.kind === 'error')?.code, 'LOCK_LOST')
  assert.equal(existsSync(join(b.dir, 'tree.tar')), false)

  const c = (await admitted(t)).a
  const late = await extract(c.dir, { now: new Date(Date.now() + 3600_000) })
  assert.equal(late.exit, 1)
  assert.equal(readOutcome(c.dir, c.key)?.outcome, 'timed_out')
  assert.equal(readOutcome(c.dir, c.key)?.reason.code, 'DEADLINE_PASSED')
  assert.equal(existsSync(join(c.dir, 'tree.tar')), false)
})

test('--check: both files match byte for byte, nothing is written, and it works on a sealed attempt without the lock', async t => {
  const { a } = await admitted(t)
  assert.equal((await extract(a.dir)).exit, 0)
  writeOutcome(a.stateRoot, a.dir, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'X_TEST', message: 'sealed by the test' }, new Date(), d => readOutcome(d, a.key))
  releaseLock(a.stateRoot, a.key, a.dir)
  const before = snapshot(a.stateRoot)
  const r = await extract(a.dir, { check: true })
  assert.equal(r.exit, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'check', 'check', 'result'])
  const tar = readFileSync(join(a.dir, 'tree.tar'))
  const man = readFileSync(join(a.dir, 'tree-manifest.json'))
  assert.deepEqual(r.records.slice(2, 4), [
    { v: 1, kind: 'check', file: 'tree.tar', match: true, retained_sha256: sha256(tar), recomputed_sha256: sha256(tar) },
    { v: 1, kind: 'check', file: 'tree-manifest.json', match: true, retained_sha256: sha256(man), recomputed_sha256: sha256(man) },
  ])
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'extract-tree', exit: 0 })
  assert.deepEqual(snapshot(a.stateRoot), before)
})

test('--check: a changed or missing retained file is a mismatch (exit 1); a symlink in its place is refused', async t => {
  const { a } = await admitted(t)
  assert.equal((await extract(a.dir)).exit, 0)
  const tarPath = join(a.dir, 'tree.tar')
  const good = readFileSync(tarPath)
  const bad = Buffer.from(good)
  bad[bad.indexOf('Add returns')] = 0x61
  writeFileSync(tarPath, bad)
  const r = await extract(a.dir, { check: true })
  assert.equal(r.exit, 1)
  const checks = r.records.filter(x => x.kind === 'check')
  assert.deepEqual(checks.map(c => [c.file, c.match]), [['tree.tar', false], ['tree-manifest.json', true]])
  assert.equal(checks[0]?.retained_sha256, sha256(bad))
  assert.equal(checks[0]?.recomputed_sha256, sha256(good))
  assert.deepEqual(readFileSync(tarPath), bad, '--check does not repair')
  unlinkSync(tarPath)
  const missing = await extract(a.dir, { check: true })
  assert.equal(missing.exit, 1)
  const m = missing.records.find(x => x.kind === 'check')
  assert.deepEqual([m?.file, m?.match, m?.retained_sha256], ['tree.tar', false, undefined])
  symlinkSync(join(a.dir, 'tree-manifest.json'), tarPath)
  const link = await extract(a.dir, { check: true })
  assert.equal(link.records.find(x => x.kind === 'error')?.code, 'STATE_UNSAFE')
})
