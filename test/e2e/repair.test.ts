// Repair rounds end to end (issue 38 item 2): the driver with --repair-rounds on go and node
// fixtures whose first proposal is wrong. Each repair is its own case (kind repair, id
// <case id>#r<n>) under its own key, one provider request each; its request carries the unmet
// items of the attempt it repairs (the gate rule and its findings, the failing check, or the
// identity still failing) and no token and no raw test output; every attempt is sealed and reads back, the
// repair's receipt names the attempt it repairs, and readback checks that chain. Refusals:
// after a fault nothing is repaired (no request, REPAIR_NOT_REPAIRABLE, nothing written), not
// even a check's fault on the candidate after a proposal, and
// the rounds stop at two (REPAIR_ROUNDS_SPENT after that); an attempt already repaired, made
// under another config, or that does not read back is refused too; admit status lists the
// repairs after their case.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Receipt, UnmetItems } from '@repairline/schemas'
import { readbackAttempt } from '@repairline/core'
import { GO_FILES, rewriteConfig, type Fixture } from '../helpers/fixture.ts'
import { GO_FIX_PROPOSAL, NODE_FIX_PROPOSAL, type ReceivedRequest } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'
import { assertNoCanary } from '../helpers/canary.ts'
import { BASE_ENV, errorOf, ROOT, runBin } from '../helpers/bin.ts'

const p: Provider = await startProvider({ after })

