// Threat group T (threat-matrix §9.8) on real go and node runs in the sandbox: test code that
// forges framing, writes into its runner's stdout, exits early, panics off the test goroutine,
// fails to build, or runs nothing.
// Each test shows the attack is real — the raw events or the exit code would fool a naive
// reader (the positive control) — and that the normalized summary and the exit-code
// cross-check are not fooled.

import { randomBytes } from 'node:crypto'
import { closeSync, createReadStream, openSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TestEvent } from '@repairline/schemas'
import { EventSummarizer, goCommand, goEnv, goInstall, NODE_REPORTER_DEST, nodeCommand, nodeEnv, NodeEventNormalizer, normalizeGoStream, run, runTests, runToFd, writeNodeReporter, type TestRun } from '@repairline/core'
import { GO_FILES } from '../helpers/fixture.ts'
import { TEST_LIMITS, makeTree, sandboxTemp, warmGoCache } from '../helpers/sandbox.ts'

const GO_BASE = Object.fromEntries(Object.entries(GO_FILES).filter(([k, v]) => typeof v === 'string' && k !== 'calc_test.go')) as Record<string, string>

async function goRun (t: Parameters<typeof sandboxTemp>[0], tests: Record<string, string>): Promise<TestRun> {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { ...GO_BASE, ...tests })
  const scratch = makeTree(dir, 'scratch', {})
  return await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: await warmGoCache() })
}

const naivePasses = (events: TestEvent[]): string[] => events.filter(e => e.Action === 'pass' && e.Test !== undefined).map(e => e.Test as string)

test('T1: `--- PASS: TestGhost` printed by a test creates no identity; a forged pass after a real fail is flagged conflicting and the package and exit still fail', async t => {
  const r = await goRun(t, {
    'calc_test.go': `package calc

import (
\t"fmt"
\t"testing"
)

func TestAdd(t *testing.T) {
\tif Add(2, 3) != 5 {
\t\tt.Fatal("Add(2, 3) != 5")
\t}
}

func TestLater(t *testing.T) {
\tfmt.Println("--- PASS: TestGhost (0.00s)")
\tfmt.Println("--- PASS: TestAdd (0.00s)")
}

func TestEarly(t *testing.T) {
\tfmt.Println("--- PASS: TestEarly (0.00s)")
\tt.Fatal("the real result")
}
`,
  })
  // The attack is real: test2json emitted pass events for TestGhost and a second one for TestAdd.
  assert.ok(naivePasses(r.events).includes('TestGhost'))
  assert.equal(naivePasses(r.events).filter(n => n === 'TestAdd').length, 1)
  assert.ok(r.events.some(e => e.Action === 'fail' && e.Test === 'TestAdd'))
  const ids = r.summary.identities
  assert.equal(ids['example.com/calc::TestGhost'], undefined, 'a name that never ran is not an identity')
  assert.deepEqual(ids['example.com/calc::TestAdd'], { result: 'pass', duplicateTerminal: true, conflicting: true })
  assert.deepEqual(ids['example.com/calc::TestEarly'], { result: 'fail', duplicateTerminal: true, conflicting: true })
  assert.deepEqual(ids['example.com/calc::TestLater'], { result: 'pass' })
  assert.ok(r.summary.failing.includes('example.com/calc::TestEarly'))
  const a = r.summary.anomalies.join('\n')
  assert.match(a, /TestGhost: pass without a run event/)
  assert.match(a, /TestAdd: 2 terminal events \(fail, pass\); the last one, pass, wins \(conflicting\)/)
  // Last terminal wins (DESIGN §9), but the package's own result and the exit code still say
  // fail, so no reader that requires a package pass and exit 0 can be rescued by the forgery.
  assert.equal(r.summary.packages['example.com/calc'], 'fail')
  assert.equal(r.sandbox?.exit.code, 1)
  assert.equal(r.fault, undefined)
})

test('T1: framing printed by an init that then exits 0 (no test ran) gives test2json passes for every name but no package result: the package is the failed identity <pkg>::', async t => {
  const r = await goRun(t, {
    'forge.go': 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc init() {\n\tfmt.Print("=== RUN   TestAdd\\n--- PASS: TestAdd (0.00s)\\n")\n\tos.Exit(0)\n}\n',
    'calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add(2, 3) != 5")\n\t}\n}\n',
  })
  // The attack is real: exit 0, a run and a pass event for TestAdd, and no package event.
  assert.equal(r.sandbox?.exit.code, 0)
  assert.deepEqual(naivePasses(r.events), ['TestAdd'])
  assert.ok(!r.events.some(e => e.Test === undefined && ['pass', 'fail', 'skip'].includes(e.Action)), 'test2json gave the package a result')
  // Positive control: a summary that does not ask for package results is fooled.
  const fooled = new EventSummarizer()
  for (const ev of r.events) fooled.add(ev)
  assert.deepEqual(fooled.finish().failing, [])
  // The runner's summary is not.
  assert.deepEqual(r.summary.failing, ['example.com/calc::'])
  assert.match(r.summary.anomalies.join('\n'), /example\.com\/calc::: tests ran but the package has no result of its own/)
})

