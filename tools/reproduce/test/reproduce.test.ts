// reproduce through its real bin, on attempts admitted and extracted by the real admit and
// extract-tree bins: the go and node fixtures reproduce; a passing case is not_reproduced; a
// run that says nothing usable is a fault; a hang is killed at the deadline (timed_out); a
// sandbox primitive that disappears after admission is a fault; --preflight reports what is
// in force; the sandbox-start crash point leaves nothing half-written.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Baseline, OutcomeFile, TestEvent } from '@repairline/schemas'
import { parseDocument, parseRecordLine, sha256Hex } from '@repairline/core'
import { makeFixture, rewriteConfig, GO_FILES, NODE_FILES, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { BASE_ENV, ROOT, binPath, runBin, errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { fakeBwrap, runBinMasked, type Masks } from '../../../test/helpers/mount-ns.ts'
import { orphanCgroups, sandboxTemp, warmGoCache } from '../../../test/helpers/sandbox.ts'

interface Admitted { f: Fixture, dir: string }

/** A fixture in a directory the sandbox user can reach, admitted and extracted by the real bins. */
async function admitted (t: Parameters<typeof sandboxTemp>[0], o: FixtureOptions & { env?: Record<string, string>, config?: (c: Fixture['config']) => void } = {}): Promise<Admitted> {
  const f = await makeFixture(sandboxTemp(t), o)
  if (o.config !== undefined) rewriteConfig(f, o.config)
  const a = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: o.env ?? {} })
  assert.equal(a.exitCode, 0, a.stderr)
  const rec = a.records.find(r => r.kind === 'attempt')
  assert.ok(rec?.kind === 'attempt')
  const x = await runBin('extract-tree', ['--attempt', rec.path], { env: o.env ?? {} })
  assert.equal(x.exitCode, 0, x.stderr)
  return { f, dir: rec.path }
}

/** reproduce through its bin, seeding GOCACHE from a warm host cache as an operator's would be. */
async function reproduceBin (args: string[], env: Record<string, string> = {}): Promise<BinResult> {
  return await runBin('reproduce', args, { env: { GOCACHE: await warmGoCache(), ...env } })
}

function readBaseline (dir: string): Baseline {
  return parseDocument('baseline', readFileSync(join(dir, 'baseline.json')), 'baseline.json')
}

function readOutcomeFile (dir: string): OutcomeFile {
  return parseDocument('outcome', readFileSync(join(dir, 'outcome.json')), 'outcome.json')
}

function kinds (r: BinResult): string[] {
  return r.records.map(x => x.kind)
}

for (const runner of ['go', 'node'] as const) {
  test(`${runner}: the fixture's failing test reproduces; baseline.json records the run, its limits and how each was read back`, async t => {
    const { f, dir } = await admitted(t, { runner })
    const r = await reproduceBin(['--attempt', dir])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual(kinds(r), ['start', 'attempt', 'baseline', 'result'])
    const rec = r.records[2]
    const caseId = runner === 'go' ? 'example.com/calc::TestAdd' : 'test/calc.test.js::add adds'
    assert.deepEqual(rec, { v: 1, kind: 'baseline', case_identity: caseId, reproduced: true, identities: 2, failing: [caseId], exit_code: 1 })
    const b = readBaseline(dir)
    assert.equal(b.reproduced, true)
    assert.deepEqual(b.failing, [caseId])
    assert.equal(Object.keys(b.identities).length, 2)
    assert.equal(b.exit_code, 1)
    assert.equal(b.timed_out, false)
    assert.equal(b.fault, undefined)
    const events = readFileSync(join(dir, 'baseline.events.ndjson'))
    assert.deepEqual(b.events, { count: events.toString().split('\n').length - 1, bytes: events.length, sha256: sha256Hex(events) })
    for (const line of events.toString().trimEnd().split('\n')) parseDocument('test-event', Buffer.from(line), 'event') as TestEvent
    const run = b.run
    assert.ok(run !== undefined)
    assert.equal(run.uid, 65534)
    assert.deepEqual(run.mounts[0], { source: join(dir, 'work', 'baseline'), dest: f.repo, mode: 'ro' })
    for (const want of ['memory', 'memory+swap', 'tasks', 'cpu quota (us per period)', 'open files per process', 'core size', 'tmpfs /tmp size', `mount ${f.repo}`]) {
      const l = run.limits.find(x => x.name === want)
      assert.ok(l !== undefined && l.got === l.want, want)
    }
    assert.equal(run.limits.find(x => x.name === 'memory')?.got, String(4 * 1024 ** 3))
    assert.equal(run.limits.find(x => x.name === 'tasks')?.got, '128')
    assert.ok(run.samples.length >= 1 && run.samples[0]?.disks.some(d => dir.startsWith(d.path) || d.path.length > 0))
    assert.ok(run.env_names.includes('PATH') && !run.env_names.includes('NODE_OPTIONS'))
    assert.equal(existsSync(join(dir, 'outcome.json')), false)
    // The run's scratch (go's cache, node's reporter) is removed once the run ended.
    assert.deepEqual(readdirSync(join(dir, 'work')).sort(), ['baseline'])
    assert.deepEqual(orphanCgroups(), [])
  })
}

