// Threat-matrix row T4, the parts events.test.ts does not hold (TestMain calling os.Exit(0)
// is there): a go package that panics while it initializes, and a `t.Skip` added to a test
// that passed. Real `go test -json` runs in the real sandbox through core's runner.
//   - A panic in `func init()` (in the package or in its test file) or in a package-level
//     variable's initializer kills the test binary before any test starts: go reports no test
//     at all, only the package's `fail`. The runner makes that the failed identity
//     `<ImportPath>::` (DESIGN §6a gives it to a package that failed to build; core's event
//     summary to any package that failed without a failed test) with its anomaly line —
//     not a pass, not a fault, and its tests not silently missing: compared
//     with a baseline where they passed, each is `not_executed` and the candidate is `failed`;
//     as a baseline, the case's own test was not reported, so it is not reproduced. A second
//     package in the same run keeps its own results.
//   - A test that passed on the baseline and now calls t.Skip is `now_skipped`: failed.
// The positive control for each is the same tree without the panic or the skip, which passes.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { compareRuns, runTests, type BaselineView, type TestRun } from '@repairline/core'
import { GO_FILES } from '../helpers/fixture.ts'
import { TEST_LIMITS, makeTree, sandboxTemp, warmGoCache } from '../helpers/sandbox.ts'
import { decideReproduction } from '../../tools/reproduce/src/rules/reproduction.ts'

const GO_BASE = Object.fromEntries(Object.entries(GO_FILES).filter(([, v]) => typeof v === 'string')) as Record<string, string>
const FIXED_CALC = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n'
/** The fixture with Add fixed: both tests pass. */
const PASSING = { ...GO_BASE, 'calc.go': FIXED_CALC }
const PKG = 'example.com/calc'
const ADD = `${PKG}::TestAdd`
const DOUBLE = `${PKG}::TestDouble`
const BOTH_PASS = { [ADD]: { result: 'pass' }, [DOUBLE]: { result: 'pass' } }

async function goRun (t: TestContext, files: Record<string, string>, packages: string[] = ['.']): Promise<TestRun> {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', files)
  const scratch = makeTree(dir, 'scratch', {})
  return await runTests({ runner: 'go', tree, testPackages: packages, scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: await warmGoCache() })
}

/** A real run as a baseline (what baseline.json keeps for the comparison). */
function baselineOf (r: TestRun, caseIdentity: string): BaselineView {
  const identities: BaselineView['identities'] = {}
  for (const [id, s] of Object.entries(r.summary.identities)) identities[id] = { result: s.result }
  return { case_identity: caseIdentity, identities, failing: r.summary.failing }
}

const output = (r: TestRun): string => r.events.map(e => e.Output ?? '').join('')

/** The runner's verdict on a package whose initialization panicked. */
function assertInitFailure (r: TestRun, pkg: string, panic: RegExp): void {
  // The attack: go ran no test, so a reader that only counts failed tests sees none.
  assert.equal(r.events.some(e => e.Package === pkg && e.Action === 'run'), false, 'no test of the package started')
  assert.equal(r.events.some(e => e.Package === pkg && e.Test !== undefined && e.Action === 'fail'), false, 'no test of the package failed')
  assert.match(output(r), panic)
  assert.deepEqual(r.summary.identities[`${pkg}::`], { result: 'fail' })
  assert.ok(r.summary.failing.includes(`${pkg}::`))
  assert.equal(r.summary.packages[pkg], 'fail')
  assert.ok(r.summary.anomalies.includes(`${pkg}::: the package failed without a failed test (counted as a failed identity)`), r.summary.anomalies.join('\n'))
  assert.equal(Object.keys(r.summary.identities).some(id => id.startsWith(`${pkg}::Test`)), false, 'no test identity of the package')
  assert.equal(r.sandbox?.exit.code, 1)
  assert.equal(r.fault, undefined, 'a package that cannot start is a failed identity, not a fault')
}

test('T4: a panic in init(), in a test file\'s init() or in a package-level initializer is the failed identity <pkg>::, never a pass or a fault; against a passing baseline the missing tests are not_executed and the candidate failed; the same tree without the panic passes', async t => {
  const control = await goRun(t, PASSING)
  assert.equal(control.fault, undefined, control.stderrTail)
  assert.deepEqual(control.summary.identities, BOTH_PASS)
  assert.equal(control.sandbox?.exit.code, 0)
  // A real baseline: the fixture's bug makes TestAdd fail, TestDouble passes.
  const baseline = await goRun(t, GO_BASE)
  assert.deepEqual(baseline.summary.identities, { [ADD]: { result: 'fail' }, [DOUBLE]: { result: 'pass' } })
  assert.equal(compareRuns(baselineOf(baseline, ADD), control).classification, 'scoped_test_verified', 'control: the fixed tree is verified')

  const panics: Array<[string, Record<string, string>]> = [
    ['init-panic-in-source', { 'calc.go': `${FIXED_CALC}\nfunc init() {\n\tpanic("init failed")\n}\n` }],
    ['init-panic-in-test-file', { 'init_test.go': 'package calc\n\nfunc init() {\n\tpanic("init failed")\n}\n' }],
    ['initializer-panic', { 'table.go': 'package calc\n\nvar table = mustTable()\n\nfunc mustTable() map[int]int {\n\tpanic("init failed")\n}\n' }],
  ]
  for (const [name, files] of panics) {
    const r = await goRun(t, { ...PASSING, ...files })
    assertInitFailure(r, PKG, /panic: init failed/)
    assert.deepEqual(Object.keys(r.summary.identities), [`${PKG}::`], name)
    const c = compareRuns(baselineOf(baseline, ADD), r)
    assert.equal(c.classification, 'failed', name)
    assert.deepEqual(c.identities.map(x => `${x.identity} ${x.verdict}`), [`${ADD} not_executed`, `${DOUBLE} not_executed`, `${PKG}:: added_fail`], name)
    assert.equal(c.redThenGreen.shape, 'red_then_missing', name)
    // As a baseline, the case's own test was never reported: not reproduced, so no provider call.
    const d = decideReproduction(r, ADD)
    assert.equal(d.verdict, 'not_reproduced', name)
    assert.match(d.verdict === 'not_reproduced' ? d.message : '', /example\.com\/calc::TestAdd was not reported by the run on the baseline; 1 other identity failed$/)
  }
})

