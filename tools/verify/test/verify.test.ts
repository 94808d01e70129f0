// verify end to end on real go and node fixture repositories: admit → extract-tree →
// reproduce → gate-patch (hand-written proposal) → verify, every step the real bin, every
// test run the real toolchain in the real sandbox. Each classification of DESIGN §11 is
// reached by the candidate it describes: a one-line fix is scoped_test_verified with a
// red-then-green record; a fix that breaks another test and a fix that makes the failing test
// skip are failed, each with its note; a candidate that hangs is timed_out; and a toolchain
// the sandbox cannot reach, or a run under another command than the baseline's, is a fault,
// never failed work.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import type { AnyRecord } from '@repairline/core'
import { parseRecordLine } from '@repairline/core'
import { BASE_ENV, ROOT } from '../../../test/helpers/bin.ts'
import {
  fixture, gatedAttempt, GO_CASE, GO_FIX, GO_OTHER, NODE_CASE, NODE_FIX, NODE_OTHER, NODE_SKIPPABLE_FILES,
  goCacheEnv, readOutcomeFile, readText, readVerify, runVerify,
} from './helpers.ts'

function sha256 (b: Buffer): string {
  return createHash('sha256').update(b).digest('hex')
}

function kinds (records: AnyRecord[]): string[] {
  return records.map(r => r.kind)
}

function verifyRecord (records: AnyRecord[]): Extract<AnyRecord, { kind: 'verify' }> {
  const r = records.find((x): x is Extract<AnyRecord, { kind: 'verify' }> => x.kind === 'verify')
  assert.ok(r !== undefined, 'a verify record')
  return r
}

test('go: a one-line fix is scoped_test_verified, red then green under the identical command and sandbox, from a read-only candidate tree', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const env = await goCacheEnv()
  const a = await gatedAttempt(f, GO_FIX, env)
  const r = await runVerify(a.dir, { env })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(kinds(r.records), ['start', 'attempt', 'verify', 'result'])
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'verify', exit: 0, outcome: 'scoped_test_verified' })
  assert.deepEqual(verifyRecord(r.records), { v: 1, kind: 'verify', classification: 'scoped_test_verified', red_then_green: 'red_then_green', reasons: [], identities: 2, failing: [] })

  const v = readVerify(a)
  assert.equal(v.classification, 'scoped_test_verified')
  assert.equal(v.passed, true)
  assert.deepEqual(v.red_then_green, { shape: 'red_then_green', identities: [{ identity: GO_CASE, baseline: 'fail', candidate: 'pass' }] })
  assert.deepEqual(v.verdicts, [
    { identity: GO_CASE, baseline: 'fail', candidate: 'pass', verdict: 'fixed' },
    { identity: GO_OTHER, baseline: 'pass', candidate: 'pass', verdict: 'still_passes' },
  ])
  assert.equal(v.fault, undefined)
  assert.deepEqual(v.comparable, { identical: true, differences: [] })

  // The identical command: the baseline's, but for go's -timeout (set below the time left).
  const baseline = JSON.parse(readText(a, 'baseline.json')) as { command: string[], toolchain: string, run: { env_names: string[] } }
  const noTimeout = (c: string[]): string[] => c.filter(x => !x.startsWith('-timeout='))
  assert.deepEqual(noTimeout(v.command ?? []), noTimeout(baseline.command))
  assert.equal(v.toolchain, baseline.toolchain)
  assert.deepEqual(v.run?.env_names, baseline.run.env_names)

  // The candidate tree: the baseline with gate.json's changed file, mounted read-only.
  const gate = JSON.parse(readText(a, 'gate.json')) as { changed_files: Array<{ path: string, candidate_sha256: string }>, patch: { sha256: string } }
  assert.deepEqual(v.candidate.files.map(x => [x.path, x.sha256]), gate.changed_files.map(x => [x.path, x.candidate_sha256]))
  assert.equal(v.candidate.patch_sha256, gate.patch.sha256)
  const calc = readFileSync(join(a.dir, 'work', 'candidate', 'calc.go'))
  assert.equal(sha256(calc), gate.changed_files[0]?.candidate_sha256)
  assert.match(calc.toString(), /return a \+ b/)
  const mount = v.run?.mounts.find(m => m.source === join(a.dir, 'work', 'candidate'))
  assert.equal(mount?.mode, 'ro', 'the candidate tree is mounted read-only')
  assert.equal(v.run?.limits.find(l => l.name === `mount ${mount?.dest ?? ''}`)?.got, 'ro', 'and the read-only mount was read back from inside')
  assert.equal(existsSync(join(a.dir, 'work', 'candidate-run')), false, 'the scratch directory is removed after the run')

  // candidate.events.ndjson: the run's normalized events, as verify.json's digest says.
  const events = readFileSync(join(a.dir, 'candidate.events.ndjson'))
  assert.deepEqual(v.events, { count: events.toString().split('\n').filter(Boolean).length, bytes: events.length, sha256: sha256(events) })
  assert.ok(events.toString().split('\n').filter(Boolean).some(l => (JSON.parse(l) as { Test?: string, Action: string }).Test === 'TestAdd' && (JSON.parse(l) as { Action: string }).Action === 'pass'))

  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'scoped_test_verified')
  assert.equal(o.step, 'verify')
  assert.equal(o.reason.code, 'SCOPED_TEST_VERIFIED')
})

