// verify as a step of the chain (DESIGN §2): every refusal with its exact code and exit
// status, one stderr line and nothing written (no work tree, no events, no verify.json, no
// outcome), each followed by its positive control on the same attempt; a rerun on an attempt
// that already has an outcome does no work; the attempt record on stdin is used like
// --attempt; and a crash at the `verify` fault point leaves the events without their
// summary, which a rerun replaces.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Baseline, GateReport, Lock } from '@repairline/schemas'
import { sha256Hex } from '@repairline/core'
import { errorOf, runBin, type BinResult } from '../../../test/helpers/bin.ts'
import { fixture, gatedAttempt, NODE_FIX, readOutcomeFile, readVerify, runVerify } from './helpers.ts'

const WRITTEN = ['work/candidate', 'work/candidate-run', 'candidate.events.ndjson', 'verify.json', 'outcome.json']

function assertRefused (r: BinResult, exit: number, code: string, dir?: string): void {
  const err = errorOf(r)
  assert.equal(err?.code, code, `expected ${code}, got ${JSON.stringify(err)}; stderr: ${r.stderr}`)
  assert.equal(r.exitCode, exit, r.stderr)
  assert.match(r.stderr, new RegExp(`^verify: ${code}: [^\\n]+\\n`))
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'verify', exit })
  if (dir !== undefined) for (const f of WRITTEN) assert.equal(existsSync(join(dir, f)), false, `${f} was written`)
}

/** Replaces a retained file for the length of `body`, then puts the original back. */
async function withFile (path: string, bytes: string | Buffer, body: () => Promise<void>): Promise<void> {
  const saved = readFileSync(path)
  writeFileSync(path, bytes)
  try { await body() } finally { writeFileSync(path, saved) }
}

