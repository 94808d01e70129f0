// What the state root says about each attempt key: never started, consumed (with its
// outcome), running, or interrupted — read without writing anything. Not started means the
// directory is absent or holds only what admit writes before started.json (core's
// holdsOnlyAdmission, readback's NOT_STARTED rule): only then is it reused. A directory with
// anything more was worked on, whatever file is missing from it: it is consumed, and readback
// says whether it holds up. Running is what readback reports as ATTEMPT_RUNNING (core's
// isAttemptRunning): within admission.json's deadline and grace, with the state lock naming it.

import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { OutcomeFile } from '@repairline/schemas'
import { attemptDirFor, holdsOnlyAdmission, isAttemptRunning, isToolError, readJsonFile, readOutcome, STALE_GRACE_MS, toolError } from '@repairline/core'

export const MAX_RETAINED_ATTEMPTS = 32

export type KeyState =
  | { state: 'none', dir: string }
  /** `outcome` is absent when outcome.json (or admission.json) cannot be read: consumed, and readback says it is invalid. */
  | { state: 'consumed', dir: string, outcome?: OutcomeFile }
  | { state: 'running' | 'interrupted', dir: string, deadline: string }

/** The state of one key. A directory owned by another key with the same prefix is refused. */
export function keyState (stateDir: string, key: string, now: Date): KeyState {
  const dir = attemptDirFor(stateDir, key)
  const admissionPath = join(dir, 'admission.json')
  if (!existsSync(admissionPath)) {
    // admit writes inputs/ and admission.json before anything else, always: a directory with
    // more but no admission.json is not its work.
    if (!holdsOnlyAdmission(dir)) {
      let what: string
      try { what = readdirSync(dir).filter(n => n !== 'inputs').sort().slice(0, 3).join(', ') } catch { what = 'something other than a directory' }
      throw toolError('STATE_UNSAFE', `attempt directory ${dir} holds ${what} but no admission.json: it was not written by admit`, { path: dir, hint: 'inspect it and move it out of the state root' })
    }
    return { state: 'none', dir }
  }
  // A damaged attempt (admission.json or outcome.json that does not parse, or is a directory)
  // is consumed work that does not read back: never a reason to stop status or run.
  let admission
  try {
    admission = readJsonFile('admission', admissionPath)
  } catch (e) {
    if (!isToolError(e)) throw e
    return { state: 'consumed', dir }
  }
  if (admission.attempt_key !== key) {
    throw toolError('ATTEMPT_KEY_COLLISION', `attempt directory ${dir} belongs to key ${admission.attempt_key}, which shares its first 16 hex digits with ${key}`, { path: dir })
  }
  const started = existsSync(join(dir, 'started.json'))
  if (!started && holdsOnlyAdmission(dir)) return { state: 'none', dir }
  let outcome
  try {
    outcome = readOutcome(dir, key)
  } catch (e) {
    if (!isToolError(e)) throw e
    return { state: 'consumed', dir }
  }
  if (outcome !== undefined) return { state: 'consumed', dir, outcome }
  // started.json gone from an attempt that went on: consumed, with no outcome to show.
  if (!started) return { state: 'consumed', dir }
  const stale = now.getTime() > Date.parse(admission.deadline) + STALE_GRACE_MS
  if (stale) return { state: 'interrupted', dir, deadline: admission.deadline }
  // Within its deadline but no lock names it (seal released it, or the lock names another
  // attempt or directory): nothing works on it, so it is judged as readback judges it (NOT_SEALED).
  if (!isAttemptRunning(dir, admission, now)) return { state: 'consumed', dir }
  return { state: 'running', dir, deadline: admission.deadline }
}

/** Attempts that consumed their key (anything beyond what admit writes before started.json); admission-only dirs do not count. */
export function retainedAttempts (stateDir: string): string[] {
  const root = join(stateDir, 'attempts')
  if (!existsSync(root)) return []
  return readdirSync(root).filter(n => /^[0-9a-f]{16}$/.test(n) && !holdsOnlyAdmission(join(root, n))).sort()
}
