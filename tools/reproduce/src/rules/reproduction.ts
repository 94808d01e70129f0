// Rule: what a baseline run decides (DESIGN §2, §3, §9). In order:
//   - the deadline stopped the run → timed_out (the sandbox's kill is set at the attempt's
//     deadline, less the moment needed to write the results);
//   - the run says nothing usable about the code (stopped, a limit hit, zero tests, exit code
//     and events disagree, a go.mod the toolchain cannot read) → fault;
//   - the case's identity failed → reproduced (the chain continues);
//   - otherwise (passed, skipped, or absent) → not_reproduced, and no provider call follows.

import type { TestRun } from '@repairline/core'

export type Reproduction =
  | { verdict: 'reproduced' }
  | { verdict: 'timed_out', code: 'DEADLINE_PASSED', message: string }
  | { verdict: 'fault', code: string, message: string }
  | { verdict: 'not_reproduced', code: 'NOT_REPRODUCED', message: string }

export function decideReproduction (run: TestRun, caseIdentity: string): Reproduction {
  if (run.timedOut) {
    return { verdict: 'timed_out', code: 'DEADLINE_PASSED', message: `the baseline run was killed at the attempt's deadline: ${run.fault?.message ?? 'deadline'}` }
  }
  if (run.fault !== undefined) return { verdict: 'fault', code: run.fault.code, message: run.fault.message }
  const state = run.summary.identities[caseIdentity]
  if (state?.result === 'fail') return { verdict: 'reproduced' }
  const seen = state === undefined ? 'was not reported by the run' : `ended ${state.result}`
  return { verdict: 'not_reproduced', code: 'NOT_REPRODUCED', message: `the case's identity ${caseIdentity} ${seen} on the baseline; ${run.summary.failing.length} other identit${run.summary.failing.length === 1 ? 'y' : 'ies'} failed` }
}