function json<T> (path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

test('no --attempt and no attempt record on stdin: ATTEMPT_MISSING (66); an unknown flag: USAGE (2)', async () => {
  const r = await runVerify(undefined, { input: '' })
  assertRefused(r, 66, 'ATTEMPT_MISSING')
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
  assertRefused(await runBin('verify', ['--fuzz']), 2, 'USAGE')
})

test('refusals on one gated attempt, each writing nothing; then the attempt record on stdin verifies it, and a rerun does no work', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, NODE_FIX)
  const lockFile = join(f.stateDir, 'lock')

  await t.test('the lock names another attempt: LOCK_LOST (75)', async () => {
    const lock = json<Lock>(lockFile)
    const other: Lock = { ...lock, attempt_key: 'f'.repeat(64), attempt_dir: join(f.stateDir, 'attempts', 'f'.repeat(16)) }
    await withFile(lockFile, `${JSON.stringify(other, null, 2)}\n`, async () => {
      const r = await runVerify(a.dir)
      assertRefused(r, 75, 'LOCK_LOST', a.dir)
      assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'error', 'result'])
    })
  })

  await t.test('the lock is gone: LOCK_LOST (75)', async () => {
    renameSync(lockFile, `${lockFile}.away`)
    try {
      assertRefused(await runVerify(a.dir), 75, 'LOCK_LOST', a.dir)
    } finally {
      renameSync(`${lockFile}.away`, lockFile)
    }
  })

  await t.test('candidate.patch missing: ATTEMPT_INCOMPLETE (65)', async () => {
    const p = join(a.dir, 'candidate.patch')
    renameSync(p, `${p}.away`)
    try {
      assertRefused(await runVerify(a.dir), 65, 'ATTEMPT_INCOMPLETE', a.dir)
    } finally {
      renameSync(`${p}.away`, p)
    }
  })

  await t.test('a gate that did not pass: GATE_NOT_PASSED (65)', async () => {
    const p = join(a.dir, 'gate.json')
    const gate = json<GateReport>(p)
    const failed: GateReport = { ...gate, passed: false, failed_rules: ['calls-preserved'], rules: gate.rules.map(r => r.rule === 'calls-preserved' ? { ...r, status: 'fail' as const, detail: 'calls changed in 1 file(s)', findings: ['src/calc.js: added call f'] } : r) }
    await withFile(p, `${JSON.stringify(failed, null, 2)}\n`, async () => {
      const r = await runVerify(a.dir)
      assertRefused(r, 65, 'GATE_NOT_PASSED', a.dir)
      assert.match(errorOf(r)?.message ?? '', /calls-preserved:fail/)
    })
  })

  await t.test('a proposal changed after the gate: CANDIDATE_MISMATCH (65), the changed candidate is never run', async () => {
    const p = join(a.dir, 'proposal.json')
    const proposal = json<{ summary: unknown, edits: Array<{ path: string, search: string, replace: string }> }>(p)
    const changed = { ...proposal, edits: proposal.edits.map(e => ({ ...e, replace: 'return a + b + 1' })) }
    await withFile(p, `${JSON.stringify(changed, null, 2)}\n`, async () => {
      assertRefused(await runVerify(a.dir), 65, 'CANDIDATE_MISMATCH', a.dir)
    })
  })

  await t.test('a candidate.patch changed after the gate: CANDIDATE_MISMATCH (65)', async () => {
    const p = join(a.dir, 'candidate.patch')
    await withFile(p, Buffer.concat([readFileSync(p), Buffer.from(' \n')]), async () => {
      assertRefused(await runVerify(a.dir), 65, 'CANDIDATE_MISMATCH', a.dir)
    })
  })

  await t.test('a baseline where the case did not fail: BASELINE_NOT_REPRODUCED (65)', async () => {
    const p = join(a.dir, 'baseline.json')
    const baseline = json<Baseline>(p)
    const green: Baseline = { ...baseline, reproduced: false, failing: [], identities: Object.fromEntries(Object.keys(baseline.identities).map(id => [id, { result: 'pass' as const }])) }
    await withFile(p, `${JSON.stringify(green, null, 2)}\n`, async () => {
      assertRefused(await runVerify(a.dir), 65, 'BASELINE_NOT_REPRODUCED', a.dir)
    })
  })

  await t.test('positive control: the attempt record on stdin, nothing tampered: scoped_test_verified', async () => {
    const r = await runVerify(undefined, { input: `${JSON.stringify({ v: 1, kind: 'attempt', path: a.dir, key: a.key })}\n` })
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'verify', 'result'])
    assert.equal(readOutcomeFile(a).outcome, 'scoped_test_verified')
  })

  await t.test('a rerun on an attempt that already has an outcome does no work and exits with that outcome', async () => {
    const before = new Map(['verify.json', 'candidate.events.ndjson', 'outcome.json', 'work/candidate', 'work/candidate/src/calc.js'].map(p => {
      const st = statSync(join(a.dir, p))
      return [p, { ino: st.ino, mtimeMs: st.mtimeMs, sha: st.isFile() ? sha256Hex(readFileSync(join(a.dir, p))) : '' }]
    }))
    // Even with the lock gone: an attempt with an outcome is answered before the lock check.
    renameSync(lockFile, `${lockFile}.away`)
    try {
      const r = await runVerify(a.dir)
      assert.equal(r.exitCode, 0, r.stderr)
      assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
      assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'verify', exit: 0, outcome: 'scoped_test_verified' })
    } finally {
      renameSync(`${lockFile}.away`, lockFile)
    }
    for (const [p, was] of before) {
      const st = statSync(join(a.dir, p))
      assert.deepEqual({ ino: st.ino, mtimeMs: st.mtimeMs, sha: st.isFile() ? sha256Hex(readFileSync(join(a.dir, p))) : '' }, was, `${p} was touched`)
    }
    assert.equal(existsSync(join(a.dir, 'work', 'candidate-run')), false)
  })
})

test('a crash at the verify fault point leaves the events without verify.json or an outcome; the switch is needed; a rerun finishes the step', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, NODE_FIX)
  const r = await runVerify(a.dir, { env: { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_FAULT_AT: 'verify' } })
  assert.equal(r.exitCode, -1, 'killed by SIGKILL')
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt'])
  assert.ok(existsSync(join(a.dir, 'candidate.events.ndjson')), 'the events were written before the fault point')
  assert.ok(existsSync(join(a.dir, 'work', 'candidate')), 'the work tree was left behind')
  assert.equal(existsSync(join(a.dir, 'verify.json')), false)
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false)
  const lock = json<Lock>(join(f.stateDir, 'lock'))
  assert.equal(lock.attempt_key, a.key, 'the lock still names the attempt')

  // Without REPAIRLINE_TEST_HOOKS=1 the label is ignored: the rerun replaces the leftover work
  // tree and events and decides the outcome.
  const again = await runVerify(a.dir, { env: { REPAIRLINE_FAULT_AT: 'verify' } })
  assert.equal(again.exitCode, 0, again.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'scoped_test_verified')
  const events = readFileSync(join(a.dir, 'candidate.events.ndjson'))
  assert.equal(v.events.sha256, sha256Hex(events), 'verify.json describes the events of the run that decided it')
  assert.equal(readOutcomeFile(a).outcome, 'scoped_test_verified')
})
