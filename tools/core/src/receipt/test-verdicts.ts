// Readback's re-derivation of the test verdicts (DESIGN §9, §12): baseline.json and
// verify.json state what their runs showed, and the retained event files are what the runs
// printed. With today's code, each verdict must follow from its events again:
//
//   - the identities and the failing set are exactly what summarizing the events gives, and
//     every anomaly the events themselves show is recorded (the runner may add more: lines it
//     truncated, events it kept as output, node's closing counts — those are not in the file);
//   - each run's own verdict is re-derived from its retained sandbox report and events with
//     the functions reproduce and verify use (core's run-verdict.ts): its fault code (stopped
//     by the supervisor, a limit hit, survivors, exit code vs events) and whether the deadline
//     stopped it; the record's `fault` and `timed_out` must be exactly those, its exit code
//     the sandbox's, and every limit must have been read back as asked;
//   - baseline.json: `reproduced` holds exactly when the run was not stopped, has no fault,
//     and the case's identity failed;
//   - verify.json: `comparable` is sandboxDifferences of its run from the baseline's, its
//     fault and timed out are what verify derives from that, the run's own verdict and go
//     test's -timeout panic; the comparison with the baseline, rerun on the summaries with
//     those, gives the recorded classification, `passed`, per-identity verdicts and
//     red-then-green shape. Fault messages are descriptive and not compared; codes are.
//
//   - each run record on its own is what the CLI runs (sandbox-record.ts), and ran within the
//     attempt's time.
//
// Only an events file that still hashes to its summary's `events.sha256` is re-derived: any
// other is already a DIGEST_MISMATCH, and its summary says nothing about it. Its count and
// size must be the summary's, and a missing candidate events file must be stated empty.

import { isUtf8 } from 'node:buffer'
import { basename, join } from 'node:path'
import type { Baseline, ExecutionConfig, TestEvent, VerifyReport } from '@repairline/schemas'
import { parseJsonText } from '../json.ts'
import { printableLine } from '../printable-line.ts'
import { readFileNoFollow } from '../read-file.ts'
import { jcs } from '../digest.ts'
import { summarizeEvents, type SummaryOptions, type TestSummary } from '../events.ts'
import { schemaErrors } from '../contracts.ts'
import { compareRuns } from '../verify/compare.ts'
import { classifyWithChecks, firstCheck } from '../checks/verdict.ts'
import { candidateRunVerdict, limitsNotInForce, recordedRunVerdict, type CandidateRunVerdict } from '../verify/run-verdict.ts'
import type { RunRecordView } from '../verify/same-sandbox.ts'
import type { CheckContext } from './checks.ts'
import { sandboxRecordMisfit } from './sandbox-record.ts'

const CODE = 'TEST_VERDICT_MISMATCH'

/** The events of a retained file, each line strict JSON and a valid test event; undefined (and a finding) if any is not. */
function readEvents (c: CheckContext, rel: string, bytes: Buffer): TestEvent[] | undefined {
  if (!isUtf8(bytes)) {
    c.findings.add('MALFORMED', `${rel} is not UTF-8`, rel)
    return undefined
  }
  const events: TestEvent[] = []
  const lines = bytes.toString('utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (let i = 0; i < lines.length; i++) {
    // Strict, as every retained file is read: a duplicate key ("Action" twice) or a lone
    // surrogate is not an event a runner wrote.
    const parsed = parseJsonText(lines[i] ?? '')
    if (!parsed.ok) {
      c.findings.add('MALFORMED', `${rel} line ${i + 1} is not strict JSON: ${printableLine(parsed.message, 200)}`, rel)
      return undefined
    }
    const errs = schemaErrors('test-event', parsed.value)
    if (errs.length > 0) {
      c.findings.add('MALFORMED', `${rel} line ${i + 1} breaks test-event.schema.json: ${errs.slice(0, 2).join('; ')}`, rel)
      return undefined
    }
    events.push(parsed.value as TestEvent)
  }
  return events
}

/** sha256 of no bytes: what a summary states of an events file its command never wrote. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

/**
 * The summary of a retained events file that still hashes to what `doc` says of it, and
 * whose count and size are the ones `doc` states. An absent file is no events when `doc`
 * says so (the command never ran), and a finding when `doc` states events.
 */
