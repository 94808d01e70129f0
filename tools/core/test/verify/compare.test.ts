// Verification's comparison (DESIGN §11) over every shape a candidate run can take: each
// classification, each identity verdict, and the red-then-green record with its one-line
// note for every shape that is not red-then-green. A fault and a timeout never count as
// failed work.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compareRuns, goTestTimedOut, type BaselineView, type CandidateView } from '@repairline/core'

const CASE = 'example.com/calc::TestAdd'
const OTHER = 'example.com/calc::TestDouble'

const BASELINE: BaselineView = {
  case_identity: CASE,
  identities: { [CASE]: { result: 'fail' }, [OTHER]: { result: 'pass' } },
  failing: [CASE],
}

function run (identities: Record<string, 'pass' | 'fail' | 'skip'>, o: Partial<CandidateView> = {}): CandidateView {
  return {
    summary: { identities: Object.fromEntries(Object.entries(identities).map(([k, v]) => [k, { result: v }])), packages: { 'example.com/calc': Object.values(identities).includes('fail') ? 'fail' : 'pass' } },
    timedOut: false,
    ...o,
  }
}

function assertOneLine (s: string | undefined): void {
  assert.ok(s !== undefined && s.length > 0)
  assert.doesNotMatch(s, /[\r\n]/)
}

test('red then green, nothing else broken: scoped_test_verified, no note, no reasons', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'pass', [OTHER]: 'pass' }))
  assert.equal(c.classification, 'scoped_test_verified')
  assert.deepEqual(c.reasons, [])
  assert.deepEqual(c.redThenGreen, { shape: 'red_then_green', identities: [{ identity: CASE, baseline: 'fail', candidate: 'pass' }] })
  assert.deepEqual(c.identities.map(x => x.verdict), ['fixed', 'still_passes'])
})

test('a fix that repairs the case but breaks another test: failed, naming the broken test; the case itself is red then green', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'pass', [OTHER]: 'fail' }))
  assert.equal(c.classification, 'failed')
  assert.deepEqual(c.reasons, [`1 identity passed or were skipped on the baseline and fail on the candidate: ${OTHER}`])
  assert.equal(c.redThenGreen.shape, 'red_then_green')
  assert.equal(c.identities.find(x => x.identity === OTHER)?.verdict, 'now_fails')
})

test('a fix that makes the failing test skip: failed; red then skipped, with its note', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'skip', [OTHER]: 'pass' }))
  assert.equal(c.classification, 'failed')
  assert.equal(c.redThenGreen.shape, 'red_then_skipped')
  assertOneLine(c.redThenGreen.note)
  assert.match(c.redThenGreen.note ?? '', /skipped \(a skipped failure is not fixed\)/)
  assert.match(c.reasons[0] ?? '', /are skipped on the candidate \(a skipped test is not a pass\): example\.com\/calc::TestAdd/)
})

test('still red: failed; red then red', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'fail', [OTHER]: 'pass' }))
  assert.equal(c.classification, 'failed')
  assert.equal(c.redThenGreen.shape, 'red_then_red')
  assert.match(c.redThenGreen.note ?? '', /TestAdd still red/)
})

test('a baseline identity that is not executed again: failed; red then missing', () => {
  const c = compareRuns(BASELINE, run({ [OTHER]: 'pass' }))
  assert.equal(c.classification, 'failed')
  assert.equal(c.redThenGreen.shape, 'red_then_missing')
  assert.deepEqual(c.identities.map(x => `${x.identity}:${x.verdict}`), [`${CASE}:not_executed`, `${OTHER}:still_passes`])
})

test('a passing baseline identity that is now skipped is not a pass: failed', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'pass', [OTHER]: 'skip' }))
  assert.equal(c.classification, 'failed')
  assert.equal(c.identities.find(x => x.identity === OTHER)?.verdict, 'now_skipped')
})

test('additional identities may appear, but may not fail', () => {
  const sub = `${CASE}/sub`
  assert.equal(compareRuns(BASELINE, run({ [CASE]: 'pass', [OTHER]: 'pass', [sub]: 'pass' })).classification, 'scoped_test_verified')
  const c = compareRuns(BASELINE, run({ [CASE]: 'pass', [OTHER]: 'pass', [sub]: 'fail' }))
  assert.equal(c.classification, 'failed')
  assert.equal(c.identities.at(-1)?.verdict, 'added_fail')
})