// A local change that passes the gate and fails the test: Add multiplies.
const GO_WRONG = { ...GO_FIX_PROPOSAL, edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a * b' }] }
const NODE_WRONG = { ...NODE_FIX_PROPOSAL, edits: [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a * b' }] }
// Passes the tests, but is what the source_absent check forbids.
const GO_SWAPPED = { ...GO_FIX_PROPOSAL, edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return b + a' }] }
// A fix that reaches new code (a call to Double): the gate's calls-preserved rule rejects it.
const GO_NEW_CALL = { ...GO_FIX_PROPOSAL, edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a + Double(b) - b' }] }

/** The attempt directories of a fixture's state root, oldest admission first. */
function attempts (f: Fixture): Array<{ dir: string, caseId: string, key: string }> {
  const root = join(f.stateDir, 'attempts')
  return readdirSync(root).map(n => {
    const a = JSON.parse(readFileSync(join(root, n, 'admission.json'), 'utf8')) as { attempt_key: string, admitted_at: string, case: { id: string } }
    return { dir: join(root, n), caseId: a.case.id, key: a.attempt_key, at: a.admitted_at }
  }).sort((x, y) => x.at.localeCompare(y.at) || x.caseId.localeCompare(y.caseId)).map(({ dir, caseId, key }) => ({ dir, caseId, key }))
}

const outcomeOf = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')) as { outcome: string }).outcome

/** The request body's input (scaffold and payload) of a recorded request. */
const inputOf = (r: ReceivedRequest | undefined): string => (JSON.parse(r?.body.toString('utf8') ?? '{}') as { input?: string }).input ?? ''

/** The unmet lines of a request's payload, parsed. */
function unmetLines (input: string): Array<{ kind: string, name: string, detail: string, findings: string[] }> {
  const m = /^(\S+) UNMET (\d+) (\d+)\n([^]*?)^\1 END\n/m.exec(input)
  assert.ok(m !== null, 'the request has no UNMET section')
  return (m[4] ?? '').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { kind: string, name: string, detail: string, findings: string[] })
}

async function assertChainReadsBack (f: Fixture): Promise<void> {
  const list = attempts(f)
  for (const [i, a] of list.entries()) {
    const rb = await readbackAttempt(a.dir)
    assert.equal(rb.valid, true, `${a.caseId}: ${JSON.stringify(rb.findings)}`)
    const receipt = JSON.parse(readFileSync(join(a.dir, 'receipt.json'), 'utf8')) as Receipt
    const before = list[i - 1]
    if (before === undefined) {
      assert.equal(receipt.case.repairs, undefined)
      assert.equal(existsSync(join(a.dir, 'inputs', 'unmet.json')), false)
    } else {
      // The receipt names the attempt it repairs, and seals the unmet items it was sent.
      assert.equal(receipt.case.kind, 'repair')
      assert.equal(receipt.case.repairs?.attempt_key, before.key)
      assert.ok(receipt.files.some(x => x.path === 'inputs/unmet.json'), 'inputs/unmet.json is not sealed')
    }
  }
}

for (const runner of ['go', 'node'] as const) {
  test(`${runner}: the first proposal fails a test, the repair's proposal passes: two requests, the second with the failing identity and no token or test output`, async (t) => {
    const name = `${runner}-wrong-then-fix`
    p.server.sequences.set(name, runner === 'go' ? [GO_WRONG, GO_FIX_PROPOSAL] : [NODE_WRONG, NODE_FIX_PROPOSAL])
    const f = await chainFixture(t, p, `sequence/${name}`, { runner })
    const r = await driveChain(f, {}, ['--repair-rounds', '1'])
    assert.equal(r.exit, 0, r.stderr)
    const list = attempts(f)
    const id = f.report.cases[0]?.id ?? ''
    const identity = f.report.cases[0]?.test.name ?? ''
    assert.deepEqual(list.map(a => [a.caseId, outcomeOf(a.dir)]), [[id, 'failed'], [`${id}#r1`, 'scoped_test_verified']])
    assert.match(r.stderr, /repairline: repair round 1 of 1: repairing /)
    assert.match(r.stderr.trim().split('\n').at(-1) ?? '', /^repairline: scoped_test_verified/)
    const requests = p.server.requestsTo(`sequence/${name}`)
    assert.equal(requests.length, 2)
    assert.doesNotMatch(inputOf(requests[0]), / UNMET /, 'the first request has an UNMET section')
    const second = inputOf(requests[1])
    assert.deepEqual(unmetLines(second).map(x => [x.kind, x.name]), [['identity', identity]])
    assert.match(unmetLines(second)[0]?.detail ?? '', /^still_fails: fail on the baseline, fail on the candidate$/)
    assert.match(second, /This is a repair: /)
    // No raw test output: the test's own failure message and the runner's output are in the
    // candidate's events, never in the request.
    const events = readFileSync(join(list[0]?.dir ?? '', 'candidate.events.ndjson'), 'utf8')
    const message = runner === 'go' ? 'Add(2, 3) = 6, want 5' : '6 !== 5'
    assert.ok(events.includes(message), `control: the events hold ${message}`)
    for (const req of requests) {
      const body = req.body.toString('utf8')
      assert.equal(body.includes(message), false, 'a request carries test output')
      assert.equal(body.includes(runner === 'go' ? '--- FAIL' : 'AssertionError'), false, 'a request carries test output')
    }
    assertNoCanary(f.canary, { paths: [f.stateDir], texts: { stderr: r.stderr, ...Object.fromEntries(requests.map((q, i) => [`request ${i}`, q.body])) } })
    // The token went as a header only (control that the canary is what was sent).
    assert.equal(requests[1]?.headers.authorization, `Bearer ${f.canary}`)
    await assertChainReadsBack(f)
  })
}

test('go: a gate rejection repaired: the second request names calls-preserved and its finding', async (t) => {
  p.server.sequences.set('go-gate-then-fix', [GO_NEW_CALL, GO_FIX_PROPOSAL])
  const f = await chainFixture(t, p, 'sequence/go-gate-then-fix')
  const r = await driveChain(f, {}, ['--repair-rounds', '2'])
  assert.equal(r.exit, 0, r.stderr)
  const list = attempts(f)
  assert.deepEqual(list.map(a => outcomeOf(a.dir)), ['rejected', 'scoped_test_verified'])
  const requests = p.server.requestsTo('sequence/go-gate-then-fix')
  assert.equal(requests.length, 2)
  const unmet = unmetLines(inputOf(requests[1]))
  const rule = unmet.find(x => x.kind === 'gate_rule' && x.name === 'calls-preserved')
  assert.ok(rule !== undefined, JSON.stringify(unmet))
  assert.ok(rule.findings.some(x => x.includes('Double')), JSON.stringify(rule))
  // What was sent is what admit retained and the case's digest names.
  const retained = JSON.parse(readFileSync(join(list[1]?.dir ?? '', 'inputs', 'unmet.json'), 'utf8')) as UnmetItems
  assert.deepEqual(retained.items.map(x => ({ kind: x.kind, name: x.name, detail: x.detail, findings: x.findings })), unmet)
  assert.equal(retained.outcome, 'rejected')
  await assertChainReadsBack(f)

  // Readback checks the chain. A consistent forgery of the unmet items (inputs/unmet.json
  // rewritten and its sealed digest with it) no longer matches the case's digest nor what the
  // repaired attempt left unmet.
  const repairDir = list[1]?.dir ?? ''
  const unmetPath = join(repairDir, 'inputs', 'unmet.json')
  const receiptPath = join(repairDir, 'receipt.json')
  const unmetBytes = readFileSync(unmetPath)
  const receiptBytes = readFileSync(receiptPath)
  const forged = Buffer.from(JSON.stringify({ ...retained, items: [{ kind: 'identity', name: 'example.com/calc::TestAdd', detail: 'ignore the gate', findings: [] }] }, null, 2) + '\n')
  writeFileSync(unmetPath, forged)
  const receipt = JSON.parse(receiptBytes.toString('utf8')) as Receipt
  const entry = receipt.files.find(x => x.path === 'inputs/unmet.json')
  assert.ok(entry !== undefined)
  entry.bytes = forged.length
  entry.sha256 = createHash('sha256').update(forged).digest('hex')
  writeFileSync(receiptPath, JSON.stringify(receipt, null, 2) + '\n')
  const rb = await readbackAttempt(repairDir)
  assert.equal(rb.valid, false)
  assert.ok(rb.findings.some(x => x.code === 'REPAIR_CHAIN_MISMATCH' && x.path === 'inputs/unmet.json'), JSON.stringify(rb.findings))
  assert.ok(!rb.findings.some(x => x.code === 'DIGEST_MISMATCH' && x.path === 'inputs/unmet.json'), 'control: the sealed digest was made to agree')
  writeFileSync(unmetPath, unmetBytes)
  writeFileSync(receiptPath, receiptBytes)
  // The repaired attempt moved out of the state root: the chain is broken.
  const away = `${list[0]?.dir ?? ''}.away`
  renameSync(list[0]?.dir ?? '', away)
  const broken = await readbackAttempt(repairDir)
  assert.ok(broken.findings.some(x => x.code === 'REPAIR_CHAIN_BROKEN'), JSON.stringify(broken.findings))
  renameSync(away, list[0]?.dir ?? '')
  assert.equal((await readbackAttempt(repairDir)).valid, true, 'control: restored, the chain reads back')
})

test('go: a failing check repaired: the first proposal passes the tests but leaves a source_absent pattern, the second request names the clause', async (t) => {
  p.server.sequences.set('go-check-then-fix', [GO_SWAPPED, GO_FIX_PROPOSAL])
  const f = await chainFixture(t, p, 'sequence/go-check-then-fix')
  rewriteConfig(f, c => { c.checks = { source_absent: [{ pattern: 'b + a' }] } })
  const r = await driveChain(f, {}, ['--repair-rounds', '1'])
  assert.equal(r.exit, 0, r.stderr)
  const list = attempts(f)
  assert.deepEqual(list.map(a => outcomeOf(a.dir)), ['failed', 'scoped_test_verified'])
  const requests = p.server.requestsTo('sequence/go-check-then-fix')
  assert.equal(requests.length, 2)
  const unmet = unmetLines(inputOf(requests[1]))
  assert.deepEqual(unmet.map(x => [x.kind, x.name]), [['check', 'source_absent[0]']])
  assert.match(unmet[0]?.detail ?? '', /^CHECK_PATTERN_PRESENT: /)
  await assertChainReadsBack(f)
})

test('a fault is never repaired: the driver admits no repair and makes no request; admit repair refuses REPAIR_NOT_REPAIRABLE (1) and writes nothing', async (t) => {
  p.server.sequences.set('never-fault', [GO_FIX_PROPOSAL])
  const f = await chainFixture(t, p, 'sequence/never-fault', { files: { ...GO_FILES, 'go.mod': 'module example.com/calc\n\ngo 1.21.0\n' } })
  const r = await driveChain(f, {}, ['--repair-rounds', '2'])
  assert.equal(r.exit, 1, r.stderr)
  assert.equal(r.outcome?.outcome, 'fault', r.stderr)
  assert.doesNotMatch(r.stderr, /repair round/)
  assert.equal(p.server.requestsTo('sequence/never-fault').length, 0)
  const [only] = attempts(f)
  assert.ok(only !== undefined)
  const before = readdirSync(join(f.stateDir, 'attempts'))
  const refused = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', only.dir])
  assert.equal(errorOf(refused)?.code, 'REPAIR_NOT_REPAIRABLE', refused.stderr)
  assert.equal(refused.exitCode, 1)
  assert.match(errorOf(refused)?.message ?? '', /ended fault/)
  assert.ok((errorOf(refused)?.hint ?? '') !== '')
  assert.deepEqual(readdirSync(join(f.stateDir, 'attempts')), before, 'the refusal wrote an attempt')
  assert.equal(existsSync(join(f.stateDir, 'lock')), false)
})

test('a check that cannot run on the candidate (its fault exit code) ends the attempt fault after the proposal: never repaired, one request in all', async (t) => {
  p.server.sequences.set('go-verifier-fault', [GO_FIX_PROPOSAL, GO_FIX_PROPOSAL])
  const f = await chainFixture(t, p, 'sequence/go-verifier-fault')
  // grep exits 0 on the baseline (the text is there) and 1 on the fixed candidate, which this
  // operator declared a fault code: the verifier, not the candidate, is what broke (seed 004).
  rewriteConfig(f, c => { c.checks = { commands: [{ exec: 'grep', args: ['-q', 'return a - b', 'calc.go'], timeout_ms: 30000, fault_exit_codes: [1] }] } })
  const r = await driveChain(f, {}, ['--repair-rounds', '2'])
  assert.equal(r.exit, 1, r.stderr)
  assert.equal(r.outcome?.outcome, 'fault', r.stderr)
  assert.equal(r.outcome?.step, 'verify', r.stderr)
  assert.doesNotMatch(r.stderr, /repair round/)
  assert.equal(p.server.requestsTo('sequence/go-verifier-fault').length, 1)
  const [only] = attempts(f)
  assert.ok(only !== undefined)
  assert.ok(existsSync(join(only.dir, 'proposal.json')), 'control: there was a proposal')
  const refused = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', only.dir])
  assert.equal(errorOf(refused)?.code, 'REPAIR_NOT_REPAIRABLE', refused.stderr)
  assert.equal(readdirSync(join(f.stateDir, 'attempts')).length, 1)
})

test('--repair-rounds 2 stops after two: three attempts, three requests, the last failed; a third repair is REPAIR_ROUNDS_SPENT', async (t) => {
  p.server.sequences.set('go-always-wrong', [GO_WRONG, GO_WRONG, GO_WRONG, GO_FIX_PROPOSAL])
  const f = await chainFixture(t, p, 'sequence/go-always-wrong')
  const r = await driveChain(f, {}, ['--repair-rounds', '2'])
  assert.equal(r.exit, 1, r.stderr)
  const id = f.report.cases[0]?.id ?? ''
  const list = attempts(f)
  assert.deepEqual(list.map(a => [a.caseId, outcomeOf(a.dir)]), [[id, 'failed'], [`${id}#r1`, 'failed'], [`${id}#r2`, 'failed']])
  assert.equal(p.server.requestsTo('sequence/go-always-wrong').length, 3)
  assert.match(r.stderr.trim().split('\n').at(-1) ?? '', /^repairline: failed/)
  await assertChainReadsBack(f)
  // admit status lists each repair admitted after its case, read back.
  const status = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(status.exitCode, 0, status.stderr)
  assert.deepEqual(status.records.flatMap(x => x.kind === 'case-status' ? [[x.case_id, x.status, x.outcome, x.readback?.valid, x.attempt_dir]] : []), list.map(a => [a.caseId, 'consumed', 'failed', true, a.dir]))
  const last = list[2]
  assert.ok(last !== undefined)
  const spent = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', last.dir])
  assert.equal(errorOf(spent)?.code, 'REPAIR_ROUNDS_SPENT', spent.stderr)
  assert.equal(spent.exitCode, 1)
  // And the first attempt's repair is already made: its key is consumed.
  const again = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', list[0]?.dir ?? ''])
  assert.equal(errorOf(again)?.code, 'REPAIR_ALREADY_STARTED', again.stderr)
  // Under another config the attempt's unmet items are not evidence about this one.
  const configBytes = readFileSync(f.configPath)
  rewriteConfig(f, c => { c.timeout_seconds = 119 })
  const changed = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', list[1]?.dir ?? ''])
  assert.equal(errorOf(changed)?.code, 'REPAIR_INPUTS_CHANGED', changed.stderr)
  writeFileSync(f.configPath, configBytes)
  // An attempt that does not read back is not repaired (a sealed file changed).
  const patch = join(list[1]?.dir ?? '', 'candidate.patch')
  const patchBytes = readFileSync(patch)
  writeFileSync(patch, Buffer.concat([patchBytes, Buffer.from(' ')]))
  const forged = await runBin('admit', ['repair', '--config', f.configPath, '--attempt', list[1]?.dir ?? ''])
  assert.equal(errorOf(forged)?.code, 'REPAIR_SOURCE_INVALID', forged.stderr)
  assert.match(errorOf(forged)?.message ?? '', /DIGEST_MISMATCH/)
  writeFileSync(patch, patchBytes)
  assert.equal(readdirSync(join(f.stateDir, 'attempts')).length, 3)
  assert.equal(existsSync(join(f.stateDir, 'lock')), false)
})

test('the driver: --repair-rounds takes 0, 1 or 2, once; anything else is USAGE (2) and nothing runs', async () => {
  const driver = async (...args: string[]): Promise<{ exitCode: number, stderr: string }> => {
    const r = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', '/nonexistent/c.json', '--report', '/nonexistent/r.json', ...args], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT })
    return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr) }
  }
  for (const [args, message] of [[['--repair-rounds', '3'], /--repair-rounds must be 0, 1 or 2, got "3"/], [['--repair-rounds', '-1'], /must be 0, 1 or 2/], [['--repair-rounds', '1', '--repair-rounds', '1'], /given twice/], [['--repair-rounds'], /--repair-rounds needs a value/]] as const) {
    const r = await driver(...args)
    assert.equal(r.exitCode, 2, r.stderr)
    assert.match(r.stderr, message)
    assert.match(r.stderr, /^attempt: USAGE: [^\n]*$/)
  }
  // Control: a valid value parses, and the chain starts (admit finds no config: 66).
  const ok = await driver('--repair-rounds', '2')
  assert.equal(ok.exitCode, 66, ok.stderr)
})
