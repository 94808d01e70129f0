// Readback's re-derivation of the test verdicts (DESIGN §9, §12): baseline.json and
// verify.json state what their runs showed, and the retained event files are what the runs
// printed. With today's code, each verdict must follow from its events again:
//
//   - the identities and the failing set are exactly what summarizing the events gives, and
//     every anomaly the events themselves show is recorded (the runner may add more: lines it
//     truncated, events it kept as output, node's closing counts — those are not in the file);
//   - baseline.json: `reproduced` holds exactly when the run was not stopped, has no fault,
//     and the case's identity failed; a run whose events and exit code disagree has a fault;
//   - verify.json: a go test -timeout panic in the events is recorded as timed out, and the
//     comparison with the baseline, rerun on the summaries, gives the recorded classification,
//     per-identity verdicts and red-then-green shape.
//
// Only an events file that still hashes to its summary's `events.sha256` is re-derived: any
// other is already a DIGEST_MISMATCH, and its summary says nothing about it.

import { join } from 'node:path'
import type { Baseline, TestEvent, VerifyReport } from '@repairline/schemas'
import { readFileNoFollow } from '../read-file.ts'
import { jcs } from '../digest.ts'
import { assessRun, summarizeEvents, type TestSummary } from '../events.ts'
import { schemaErrors } from '../contracts.ts'
import { compareRuns, goTestTimedOut } from '../verify/compare.ts'
import type { CheckContext } from './checks.ts'

const CODE = 'TEST_VERDICT_MISMATCH'

/** The events of a retained file, each line JSON and a valid test event; undefined (and a finding) if any is not. */
function readEvents (c: CheckContext, rel: string, bytes: Buffer): TestEvent[] | undefined {
  const events: TestEvent[] = []
  const text = bytes.toString('utf8')
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (let i = 0; i < lines.length; i++) {
    let ev: unknown
    try { ev = JSON.parse(lines[i] ?? '') } catch {
      c.findings.add('MALFORMED', `${rel} line ${i + 1} is not JSON`, rel)
      return undefined
    }
    const errs = schemaErrors('test-event', ev)
    if (errs.length > 0) {
      c.findings.add('MALFORMED', `${rel} line ${i + 1} breaks test-event.schema.json: ${errs.slice(0, 2).join('; ')}`, rel)
      return undefined
    }
    events.push(ev as TestEvent)
  }
  return events
}

/** The summary of a retained events file that still hashes to what `doc` says of it. */
function summaryOf (c: CheckContext, rel: string, doc: { events: { sha256: string } }): { events: TestEvent[], summary: TestSummary } | undefined {
  if (!c.files.has(rel) || c.digestOf(rel) !== doc.events.sha256) return undefined
  const events = readEvents(c, rel, readFileNoFollow(join(c.dir, rel)))
  return events === undefined ? undefined : { events, summary: summarizeEvents(events) }
}

/** Identities, failing set and anomalies of `doc` against the summary re-derived from its events. */
function checkSummary (c: CheckContext, file: string, events: string, doc: { identities: unknown, failing: string[], anomalies: string[] }, s: TestSummary): void {
  if (jcs(doc.identities) !== jcs(s.identities)) c.findings.add(CODE, `${file} identities are not what ${events} gives (${Object.keys(s.identities).length} identities re-derived)`, file)
  if (jcs(doc.failing) !== jcs(s.failing)) c.findings.add(CODE, `${file} failing set is not what ${events} gives (re-derived: ${s.failing.slice(0, 3).join(', ') || 'none'})`, file)
  const recorded = new Set(doc.anomalies)
  const unrecorded = s.anomalies.filter(a => !recorded.has(a))
  if (unrecorded.length > 0) c.findings.add(CODE, `${file} omits an anomaly ${events} shows: ${unrecorded[0] ?? ''}`, file)
}

export function checkTestVerdicts (c: CheckContext): void {
  const baseline = c.docs.get('baseline.json') as Baseline | undefined
  if (baseline === undefined) return
  const base = summaryOf(c, 'baseline.events.ndjson', baseline)
  if (base !== undefined) {
    checkSummary(c, 'baseline.json', 'baseline.events.ndjson', baseline, base.summary)
    const reproduced = !baseline.timed_out && baseline.fault === undefined && base.summary.identities[baseline.case_identity]?.result === 'fail'
    if (baseline.reproduced !== reproduced) c.findings.add(CODE, `baseline.json says reproduced ${String(baseline.reproduced)}; its run and events say ${String(reproduced)}`, 'baseline.json')
    const disagreement = assessRun(base.summary, baseline.exit_code)
    if (disagreement !== undefined && baseline.fault === undefined && !baseline.timed_out) c.findings.add(CODE, `baseline.json records no fault, but its events and exit code disagree: ${disagreement.code}`, 'baseline.json')
  }

  const verify = c.docs.get('verify.json') as VerifyReport | undefined
  if (verify === undefined) return
  const cand = summaryOf(c, 'candidate.events.ndjson', verify)
  if (cand === undefined) return
  checkSummary(c, 'verify.json', 'candidate.events.ndjson', verify, cand.summary)
  if (goTestTimedOut(cand.events) && !verify.timed_out) c.findings.add(CODE, 'candidate.events.ndjson shows go test\'s -timeout panic, but verify.json does not say timed out', 'verify.json')
  const identities: Record<string, { result: 'pass' | 'fail' | 'skip' }> = {}
  for (const [id, state] of Object.entries(baseline.identities)) if (state !== undefined) identities[id] = { result: state.result }
  const again = compareRuns(
    { case_identity: baseline.case_identity, identities, failing: baseline.failing },
    { summary: cand.summary, timedOut: verify.timed_out, ...(verify.fault === undefined ? {} : { fault: verify.fault }) },
  )
  if (again.classification !== verify.classification) c.findings.add(CODE, `verify.json says ${verify.classification}; comparing its events with the baseline gives ${again.classification}`, 'verify.json')
  if (jcs(again.identities) !== jcs(verify.verdicts)) c.findings.add(CODE, 'verify.json per-identity verdicts are not what comparing its events with the baseline gives', 'verify.json')
  if (again.redThenGreen.shape !== verify.red_then_green.shape) c.findings.add(CODE, `verify.json says ${verify.red_then_green.shape}; the comparison gives ${again.redThenGreen.shape}`, 'verify.json')
}
