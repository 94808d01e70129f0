// `receipt readback` on an attempt a chain may still be working on: no outcome and no
// receipt yet, and the state lock (admit's, released by seal) still names it, not stale
// (its deadline with the 30 s grace not passed). It is reported running (ATTEMPT_RUNNING,
// a notice) and not judged, so a readback of a whole state root from cron does not fail on
// a chain in progress. Past the grace, decided, or stripped of its receipt after seal, the
// same attempt is NOT_SEALED and invalid; a sealed attempt beside it is read back as ever. A
// forged state lock never makes an attempt running: it must name the attempt's own directory,
// and its deadline never extends admission.json's (`admit status` agrees).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission } from '@repairline/schemas'
import { readOutcome, writeOutcome } from '@repairline/core'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { admitAttempt, extractAttempt } from '../../../test/helpers/attempt.ts'
import { runBin, type BinResult } from '../../../test/helpers/bin.ts'
import { hooksEnv } from '../../../test/helpers/corpus.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

interface Readback { valid: boolean, findings: Array<{ code: string, severity: string }> }

const readbacks = (r: BinResult): Readback[] => r.records.flatMap(x => x.kind === 'readback' ? [x as unknown as Readback] : [])
const codes = (rb: Readback | undefined, severity: string): string[] => (rb?.findings ?? []).filter(x => x.severity === severity).map(x => x.code)

test('an unsealed attempt within its deadline and grace reads back as running (a notice, exit 0); past them it is NOT_SEALED (exit 1)', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const admittedAt = new Date()
  const a = await admitAttempt(f, { env: hooksEnv(admittedAt.toISOString()) })
  await extractAttempt(a, hooksEnv(admittedAt.toISOString()))
  const { deadline } = JSON.parse(readFileSync(join(a.dir, 'admission.json'), 'utf8')) as Admission
  const at = (ms: number): Record<string, string> => hooksEnv(new Date(Date.parse(deadline) + ms).toISOString())

  for (const [when, env] of [['before the deadline', hooksEnv(admittedAt.toISOString())], ['29 s past it', at(29_000)]] as const) {
    const running = await runBin('receipt', ['readback', '--attempt', a.dir], { env })
    assert.equal(running.exitCode, 0, `${when}: ${running.stderr}`)
    const rb = readbacks(running)[0]
    assert.equal(rb?.valid, true, when)
    assert.deepEqual(codes(rb, 'error'), [], when)
    assert.ok(codes(rb, 'notice').includes('ATTEMPT_RUNNING'), `${when}: ${JSON.stringify(rb)}`)
  }
  // Positive control: the same attempt once the grace has passed is judged, and invalid.
  const late = await runBin('receipt', ['readback', '--attempt', a.dir], { env: at(31_000) })
  assert.equal(late.exitCode, 1, late.stderr)
  const rb = readbacks(late)[0]
  assert.equal(rb?.valid, false)
  assert.ok(codes(rb, 'error').includes('NOT_SEALED'), JSON.stringify(rb))
  assert.equal(codes(rb, 'notice').includes('ATTEMPT_RUNNING'), false)
  // Decided but not sealed is no longer running, whatever the clock: NOT_SEALED (run seal).
  writeOutcome(f.stateDir, a.dir, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'X_TEST', message: 'set by the test' }, admittedAt, d => readOutcome(d, a.key))
  const decided = await runBin('receipt', ['readback', '--attempt', a.dir], { env: hooksEnv(admittedAt.toISOString()) })
  assert.equal(decided.exitCode, 1, decided.stderr)
  assert.ok(codes(readbacks(decided)[0], 'error').includes('NOT_SEALED'))
  // Sealed (which releases the state lock), then its receipt and outcome removed within the
  // deadline: no lock names it, so it is no running attempt but an unsealed one.
  const sealed = await runBin('receipt', ['seal', '--attempt', a.dir], { env: hooksEnv(admittedAt.toISOString()) })
  assert.equal(sealed.exitCode, 1, sealed.stderr)
  unlinkSync(join(a.dir, 'receipt.json'))
  unlinkSync(join(a.dir, 'outcome.json'))
  const stripped = await runBin('receipt', ['readback', '--attempt', a.dir], { env: hooksEnv(admittedAt.toISOString()) })
  assert.equal(stripped.exitCode, 1, stripped.stderr)
  assert.ok(codes(readbacks(stripped)[0], 'error').includes('NOT_SEALED'), JSON.stringify(readbacks(stripped)[0]))
  assert.equal(codes(readbacks(stripped)[0], 'notice').includes('ATTEMPT_RUNNING'), false)
})

