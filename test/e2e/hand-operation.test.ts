// The chain operated by hand, as an operator debugging it does: the driver stopped with
// --until and the rest run step by step; a step rerun after a later one ran; an admit that
// finds the old attempt past its deadline, with or without a step still working on it; test
// hooks turned on half way. Every attempt that ends sealed must read back valid.

import { after, test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { readbackAttempt } from '@repairline/core'
import { NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'
import { binPath, BASE_ENV, errorOf, runBin } from '../helpers/bin.ts'
import { snapshot } from '../helpers/snapshot.ts'
import type { Fixture } from '../helpers/fixture.ts'

const p: Provider = await startProvider({ after })
p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)
p.server.proposals.set('node-fix-until-verify', NODE_FIX_PROPOSAL)
p.server.proposals.set('node-fix-upstream', NODE_FIX_PROPOSAL)

const T0 = '2026-11-30T10:00:00.000Z'
const hooksAt = (now: string): Record<string, string> => ({ REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now })
const NODE_CASES = [{ package: 'test', name: 'test/calc.test.js::add adds' }, { package: 'test', name: 'test/calc.test.js::double doubles' }]

/** The admission deadline of an attempt plus `seconds`, as the test clock. */
function pastDeadline (dir: string, seconds: number): string {
  const admission = JSON.parse(readFileSync(join(dir, 'admission.json'), 'utf8')) as { deadline: string }
  return new Date(Date.parse(admission.deadline) + seconds * 1000).toISOString()
}

async function assertReadsBack (dir: string, allowTestHooks: boolean): Promise<void> {
  const rb = await readbackAttempt(dir, { allowTestHooks })
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
}

const outcomeOf = (dir: string): { outcome: string, step: string } | undefined =>
  existsSync(join(dir, 'outcome.json')) ? JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')) as { outcome: string, step: string } : undefined

async function admitRun (f: Fixture, env: Record<string, string>): ReturnType<typeof runBin> {
  return await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env })
}

test('--until stops after the step, and the rest of the chain run by hand ends scoped_test_verified with one request', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const r = await driveChain(f, {}, ['--until', 'reproduce'])
  assert.equal(r.exit, 0, r.stderr)
  const dir = r.attemptDir ?? ''
  assert.equal(outcomeOf(dir), undefined)
  assert.match(r.stderr, /stopped after reproduce as asked; continue by hand: ask-provider --attempt "\//)
  assert.equal(existsSync(join(dir, 'dispatch.json')), false)
  for (const step of ['ask-provider', 'gate-patch', 'verify']) {
    const s = await runBin(step, ['--attempt', dir])
    assert.equal(s.exitCode, 0, `${step}: ${s.stderr}`)
  }
  const seal = await runBin('receipt', ['seal', '--attempt', dir])
  assert.equal(seal.exitCode, 0, seal.stderr)
  assert.equal(outcomeOf(dir)?.outcome, 'scoped_test_verified')
  await assertReadsBack(dir, false)
  assert.equal(p.server.requestsTo('proposal/node-fix').length, 1)
})

test('--until a step that decides the outcome: the driver seals it anyway and says so, and gives no hand-continuation hint', async (t) => {
  const f = await chainFixture(t, p, 'proposal/never-until', { runner: 'node', cases: [NODE_CASES[1] ?? { package: '', name: '' }] })
  const r = await driveChain(f, {}, ['--until', 'reproduce'])
  assert.equal(r.exit, 1, r.stderr)
  assert.equal(r.outcome?.outcome, 'not_reproduced')
  assert.ok(existsSync(join(r.attemptDir ?? '', 'receipt.json')), 'sealed')
  assert.doesNotMatch(r.stderr, /continue by hand/)
  assert.match(r.stderr.trim().split('\n').at(-1) ?? '', /^repairline: not_reproduced/)
  await assertReadsBack(r.attemptDir ?? '', false)
  assert.equal(p.server.requestsTo('proposal/never-until').length, 0)
})

test('--until verify on an attempt verify decided (scoped_test_verified, exit 0) seals it anyway: no hand-continuation hint, the summary last', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix-until-verify', { runner: 'node' })
  const r = await driveChain(f, {}, ['--until', 'verify'])
  assert.equal(r.exit, 0, r.stderr)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified')
  assert.ok(existsSync(join(r.attemptDir ?? '', 'receipt.json')), 'sealed')
  assert.doesNotMatch(r.stderr, /continue by hand/)
  assert.match(r.stderr.trim().split('\n').at(-1) ?? '', /^repairline: scoped_test_verified .* receipt /)
  await assertReadsBack(r.attemptDir ?? '', false)
  assert.equal(p.server.requestsTo('proposal/node-fix-until-verify').length, 1)
})