test('T4: a panic in init() of one of two packages fails only that package\'s identity <pkg>::; the other package\'s tests keep their results; without the panic both pass', async t => {
  const files = (initA: string): Record<string, string> => ({
    'go.mod': 'module example.com/m\n\ngo 1.19\n',
    'a/a.go': `package a\n\n${initA}// One returns 1.\nfunc One() int { return 1 }\n`,
    'a/a_test.go': 'package a\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal("One() != 1")\n\t}\n}\n',
    'b/b.go': 'package b\n\n// Two returns 2.\nfunc Two() int { return 2 }\n',
    'b/b_test.go': 'package b\n\nimport "testing"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal("Two() != 2")\n\t}\n}\n',
  })
  const control = await goRun(t, files(''), ['./a', './b'])
  assert.equal(control.fault, undefined, control.stderrTail)
  assert.deepEqual(control.summary.identities, { 'example.com/m/a::TestOne': { result: 'pass' }, 'example.com/m/b::TestTwo': { result: 'pass' } })

  const r = await goRun(t, files('func init() {\n\tpanic("a cannot start")\n}\n\n'), ['./a', './b'])
  assertInitFailure(r, 'example.com/m/a', /panic: a cannot start/)
  assert.deepEqual(r.summary.identities, { 'example.com/m/a::': { result: 'fail' }, 'example.com/m/b::TestTwo': { result: 'pass' } })
  assert.deepEqual(r.summary.failing, ['example.com/m/a::'])
  assert.equal(r.summary.packages['example.com/m/b'], 'pass')
  const c = compareRuns(baselineOf(control, 'example.com/m/a::TestOne'), r)
  assert.equal(c.classification, 'failed')
  assert.deepEqual(c.identities.map(x => `${x.identity} ${x.verdict}`), ['example.com/m/a::TestOne not_executed', 'example.com/m/b::TestTwo still_passes', 'example.com/m/a:: added_fail'])
})

test('T4: t.Skip added to a test that passed on the baseline is now_skipped and the candidate failed; t.Skip added to the case\'s test is red_then_skipped; without the skips the candidate is verified', async t => {
  const baseline = baselineOf(await goRun(t, GO_BASE), ADD)
  assert.deepEqual(baseline.failing, [ADD])
  const skipIn = (name: string): Record<string, string> => ({
    ...PASSING,
    'calc_test.go': GO_BASE['calc_test.go']?.replace(`func ${name}(t *testing.T) {\n`, `func ${name}(t *testing.T) {\n\tt.Skip("not today")\n`) ?? '',
  })
  assert.notEqual(skipIn('TestDouble')['calc_test.go'], GO_BASE['calc_test.go'])

  const skippedDouble = await goRun(t, skipIn('TestDouble'))
  assert.equal(skippedDouble.fault, undefined, skippedDouble.stderrTail)
  // The attack: go exits 0 and reports the package as passed.
  assert.equal(skippedDouble.sandbox?.exit.code, 0)
  assert.equal(skippedDouble.summary.packages[PKG], 'pass')
  assert.deepEqual(skippedDouble.summary.identities, { [ADD]: { result: 'pass' }, [DOUBLE]: { result: 'skip' } })
  const c = compareRuns(baseline, skippedDouble)
  assert.equal(c.classification, 'failed')
  assert.equal(c.identities.find(x => x.identity === DOUBLE)?.verdict, 'now_skipped')
  assert.match(c.reasons.join('\n'), /were not skipped on the baseline and are skipped on the candidate \(a skipped test is not a pass\): example\.com\/calc::TestDouble/)
  assert.equal(c.redThenGreen.shape, 'red_then_green', 'the case itself went green')

  const skippedAdd = await goRun(t, skipIn('TestAdd'))
  assert.deepEqual(skippedAdd.summary.identities, { [ADD]: { result: 'skip' }, [DOUBLE]: { result: 'pass' } })
  const d = compareRuns(baseline, skippedAdd)
  assert.equal(d.classification, 'failed')
  assert.equal(d.redThenGreen.shape, 'red_then_skipped')

  // Positive control: the same fixed tree without either skip.
  const control = await goRun(t, PASSING)
  assert.equal(compareRuns(baseline, control).classification, 'scoped_test_verified')
})
