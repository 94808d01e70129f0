// Test hooks (DESIGN §7). Only with REPAIRLINE_TEST_HOOKS=1:
//   REPAIRLINE_TEST_NOW=<RFC 3339>  the clock every deadline decision reads;
//   REPAIRLINE_FAULT_AT=<label>     SIGKILL this process at that labelled point.
// Without the switch both variables are ignored. A receipt made with hooks enabled says so.

export type Env = Readonly<Record<string, string | undefined>>

/** The labelled crash points of the chain. */
export const FAULT_LABELS = ['lock', 'admission', 'started.json', 'extraction', 'dispatch', 'provider-response', 'gate', 'sandbox-start', 'verify', 'seal'] as const
export type FaultLabel = (typeof FAULT_LABELS)[number]

export function testHooksEnabled (env: Env): boolean {
  return env.REPAIRLINE_TEST_HOOKS === '1'
}

/** The wall clock, or the test clock when hooks are enabled and REPAIRLINE_TEST_NOW is set. */
export function clockFrom (env: Env): () => Date {
  const fixed = testHooksEnabled(env) ? env.REPAIRLINE_TEST_NOW : undefined
  if (fixed === undefined || fixed === '') return () => new Date()
  const t = Date.parse(fixed)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(fixed) || Number.isNaN(t)) throw new Error(`REPAIRLINE_TEST_NOW is not an RFC 3339 time: ${fixed}`)
  return () => new Date(t)
}

/**
 * Kills this process with SIGKILL when hooks are enabled and REPAIRLINE_FAULT_AT names
 * `label`: a crash at exactly that point, with no cleanup handlers run.
 */
export function faultPoint (env: Env, label: FaultLabel): void {
  if (testHooksEnabled(env) && env.REPAIRLINE_FAULT_AT === label) process.kill(process.pid, 'SIGKILL')
}
