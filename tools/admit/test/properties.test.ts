// Properties of admission: what the attempt key depends on, single flight under
// concurrency, retention, and crash recovery under the test clock.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Case, ExecutionConfig, RegisterManifest, RoutingPolicy } from '@repairline/schemas'
import { attemptKey, keyInputsFor, writeOutcome, readOutcome, jcsSha256 } from '@repairline/core'
import { makeCase, writeJson, MINIMAL_REGISTERS } from '../../../test/helpers/fixture.ts'
import { errorOf } from '../../../test/helpers/bin.ts'
import { admit, attemptDirs, fixture } from './helpers.ts'

const config: ExecutionConfig = JSON.parse(readFileSync(join(import.meta.dirname, '../../../schemas/examples/execution/valid/go-root.json'), 'utf8'))
const policy: RoutingPolicy = JSON.parse(readFileSync(join(import.meta.dirname, '../../../schemas/examples/routing-policy/valid/design-example.json'), 'utf8'))
const manifest = MINIMAL_REGISTERS as RegisterManifest
const theCase: Case = makeCase('nil-equal', '.', 'example.com/calc::TestAdd')

test('the attempt key changes with each of its inputs', () => {
  const base = attemptKey(keyInputsFor(config, policy, manifest, theCase))
  const variants: Array<[string, string]> = [
    ['source_sha', attemptKey(keyInputsFor({ ...config, source_sha: 'c'.repeat(40) }, policy, manifest, theCase))],
    ['config', attemptKey(keyInputsFor({ ...config, timeout_seconds: 121 }, policy, manifest, theCase))],
    ['routing policy', attemptKey(keyInputsFor(config, { ...policy, cost_ceiling_usd: 0.6 }, manifest, theCase))],
    ['register manifest', attemptKey(keyInputsFor(config, policy, { ...manifest, surfaces: { ...manifest.surfaces, agent: { register: 'docs' } } }, theCase))],
    ['case id', attemptKey(keyInputsFor(config, policy, manifest, makeCase('other-id', '.', 'example.com/calc::TestAdd')))],
    ['case test', attemptKey(keyInputsFor(config, policy, manifest, makeCase('nil-equal', '.', 'example.com/calc::TestDouble')))],
  ]
  const seen = new Set([base])
  for (const [name, key] of variants) {
    assert.notEqual(key, base, name)
    assert.ok(!seen.has(key), `${name} collides with another variant`)
    seen.add(key)
  }
})

test('the attempt key changes with nothing else: field order, plan, transcript_path', () => {
  const base = attemptKey(keyInputsFor(config, policy, manifest, theCase))
  const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(config).reverse()))) as ExecutionConfig
  assert.equal(jcsSha256(reordered), jcsSha256(config))
  assert.equal(attemptKey(keyInputsFor(reordered, policy, manifest, theCase)), base)
  assert.equal(attemptKey(keyInputsFor(config, policy, manifest, { ...theCase, plan: 'x', transcript_path: '/y' })), base)
})

test('admit status computes the same key whatever the report timestamp, suite name or file layout', async (t) => {
  const f = await fixture(t)
  const keyOf = async (): Promise<string> => {
    const r = await admit(f, 'status')
    const s = r.records.find(x => x.kind === 'case-status')
    return s?.kind === 'case-status' ? s.attempt_key ?? '' : ''
  }
  const k1 = await keyOf()
  writeJson(f.reportPath, { ...f.report, generated_at: '2030-01-01T00:00:00.000Z', suite: 'renamed' })
  assert.equal(await keyOf(), k1)
  writeFileSync(f.configPath, JSON.stringify(Object.fromEntries(Object.entries(f.config).reverse())))
  assert.equal(await keyOf(), k1)
  writeFileSync(f.policyPath, JSON.stringify(f.policy))
  assert.equal(await keyOf(), k1)
  // an error message, or a failed admit in between, changes nothing either
  writeFileSync(join(f.repo, 'untracked.txt'), 'x')
  assert.equal((await admit(f)).exitCode, 78)
  assert.equal(await keyOf(), k1)
})

test('eight concurrent admit runs on one state root: exactly one exits 0, seven exit 75', async (t) => {
  const f = await fixture(t)
  const runs = await Promise.all(Array.from({ length: 8 }, async () => await admit(f)))
  const exits = runs.map(r => r.exitCode).sort()
  assert.deepEqual(exits, [0, 75, 75, 75, 75, 75, 75, 75], runs.map(r => r.stderr).join('\n'))
  for (const r of runs.filter(x => x.exitCode === 75)) assert.equal(errorOf(r)?.code, 'LOCK_HELD')
  assert.equal(attemptDirs(f).length, 1)
})

