// Rule: a sandbox that cannot be set up after admission ends the attempt as `fault` (DESIGN
// §11: "a primitive that disappears after admission is a fault") — it says nothing about the
// code. Anything else thrown (the state root, a write, a bug) is not an outcome: the step
// aborts and the chain stops.

import { isToolError, type ErrorCode } from '@repairline/core'

/** Codes of an environment that could not run the baseline. */
export const SANDBOX_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SANDBOX_UNAVAILABLE', 'SANDBOX_BIND_UNSAFE', 'RESOURCES_LOW',
])

/** The fault an error decides, or undefined when it decides none (rethrow it). */
export function sandboxFaultOf (e: unknown): { code: ErrorCode, message: string } | undefined {
  if (!isToolError(e) || !SANDBOX_FAULT_CODES.has(e.code)) return undefined
  return { code: e.code, message: e.message }
}