function summaryOf (c: CheckContext, rel: string, doc: { events: { count: number, bytes: number, sha256: string } }): { events: TestEvent[], summary: TestSummary } | undefined {
  const file = rel === 'baseline.events.ndjson' ? 'baseline.json' : 'verify.json'
  if (!c.files.has(rel)) {
    if (doc.events.count === 0 && doc.events.bytes === 0 && doc.events.sha256 === EMPTY_SHA256) return { events: [], summary: summarizeEvents([], summaryOptions(c)) }
    // The baseline's events are a stage record of their own: the stage check reports them missing.
    if (rel === 'candidate.events.ndjson') c.findings.add(CODE, `${file} states ${doc.events.count} events in ${rel}, which is not retained: its verdict cannot be derived again`, file)
    return undefined
  }
  if (c.digestOf(rel) !== doc.events.sha256) return undefined
  const bytes = readFileNoFollow(join(c.dir, rel))
  const events = readEvents(c, rel, bytes)
  if (events === undefined) return undefined
  if (doc.events.count !== events.length || doc.events.bytes !== bytes.length) c.findings.add(CODE, `${file} states ${doc.events.count} events in ${doc.events.bytes} bytes; ${rel} holds ${events.length} in ${bytes.length}`, file)
  return { events, summary: summarizeEvents(events, summaryOptions(c)) }
}

/** As the runner summarized the run: go's packages each need a result of their own. */
function summaryOptions (c: CheckContext): SummaryOptions {
  const config = c.docs.get('inputs/execution.json') as ExecutionConfig | undefined
  return { packageResults: config?.runner.kind === 'go' }
}

/** Identities, failing set and anomalies of `doc` against the summary re-derived from its events. */
function checkSummary (c: CheckContext, file: string, events: string, doc: { identities: unknown, failing: string[], anomalies: string[] }, s: TestSummary): void {
  if (jcs(doc.identities) !== jcs(s.identities)) c.findings.add(CODE, `${file} identities are not what ${events} gives (${Object.keys(s.identities).length} identities re-derived)`, file)
  if (jcs(doc.failing) !== jcs(s.failing)) c.findings.add(CODE, `${file} failing set is not what ${events} gives (re-derived: ${s.failing.slice(0, 3).join(', ') || 'none'})`, file)
  const recorded = new Set(doc.anomalies)
  const unrecorded = s.anomalies.filter(a => !recorded.has(a))
  if (unrecorded.length > 0) c.findings.add(CODE, `${file} omits an anomaly ${events} shows: ${unrecorded[0] ?? ''}`, file)
}

/** The facts a record states about its own run that follow from its sandbox report alone. */
function checkRunRecord (c: CheckContext, file: string, doc: RunRecordView & { exit_code: number | null, reporter_sha256?: string }): void {
  if (doc.exit_code !== (doc.run?.exit.code ?? null)) c.findings.add(CODE, `${file} says exit code ${String(doc.exit_code)}, its sandbox run ${String(doc.run?.exit.code ?? null)}`, file)
  // The supervisor stops a run the moment its stdout or stderr passes the cap: a run that kept
  // less than it printed was stopped (for its output, or earlier for another reason).
  const out = doc.run?.output
  if (out !== undefined && doc.run?.stop === undefined && (out.stdout_bytes > out.stdout_kept || out.stderr_bytes > out.stderr_kept)) {
    c.findings.add(CODE, `${file}: its run printed more than it kept (past the output cap) but records no stop`, file)
  }
  const loose = doc.run === undefined ? [] : limitsNotInForce(doc.run)
  for (const l of loose.slice(0, 3)) c.findings.add(CODE, `${file}: limit ${l.name} was read back as ${l.got}, not ${l.want}; the sandbox does not run with a limit that did not take`, file)
  const config = c.docs.get('inputs/execution.json') as ExecutionConfig | undefined
  if (doc.run !== undefined && config !== undefined) {
    const why = sandboxRecordMisfit({ run: doc.run, ...(doc.reporter_sha256 === undefined ? {} : { reporter_sha256: doc.reporter_sha256 }) }, config, basename(c.dir), file === 'baseline.json' ? 'baseline' : 'candidate')
    if (why !== undefined) c.findings.add('SANDBOX_RECORD_MISMATCH', `${file}: its sandbox run record is not what the CLI runs: ${why}`, file)
  }
}

const faultCode = (f: { code: string } | undefined): string => f?.code ?? 'none'

/** verify's message form of a difference (one printable line, at most 2000 code points). */
const oneLine = (s: string): string => printableLine(s, 2000)

