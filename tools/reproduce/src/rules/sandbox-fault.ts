// Rule: a sandbox that cannot be set up after admission ends the attempt (DESIGN §11: "a
// primitive that disappears after admission is a fault") — it says nothing about the code —
// and a deadline that passes while the sandbox is being set up ends it timed_out. Memory or
// disk below the floor (RESOURCES_LOW) is no primitive gone but a passing condition: it is
// not an outcome, the step exits 75 and runs again once there is room (the key is not spent
// on a full disk). Anything else thrown (the state root, a write, a bug) is not an outcome
// either: the step aborts and the chain stops.

import { isToolError, type ErrorCode } from '@repairline/core'

/** Codes of an environment that could not run the baseline. */
export const SANDBOX_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SANDBOX_UNAVAILABLE', 'SANDBOX_BIND_UNSAFE',
])

export interface SetupVerdict { outcome: 'fault' | 'timed_out', code: ErrorCode, message: string }

/** The outcome a setup error decides, or undefined when it decides none (rethrow it). */
export function setupVerdictOf (e: unknown): SetupVerdict | undefined {
  if (!isToolError(e)) return undefined
  if (e.code === 'DEADLINE_PASSED') return { outcome: 'timed_out', code: e.code, message: e.message }
  if (SANDBOX_FAULT_CODES.has(e.code)) return { outcome: 'fault', code: e.code, message: `the baseline could not run in the sandbox: ${e.message}` }
  return undefined
}
