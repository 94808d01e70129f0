// How the checks' results combine with the test run (seed 004, DESIGN §15): the tests'
// timed_out or fault stands (the checks cannot say more than a run that said nothing); then a
// command the attempt's deadline stopped (CHECK_DEADLINE_PASSED) makes it timed_out; then a
// check that could not run (fault) makes the attempt fault, since a repair against a verifier
// that cannot run buys a second identical fault; then a check that ran and disagreed fails the
// candidate, as failing tests do. verify applies it to its results, readback to the record.

import type { CheckResult, VerifyReport } from '@repairline/schemas'

export type Classification = VerifyReport['classification']

/** The first check result of `status`, in config order. */
export function firstCheck (results: readonly CheckResult[] | undefined, status: CheckResult['status']): CheckResult | undefined {
  return results?.find(r => r.status === status)
}

/** The attempt's deadline stopped a command of the checks, or came before one could start. */
export function checksTimedOut (results: readonly CheckResult[] | undefined): boolean {
  return results?.some(r => r.code === 'CHECK_DEADLINE_PASSED') === true
}

/** The classification of a candidate from its test run's and its checks'. */
export function classifyWithChecks (tests: Classification, results: readonly CheckResult[] | undefined): Classification {
  if (tests === 'timed_out' || tests === 'fault') return tests
  if (checksTimedOut(results)) return 'timed_out'
  if (firstCheck(results, 'fault') !== undefined) return 'fault'
  if (tests === 'failed' || firstCheck(results, 'fail') !== undefined) return 'failed'
  return tests
}

/** One reason line per check that did not pass (for verify.json's reasons). */
export function checkReasons (results: readonly CheckResult[] | undefined): string[] {
  return (results ?? []).filter(r => r.status === 'fail' || r.status === 'fault').map(r => `check ${r.clause}[${r.index}] ${r.status === 'fail' ? 'failed' : 'could not run'} (${r.code}): ${r.detail}`)
}
