// Verification's comparison (DESIGN §11), as pure functions of the baseline's identities and
// the candidate run: the classification, every baseline identity's verdict, and the
// red-then-green record with a one-line note for every shape that is not red-then-green
// (seed 002's honesty rule: never state more than was measured).
//
// Pass (scoped_test_verified) requires: every baseline identity that was not skipped ran
// again and passes (a skipped baseline failure is not fixed); no identity of the candidate
// run failed (additional identities may appear, but not fail); and the run itself is usable.
// A run the deadline stopped is timed_out; a run that says nothing about the code (sandbox,
// toolchain, zero tests, exit and events disagreeing: the runner's fault) is a fault. Neither
// ever counts as failed work (seed 004).

import type { IdentityVerdictRow, ObservedResult, TestEvent, VerifyReport } from '@repairline/schemas'
import { printableLine } from '../printable-line.ts'

// The closed sets are verify.json's (schemas/verify.schema.json), not restated here.
export type VerifyClassification = VerifyReport['classification']
export type { ObservedResult }

/**
 * What one baseline identity (or one identity new on the candidate) turned into: fixed
 * (failed on the baseline, passes now), still_passes, still_fails, now_fails (passed or was
 * skipped on the baseline, fails now), now_skipped (not a pass), still_skipped, now_passes
 * (was skipped, passes now), not_executed (completed on the baseline, absent from the
 * candidate run), added_pass / added_fail / added_skip (not in the baseline run).
 */
export type IdentityVerdict = IdentityVerdictRow['verdict']

export interface IdentityComparison {
  identity: string
  baseline: ObservedResult
  candidate: ObservedResult
  verdict: IdentityVerdict
}

export type RedGreenShape = VerifyReport['red_then_green']['shape']

export interface RedThenGreen {
  shape: RedGreenShape
  /** The identities that were red on the baseline, with what each was on the candidate. */
  identities: Array<{ identity: string, baseline: ObservedResult, candidate: ObservedResult }>
  /** One line naming the observed shape; absent exactly when the shape is red_then_green. */
  note?: string
}

export interface VerifyComparison {
  classification: VerifyClassification
  /** One line per reason the candidate is not verified; empty when it is. */
  reasons: string[]
  redThenGreen: RedThenGreen
  /** Every baseline identity, then every identity new on the candidate, each sorted. */
  identities: IdentityComparison[]
}

/** The parts of baseline.json the comparison reads. */
export interface BaselineView {
  case_identity: string
  identities: Record<string, { result: 'pass' | 'fail' | 'skip' }>
  failing: readonly string[]
}

/** The parts of a candidate test run (core's runner result) the comparison reads. */
export interface CandidateView {
  summary: {
    identities: Record<string, { result: 'pass' | 'fail' | 'skip' }>
    /** Package-level results: a baseline `<pkg>::` failure (build, TestMain, panic) is fixed when the package passes. */
    packages: Record<string, 'pass' | 'fail' | 'skip'>
  }
  /** The runner's verdict that the run says nothing about the code. */
  fault?: { code: string, message: string }
  /** The deadline (or the go test -timeout set below it) stopped the run. */
  timedOut: boolean
}

export const FAILING_VERDICTS: ReadonlySet<IdentityVerdict> = new Set(['still_fails', 'now_fails', 'now_skipped', 'not_executed', 'added_fail'])

/** `go test -timeout` ends a hung run with this panic before the supervisor's deadline kill. */
const GO_TEST_TIMEOUT = /^panic: test timed out after /m

/** True when go's own test timeout (set below the deadline) stopped the run. */
export function goTestTimedOut (events: Iterable<TestEvent>): boolean {
  for (const e of events) if (e.Action === 'output' && e.Output !== undefined && GO_TEST_TIMEOUT.test(e.Output)) return true
  return false
}

function candidateResult (c: CandidateView, identity: string): ObservedResult {
  const own = c.summary.identities[identity]
  if (own !== undefined) return own.result
  // `<pkg>::` is the package failing outside any test; on a run where the package passed it
  // has no identity of its own.
  if (identity.endsWith('::')) {
    const pkg = c.summary.packages[identity.slice(0, -2)]
    if (pkg !== undefined) return pkg
  }
  return 'missing'
}

function verdictOf (baseline: ObservedResult, candidate: ObservedResult): IdentityVerdict {
  if (baseline === 'missing') return candidate === 'pass' ? 'added_pass' : candidate === 'skip' ? 'added_skip' : 'added_fail'
  if (candidate === 'missing') return baseline === 'skip' ? 'still_skipped' : 'not_executed'
  if (baseline === 'skip') return candidate === 'fail' ? 'now_fails' : candidate === 'skip' ? 'still_skipped' : 'now_passes'
  if (candidate === 'fail') return baseline === 'fail' ? 'still_fails' : 'now_fails'
  if (candidate === 'skip') return 'now_skipped'
  return baseline === 'fail' ? 'fixed' : 'still_passes'
}