test('node: a checkout whose path is 250+ characters reproduces: its mount is a limit reading of that length, and baseline.json is written (it exited 70 after the key was spent)', async t => {
  const base = join(sandboxTemp(t), 'n'.repeat(240))
  mkdirSync(base, { mode: 0o711 })
  const f = await makeFixture(base, { runner: 'node' })
  assert.ok(f.config.source_root.length > 250)
  const a = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(a.exitCode, 0, a.stderr)
  const rec = a.records.find(r => r.kind === 'attempt')
  assert.ok(rec?.kind === 'attempt')
  assert.equal((await runBin('extract-tree', ['--attempt', rec.path])).exitCode, 0)
  const r = await reproduceBin(['--attempt', rec.path])
  assert.equal(r.exitCode, 0, r.stderr)
  const mount = readBaseline(rec.path).run?.limits.find(l => l.name === `mount ${f.config.source_root}`)
  assert.deepEqual(mount === undefined ? undefined : [mount.want, mount.got], ['ro', 'ro'])
})

test('node: a test named with a lone surrogate is kept with U+FFFD in its place: baseline.json is written and the case reproduces (it exited 70 after the key was spent)', async t => {
  const files = { ...NODE_FILES, 'test/odd.test.js': "import { test } from 'node:test'\ntest('lone \\uD800 name', () => {})\ntest('pair \\uD83D\\uDE00 name', () => {})\n" }
  const { dir } = await admitted(t, { runner: 'node', files })
  const r = await reproduceBin(['--attempt', dir])
  assert.equal(r.exitCode, 0, r.stderr)
  const b = readBaseline(dir)
  assert.deepEqual(Object.keys(b.identities).filter(id => id.startsWith('test/odd.test.js')).sort(), ['test/odd.test.js::lone \uFFFD name', 'test/odd.test.js::pair \u{1F600} name'])
  assert.equal(b.reproduced, true)
})

test('a case whose identity passes on the baseline is not_reproduced (exit 1), and the outcome says why', async t => {
  const { dir } = await admitted(t, { cases: [{ package: '.', name: 'example.com/calc::TestDouble' }] })
  const r = await reproduceBin(['--attempt', dir])
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(kinds(r), ['start', 'attempt', 'baseline', 'result'])
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'reproduce', exit: 1, outcome: 'not_reproduced' })
  const o = readOutcomeFile(dir)
  assert.equal(o.outcome, 'not_reproduced')
  assert.equal(o.step, 'reproduce')
  assert.equal(o.reason.code, 'NOT_REPRODUCED')
  assert.match(o.reason.message, /example\.com\/calc::TestDouble ended pass on the baseline; 1 other identity failed/)
  assert.equal(readBaseline(dir).reproduced, false)
  // A second run finds the outcome and does no work.
  const again = await reproduceBin(['--attempt', dir])
  assert.equal(again.exitCode, 1)
  assert.deepEqual(kinds(again), ['start', 'attempt', 'result'])
})