export function checkTestVerdicts (c: CheckContext): void {
  const baseline = c.docs.get('baseline.json') as Baseline | undefined
  if (baseline === undefined) return
  checkRunRecord(c, 'baseline.json', baseline)
  // Both runs are judged on the admitted case's own test.
  const caseIdentity = c.admission.case.test.name
  if (baseline.case_identity !== caseIdentity) c.findings.add(CODE, `baseline.json is about ${baseline.case_identity}, but the admitted case is ${caseIdentity}`, 'baseline.json')
  const base = summaryOf(c, 'baseline.events.ndjson', baseline)
  if (base !== undefined) {
    checkSummary(c, 'baseline.json', 'baseline.events.ndjson', baseline, base.summary)
    const own = recordedRunVerdict(baseline, base.summary)
    if (faultCode(baseline.fault) !== faultCode(own.fault)) c.findings.add(CODE, `baseline.json records fault ${faultCode(baseline.fault)}; its run and events give ${faultCode(own.fault)}`, 'baseline.json')
    if (baseline.timed_out !== own.timedOut) c.findings.add(CODE, `baseline.json says timed out ${String(baseline.timed_out)}; its sandbox run says ${String(own.timedOut)}`, 'baseline.json')
    const reproduced = !own.timedOut && own.fault === undefined && base.summary.identities[baseline.case_identity]?.result === 'fail'
    if (baseline.reproduced !== reproduced) c.findings.add(CODE, `baseline.json says reproduced ${String(baseline.reproduced)}; its run and events say ${String(reproduced)}`, 'baseline.json')
  }

  const verify = c.docs.get('verify.json') as VerifyReport | undefined
  if (verify === undefined) return
  checkRunRecord(c, 'verify.json', verify)
  if (verify.case_identity !== caseIdentity) c.findings.add(CODE, `verify.json is about ${verify.case_identity}, but the admitted case is ${caseIdentity}`, 'verify.json')
  if (verify.passed !== (verify.classification === 'scoped_test_verified')) c.findings.add(CODE, `verify.json says passed ${String(verify.passed)} beside ${verify.classification}`, 'verify.json')
  const cand = summaryOf(c, 'candidate.events.ndjson', verify)
  if (cand === undefined) return
  checkSummary(c, 'verify.json', 'candidate.events.ndjson', verify, cand.summary)
  // A record without command and run: the sandbox could not be set up for the candidate
  // (verify's run-error rule), and the fault is the error's; nothing ran, nothing differs.
  const derived: CandidateRunVerdict = verify.command === undefined && verify.run === undefined
    ? { differences: [], ...(verify.fault === undefined ? { fault: { code: 'a setup error', message: '' } } : { fault: verify.fault }), timedOut: false }
    : candidateRunVerdict(baseline, verify, recordedRunVerdict(verify, cand.summary), cand.events)
  const differences = derived.differences.map(d => oneLine(d))
  if (verify.comparable.identical !== (differences.length === 0) || jcs(verify.comparable.differences) !== jcs(differences)) {
    c.findings.add(CODE, `verify.json says the runs are ${verify.comparable.identical ? '' : 'not '}comparable; its run against the baseline's gives ${differences.length === 0 ? 'identical' : differences[0] ?? ''}`, 'verify.json')
  }
  // A run without a fault of its own records the first check that could not run, if any.
  const wantFault = derived.fault ?? firstCheck(verify.checks, 'fault')
  if (faultCode(verify.fault) !== faultCode(wantFault)) c.findings.add(CODE, `verify.json records fault ${faultCode(verify.fault)}; its run, its events, the baseline and its checks give ${faultCode(wantFault)}`, 'verify.json')
  if (verify.timed_out !== derived.timedOut) c.findings.add(CODE, `verify.json says timed out ${String(verify.timed_out)}; its sandbox run and events say ${String(derived.timedOut)}`, 'verify.json')
  const identities: Record<string, { result: 'pass' | 'fail' | 'skip' }> = {}
  for (const [id, state] of Object.entries(baseline.identities)) if (state !== undefined) identities[id] = { result: state.result }
  const again = compareRuns(
    { case_identity: baseline.case_identity, identities, failing: baseline.failing },
    { summary: cand.summary, timedOut: derived.timedOut, ...(derived.fault === undefined ? {} : { fault: derived.fault }) },
  )
  // The checks' results (checks-results.ts judges them) combine with the tests' as verify combines them.
  const classification = classifyWithChecks(again.classification, verify.checks)
  if (classification !== verify.classification) c.findings.add(CODE, `verify.json says ${verify.classification}; comparing its events with the baseline${verify.checks === undefined ? '' : ' and its checks\' results'} gives ${classification}`, 'verify.json')
  if (jcs(again.identities) !== jcs(verify.verdicts)) c.findings.add(CODE, 'verify.json per-identity verdicts are not what comparing its events with the baseline gives', 'verify.json')
  if (again.redThenGreen.shape !== verify.red_then_green.shape) c.findings.add(CODE, `verify.json says ${verify.red_then_green.shape}; the comparison gives ${again.redThenGreen.shape}`, 'verify.json')
  const red = again.redThenGreen.identities.map(r => ({ identity: r.identity, baseline: 'fail', candidate: r.candidate }))
  if (jcs(red) !== jcs(verify.red_then_green.identities)) c.findings.add(CODE, 'verify.json red_then_green identities are not what comparing its events with the baseline gives', 'verify.json')
}
