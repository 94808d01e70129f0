// Threat group T (threat-matrix §9.8) on real go and node runs in the sandbox: test code that
// forges framing, exits early, panics off the test goroutine, fails to build, or runs nothing.
// Each test shows the attack is real — the raw events or the exit code would fool a naive
// reader (the positive control) — and that the normalized summary and the exit-code
// cross-check are not fooled.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { TestEvent } from '@repairline/schemas'
import { runTests, type TestRun } from '@repairline/core'
import { GO_FILES } from '../helpers/fixture.ts'
import { TEST_LIMITS, makeTree, sandboxTemp, warmGoCache } from '../helpers/sandbox.ts'

const GO_BASE = Object.fromEntries(Object.entries(GO_FILES).filter(([k, v]) => typeof v === 'string' && k !== 'calc_test.go')) as Record<string, string>

async function goRun (t: Parameters<typeof sandboxTemp>[0], tests: Record<string, string>): Promise<TestRun> {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { ...GO_BASE, ...tests })
  const scratch = makeTree(dir, 'scratch', {})
  return await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, hostGoCache: await warmGoCache() })
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