test('a baseline identity that was skipped may stay skipped or vanish; it may not fail', () => {
  const b: BaselineView = { ...BASELINE, identities: { ...BASELINE.identities, 'example.com/calc::TestSlow': { result: 'skip' } } }
  assert.equal(compareRuns(b, run({ [CASE]: 'pass', [OTHER]: 'pass' })).classification, 'scoped_test_verified')
  assert.equal(compareRuns(b, run({ [CASE]: 'pass', [OTHER]: 'pass', 'example.com/calc::TestSlow': 'skip' })).classification, 'scoped_test_verified')
  assert.equal(compareRuns(b, run({ [CASE]: 'pass', [OTHER]: 'pass', 'example.com/calc::TestSlow': 'fail' })).classification, 'failed')
})

test('a package that failed to build on the baseline (<pkg>::) is fixed when the package passes', () => {
  const b: BaselineView = { case_identity: 'example.com/calc::', identities: { 'example.com/calc::': { result: 'fail' } }, failing: ['example.com/calc::'] }
  const c = compareRuns(b, run({ [CASE]: 'pass', [OTHER]: 'pass' }))
  assert.equal(c.classification, 'scoped_test_verified')
  assert.deepEqual(c.redThenGreen.identities, [{ identity: 'example.com/calc::', baseline: 'fail', candidate: 'pass' }])
  assert.deepEqual(c.identities.map(x => x.verdict), ['fixed', 'added_pass', 'added_pass'])
})

test('a candidate that hangs (the deadline stopped it): timed_out, never failed, whatever the partial events say', () => {
  const c = compareRuns(BASELINE, run({ [CASE]: 'fail', [OTHER]: 'pass' }, { timedOut: true, fault: { code: 'RUN_INCOMPLETE', message: 'killed at the deadline' } }))
  assert.equal(c.classification, 'timed_out')
  assert.equal(c.redThenGreen.shape, 'red_then_timed_out')
  assertOneLine(c.redThenGreen.note)
  assert.match(c.redThenGreen.note ?? '', /says nothing about the fix/)
})

test('a toolchain missing in the sandbox (the runner reports a fault): fault, never failed work', () => {
  const c = compareRuns(BASELINE, { summary: { identities: {}, packages: {} }, timedOut: false, fault: { code: 'TESTS_NOT_RUN', message: 'zero tests ran (exit 127)\nexec: go: not found' } })
  assert.equal(c.classification, 'fault')
  assert.deepEqual(c.reasons, ['TESTS_NOT_RUN: zero tests ran (exit 127) exec: go: not found'])
  assert.equal(c.redThenGreen.shape, 'red_then_fault')
  assert.match(c.redThenGreen.note ?? '', /this is not failed work/)
  assertOneLine(c.redThenGreen.note)
})

test('a baseline with nothing red has no red to turn green: not_red, with a note', () => {
  const b: BaselineView = { case_identity: CASE, identities: { [CASE]: { result: 'pass' } }, failing: [] }
  const c = compareRuns(b, run({ [CASE]: 'pass' }))
  assert.equal(c.redThenGreen.shape, 'not_red')
  assert.match(c.redThenGreen.note ?? '', /was not red on the baseline/)
})

test('long identity lists are cut to three names in notes and reasons', () => {
  const ids = Array.from({ length: 6 }, (_, i) => `example.com/calc::TestN${i}`)
  const b: BaselineView = { case_identity: ids[0] as string, identities: Object.fromEntries(ids.map(i => [i, { result: 'fail' as const }])), failing: ids }
  const c = compareRuns(b, run(Object.fromEntries(ids.map(i => [i, 'fail' as const]))))
  assert.match(c.redThenGreen.note ?? '', /TestN2 and 3 more still red/)
  assert.match(c.reasons[0] ?? '', /^6 identities still fail on the candidate: .* and 3 more$/)
})

test("go's own test timeout is recognized from the run's output events", () => {
  assert.equal(goTestTimedOut([{ Action: 'output', Output: 'panic: test timed out after 1m0s\n' }]), true)
  assert.equal(goTestTimedOut([{ Action: 'output', Output: '    calc_test.go:9: panic: test timed out after 1s (printed by a test)\n' }]), false)
  assert.equal(goTestTimedOut([{ Action: 'fail', Package: 'example.com/calc' }]), false)
})