test('a run that says nothing usable is a fault: TestMain exiting 0 (zero tests), and exit 0 hiding a failure', async t => {
  for (const [name, main, code] of [
    ['early exit', 'func TestMain(m *testing.M) { os.Exit(0) }', 'TESTS_NOT_RUN'],
    ['exit after run', 'func TestMain(m *testing.M) { m.Run(); os.Exit(0) }', 'EVENTS_EXIT_MISMATCH'],
  ] as const) {
    const files = { ...GO_FILES, 'main_test.go': `package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\n${main}\n` }
    const { dir } = await admitted(t, { files })
    const r = await reproduceBin(['--attempt', dir])
    assert.equal(r.exitCode, 1, `${name}: ${r.stderr}`)
    assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'reproduce', exit: 1, outcome: 'fault' })
    const b = readBaseline(dir)
    assert.equal(b.fault?.code, code, name)
    assert.equal(b.reproduced, false)
    assert.equal(b.exit_code, 0)
    assert.equal(readOutcomeFile(dir).reason.code, code)
  }
})

test('a go.mod the local Go cannot read is a fault naming the Go it needs; nothing runs', async t => {
  const { dir } = await admitted(t, { files: { ...GO_FILES, 'go.mod': 'module example.com/calc\n\ngo 1.21.0\n' } })
  const r = await reproduceBin(['--attempt', dir])
  assert.equal(r.exitCode, 1, r.stderr)
  const b = readBaseline(dir)
  assert.equal(b.fault?.code, 'TOOLCHAIN_UNSUPPORTED')
  assert.match(b.fault?.message ?? '', /go\.mod says go 1\.21\.0: the local go1\.\d+\.\d+ cannot read it; it needs Go 1\.21\.0 or newer/)
  assert.equal(b.run, undefined)
  assert.equal(readOutcomeFile(dir).outcome, 'fault')
})

test('a run the deadline stops is killed there and the attempt is timed_out, with no sandbox process left', async t => {
  // The test returns at once but leaves a child holding go test's stdout: go waits for it, so
  // only the supervisor's kill at the deadline ends the run. The test clock puts the attempt
  // 14 s before its deadline.
  const marker = `rl-hang-${process.pid}-${Date.now()}`
  const files = { ...GO_FILES, 'hang_test.go': `package calc\n\nimport (\n\t"os"\n\t"os/exec"\n\t"testing"\n)\n\nfunc TestHang(t *testing.T) {\n\tc := exec.Command("/usr/bin/sleep", "1000")\n\tc.Args[0] = "${marker}"\n\tc.Stdout = os.Stdout\n\tif err := c.Start(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n` }
  const admittedAt = new Date(Date.now() - 5_000)
  const env = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: admittedAt.toISOString() }
  const { dir } = await admitted(t, { files, env, config: c => { c.timeout_seconds = 30 } })
  const late = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(admittedAt.getTime() + 16_000).toISOString() }
  const r = await reproduceBin(['--attempt', dir], late)
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'reproduce', exit: 1, outcome: 'timed_out' })
  const b = readBaseline(dir)
  assert.equal(b.timed_out, true)
  // The tests ran (TestHang started its child and passed); only go's wait for the child's pipe hung.
  assert.equal(b.identities['example.com/calc::TestHang']?.result, 'pass', JSON.stringify(b.identities))
  assert.equal(b.run?.stop?.reason, 'deadline')
  assert.equal(b.run?.survivors, 0)
  assert.equal(readOutcomeFile(dir).reason.code, 'DEADLINE_PASSED')
  const alive = readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(p => { try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker) } catch { return false } })
  assert.deepEqual(alive, [])
})

