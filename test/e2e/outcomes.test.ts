// End to end: go and node fixtures through the driver (`pnpm attempt`) for every outcome,
// each sealed and read back, with the provider's request count and the canary checked; and
// the same chain as a hand-typed pipe of the seven tools.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { readbackAttempt } from '@repairline/core'
import { GO_FILES, NODE_FILES, rewriteConfig, type Fixture } from '../helpers/fixture.ts'
import { GO_FIX_PROPOSAL, NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type DriveResult, type Provider } from '../helpers/chain.ts'
import { assertNoCanary } from '../helpers/canary.ts'
import { binPath, BASE_ENV, ROOT } from '../helpers/bin.ts'
import { gitT } from '../helpers/git.ts'
import { tempDir } from '../helpers/tmp.ts'

// One server for the whole file, closed (and its TLS material removed) when the file ends.
const p: Provider = await startProvider({ after })
{
  p.server.proposals.set('go-fix', GO_FIX_PROPOSAL)
  p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)
  p.server.proposals.set('go-edits-test', { ...GO_FIX_PROPOSAL, edits: [{ path: 'calc_test.go', search: 'Add(2, 3); got != 5', replace: 'Add(2, 3); got != -1' }] })
  p.server.proposals.set('go-breaks-double', { ...GO_FIX_PROPOSAL, edits: [...GO_FIX_PROPOSAL.edits, { path: 'calc.go', search: 'return n * 2', replace: 'return n * 3' }] })
  p.server.proposals.set('node-hangs', { ...NODE_FIX_PROPOSAL, edits: [{ path: 'src/calc.js', search: '  return a - b', replace: '  while (a === a) {}\n  return a + b' }] })
}

/** Every sealed outcome: exit, outcome, a receipt, the summary line, and no canary anywhere. */
function assertSealed (f: Fixture, r: DriveResult, exit: number, outcome: string): string {
  assert.equal(r.exit, exit, r.stderr)
  assert.equal(r.outcome?.outcome, outcome, r.stderr)
  const dir = r.attemptDir ?? ''
  assert.ok(existsSync(join(dir, 'receipt.json')), `${dir} was not sealed`)
  assert.match(r.stderr.trim().split('\n').at(-1) ?? '', new RegExp(`^repairline: ${outcome}`))
  assertNoCanary(f.canary, { paths: [f.stateDir], texts: { stderr: r.stderr } })
  return dir
}

async function assertReadsBack (dir: string, allowTestHooks = false): Promise<void> {
  const rb = await readbackAttempt(dir, { allowTestHooks })
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
}

test('go: scoped_test_verified, one request, the receipt reads back, git apply reproduces the candidate', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-fix')
  const before = p.server.requestsTo('proposal/go-fix').length
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 0, 'scoped_test_verified')
  assert.equal(p.server.requestsTo('proposal/go-fix').length - before, 1)
  await assertReadsBack(dir)
  const verify = JSON.parse(readFileSync(join(dir, 'verify.json'), 'utf8'))
  assert.equal(verify.classification, 'scoped_test_verified')
  // The retained patch applies to a clean worktree of source_sha and gives the candidate.
  const wt = join(tempDir(t), 'wt')
  await gitT(f.repo, ['worktree', 'add', '-q', '--detach', wt, f.sha])
  await gitT(wt, ['apply', join(dir, 'candidate.patch')])
  assert.match(readFileSync(join(wt, 'calc.go'), 'utf8'), /return a \+ b/)
  for (const step of ['admit', 'extract-tree', 'reproduce', 'ask-provider', 'gate-patch', 'verify', 'seal']) {
    assert.ok(existsSync(join(dir, 'logs', `${step}.stdout`)), `logs/${step}.stdout`)
  }
})

test('node: scoped_test_verified', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const r = await driveChain(f)
  await assertReadsBack(assertSealed(f, r, 0, 'scoped_test_verified'))
})

test('the driver passes its own environment to no tool: a NODE_OPTIONS probe runs in the driver and in none of the seven steps', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const dir = tempDir(t)
  const seen = join(dir, 'seen')
  const probe = join(dir, 'probe.cjs')
  // Each node process that loads the probe appends its script and its environment's names.
  writeFileSync(probe, `require('node:fs').appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ script: process.argv[1], env: Object.keys(process.env).sort() }) + '\\n')\n`)
  const r = await driveChain(f, { NODE_OPTIONS: `--require ${probe}`, NODE_PATH: '/nonexistent', REPAIRLINE_CANARY_ENV: f.canary })
  assertSealed(f, r, 0, 'scoped_test_verified')
  const lines = readFileSync(seen, 'utf8').trim().split('\n').map(l => JSON.parse(l) as { script: string, env: string[] })
  // Positive control: the probe does run where NODE_OPTIONS reaches, in the driver itself.
  assert.deepEqual(lines.map(l => l.script), [join(ROOT, 'dist', 'attempt.mjs')])
  assert.ok(lines[0]?.env.includes('NODE_PATH'))
})

