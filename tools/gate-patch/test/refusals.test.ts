// Every refusal of gate-patch: the exact code and exit status, one stderr line, and nothing
// written (no candidate.patch, gate.json or outcome.json). Each has its positive control:
// the same attempt, repaired, is gated.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runBin, errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { admitAttempt, writeProposal, writeReproducedBaseline } from '../../../test/helpers/attempt.ts'
import { fixture, gateReady, GO_CASE } from './helpers.ts'

const FIX = [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }]

function assertRefused (r: BinResult, exit: number, code: string, dir?: string): void {
  const err = errorOf(r)
  assert.equal(err?.code, code, `expected ${code}, got ${JSON.stringify(err)}; stderr: ${r.stderr}`)
  assert.equal(r.exitCode, exit, r.stderr)
  assert.match(r.stderr, new RegExp(`^gate-patch: ${code}: [^\\n]+\\n`))
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
  if (dir !== undefined) for (const f of ['candidate.patch', 'gate.json', 'outcome.json']) assert.equal(existsSync(join(dir, f)), false, `${f} was written`)
}

test('no --attempt and no attempt record on stdin: ATTEMPT_MISSING (66)', async () => {
  const r = await runBin('gate-patch', [], { input: '' })
  assertRefused(r, 66, 'ATTEMPT_MISSING')
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
})

test('the attempt record on stdin is used like --attempt (positive control for ATTEMPT_MISSING)', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  const r = await runBin('gate-patch', [], { input: `${JSON.stringify({ v: 1, kind: 'attempt', path: a.dir, key: a.key })}\n` })
  assert.equal(r.exitCode, 0, r.stderr)
})

test('an unknown flag is a usage error (2)', async () => {
  assertRefused(await runBin('gate-patch', ['--fuzz']), 2, 'USAGE')
})

test('proposal.json missing: ATTEMPT_INCOMPLETE (65), nothing written; with it, the gate runs', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  renameSync(join(a.dir, 'proposal.json'), join(a.dir, 'proposal.json.away'))
  assertRefused(await runBin('gate-patch', ['--attempt', a.dir]), 65, 'ATTEMPT_INCOMPLETE', a.dir)
  renameSync(join(a.dir, 'proposal.json.away'), join(a.dir, 'proposal.json'))
  assert.equal((await runBin('gate-patch', ['--attempt', a.dir])).exitCode, 0)
})

test('no extracted tree: ATTEMPT_INCOMPLETE (65), nothing written', async (t) => {
  const f = await fixture(t)
  const a = await admitAttempt(f)
  writeReproducedBaseline(a, [GO_CASE])
  writeProposal(a, FIX)
  assertRefused(await runBin('gate-patch', ['--attempt', a.dir]), 65, 'ATTEMPT_INCOMPLETE', a.dir)
})

test('a proposal.json that breaks its schema: FILE_INVALID (65), nothing written', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  writeFileSync(join(a.dir, 'proposal.json'), JSON.stringify({ summary: { cause: 'c', change: 'c', risk: 'r' }, edits: [{ path: 'calc.go', search: 'a', replace: 'b', mode: '100755' }] }))
  assertRefused(await runBin('gate-patch', ['--attempt', a.dir]), 65, 'FILE_INVALID', a.dir)
})

test('the lock does not name the attempt: LOCK_LOST (75), nothing written', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  rmSync(join(f.stateDir, 'lock'))
  assertRefused(await runBin('gate-patch', ['--attempt', a.dir]), 75, 'LOCK_LOST', a.dir)
})

test('past the deadline: the step writes timed_out (exit 1) and gates nothing', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  const r = await runBin('gate-patch', ['--attempt', a.dir], { env: { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2999-01-01T00:00:00Z' } })
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'gate-patch', exit: 1, outcome: 'timed_out' })
  assert.equal(JSON.parse(readFileSync(join(a.dir, 'outcome.json'), 'utf8')).reason.code, 'DEADLINE_PASSED')
  assert.equal(existsSync(join(a.dir, 'gate.json')), false)
  assert.equal(existsSync(join(a.dir, 'candidate.patch')), false)
})

test('an attempt that already has an outcome: no work, the outcome repeated', async (t) => {
  const f = await fixture(t)
  const a = await gateReady(f, FIX)
  writeFileSync(join(a.dir, 'outcome.json'), JSON.stringify({ v: 1, attempt_key: a.key, outcome: 'not_reproduced', step: 'reproduce', decided_at: '2026-01-01T00:00:00.000Z', reason: { code: 'NOT_REPRODUCED', message: 'the case passed on the baseline' } }, null, 2) + '\n')
  const before = readdirSync(a.dir).sort()
  const r = await runBin('gate-patch', ['--attempt', a.dir])
  assert.equal(r.exitCode, 1)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'gate-patch', exit: 1, outcome: 'not_reproduced' })
  assert.deepEqual(readdirSync(a.dir).sort(), before)
})