test('the 33rd admission is refused with 73 and nothing is deleted', async (t) => {
  const f = await fixture(t)
  const cases = Array.from({ length: 33 }, (_, i) => makeCase(`case-${String(i).padStart(2, '0')}`, '.', 'example.com/calc::TestAdd'))
  writeJson(f.reportPath, { ...f.report, cases })
  for (let i = 0; i < 32; i++) {
    const r = await admit(f)
    assert.equal(r.exitCode, 0, r.stderr)
    // Finish the attempt as a later step would, so the next admit can take the lock.
    const a = r.records.find(x => x.kind === 'attempt')
    assert.ok(a?.kind === 'attempt')
    writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, a.key))
  }
  const before = attemptDirs(f)
  const snapshot = before.map(d => readdirSync(join(f.stateDir, 'attempts', d)).sort().join(','))
  assert.equal(before.length, 32)
  const r = await admit(f)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'RETENTION_FULL')
  assert.deepEqual(attemptDirs(f), before)
  assert.deepEqual(before.map(d => readdirSync(join(f.stateDir, 'attempts', d)).sort().join(',')), snapshot)
  // An admission-only directory (crash before started.json) does not count toward the 32.
})

test('a crash after started.json: the key stays consumed; interrupted only after deadline + 30 s; the next admit breaks the stale lock and takes another case', async (t) => {
  const f = await fixture(t)
  const cases = [makeCase('first', '.', 'example.com/calc::TestAdd'), makeCase('second', '.', 'example.com/calc::TestDouble')]
  writeJson(f.reportPath, { ...f.report, cases })
  const hooks = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:00:00.000Z' }
  const crashed = await admit(f, 'run', { ...hooks, REPAIRLINE_FAULT_AT: 'started.json' })
  assert.equal(crashed.exitCode, -1, 'killed by SIGKILL') // execa reports no exit code for a signal
  const [dir] = attemptDirs(f)
  assert.ok(dir !== undefined && existsSync(join(f.stateDir, 'attempts', dir, 'started.json')))
  const admission = JSON.parse(readFileSync(join(f.stateDir, 'attempts', dir, 'admission.json'), 'utf8'))
  assert.equal(admission.test_hooks, true)
  assert.equal(admission.deadline, '2026-11-30T10:02:00.000Z')

  const statusAt = async (now: string): Promise<string[]> => {
    const r = await admit(f, 'status', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now })
    return r.records.flatMap(x => x.kind === 'case-status' ? [`${x.case_id}:${x.status}`] : [])
  }
  assert.deepEqual(await statusAt('2026-11-30T10:02:30.000Z'), ['first:running', 'second:eligible'])
  assert.deepEqual(await statusAt('2026-11-30T10:02:30.001Z'), ['first:interrupted', 'second:eligible'])

  // A live lock is never broken early: at deadline + 30 s exactly, admit waits (75).
  const early = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:02:30.000Z' })
  assert.equal(early.exitCode, 75, early.stderr)
  assert.equal(early.records.find(x => x.kind === 'error')?.code, 'LOCK_HELD')
  assert.match(errorOf(early)?.message ?? '', /until 2026-11-30T10:02:30\.000Z at the latest/, 'LOCK_HELD says until when')
  assert.match(errorOf(early)?.hint ?? '', new RegExp(`--attempt ${join(f.stateDir, 'attempts', dir)}.*receipt seal`), 'and what ends it sooner')
  assert.equal(attemptDirs(f).length, 1)

  const later = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:05:00.000Z' })
  assert.equal(later.exitCode, 0, later.stderr)
  const dirs = attemptDirs(f)
  assert.equal(dirs.length, 2)
  const first = JSON.parse(readFileSync(join(f.stateDir, 'attempts', dir, 'outcome.json'), 'utf8'))
  assert.equal(first.outcome, 'interrupted')
  assert.ok(existsSync(join(f.stateDir, 'attempts', dir, 'receipt.json')), 'and sealed')
  assert.deepEqual(readdirSync(f.stateDir).filter(n => n.startsWith('lock.broken.')), [], 'the broken lock is removed once its attempt is settled')
  assert.deepEqual(await statusAt('2026-11-30T10:05:01.000Z'), ['first:consumed', 'second:running'])
  assert.equal(statSync(f.stateDir).mode & 0o777, 0o711)
})

