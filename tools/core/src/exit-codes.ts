// The one exit-code table for every tool, the driver and the README (DESIGN §4).
// 0 continues the chain, 1 is a verdict (seal and stop), everything else aborts.

export const EXIT = {
  /** Step done, chain continues (verify/receipt: scoped_test_verified). */
  OK: 0,
  /** A terminal outcome other than a retryable provider error, or a "no" answer. */
  NO: 1,
  /** Bad flags or arguments. */
  USAGE: 2,
  /** Input data broke its contract (report schema, forged digest, NDJSON, manifest). */
  DATA: 65,
  /** Input missing: no attempt, unreadable file. */
  NO_INPUT: 66,
  /** provider_error with retryable: true. */
  UNAVAILABLE: 69,
  /** Internal bug. */
  INTERNAL: 70,
  /** Cannot create output (retention full, unsafe state root). */
  CANT_CREATE: 73,
  /** Temporary: lock held or lost; retry later. */
  TEMP: 75,
  /** Refused by the environment before started.json (sandbox primitives missing). */
  NO_PERM: 77,
  /** Execution config invalid, including a dirty checkout. */
  CONFIG: 78,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** What the driver does with each exit code. */
export function driverAction (exit: number): 'continue' | 'seal' | 'abort' | 'retry-later' {
  if (exit === EXIT.OK) return 'continue'
  if (exit === EXIT.NO || exit === EXIT.UNAVAILABLE) return 'seal'
  if (exit === EXIT.TEMP) return 'retry-later'
  return 'abort'
}
