// What a test run's record decides about the run itself, as reproduce and verify decide it
// (DESIGN §11): the same functions read a live run (runTests' TestRun) and, in readback, the
// record baseline.json or verify.json keeps of it (DESIGN §12), so a retained verdict can be
// re-derived from the retained facts instead of taken from the record's own fields.
//
//   - A run's own fault is core's decideFault on its sandbox report (stopped by the
//     supervisor, a limit hit, survivors, exit code vs events); a run refused before the
//     sandbox started has none and is TOOLCHAIN_UNSUPPORTED (runTests' only such refusal).
//   - It timed out when the supervisor stopped it at the deadline.
//   - verify's candidate run: a run that differs from the baseline's command and sandbox is
//     RUN_NOT_COMPARABLE whatever else it shows; otherwise its own fault. It timed out also
//     when go test's own -timeout panic is in its events.
//   - A limit read back with another value than the one asked for is never in a record of a
//     finished run: the sandbox refuses to start (SANDBOX_UNAVAILABLE). The one reading that
//     may differ is memory+swap on a host without swap accounting and without swap.

import type { LimitReading, SandboxRun, TestEvent } from '@repairline/schemas'
import { decideFault } from '../runners/run-tests.ts'
import type { TestSummary } from '../events.ts'
import { goTestTimedOut } from './compare.ts'
import { runRecordDifferences, type RunRecordView } from './same-sandbox.ts'

export interface RunVerdictFault { code: string, message: string }

/** A run's own verdict: its fault, and whether the deadline stopped it. */
export interface OwnRunVerdict { fault?: RunVerdictFault, timedOut: boolean }

/** The own verdict of a recorded run, from its sandbox report and the summary of its events. */
export function recordedRunVerdict (record: RunRecordView, summary: TestSummary): OwnRunVerdict {
  // Refused before the sandbox started, from the tree's go.mod files: one of the two refusals.
  if (record.run === undefined) return { fault: { code: record.fault?.code === 'GO_REPLACE_OUTSIDE_TREE' ? 'GO_REPLACE_OUTSIDE_TREE' : 'TOOLCHAIN_UNSUPPORTED', message: 'the run was refused before the sandbox started' }, timedOut: false }
  const fault = decideFault(record.run, summary)
  return { ...(fault === undefined ? {} : { fault }), timedOut: stoppedAtDeadline(record.run) }
}

/** The supervisor stopped the run at the deadline (runTests' timedOut). */
export function stoppedAtDeadline (run: SandboxRun | undefined): boolean {
  return run?.stop?.reason === 'deadline'
}

export interface CandidateRunVerdict {
  /** sandboxDifferences of the candidate run from the baseline's; empty when identical. */
  differences: string[]
  fault?: RunVerdictFault
  timedOut: boolean
}

/** verify's verdict on a candidate run that finished (or was refused by the toolchain) beside the baseline. */
export function candidateRunVerdict (baseline: RunRecordView, candidate: RunRecordView, own: OwnRunVerdict, events: Iterable<TestEvent>): CandidateRunVerdict {
  const differences = runRecordDifferences(baseline, candidate)
  let fault = own.fault
  if (differences.length > 0) {
    const itself = own.fault === undefined ? '' : ` (the run itself: ${own.fault.code}: ${own.fault.message})`
    fault = { code: 'RUN_NOT_COMPARABLE', message: `the candidate did not run under the baseline's command and sandbox: ${differences.join('; ')}${itself}` }
  }
  // Stopped by the deadline: the supervisor's kill, or go test's own -timeout (set below the
  // deadline) ending the hung test in-band with its panic.
  return { differences, ...(fault === undefined ? {} : { fault }), timedOut: own.timedOut || goTestTimedOut(events) }
}

const NO_SWAP = 'no swap accounting; SwapTotal 0 kB'

/** The readings of a recorded run whose value read back is not the one asked for. */
export function limitsNotInForce (run: SandboxRun): LimitReading[] {
  return run.limits.filter(l => l.got !== l.want && !(l.name === 'memory+swap' && l.mechanism === 'host' && l.got === NO_SWAP))
}
