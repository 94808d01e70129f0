// Rule: which errors of the candidate run are a fault (DESIGN §11, seed 004: a broken
// verifier is not failed work). A sandbox that cannot be set up after admission — a primitive
// gone, a bind source the sandbox user cannot reach (the toolchain's own directory included)
// — says nothing about the code: the attempt ends fault, exactly as reproduce ends a baseline
// that could not run. Memory or disk below the floor (RESOURCES_LOW) is a passing condition,
// not an outcome: verify exits 75 and runs again once there is room, so neither the key nor
// the provider's answer is spent on a full disk. Anything else thrown (the state root, a
// write, a bug) is not an outcome: the step aborts and the chain stops.

import { isToolError, type ErrorCode } from '@repairline/core'

/** Codes of an environment that could not run the candidate (reproduce's, for the baseline). */
export const SANDBOX_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SANDBOX_UNAVAILABLE', 'SANDBOX_BIND_UNSAFE',
])

export interface RunErrorFault { code: string, message: string }

/** The fault an error of the candidate run decides, or undefined when it decides none (rethrow it). */
export function runErrorFault (e: unknown): RunErrorFault | undefined {
  if (!isToolError(e) || !SANDBOX_FAULT_CODES.has(e.code)) return undefined
  return { code: e.code, message: e.message }
}