test('node: a one-line fix is scoped_test_verified, red then green', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, NODE_FIX)
  const r = await runVerify(a.dir)
  assert.equal(r.exitCode, 0, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'scoped_test_verified')
  assert.deepEqual(v.red_then_green, { shape: 'red_then_green', identities: [{ identity: NODE_CASE, baseline: 'fail', candidate: 'pass' }] })
  assert.deepEqual(v.verdicts.map(x => `${x.identity}:${x.verdict}`), [`${NODE_CASE}:fixed`, `${NODE_OTHER}:still_passes`])
  const baseline = JSON.parse(readText(a, 'baseline.json')) as { command: string[], reporter_sha256: string }
  assert.deepEqual(v.command, baseline.command, 'node: the identical command, byte for byte')
  assert.equal(v.reporter_sha256, baseline.reporter_sha256)
  assert.equal(readOutcomeFile(a).outcome, 'scoped_test_verified')
})

test('go: a fix that repairs the case but breaks another test is failed, naming the broken test; the case itself is red then green', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const env = await goCacheEnv()
  const a = await gatedAttempt(f, [...GO_FIX, { path: 'calc.go', search: 'return n * 2', replace: 'return n * 3' }], env)
  const r = await runVerify(a.dir, { env })
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'verify', exit: 1, outcome: 'failed' })
  const v = readVerify(a)
  assert.equal(v.classification, 'failed')
  assert.equal(v.passed, false)
  assert.deepEqual(v.verdicts.map(x => `${x.identity}:${x.verdict}`), [`${GO_CASE}:fixed`, `${GO_OTHER}:now_fails`])
  assert.deepEqual(v.reasons, [`1 identity passed or were skipped on the baseline and fail on the candidate: ${GO_OTHER}`])
  assert.equal(v.red_then_green.shape, 'red_then_green', 'the record says what was measured: the case did turn green')
  assert.deepEqual(v.failing, [GO_OTHER])
  assert.equal(v.fault, undefined)
  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'failed')
  assert.equal(o.reason.code, 'VERIFY_FAILED')
  assert.match(o.reason.message, /TestDouble/)
})

test('node: a fix that makes the failing test skip is failed; red then skipped, with its one-line note', async (t) => {
  const f = await fixture(t, { runner: 'node', files: NODE_SKIPPABLE_FILES })
  const a = await gatedAttempt(f, [{ path: 'src/calc.js', search: 'export const supported = true', replace: 'export const supported = false' }])
  const r = await runVerify(a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'failed')
  assert.equal(v.identities[NODE_CASE]?.result, 'skip', 'the runner saw the skip')
  assert.deepEqual(v.verdicts.map(x => `${x.identity}:${x.verdict}`), [`${NODE_CASE}:now_skipped`, `${NODE_OTHER}:still_passes`])
  assert.equal(v.red_then_green.shape, 'red_then_skipped')
  assert.match(v.red_then_green.note ?? '', /^Red on the baseline under the identical command and sandbox, but on the candidate: test\/calc\.test\.js::add adds skipped \(a skipped failure is not fixed\)\.$/)
  const rec = verifyRecord(r.records)
  assert.equal(rec.note, v.red_then_green.note)
  assert.equal(readOutcomeFile(a).outcome, 'failed')
})

test('go: a candidate that hangs is timed_out, never failed, whether go test\'s own -timeout or the supervisor\'s kill stops it', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const env = await goCacheEnv()
  const a = await gatedAttempt(f, [{ path: 'calc.go', search: '\treturn a - b\n', replace: '\tfor a != b+1 {\n\t}\n\treturn a + b\n' }], env)
  // The test clock puts verify 21.9 s before the deadline: the run's budget is 20.9 s (1 s is
  // kept to write the results), go's own -timeout 18 s. Which fires first depends on how long
  // the sandbox's setup and the compile take (they count against the budget, not against go's
  // -timeout): go's in-band panic ends the hung TestAdd with a failing exit, which without the
  // timeout check would read as failed work; the kill at the budget is the supervisor's.
  const deadline = Date.parse((JSON.parse(readText(a, 'admission.json')) as { deadline: string }).deadline)
  const now = new Date(deadline - 21_900).toISOString()
  const r = await runVerify(a.dir, { env: { ...env, REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now } })
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.ok(v.command?.includes('-timeout=18s'), JSON.stringify(v.command))
  if (v.run?.stop === undefined) {
    assert.equal(v.exit_code, 1, 'in-band: go test exited 1 after its panic')
    assert.ok(readText(a, 'candidate.events.ndjson').includes('panic: test timed out after 18s'))
    assert.ok(v.failing.includes(GO_CASE), 'in-band: the hung test reads as failed in the events')
  } else {
    assert.equal(v.run.stop.reason, 'deadline', 'the supervisor killed the run at the budget')
  }
  assert.equal(v.classification, 'timed_out')
  assert.equal(v.timed_out, true)
  assert.equal(v.red_then_green.shape, 'red_then_timed_out')
  assert.match(v.red_then_green.note ?? '', /timed out before reaching a verdict: this says nothing about the fix/)
  assert.deepEqual(v.comparable, { identical: true, differences: [] }, 'only -timeout differs from the baseline, and it is excepted')
  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'timed_out')
  assert.equal(o.reason.code, 'DEADLINE_PASSED')
})

