// Rule: verify compares with a baseline that is a usable red run of this attempt's case. An
// attempt whose baseline was not reproduced, faulted or timed out ends in reproduce with its
// own outcome; finding such a baseline.json here without that outcome means reproduce did not
// finish (a crash between its two writes), so verify refuses rather than decide for it.

import type { Baseline } from '@repairline/schemas'
import { toolError, type Attempt } from '@repairline/core'

export function assertBaselineReproduced (baseline: Baseline, attempt: Attempt, path: string): void {
  const refuse = (why: string): never => {
    throw toolError('BASELINE_NOT_REPRODUCED', `${path}: ${why}`, { path, hint: 'rerun reproduce on this attempt: it writes the outcome a baseline like this one decides' })
  }
  if (baseline.attempt_key !== attempt.key) refuse(`names attempt ${baseline.attempt_key.slice(0, 16)}…, not ${attempt.key.slice(0, 16)}…`)
  const caseIdentity = attempt.admission.case.test.name
  if (baseline.case_identity !== caseIdentity) refuse(`is about ${baseline.case_identity}, but the case is ${caseIdentity}`)
  if (baseline.runner !== attempt.config.runner.kind) refuse(`ran the ${baseline.runner} runner, but the config says ${attempt.config.runner.kind}`)
  if (baseline.fault !== undefined) refuse(`the baseline run was a fault (${baseline.fault.code}), not a result`)
  if (baseline.timed_out) refuse('the baseline run timed out')
  if (!baseline.reproduced || !baseline.failing.includes(caseIdentity)) refuse(`${caseIdentity} did not fail on the baseline`)
}