test('not_reproduced: the case passes on the baseline; zero provider requests', async (t) => {
  const f = await chainFixture(t, p, 'proposal/never-not-reproduced', {
    cases: [{ package: '.', name: 'example.com/calc::TestDouble' }],
  })
  const r = await driveChain(f)
  await assertReadsBack(assertSealed(f, r, 1, 'not_reproduced'))
  assert.equal(p.server.requestsTo('proposal/never-not-reproduced').length, 0)
  assert.equal(existsSync(join(r.attemptDir ?? '', 'dispatch.json')), false)
})

test('rejected: a proposal that edits the test file; the gate names the rule', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-edits-test')
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'rejected')
  assert.equal(r.outcome?.step, 'gate-patch')
  assert.match(r.outcome?.reason.message ?? '', /allowlist|classifier/)
  await assertReadsBack(dir)
})

// Found by playing the hostile model: without a single call expression, this edit makes the
// test child write node's own v8-serialized test:pass frames to its stdout (via instanceof and
// Symbol.hasInstance) and exit 0; before names-preserved it reached scoped_test_verified with
// a - b still in place. It needs `process` and `Symbol`, names calc.js never used.
test('rejected: a node proposal that forges the test runner\'s frames through implicit calls; names-preserved names what it reaches for; no candidate run', async (t) => {
  const edits = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'proposals', 'node-forged-frames.edits.json'), 'utf8')) as typeof NODE_FIX_PROPOSAL.edits
  p.server.proposals.set('node-forged-frames', { ...NODE_FIX_PROPOSAL, edits })
  const f = await chainFixture(t, p, 'proposal/node-forged-frames', { runner: 'node' })
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'rejected')
  const gate = JSON.parse(readFileSync(join(dir, 'gate.json'), 'utf8')) as { rules: Array<{ rule: string, status: string, findings?: string[] }> }
  const failed = gate.rules.filter(x => x.status === 'fail')
  // Since checker version 9 the frames' literal is framing too: it holds V8's serialization header.
  assert.deepEqual(failed.map(x => x.rule), ['names-preserved', 'no-test-framing'])
  const findings = failed[0]?.findings ?? []
  for (const name of ['Symbol', 'process']) assert.ok(findings.includes(`src/calc.js: added name ${name}`), findings.join(' | '))
  assert.ok(findings.includes('src/calc.js: added use of hasInstance (reaches code or rebinds a call)'), findings.join(' | '))
  assert.equal(existsSync(join(dir, 'candidate.events.ndjson')), false)
  await assertReadsBack(dir)
})

// Found by the gate audit: the same forged frames with no new identifier at all. The code is
// a string given to the Function constructor, reached as a.constructor.constructor and bound
// to an existing callee (Math.round, its one call moved), and the function it makes runs by
// coercion (valueOf). The call multiset is unchanged, so before the reaching names, the
// rebinding check and the moved-call check it reached scoped_test_verified with a - b still
// in place.
test('rejected: a node proposal that runs the forged frames through the Function constructor bound to an existing callee; no candidate run', async (t) => {
  const calc = (NODE_FILES['src/calc.js'] as string).replace('  return n * 2\n', '  return Math.round(n * 2)\n')
  const forged = (JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'proposals', 'node-forged-frames.edits.json'), 'utf8')) as Array<{ replace: string }>)[0]?.replace ?? ''
  const body = `var a, b; return ${forged.slice('return '.length, -' && a - b'.length)}`
  const edits = [
    { path: 'src/calc.js', search: '  return Math.round(n * 2)\n', replace: '  return n * 2\n' },
    { path: 'src/calc.js', search: '  return a - b\n', replace: `  Math.round = a.constructor.constructor\n  return +{ valueOf: Math.round(${JSON.stringify(body)}) } || a - b\n` },
  ]
  p.server.proposals.set('node-function-ctor', { ...NODE_FIX_PROPOSAL, edits })
  const f = await chainFixture(t, p, 'proposal/node-function-ctor', { runner: 'node', files: { ...NODE_FILES, 'src/calc.js': calc } })
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'rejected')
  const gate = JSON.parse(readFileSync(join(dir, 'gate.json'), 'utf8')) as { rules: Array<{ rule: string, status: string, findings?: string[] }> }
  const failed = gate.rules.filter(x => x.status === 'fail')
  assert.deepEqual(failed.map(x => x.rule), ['calls-preserved', 'names-preserved'])
  // Since checker version 6 the call's move from double to add is a finding of its own, and
  // since version 8 the write to a global's property is one too.
  assert.deepEqual(failed[0]?.findings, [
    'src/calc.js: added call Math.round in function add',
    'src/calc.js: removed call Math.round in function double',
    'src/calc.js: added assignment of Math.round, a property of Math, which no scope around it declares (a global)',
    'src/calc.js: added assignment of callee Math.round = a.constructor.constructor',
  ])
  assert.ok(failed[1]?.findings?.includes('src/calc.js: added use of constructor (reaches code or rebinds a call)'))
  assert.equal(existsSync(join(dir, 'candidate.events.ndjson')), false)
  await assertReadsBack(dir)
})

