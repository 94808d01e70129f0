// time-order: the attempt's clock runs one way, within the attempt's time, and not ahead of the
// reader's (DESIGN §7, §12). Each finding is STAGE_ORDER.
//
// - Order. The chain writes its timestamps in this order, so each is no earlier than every one
//   before it: admitted_at, started_at, the baseline run's start and end, dispatched_at,
//   received_at, the candidate run's start and end, decided_at, sealed_at. A file that is
//   missing leaves its timestamps out; the rest still compare.
// - The deadline. Every step opens by checking the deadline, and a step that decides after the
//   deadline had passed by the 30 s grace writes timed_out (finishAttempt): by then the lock was
//   stale and the attempt counted as interrupted. So an attempt whose outcome is neither
//   timed_out nor interrupted (or that has none) has no step timestamp past deadline + grace.
//   A timed_out or interrupted attempt may: a machine suspended mid-step resumes and writes
//   what it was doing, late, and that claims no success.
// - The reader's clock. Nothing is later than readback's own clock by more than a day
//   (CLOCK_SKEW_MS): clocks of two machines differ by seconds or minutes, and a receipt sealed
//   in 2099 is no record of when anything happened. Only when readback is given its clock.
//
// None of this applies to an attempt made with test hooks: its steps' clock
// (REPAIRLINE_TEST_NOW) is set at will, and the sandbox's timings are the real clock's.

import type { OutcomeFile } from '@repairline/schemas'
import { STALE_GRACE_MS } from '../lock.ts'
import type { Findings } from './readback.ts'

/** How far a timestamp may run ahead of the reader's clock: the skew between two machines. */
export const CLOCK_SKEW_MS = 24 * 3600 * 1000

/** A timestamp a step wrote: the file it is in and what it marks. */
interface Stamp { at: string, file: string, what: string }

interface RunTiming { run?: { timing: { started_at: string, ended_at: string } } }

export interface TimeOrderInput {
  admission: { admitted_at: string, deadline: string, test_hooks: boolean }
  outcome: OutcomeFile | undefined
  /** Parsed, validated JSON files by attempt-relative path (receipt.json among them). */
  docs: ReadonlyMap<string, unknown>
  findings: Findings
  /** Readback's clock, when it has one. */
  now?: Date
}

/** The attempt's timestamps in the order the chain writes them (those of missing files left out). */
function stampsInChainOrder (docs: ReadonlyMap<string, unknown>, admittedAt: string): Stamp[] {
  const stamps: Stamp[] = [{ at: admittedAt, file: 'admission.json', what: 'admitted' }]
  const add = (file: string, what: string, at: string | undefined): void => { if (at !== undefined) stamps.push({ at, file, what }) }
  add('started.json', 'started', (docs.get('started.json') as { started_at?: string } | undefined)?.started_at)
  for (const [file, run] of [['baseline.json', 'the baseline run'], ['verify.json', 'the candidate run']] as const) {
    if (file === 'verify.json') {
      add('dispatch.json', 'the provider call was sent', (docs.get('dispatch.json') as { dispatched_at?: string } | undefined)?.dispatched_at)
      add('response.json', 'the provider call ended', (docs.get('response.json') as { received_at?: string } | undefined)?.received_at)
    }
    const t = (docs.get(file) as RunTiming | undefined)?.run?.timing
    add(file, `${run} started`, t?.started_at)
    add(file, `${run} ended`, t?.ended_at)
  }
  add('outcome.json', 'the outcome was decided', (docs.get('outcome.json') as { decided_at?: string } | undefined)?.decided_at)
  add('receipt.json', 'the receipt was sealed', (docs.get('receipt.json') as { sealed_at?: string } | undefined)?.sealed_at)
  return stamps
}

export function checkTimeOrder (c: TimeOrderInput): void {
  const { admission: a, findings: f } = c
  if (a.test_hooks) return
  const stamps = stampsInChainOrder(c.docs, a.admitted_at)
  // Order: each against the latest before it, so one stamp out of place is one finding.
  let latest: Stamp | undefined
  for (const s of stamps) {
    if (latest !== undefined && Date.parse(s.at) < Date.parse(latest.at)) {
      f.add('STAGE_ORDER', `${s.file} says ${s.what} at ${s.at}, before ${latest.what} (${latest.at}, ${latest.file}): time runs backwards`, s.file)
      continue
    }
    latest = s
  }
  // The deadline: late work is only ever a timeout's or an interruption's.
  const ended = c.outcome?.outcome === 'timed_out' || c.outcome?.outcome === 'interrupted'
  const lastMoment = Date.parse(a.deadline) + STALE_GRACE_MS
  if (!ended) {
    for (const s of stamps) {
      if (s.file === 'receipt.json' || Date.parse(s.at) <= lastMoment) continue
      f.add('STAGE_ORDER', `${s.file} says ${s.what} at ${s.at}, after the deadline ${a.deadline} had passed by 30 s, yet the attempt ${c.outcome === undefined ? 'has no outcome' : `ended ${c.outcome.outcome}`}: a step that late writes timed_out`, s.file)
    }
  }
  // The reader's clock.
  if (c.now !== undefined) {
    const limit = c.now.getTime() + CLOCK_SKEW_MS
    for (const s of stamps) {
      if (Date.parse(s.at) > limit) f.add('STAGE_ORDER', `${s.file} says ${s.what} at ${s.at}, more than a day after this machine's clock (${c.now.toISOString()}): no record of when it happened`, s.file)
    }
  }
}