test('a deadline that passes while the sandbox is being set up is timed_out, not a fault', async t => {
  const admittedAt = new Date(Date.now() - 5_000)
  const env = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: admittedAt.toISOString() }
  const { dir } = await admitted(t, { env, config: c => { c.timeout_seconds = 30 } })
  // One second before the deadline: all of it is the margin kept for writing, none is left to run.
  const r = await reproduceBin(['--attempt', dir], { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(admittedAt.getTime() + 29_000).toISOString() })
  assert.equal(r.exitCode, 1, r.stderr)
  assert.equal(errorOf(r)?.code, 'DEADLINE_PASSED')
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'reproduce', exit: 1, outcome: 'timed_out' })
  assert.equal(readOutcomeFile(dir).outcome, 'timed_out')
  assert.deepEqual(orphanCgroups(), [])
})

test('a sandbox primitive that disappears after admission is a fault (bwrap refused; a socket planted in a mount)', async t => {
  const { dir } = await admitted(t)
  const r = await runBinMasked('reproduce', ['--attempt', dir], { binds: [[fakeBwrap(sandboxTemp(t)), '/usr/bin/bwrap']] })
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(kinds(r), ['start', 'attempt', 'error', 'result'])
  assert.equal(errorOf(r)?.code, 'SANDBOX_UNAVAILABLE')
  assert.match(errorOf(r)?.message ?? '', /bwrap did not start its sandbox \(exit 1\): bwrap: setting up uid map: Permission denied/)
  const o = readOutcomeFile(dir)
  assert.deepEqual([o.outcome, o.reason.code], ['fault', 'SANDBOX_UNAVAILABLE'])
  assert.equal(existsSync(join(dir, 'baseline.json')), false)

  // node's dependency_dir, readable at admission, gains a socket before the run.
  const deps = sandboxTemp(t)
  const n = await admitted(t, { runner: 'node', config: c => { c.runner = { kind: 'node', dependency_dir: deps } } })
  const server = createServer()
  await new Promise<void>(resolve => server.listen(join(deps, 'agent.sock'), resolve))
  try {
    const s = await reproduceBin(['--attempt', n.dir])
    assert.equal(s.exitCode, 1, s.stderr)
    assert.equal(errorOf(s)?.code, 'SANDBOX_BIND_UNSAFE')
    assert.equal(readOutcomeFile(n.dir).reason.code, 'SANDBOX_BIND_UNSAFE')
  } finally { server.close() }
})

test('reproduce --preflight prints what is in force and how it was read back; 77 when a primitive is missing', async t => {
  const ok = await runBin('reproduce', ['--preflight', '--runner', 'go'])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.deepEqual(kinds(ok), ['start', 'preflight', 'result'])
  const p = ok.records[1]
  assert.ok(p?.kind === 'preflight')
  assert.equal(p.ok, true)
  assert.equal(p.runner, 'go')
  assert.ok(p.checks.every(c => c.ok))
  assert.equal(p.limits.find(l => l.name === 'memory+swap')?.got, String(4 * 1024 ** 3))
  assert.match(ok.stderr, /in force: tasks = 128 \(cgroup-v1, read back from \/sys\/fs\/cgroup\/pids\/.*\/pids\.max\)/)
  for (const [masks, detail] of [
    [{ binds: [[fakeBwrap(sandboxTemp(t)), '/usr/bin/bwrap']] }, /bwrap: setting up uid map: Permission denied/],
    [{ tmpfs: ['/sys/fs/cgroup'] }, /cgroup: our memory group .* is not there/],
  ] as Array<[Masks, RegExp]>) {
    const bad = await runBinMasked('reproduce', ['--preflight'], masks)
    assert.equal(bad.exitCode, 77, bad.stderr)
    const rec = bad.records[1]
    assert.ok(rec?.kind === 'preflight')
    assert.equal(rec.ok, false)
    const failed = rec.checks.find(c => !c.ok)
    assert.equal(failed?.code, 'SANDBOX_UNAVAILABLE')
    assert.match(failed?.detail ?? '', detail)
  }
})