test('node: a candidate that hangs is killed at the deadline and timed_out', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, [{ path: 'src/calc.js', search: '  return a - b\n', replace: '  while (a !== b + 1) {\n  }\n  return a + b\n' }])
  const deadline = Date.parse((JSON.parse(readText(a, 'admission.json')) as { deadline: string }).deadline)
  const r = await runVerify(a.dir, { env: { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(deadline - 5000).toISOString() } })
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'timed_out')
  assert.equal(v.timed_out, true)
  assert.equal(v.run?.stop?.reason, 'deadline')
  assert.equal(v.red_then_green.shape, 'red_then_timed_out')
  assert.equal(readOutcomeFile(a).outcome, 'timed_out')
})

/**
 * A copy of this Node in its own prefix (`<dir>/bin/node`), to run a tool with another
 * toolchain. Under /var/tmp, not /tmp: the sandbox shows a prefix at its host path, and its
 * /tmp is a private tmpfs.
 */
function privateNode (t: TestContext, mode: number): string {
  const dir = realpathSync(mkdtempSync('/var/tmp/rl-node-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  chmodSync(dir, 0o755)
  const prefix = join(dir, 'prefix')
  mkdirSync(join(prefix, 'bin'), { recursive: true })
  const node = join(prefix, 'bin', 'node')
  copyFileSync(process.execPath, node)
  chmodSync(node, 0o755)
  chmodSync(join(prefix, 'bin'), 0o755)
  chmodSync(prefix, mode)
  return node
}

async function verifyWith (node: string, dir: string): Promise<{ exitCode: number, records: AnyRecord[], stderr: string }> {
  const r = await execa(node, [join(ROOT, 'tools', 'verify', 'bin', 'verify.js'), '--attempt', dir], { env: BASE_ENV, extendEnv: false, reject: false, input: '', cwd: ROOT })
  const lines = String(r.stdout).split('\n').filter(l => l !== '')
  return { exitCode: r.exitCode ?? -1, records: lines.map((l, i) => parseRecordLine(l, `verify stdout:${i + 1}`)), stderr: String(r.stderr) }
}

test('node: a toolchain the sandbox user cannot reach is a fault, never failed work; the same toolchain reachable is a positive control', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, NODE_FIX)
  // The verify process runs this Node from a 0700 prefix: root can run it, uid 65534 cannot.
  const node = privateNode(t, 0o700)
  const r = await verifyWith(node, a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'verify', 'result'])
  const v = readVerify(a)
  assert.equal(v.classification, 'fault')
  assert.equal(v.fault?.code, 'SANDBOX_BIND_UNSAFE')
  assert.match(v.fault?.message ?? '', /prefix/)
  assert.equal(v.run, undefined, 'the command never started')
  assert.deepEqual(v.verdicts.map(x => x.verdict), ['not_executed', 'not_executed'], 'what was measured: nothing ran')
  assert.equal(v.red_then_green.shape, 'red_then_fault')
  assert.match(v.red_then_green.note ?? '', /the fix was not checked, and this is not failed work/)
  assert.equal(readText(a, 'candidate.events.ndjson'), '')
  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'fault')
  assert.equal(o.reason.code, 'SANDBOX_BIND_UNSAFE')

  // Positive control: the same candidate on another attempt, with the regular toolchain.
  const g = await fixture(t, { runner: 'node' })
  const b = await gatedAttempt(g, NODE_FIX)
  assert.equal((await runVerify(b.dir)).exitCode, 0)
})

test('node: a candidate run under another toolchain path than the baseline\'s is a fault (RUN_NOT_COMPARABLE), though every test passed', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gatedAttempt(f, NODE_FIX)
  // The same Node, copied to a prefix the sandbox user can reach: the run works, but its
  // command is not the baseline's.
  const node = privateNode(t, 0o755)
  const r = await verifyWith(node, a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'fault')
  assert.equal(v.fault?.code, 'RUN_NOT_COMPARABLE')
  assert.equal(v.comparable.identical, false)
  assert.ok(v.comparable.differences.some(d => d.startsWith('command: baseline ["/')), JSON.stringify(v.comparable))
  assert.deepEqual(v.failing, [], 'every test passed under the other command')
  assert.equal(v.red_then_green.shape, 'red_then_fault')
  assert.equal(readOutcomeFile(a).outcome, 'fault')
  assert.ok(statSync(join(a.dir, 'verify.json')).isFile())
  assert.ok(readdirSync(join(a.dir, 'work')).includes('candidate'))
})