test('T4: TestMain calling os.Exit(0) — before the tests run, or after failures — exits 0 and is a fault, never a pass', async t => {
  for (const [main, code] of [
    ['func TestMain(m *testing.M) { os.Exit(0) }', 'TESTS_NOT_RUN'],
    ['func TestMain(m *testing.M) { m.Run(); os.Exit(0) }', 'EVENTS_EXIT_MISMATCH'],
  ] as const) {
    const r = await goRun(t, {
      'calc_test.go': `package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\n${main}\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("no")\n\t}\n}\n`,
    })
    assert.equal(r.sandbox?.exit.code, 0, 'the attack: exit 0')
    assert.ok(r.events.some(e => e.Action === 'pass' && e.Test === undefined), 'the attack: go reports the package as passed')
    assert.equal(r.fault?.code, code)
  }
})

test('T4: a panic in a goroutine kills the binary mid-test: the running test has no terminal event and is failed, the rest never ran', async t => {
  const r = await goRun(t, {
    'calc_test.go': 'package calc\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestA(t *testing.T) {\n\tgo func() { panic("boom") }()\n\ttime.Sleep(time.Second)\n}\n\nfunc TestB(t *testing.T) {}\n',
  })
  assert.ok(!r.events.some(e => e.Test === 'TestA' && ['pass', 'fail', 'skip'].includes(e.Action)), 'the attack: no terminal event for TestA')
  assert.deepEqual(r.summary.identities, { 'example.com/calc::TestA': { result: 'fail', unfinished: true } })
  assert.match(r.summary.anomalies.join('\n'), /TestA: started and never finished/)
  assert.equal(r.fault, undefined)
  assert.ok(r.events.some(e => /panic: boom/.test(e.Output ?? '')))
})

test('a build failure (Go 1.19: a plain `FAIL\\t<pkg> [build failed]` line, no JSON) is the failed identity <pkg>::', async t => {
  const r = await goRun(t, {
    'calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tvar s string = Add(2, 3)\n\t_ = s\n}\n',
  })
  assert.ok(!r.events.some(e => e.Action === 'fail' && e.Test !== undefined), 'the attack: no test failed in the JSON')
  assert.deepEqual(r.summary.identities, { 'example.com/calc::': { result: 'fail', buildFailed: true } })
  assert.deepEqual(r.summary.failing, ['example.com/calc::'])
  assert.match(r.stderrTail, /cannot use Add\(2, 3\)/)
  assert.equal(r.sandbox?.exit.code, 2)
  assert.equal(r.fault, undefined)
})