const SHOW_MAX = 3

function list (ids: readonly string[]): string {
  const shown = ids.slice(0, SHOW_MAX).join(', ')
  return ids.length > SHOW_MAX ? `${shown} and ${ids.length - SHOW_MAX} more` : shown
}

const oneLine = (s: string): string => printableLine(s, 600)

/** Compares the candidate run with the baseline (DESIGN §11). Pure: no I/O. */
export function compareRuns (baseline: BaselineView, candidate: CandidateView): VerifyComparison {
  const identities: IdentityComparison[] = []
  for (const id of Object.keys(baseline.identities).sort()) {
    const b = (baseline.identities[id] as { result: ObservedResult }).result
    const c = candidateResult(candidate, id)
    identities.push({ identity: id, baseline: b, candidate: c, verdict: verdictOf(b, c) })
  }
  for (const id of Object.keys(candidate.summary.identities).sort()) {
    if (baseline.identities[id] !== undefined) continue
    const c = (candidate.summary.identities[id] as { result: ObservedResult }).result
    identities.push({ identity: id, baseline: 'missing', candidate: c, verdict: verdictOf('missing', c) })
  }

  const red = [...baseline.failing].sort()
  // What the candidate run showed for each red identity, even when the run as a whole is unusable.
  const redRows = red.map(id => ({ identity: id, baseline: 'fail' as ObservedResult, candidate: candidateResult(candidate, id) }))

  if (candidate.timedOut) {
    return {
      classification: 'timed_out',
      reasons: ['the candidate run was stopped by the deadline before it reached a verdict'],
      identities,
      redThenGreen: { shape: red.length === 0 ? 'not_red' : 'red_then_timed_out', identities: redRows, note: red.length === 0 ? notRedNote(baseline) : `${list(red)} failed on the baseline, but the candidate run timed out before reaching a verdict: this says nothing about the fix.` },
    }
  }
  if (candidate.fault !== undefined) {
    const f = candidate.fault
    return {
      classification: 'fault',
      reasons: [oneLine(`${f.code}: ${f.message}`)],
      identities,
      redThenGreen: { shape: red.length === 0 ? 'not_red' : 'red_then_fault', identities: redRows, note: red.length === 0 ? notRedNote(baseline) : oneLine(`${list(red)} failed on the baseline, but the candidate run could not be used (${f.code}): the fix was not checked, and this is not failed work.`) },
    }
  }

  const reasons: string[] = []
  const by = (v: IdentityVerdict): string[] => identities.filter(x => x.verdict === v).map(x => x.identity)
  const explain: Array<[IdentityVerdict, string]> = [
    ['still_fails', 'still fail on the candidate'],
    ['now_fails', 'passed or were skipped on the baseline and fail on the candidate'],
    ['now_skipped', 'were not skipped on the baseline and are skipped on the candidate (a skipped test is not a pass)'],
    ['not_executed', 'ran on the baseline and were not executed again'],
    ['added_fail', 'are new on the candidate run and fail'],
  ]
  for (const [v, why] of explain) {
    const ids = by(v)
    if (ids.length > 0) reasons.push(oneLine(`${ids.length} identit${ids.length === 1 ? 'y' : 'ies'} ${why}: ${list(ids)}`))
  }
  const classification: VerifyClassification = identities.some(x => FAILING_VERDICTS.has(x.verdict)) ? 'failed' : 'scoped_test_verified'
  return { classification, reasons, identities, redThenGreen: redThenGreen(baseline, redRows) }
}

function notRedNote (baseline: BaselineView): string {
  return oneLine(`${baseline.case_identity} was not red on the baseline, so there was no red to turn green: nothing is demonstrated.`)
}

function redThenGreen (baseline: BaselineView, rows: RedThenGreen['identities']): RedThenGreen {
  if (rows.length === 0) return { shape: 'not_red', identities: rows, note: notRedNote(baseline) }
  const where = (r: ObservedResult): string[] => rows.filter(x => x.candidate === r).map(x => x.identity)
  const red = where('fail')
  const skipped = where('skip')
  const missing = where('missing')
  if (red.length === 0 && skipped.length === 0 && missing.length === 0) return { shape: 'red_then_green', identities: rows }
  const parts: string[] = []
  if (red.length > 0) parts.push(`${list(red)} still red`)
  if (skipped.length > 0) parts.push(`${list(skipped)} skipped (a skipped failure is not fixed)`)
  if (missing.length > 0) parts.push(`${list(missing)} not executed`)
  const shape: RedGreenShape = red.length > 0 ? 'red_then_red' : skipped.length > 0 ? 'red_then_skipped' : 'red_then_missing'
  return { shape, identities: rows, note: oneLine(`Red on the baseline under the identical command and sandbox, but on the candidate: ${parts.join('; ')}.`) }
}