test('failed: a fix that repairs the case but breaks another test', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-breaks-double')
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'failed')
  assert.equal(r.outcome?.step, 'verify')
  await assertReadsBack(dir)
})

test('timed_out: a candidate that hangs is stopped at the deadline', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-hangs', { runner: 'node' })
  rewriteConfig(f, c => { c.timeout_seconds = 30 })
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'timed_out')
  await assertReadsBack(dir)
})

test('provider_error, retryable (429): exit 69, sealed, one request', async (t) => {
  const f = await chainFixture(t, p, 'status/429')
  const before = p.server.requestsTo('status/429').length
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 69, 'provider_error')
  assert.equal(r.outcome?.retryable, true)
  assert.equal(p.server.requestsTo('status/429').length - before, 1)
  await assertReadsBack(dir)
})

test('provider_error, not retryable (400): exit 1, sealed', async (t) => {
  const f = await chainFixture(t, p, 'status/400')
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'provider_error')
  assert.equal(r.outcome?.retryable, false)
  await assertReadsBack(dir)
})

test('fault: a go.mod the sandbox toolchain cannot read; zero provider requests', async (t) => {
  const f = await chainFixture(t, p, 'proposal/never-fault', { files: { ...GO_FILES, 'go.mod': 'module example.com/calc\n\ngo 1.21.0\n' } })
  const r = await driveChain(f)
  const dir = assertSealed(f, r, 1, 'fault')
  assert.equal(r.outcome?.step, 'reproduce')
  assert.match(r.outcome?.reason.message ?? '', /1\.21/)
  assert.equal(p.server.requestsTo('proposal/never-fault').length, 0)
  await assertReadsBack(dir)
})

test('interrupted: the chain killed after dispatch; sealed later past deadline + 30 s; never sent twice', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-fix-crash')
  p.server.proposals.set('go-fix-crash', GO_FIX_PROPOSAL)
  const hooks = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:00:00.000Z' }
  const r = await driveChain(f, { ...hooks, REPAIRLINE_FAULT_AT: 'dispatch' })
  assert.notEqual(r.exit, 0)
  assert.equal(r.outcome, undefined)
  const dir = r.attemptDir ?? ''
  assert.ok(existsSync(join(dir, 'dispatch.json')))
  const seal = await execa(binPath('receipt'), ['seal', '--attempt', dir], { env: { ...BASE_ENV, ...hooks, REPAIRLINE_TEST_NOW: '2026-11-30T10:05:00.000Z' }, extendEnv: false, reject: false })
  assert.equal(seal.exitCode, 1, String(seal.stderr))
  const outcome = JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8'))
  assert.equal(outcome.outcome, 'interrupted')
  await assertReadsBack(dir, true)
  assert.ok(p.server.requestsTo('proposal/go-fix-crash').length <= 1)
  assertNoCanary(f.canary, { paths: [f.stateDir] })
})

test('a hand-typed pipe: admit run | extract-tree | reproduce | ask-provider | gate-patch | verify | receipt seal', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-fix')
  const o = { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT } as const
  const r = await execa(binPath('admit'), ['run', '--config', f.configPath, '--report', f.reportPath], o)
    .pipe(binPath('extract-tree'), [], o)
    .pipe(binPath('reproduce'), [], o)
    .pipe(binPath('ask-provider'), [], o)
    .pipe(binPath('gate-patch'), [], o)
    .pipe(binPath('verify'), [], o)
    .pipe(binPath('receipt'), ['seal'], o)
  assert.equal(r.exitCode, 0, String(r.stderr))
  const last = String(r.stdout).trim().split('\n').map(l => JSON.parse(l) as { kind: string, outcome?: string })
  assert.deepEqual(last.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.equal(last[2]?.outcome, 'scoped_test_verified')
  assert.deepEqual(r.pipedFrom.map(x => x.exitCode), [0])
  const [dir] = readdirSync(join(f.stateDir, 'attempts'))
  await assertReadsBack(join(f.stateDir, 'attempts', dir ?? ''))
})

test('a second driver run on a consumed case admits nothing and sends nothing', async (t) => {
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node', files: NODE_FILES })
  const first = await driveChain(f)
  assert.equal(first.exit, 0, first.stderr)
  const sent = p.server.requests.length
  const again = await driveChain(f)
  assert.equal(again.exit, 1, again.stderr)
  assert.match(again.stderr, /NOTHING_ELIGIBLE/)
  assert.equal(p.server.requests.length, sent)
})