test('a lock rewritten with a later deadline is stale at its attempt\'s admitted deadline + 30 s; a lock whose directory has no admission.json keeps its own deadline', async (t) => {
  const f = await fixture(t)
  writeJson(f.reportPath, { ...f.report, cases: [makeCase('first', '.', 'example.com/calc::TestAdd'), makeCase('second', '.', 'example.com/calc::TestDouble')] })
  const crashed = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:00:00.000Z', REPAIRLINE_FAULT_AT: 'started.json' })
  assert.equal(crashed.exitCode, -1, 'killed by SIGKILL')
  const lockFile = join(f.stateDir, 'lock')
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'))
  const at = (now: string): Record<string, string> => ({ REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now })

  // Control: the lock naming a directory without admission.json is held to its own (2099) deadline.
  const forged = `${JSON.stringify({ ...lock, attempt_dir: join(f.stateDir, 'attempts', 'ffffffffffffffff'), deadline: '2099-01-01T00:00:00.000Z' })}\n`
  writeFileSync(lockFile, forged)
  const held = await admit(f, 'run', at('2026-11-30T10:05:00.000Z'))
  assert.equal(held.exitCode, 75, held.stderr)
  assert.equal(errorOf(held)?.code, 'LOCK_HELD')
  assert.equal(readFileSync(lockFile, 'utf8'), forged)
  assert.equal(attemptDirs(f).length, 1)

  // The same 2099 deadline on the lock of the admitted attempt: admission.json's deadline
  // (10:02) decides, so past 10:02:30 the next admit breaks it, as seal and readback would.
  writeFileSync(lockFile, `${JSON.stringify({ ...lock, deadline: '2099-01-01T00:00:00.000Z' })}\n`)
  const early = await admit(f, 'run', at('2026-11-30T10:02:30.000Z'))
  assert.equal(early.exitCode, 75, early.stderr)
  assert.equal(errorOf(early)?.code, 'LOCK_HELD')
  const later = await admit(f, 'run', at('2026-11-30T10:02:30.001Z'))
  assert.equal(later.exitCode, 0, later.stderr)
  assert.equal(attemptDirs(f).length, 2)
  assert.equal(JSON.parse(readFileSync(join(lock.attempt_dir, 'outcome.json'), 'utf8')).outcome, 'interrupted')
})

test('a stale lock broken by an admit that then lost the race is settled by the admit that took the lock: interrupted, sealed, the broken lock removed', async (t) => {
  const f = await fixture(t)
  writeJson(f.reportPath, { ...f.report, cases: [makeCase('first', '.', 'example.com/calc::TestAdd'), makeCase('second', '.', 'example.com/calc::TestDouble')] })
  const crashed = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:00:00.000Z', REPAIRLINE_FAULT_AT: 'started.json' })
  assert.equal(crashed.exitCode, -1, 'killed by SIGKILL')
  const [dir] = attemptDirs(f)
  assert.ok(dir !== undefined)
  // What a breaker that lost the race leaves: the stale lock renamed aside, no lock in place.
  renameSync(join(f.stateDir, 'lock'), join(f.stateDir, 'lock.broken.0123456789abcdef'))
  const later = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:05:00.000Z' })
  assert.equal(later.exitCode, 0, later.stderr)
  assert.equal(JSON.parse(readFileSync(join(f.stateDir, 'attempts', dir, 'outcome.json'), 'utf8')).outcome, 'interrupted')
  assert.ok(existsSync(join(f.stateDir, 'attempts', dir, 'receipt.json')), 'the crashed attempt is sealed')
  assert.deepEqual(readdirSync(f.stateDir).filter(n => n.startsWith('lock.broken.')), [])
})

test('without REPAIRLINE_TEST_HOOKS=1 the test clock and fault hook are ignored', async (t) => {
  const f = await fixture(t)
  const r = await admit(f, 'run', { REPAIRLINE_TEST_NOW: '2000-01-01T00:00:00.000Z', REPAIRLINE_FAULT_AT: 'started.json' })
  assert.equal(r.exitCode, 0, r.stderr)
  const [dir] = attemptDirs(f)
  const admission = JSON.parse(readFileSync(join(f.stateDir, 'attempts', dir ?? '', 'admission.json'), 'utf8'))
  assert.equal(admission.test_hooks, false)
  assert.notEqual(admission.admitted_at.slice(0, 4), '2000')

})
