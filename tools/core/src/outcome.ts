// Outcomes (DESIGN §3): the closed set, their exit statuses, and the one writer of
// outcome.json. An outcome is written once; a second writer finds it and defers to it.

import { join } from 'node:path'
import type { OutcomeFile } from '@repairline/schemas'
import { EXIT, type ExitCode } from './exit-codes.ts'
import { writeJsonAtomic } from './atomic.ts'
import { printableLine } from './printable-line.ts'
import type { ErrorCode } from './errors.ts'

export type Outcome = OutcomeFile['outcome']
export type StepName = OutcomeFile['step']

export const OUTCOMES: readonly Outcome[] = ['scoped_test_verified', 'not_reproduced', 'rejected', 'failed', 'timed_out', 'interrupted', 'provider_error', 'fault']

/** The exit status of a tool that ends with (or finds) this outcome. */
export function outcomeExit (outcome: Outcome, retryable?: boolean): ExitCode {
  if (outcome === 'scoped_test_verified') return EXIT.OK
  if (outcome === 'provider_error' && retryable === true) return EXIT.UNAVAILABLE
  return EXIT.NO
}

export interface DecidedOutcome {
  outcome: Outcome
  retryable?: boolean
  code: ErrorCode | string
  message: string
}

/**
 * Writes outcome.json once. Returns the outcome now on disk: ours, or the one another step
 * wrote first (then ours is dropped).
 */
export function writeOutcome (stateRoot: string, attemptDir: string, attemptKey: string, step: StepName, d: DecidedOutcome, now: Date, read: (dir: string) => OutcomeFile | undefined): OutcomeFile {
  const file: OutcomeFile = {
    v: 1,
    attempt_key: attemptKey,
    outcome: d.outcome,
    ...(d.outcome === 'provider_error' ? { retryable: d.retryable === true } : {}),
    step,
    decided_at: now.toISOString(),
    reason: { code: d.code, message: printableLine(d.message, 8000) },
  }
  const wrote = writeJsonAtomic('outcome', join(attemptDir, 'outcome.json'), file, { stateRoot, exclusive: true })
  if (wrote) return file
  const existing = read(attemptDir)
  if (existing === undefined) throw new Error(`outcome.json exists in ${attemptDir} but cannot be read`)
  return existing
}