/** Whether this process may raise a hard rlimit (CAP_SYS_RESOURCE, bit 24 of CapEff). */
function canRaiseHardLimits (): boolean {
  const eff = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0'
  return ((BigInt(`0x${eff}`) >> 24n) & 1n) === 1n
}

test('reproduce --preflight under a hard file-size limit below the sandbox\'s: 77, and the failed check says which limit and what to do; without it the same preflight passes', { skip: canRaiseHardLimits() ? 'this process has CAP_SYS_RESOURCE: prlimit raises any hard limit, so the refusal cannot happen here' : false }, async () => {
  const r = await execa('/usr/bin/prlimit', ['--fsize=1048576:1048576', '--', binPath('reproduce'), '--preflight', '--runner', 'node'], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  assert.equal(r.exitCode, 77, String(r.stderr))
  const rec = String(r.stdout).split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))[1]
  assert.ok(rec?.kind === 'preflight')
  const failed = rec.checks.find(c => !c.ok)
  assert.equal(failed?.code, 'SANDBOX_UNAVAILABLE')
  assert.match(failed?.detail ?? '', /failed to set the FSIZE resource limit: Operation not permitted; the sandbox sets file size per process to 268435456, above the hard limit this process inherited \(see ulimit -Ha\); raise that hard limit/)
  // Positive control: the same preflight without the lowered hard limit.
  const ok = await runBin('reproduce', ['--preflight', '--runner', 'node'])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('an address-space limit the caller set soft only (ulimit -Sv) does not reach the node sandbox: the preflight passes and reads it back unlimited; set hard, it is 77 with the hint', async () => {
  const soft = 16 * 1024 ** 3
  // Positive control: a process started the same way does inherit the limit.
  const inherited = await execa('/usr/bin/prlimit', [`--as=${soft}:unlimited`, '--', '/usr/bin/cat', '/proc/self/limits'], { env: BASE_ENV, extendEnv: false, reject: false })
  assert.match(String(inherited.stdout), new RegExp(`^Max address space\\s+${soft}\\s+unlimited`, 'm'))
  const r = await execa('/usr/bin/prlimit', [`--as=${soft}:unlimited`, '--', binPath('reproduce'), '--preflight', '--runner', 'node'], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  assert.equal(r.exitCode, 0, String(r.stderr))
  assert.match(String(r.stderr), /in force: address space per process = unlimited \(rlimit, read back from \/proc\/\d+\/limits\)/)
  if (canRaiseHardLimits()) return
  const hard = await execa('/usr/bin/prlimit', [`--as=${soft}`, '--', binPath('reproduce'), '--preflight', '--runner', 'node'], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  assert.equal(hard.exitCode, 77, String(hard.stderr))
  assert.match(String(hard.stderr), /failed to set the AS resource limit: Operation not permitted; the sandbox sets address space per process to unlimited, above the hard limit this process inherited/)
})

test('a crash at sandbox-start leaves no baseline files and no outcome; a rerun completes the step', async t => {
  const { dir } = await admitted(t)
  const env = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_FAULT_AT: 'sandbox-start' }
  const r = await reproduceBin(['--attempt', dir], env)
  assert.notEqual(r.exitCode, 0)
  assert.equal(existsSync(join(dir, 'baseline.json')), false)
  assert.equal(existsSync(join(dir, 'baseline.events.ndjson')), false)
  assert.equal(existsSync(join(dir, 'outcome.json')), false)
  const again = await reproduceBin(['--attempt', dir])
  assert.equal(again.exitCode, 0, again.stderr)
  assert.equal(readBaseline(dir).reproduced, true)
})

test('without --attempt and without an attempt record on stdin: 66 ATTEMPT_MISSING; --runner without --preflight: 2', async () => {
  const r = await runBin('reproduce', [])
  assert.equal(r.exitCode, 66)
  assert.equal(errorOf(r)?.code, 'ATTEMPT_MISSING')
  const u = await runBin('reproduce', ['--runner', 'go', '--attempt', '/nonexistent'])
  assert.equal(u.exitCode, 2)
  assert.equal(errorOf(u)?.code, 'USAGE')
})