test('readback --state-dir: a sealed attempt is read back in full while one still running beside it is a notice', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const t0 = new Date()
  // The first attempt: sealed past its deadline (timed_out), which releases the state lock.
  const first = await admitAttempt(f, { env: hooksEnv(t0.toISOString()) })
  const { deadline } = JSON.parse(readFileSync(join(first.dir, 'admission.json'), 'utf8')) as Admission
  const later = new Date(Date.parse(deadline) + 1_000).toISOString()
  const sealed = await runBin('receipt', ['seal', '--attempt', first.dir], { env: hooksEnv(later) })
  assert.equal(sealed.exitCode, 1, sealed.stderr)
  // A second fixture (another repository, so another key) sharing the state root.
  const g = await makeFixture(tempDir(t), { runner: 'node' })
  const second = await admitAttempt(g, { env: hooksEnv(later), config: c => { c.state_dir = f.stateDir } })
  assert.notEqual(second.dir, first.dir)
  const r = await runBin('receipt', ['readback', '--state-dir', f.stateDir, '--allow-test-hooks'], { env: hooksEnv(later) })
  assert.equal(r.exitCode, 0, r.stderr)
  const byDir = new Map(r.records.flatMap(x => x.kind === 'readback' ? [[(x as unknown as { attempt_dir: string }).attempt_dir, x as unknown as Readback]] : []))
  assert.deepEqual(codes(byDir.get(first.dir), 'error'), [], 'the sealed attempt reads back valid')
  assert.equal(codes(byDir.get(first.dir), 'notice').includes('ATTEMPT_RUNNING'), false)
  assert.ok(codes(byDir.get(second.dir), 'notice').includes('ATTEMPT_RUNNING'))
})

test('a forged state lock does not make a sealed attempt stripped of its receipt and outcome running: NOT_SEALED (exit 1), and admit status says consumed, not running', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const admittedAt = new Date()
  const a = await admitAttempt(f, { env: hooksEnv(admittedAt.toISOString()) })
  await extractAttempt(a, hooksEnv(admittedAt.toISOString()))
  const { deadline } = JSON.parse(readFileSync(join(a.dir, 'admission.json'), 'utf8')) as Admission
  const lockPath = join(f.stateDir, 'lock')
  const genuine = readFileSync(lockPath)
  writeOutcome(f.stateDir, a.dir, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'X_TEST', message: 'set by the test' }, admittedAt, d => readOutcome(d, a.key))
  const sealed = await runBin('receipt', ['seal', '--attempt', a.dir], { env: hooksEnv(admittedAt.toISOString()) })
  assert.equal(sealed.exitCode, 1, sealed.stderr)
  unlinkSync(join(a.dir, 'receipt.json'))
  unlinkSync(join(a.dir, 'outcome.json'))
  const readback = async (now: string): Promise<BinResult> => await runBin('receipt', ['readback', '--state-dir', f.stateDir, '--allow-test-hooks'], { env: hooksEnv(now) })
  const status = async (now: string): Promise<Record<string, unknown> | undefined> => {
    const r = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath], { env: hooksEnv(now) })
    assert.equal(r.exitCode, 0, r.stderr)
    return r.records.find(x => x.kind === 'case-status') as Record<string, unknown> | undefined
  }
  const within = admittedAt.toISOString()
  const pastGrace = new Date(Date.parse(deadline) + 31_000).toISOString()
  // D4: a lock naming the key but another directory, with a deadline far past admission's;
  // and one naming the real directory whose deadline outlives admission's.
  for (const [what, lock, now] of [
    ['another directory, within the deadline', { attempt_dir: '/nonexistent', deadline: '2099-01-01T00:00:00.000Z' }, within],
    ['another directory, past the grace', { attempt_dir: '/nonexistent', deadline: '2099-01-01T00:00:00.000Z' }, pastGrace],
    ['its own directory, past admission\'s grace', { attempt_dir: a.dir, deadline: '2099-01-01T00:00:00.000Z' }, pastGrace],
  ] as const) {
    writeFileSync(lockPath, `${JSON.stringify({ v: 1, attempt_key: a.key, ...lock })}\n`)
    const r = await readback(now)
    assert.equal(r.exitCode, 1, `${what}: ${r.stderr}`)
    const rb = readbacks(r)[0]
    assert.equal(rb?.valid, false, what)
    assert.deepEqual(codes(rb, 'error'), ['NOT_SEALED'], `${what}: ${JSON.stringify(rb)}`)
    assert.equal(codes(rb, 'notice').includes('ATTEMPT_RUNNING'), false, what)
  }
  writeFileSync(lockPath, `${JSON.stringify({ v: 1, attempt_key: a.key, attempt_dir: '/nonexistent', deadline: '2099-01-01T00:00:00.000Z' })}\n`)
  const forged = await status(within)
  assert.equal(forged?.status, 'consumed', JSON.stringify(forged))
  assert.deepEqual(forged?.readback, { valid: false, codes: ['NOT_SEALED'] })
  // Positive control: the lock as admit wrote it (this directory, admission's deadline) within
  // the deadline: running, as a chain in progress is.
  writeFileSync(lockPath, genuine)
  const running = await readback(within)
  assert.equal(running.exitCode, 0, running.stderr)
  const rb = readbacks(running)[0]
  assert.equal(rb?.valid, true)
  assert.ok(codes(rb, 'notice').includes('ATTEMPT_RUNNING'), JSON.stringify(rb))
  assert.equal((await status(within))?.status, 'running')
})