test('a step rerun after a later step wrote its files is LATER_STAGE_EXISTS (65) and decides nothing, even past the deadline; the frontier step decides, and the attempt reads back', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const r = await driveChain(f, hooksAt(T0), ['--until', 'gate-patch'])
  assert.equal(r.exit, 0, r.stderr)
  const dir = r.attemptDir ?? ''
  const late = pastDeadline(dir, 1)
  // Positive control first: gate-patch (the last step run, nothing after it) may be rerun.
  const again = await runBin('gate-patch', ['--attempt', dir], { env: hooksAt(T0) })
  assert.equal(again.exitCode, 0, again.stderr)
  const before = snapshot(dir)
  for (const now of [T0, late]) {
    for (const [step, later] of [['extract-tree', 'baseline.events.ndjson'], ['reproduce', 'job.txt'], ['ask-provider', 'candidate.patch']] as const) {
      const s = await runBin(step, ['--attempt', dir], { env: hooksAt(now) })
      assert.equal(s.exitCode, 65, `${step} at ${now}: ${s.stderr}`)
      assert.equal(errorOf(s)?.code, 'LATER_STAGE_EXISTS')
      assert.match(s.stderr, new RegExp(`${later.replace('.', '\\.')} of a later step exists`))
    }
  }
  assert.deepEqual(snapshot(dir), before, 'no step wrote anything')
  assert.equal(outcomeOf(dir), undefined)
  // verify is the frontier: past the deadline it is the one that decides timed_out.
  const v = await runBin('verify', ['--attempt', dir], { env: hooksAt(late) })
  assert.equal(v.exitCode, 1, v.stderr)
  assert.deepEqual(outcomeOf(dir), { ...outcomeOf(dir), outcome: 'timed_out', step: 'verify' })
  assert.equal((await runBin('receipt', ['seal', '--attempt', dir], { env: hooksAt(late) })).exitCode, 1)
  await assertReadsBack(dir, true)
})

test('a pipe whose step refused stops there: the next steps are UPSTREAM_REFUSED (65), name the attempt and do nothing (no provider call); the same pipe after a step that succeeded goes on', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix-upstream', { runner: 'node' })
  const r = await driveChain(f, {}, ['--until', 'reproduce'])
  assert.equal(r.exit, 0, r.stderr)
  const dir = r.attemptDir ?? ''
  // The auditor's pipe: `extract-tree --attempt DIR | ask-provider | gate-patch`, extract-tree
  // rerun after reproduce ran (LATER_STAGE_EXISTS).
  const refused = await runBin('extract-tree', ['--attempt', dir])
  assert.equal(errorOf(refused)?.code, 'LATER_STAGE_EXISTS')
  const before = snapshot(dir)
  const ask = await runBin('ask-provider', [], { input: refused.stdout })
  assert.equal(ask.exitCode, 65, ask.stderr)
  assert.equal(errorOf(ask)?.code, 'UPSTREAM_REFUSED')
  assert.match(ask.stderr, /extract-tree refused \(exit 65\) on attempt \/.*; nothing was done here/)
  assert.deepEqual(ask.records.map(x => x.kind), ['start', 'attempt', 'error', 'result'])
  const gate = await runBin('gate-patch', [], { input: ask.stdout })
  assert.equal(errorOf(gate)?.code, 'UPSTREAM_REFUSED')
  assert.match(gate.stderr, /ask-provider refused \(exit 65\)/)
  assert.deepEqual(snapshot(dir), before, 'nothing written')
  assert.equal(p.server.requestsTo('proposal/node-fix-upstream').length, 0, 'no provider call')
  // A refusal before the attempt is named: the next step says which step refused.
  const usage = await runBin('extract-tree', ['--nope'])
  const missing = await runBin('reproduce', [], { input: usage.stdout })
  assert.equal(errorOf(missing)?.code, 'ATTEMPT_MISSING')
  assert.match(missing.stderr, /no --attempt, and extract-tree refused \(exit 2\) before it named an attempt/)
  // Positive control: reproduce's own records (exit 0, already done) go on to the call.
  const rep = await runBin('reproduce', ['--attempt', dir])
  assert.equal(rep.exitCode, 0, rep.stderr)
  const asked = await runBin('ask-provider', [], { input: rep.stdout })
  assert.equal(asked.exitCode, 0, asked.stderr)
  assert.equal(p.server.requestsTo('proposal/node-fix-upstream').length, 1)
})

/** A two-case fixture driven to `--until reproduce` on the test clock: its first attempt, and a time past its deadline + 30 s. */
async function stoppedAfterReproduce (t: TestContext, scenario: string): Promise<{ f: Fixture, first: string, late: string }> {
  const f = await chainFixture(t, p, scenario, { runner: 'node', cases: NODE_CASES })
  const r = await driveChain(f, hooksAt(T0), ['--until', 'reproduce'])
  assert.equal(r.exit, 0, r.stderr)
  const first = r.attemptDir ?? ''
  return { f, first, late: pastDeadline(first, 31) }
}