test('`node --test` on zero files exits 0 with "tests 0": a fault, never a pass', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'package.json': '{"type":"module"}\n', 'src/calc.js': 'export const x = 1\n' })
  const scratch = makeTree(dir, 'scratch', {})
  const r = await runTests({ runner: 'node', tree, testPackages: ['.'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.equal(r.sandbox?.exit.code, 0, 'the attack: exit 0')
  assert.ok(r.events.some(e => e.Output === '# tests 0\n'))
  assert.deepEqual(r.summary.identities, {})
  assert.equal(r.fault?.code, 'TESTS_NOT_RUN')
})

/**
 * A test that opens its runner's stdout by path (/proc/<ppid>/fd/1) and writes a forged
 * run and pass of `name` there, then prints what happened on its own stdout as `PROBE <how>`.
 */
const FORGE_INTO_RUNNER = {
  node: (name: string): string => `import { test } from 'node:test'
import { openSync, writeSync } from 'node:fs'
test('writes into the runner', () => {
  let how = 'written'
  try {
    const fd = openSync('/proc/' + process.ppid + '/fd/1', 'w')
    for (const type of ['test:start', 'test:pass']) writeSync(fd, JSON.stringify({ type, name: ${JSON.stringify(name)}, nesting: 0, file: process.argv[1] }) + '\\n')
  } catch (e) { how = e.code }
  console.log('PROBE ' + how)
})
`,
  go: (name: string): string => `package calc

import (
\t"fmt"
\t"os"
\t"testing"
)

func TestWrite(t *testing.T) {
\thow := "written"
\tf, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", os.Getppid()), os.O_WRONLY, 0)
\tif err != nil {
\t\thow = err.Error()
\t} else {
\t\tfor _, a := range []string{"run", "pass"} {
\t\t\tfmt.Fprintf(f, "{\\"Action\\":%q,\\"Package\\":\\"example.com/calc\\",\\"Test\\":%q}\\n", a, ${JSON.stringify(name)})
\t\t}
\t}
\tfmt.Println("PROBE " + how)
}
`,
}

/**
 * Runs `argv` outside any sandbox in `cwd` with its stdout on a pipe (a FIFO in `dir`, as a
 * shell pipeline would give it); returns what came through.
 */
async function runWithPipeStdout (argv: string[], cwd: string, env: Record<string, string>, dir: string): Promise<string> {
  const fifo = join(dir, `stdout-${randomBytes(4).toString('hex')}`)
  assert.equal((await run('/usr/bin/mkfifo', [fifo], { env: {} })).exitCode, 0)
  // Opened read-write, the FIFO's write end does not wait for a reader, and the reader then
  // finds a writer: neither open blocks.
  const fd = openSync(fifo, 'r+')
  const reader = createReadStream(fifo)
  const chunks: Buffer[] = []
  reader.on('data', b => chunks.push(b as Buffer))
  const done = new Promise<void>(resolve => reader.once('close', () => resolve()))
  try {
    await new Promise<void>(resolve => reader.once('open', () => resolve()))
    await runToFd(argv[0] as string, argv.slice(1), { cwd, env, stdin: '', stdoutFd: fd })
  } finally {
    closeSync(fd)
  }
  await done
  return Buffer.concat(chunks).toString('utf8')
}

test('a test cannot write its own events into the runner\'s stdout by path: the supervisor\'s end is a socket (ENXIO); with a pipe there, the same forgery becomes an identity', async t => {
  const dir = sandboxTemp(t)
  // node: the pinned reporter, the fixed command, in the sandbox.
  const nodeTree = makeTree(dir, 'node', { 'package.json': '{"type":"module"}\n', 'test/probe.test.js': FORGE_INTO_RUNNER.node('ghost') })
  const nodeRun = await runTests({ runner: 'node', tree: nodeTree, testPackages: ['test/'], scratch: makeTree(dir, 'scratch-node', {}), timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.ok(nodeRun.events.some(e => e.Output === 'PROBE ENXIO\n'), `the probe ran and was refused: ${JSON.stringify(nodeRun.events.filter(e => e.Output?.startsWith('PROBE') === true))}`)
  assert.deepEqual(Object.keys(nodeRun.summary.identities), ['test/probe.test.js::writes into the runner'])
  // go: the test binary's parent is go test, whose stdout is the same socket.
  const goRunResult = await goRun(t, { 'calc_test.go': FORGE_INTO_RUNNER.go('TestGhost') })
  assert.ok(goRunResult.events.some(e => /^PROBE open \/proc\/\d+\/fd\/1: no such device or address\n$/.test(e.Output ?? '')), `the probe ran and was refused: ${JSON.stringify(goRunResult.events.filter(e => e.Output?.includes('PROBE') === true))}`)
  assert.deepEqual(Object.keys(goRunResult.summary.identities), ['example.com/calc::TestWrite'])

  // Positive controls: the same commands outside the sandbox, with their stdout on a pipe (as a
  // shell pipeline gives it), take the forgery.
  const reporter = join(dir, 'reporter.mjs')
  writeNodeReporter(reporter)
  // The fixed commands and environments, with host paths for what the sandbox mounts.
  const nodeArgv = nodeCommand(process.execPath, ['test/']).map(a => a === `--test-reporter=${NODE_REPORTER_DEST}` ? `--test-reporter=${reporter}` : a)
  const nodeOut = await runWithPipeStdout(nodeArgv, nodeTree, nodeEnv(), dir)
  const normalizer = new NodeEventNormalizer(nodeTree)
  const nodeSummary = new EventSummarizer()
  for (const line of nodeOut.split('\n')) for (const e of normalizer.line(line)) nodeSummary.add(e)
  assert.match(nodeOut, /PROBE written/)
  assert.equal(nodeSummary.finish().identities['test/probe.test.js::ghost']?.result, 'pass', 'the forged test became a passing identity')

  const goTree = makeTree(dir, 'go-tree', { ...GO_BASE, 'calc_test.go': FORGE_INTO_RUNNER.go('TestGhost') })
  const go = goInstall()
  const goOut = await runWithPipeStdout(goCommand(go.goBin, ['.'], 60_000), goTree, { ...goEnv(go.goroot, join(dir, 'gopath', 'pkg', 'mod')), HOME: dir, GOPATH: join(dir, 'gopath'), GOCACHE: join(dir, 'gocache') }, dir)
  const goSummary = new EventSummarizer()
  for await (const e of normalizeGoStream([Buffer.from(goOut)])) goSummary.add(e)
  assert.match(goOut, /PROBE written/)
  assert.equal(goSummary.finish().identities['example.com/calc::TestGhost']?.result, 'pass', 'the forged test became a passing identity')
})