test('an admit past the old attempt\'s deadline + 30 s marks it interrupted after steps ran and seals it; it reads back valid', async (t) => {
  const { f, first, late } = await stoppedAfterReproduce(t, 'proposal/node-fix')
  const second = await admitRun(f, hooksAt(late))
  assert.equal(second.exitCode, 0, second.stderr)
  assert.deepEqual(outcomeOf(first), { ...outcomeOf(first), outcome: 'interrupted', step: 'admit' })
  assert.match(second.stderr, /admit: sealed .* \(interrupted\), whose lock was stale/)
  await assertReadsBack(first, true)
  // receipt seal finds nothing left to do.
  const seal = await runBin('receipt', ['seal', '--attempt', first], { env: hooksAt(late) })
  assert.equal(seal.exitCode, 1, seal.stderr)
  assert.match(seal.stderr, /already sealed/)
})

test('an admit that breaks the lock of an attempt killed while sealing (an outcome, no receipt) seals it', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node', cases: NODE_CASES })
  const r = await driveChain(f, { ...hooksAt(T0), REPAIRLINE_FAULT_AT: 'seal' })
  assert.equal(r.exit, 70, r.stderr)
  const first = r.attemptDir ?? ''
  assert.equal(r.outcome?.outcome, 'scoped_test_verified')
  assert.equal(existsSync(join(first, 'receipt.json')), false)
  // The outcome makes the lock stale at once: the next admit takes it and seals the attempt.
  const second = await admitRun(f, hooksAt(T0))
  assert.equal(second.exitCode, 0, second.stderr)
  assert.ok(existsSync(join(first, 'receipt.json')))
  await assertReadsBack(first, true)
})

test('an admit past the old attempt\'s deadline + 30 s while a step still works on it breaks nothing (LOCK_HELD, 75); once that process is gone it marks the attempt interrupted; one request in all', async (t) => {
  const { f, first, late } = await stoppedAfterReproduce(t, 'hang')
  // ask-provider waits on a provider that never answers: a live step holding the attempt.
  const asking = execa(binPath('ask-provider'), ['--attempt', first], { env: { ...BASE_ENV, ...hooksAt(T0) }, extendEnv: false, reject: false })
  t.after(() => { asking.kill('SIGKILL') })
  for (let waited = 0; p.server.requestsTo('hang').length === 0 && waited < 60_000; waited += 50) await new Promise(resolve => setTimeout(resolve, 50))
  assert.equal(p.server.requestsTo('hang').length, 1)
  const lock = readFileSync(join(f.stateDir, 'lock'))
  const held = await admitRun(f, hooksAt(late))
  assert.equal(held.exitCode, 75, held.stderr)
  assert.equal(errorOf(held)?.code, 'LOCK_HELD')
  assert.match(held.stderr, /ask-provider \(pid \d+\) still works on it; nothing was broken/)
  assert.deepEqual(readFileSync(join(f.stateDir, 'lock')), lock, 'the state lock is untouched')
  assert.equal(outcomeOf(first), undefined)
  // Positive control: with the step's process gone (a crash), the same admit breaks the lock.
  asking.kill('SIGKILL')
  await asking
  const taken = await admitRun(f, hooksAt(late))
  assert.equal(taken.exitCode, 0, taken.stderr)
  assert.deepEqual(outcomeOf(first), { ...outcomeOf(first), outcome: 'interrupted', step: 'admit' })
  await assertReadsBack(first, true)
  assert.equal(p.server.requestsTo('hang').length, 1)
})

test('test hooks turned on for a step or seal of an attempt admitted without them are TEST_HOOKS_MISMATCH (78) and change nothing; without them the same step runs', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const r = await driveChain(f, {}, ['--until', 'extract-tree'])
  assert.equal(r.exit, 0, r.stderr)
  const dir = r.attemptDir ?? ''
  const before = snapshot(dir)
  const future = hooksAt('2027-01-01T00:00:00.000Z')
  for (const [tool, args] of [['reproduce', []], ['receipt', ['seal']]] as const) {
    const s = await runBin(tool, [...args, '--attempt', dir], { env: future })
    assert.equal(s.exitCode, 78, `${tool}: ${s.stderr}`)
    assert.equal(errorOf(s)?.code, 'TEST_HOOKS_MISMATCH')
  }
  assert.deepEqual(snapshot(dir), before)
  const plain = await runBin('reproduce', ['--attempt', dir])
  assert.equal(plain.exitCode, 0, plain.stderr)
})
