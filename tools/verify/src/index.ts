// verify: the last step before the seal (DESIGN §11). It rebuilds the gated candidate from
// proposal.json and checks it against gate.json and candidate.patch, writes it as the work
// tree work/candidate (mounted read-only), runs the fixed test command on it with the same
// runner spec reproduce used on the baseline (core's attemptTestRunSpec), writes
// candidate.events.ndjson and verify.json, prints one `verify` record, and ends the attempt:
// scoped_test_verified (exit 0), failed, fault or timed_out (exit 1). A fault never counts
// as failed work.

import { join } from 'node:path'
import type { Baseline, CheckResult, GateReport, VerifyRecord, VerifyReport } from '@repairline/schemas'
import {
  WRITE_MARGIN_MS, attemptTestRunSpec, checkReasons, runCommandChecks, classifyWithChecks, evaluateContentChecks, firstCheck, openTreeReader, throttledProgress, candidateRunVerdict, compareRuns, faultPoint, finishAttempt, openStep, prepareScratch,
  prepareWorkTree, readJsonFile, removeScratch, runTests, testRunFields, testRunView, writeJsonAtomic, writeTestEvents, type Attempt, type TestRun,
  type BaselineView, type ToolIo, type ToolResult, type VerifyComparison,
} from '@repairline/core'
import { assertBaselineReproduced } from './rules/baseline-reproduced.ts'
import { gatedCandidate } from './rules/candidate-matches-gate.ts'
import { assertGatePassed } from './rules/gate-passed.ts'
import { runErrorFault, type RunErrorFault } from './rules/run-error.ts'

export const CANDIDATE_EVENTS = 'candidate.events.ndjson'
export const VERIFY_JSON = 'verify.json'
/** The files the earlier steps must have written (each JSON one validated by openStep). */
export const REQUIRES = ['tree-manifest.json', 'tree.tar', 'baseline.json', 'proposal.json', 'gate.json', 'candidate.patch'] as const

export interface VerifyOptions { attempt: string }

function oneLine (s: string, max = 2000): string {
  const t = s.replace(/[\r\n]+/g, ' ')
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

/** The comparison, with a run that says nothing usable (or is not comparable) as a fault. */
function classify (baseline: Baseline, run: TestRun | undefined, timedOut: boolean, fault: RunErrorFault | undefined): VerifyComparison {
  const identities: BaselineView['identities'] = {}
  for (const [id, state] of Object.entries(baseline.identities)) if (state !== undefined) identities[id] = { result: state.result }
  const view: BaselineView = { case_identity: baseline.case_identity, identities, failing: baseline.failing }
  const summary = run?.summary ?? { identities: {}, packages: {} }
  return compareRuns(view, { summary, timedOut, ...(fault === undefined ? {} : { fault }) })
}

export async function verify (o: VerifyOptions, io: ToolIo): Promise<ToolResult> {
  const step = openStep('verify', o.attempt, io, REQUIRES)
  if (step.done) return step.result
  const { attempt } = step
  const baselinePath = join(attempt.dir, 'baseline.json')
  const baseline = readJsonFile('baseline', baselinePath)
  assertBaselineReproduced(baseline, attempt, baselinePath)
  const gatePath = join(attempt.dir, 'gate.json')
  const gate: GateReport = readJsonFile('gate', gatePath)
  assertGatePassed(gate, attempt, gatePath)
  const candidate = await gatedCandidate(attempt, gate)

  const tree = prepareWorkTree(attempt, 'candidate', candidate.overrides)
  const scratch = await prepareScratch(attempt, 'candidate')
  let run: TestRun | undefined
  let fault: RunErrorFault | undefined
  try {
    run = await runTests(attemptTestRunSpec(attempt, { tree: tree.dir, scratch, now: io.now(), onProgress: throttledProgress(n => io.stderr.write(`verify: progress: ${n} tests finished\n`)) }))
  } catch (e) {
    fault = runErrorFault(e)
    if (fault === undefined) throw e
  } finally {
    // Whatever a test left, its removal failing is reported and never replaces the verdict.
    const left = await removeScratch(scratch)
    if (left !== undefined) io.stderr.write(`verify: warning: scratch not removed: ${left.replace(/\s+/g, ' ')}\n`)
  }
  const events = writeTestEvents(join(attempt.dir, CANDIDATE_EVENTS), run?.events ?? [], attempt.stateRoot)
  // A crash here leaves the events without their summary: a rerun of verify (no outcome yet)
  // runs the candidate again and replaces both.
  faultPoint(io.env, 'verify')

  // The run compared with the baseline's command and sandbox (rule same-sandbox, core's
  // sandboxDifferences), its fault and its deadline: core's candidateRunVerdict, which
  // readback reapplies to the record of this run.
  let differences: string[] = []
  let timedOut = false
  if (run !== undefined) {
    const v = candidateRunVerdict(baseline, testRunView(run), { ...(run.fault === undefined ? {} : { fault: run.fault }), timedOut: run.timedOut }, run.events)
    differences = v.differences
    fault = v.fault
    timedOut = v.timedOut
  }
  const c = classify(baseline, run, timedOut, fault)
  // The config's checks (seed 004): the content clauses on the candidate's files, then its
  // commands in the tests' sandbox — unless the test run already said nothing (fault, timed_out).
  const checks: CheckResult[] | undefined = attempt.config.checks === undefined ? undefined : contentChecks(attempt, candidate.overrides)
  const commands = attempt.config.checks?.commands
  if (checks !== undefined && commands !== undefined) {
    if (c.classification === 'fault' || c.classification === 'timed_out') {
      checks.push(...commands.map((cmd, index) => ({ clause: 'commands' as const, index, status: 'not_run' as const, code: 'CHECK_NOT_RUN' as const, detail: oneLine(`${[cmd.exec, ...cmd.args].join(' ')}: not run: the test run was ${c.classification}`) })))
    } else {
      try {
        checks.push(...await runCommandChecks(commands, {
          spec: attemptTestRunSpec(attempt, { tree: tree.dir, scratch, now: io.now() }),
          deadlineMs: Date.parse(attempt.admission.deadline) - WRITE_MARGIN_MS,
          now: () => io.now(),
          warn: line => io.stderr.write(`verify: warning: ${oneLine(line)}\n`),
        }))
      } finally {
        const left = await removeScratch(scratch)
        if (left !== undefined) io.stderr.write(`verify: warning: scratch not removed: ${left.replace(/\s+/g, ' ')}\n`)
      }
    }
  }
  const classification = classifyWithChecks(c.classification, checks)
  const overridden = [...tree.overridden].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  const fields = run === undefined
    ? { runner: attempt.config.runner.kind, exit_code: null, timed_out: false, events, stderr_tail: '' }
    : { ...testRunFields(run, events), timed_out: timedOut }
  const report: VerifyReport = {
    v: 1,
    attempt_key: attempt.key,
    case_identity: baseline.case_identity,
    classification,
    passed: classification === 'scoped_test_verified',
    reasons: [...c.reasons, ...checkReasons(checks)].map(r => oneLine(r)),
    candidate: { tree: 'work/candidate', proposal_sha256: gate.proposal_sha256, patch_sha256: candidate.patchSha256, files: overridden },
    comparable: { identical: differences.length === 0, differences: differences.map(d => oneLine(d)) },
    ...fields,
    ...(fault === undefined ? checkFault(classification, checks) : { fault: { code: fault.code, message: oneLine(fault.message, 8000) } }),
    identities: run?.summary.identities ?? {},
    failing: run?.summary.failing ?? [],
    anomalies: run?.summary.anomalies ?? [],
    verdicts: c.identities,
    red_then_green: { shape: c.redThenGreen.shape, identities: c.redThenGreen.identities.map(r => ({ identity: r.identity, baseline: 'fail' as const, candidate: r.candidate })), ...(c.redThenGreen.note === undefined ? {} : { note: oneLine(c.redThenGreen.note) }) },
    ...(checks === undefined ? {} : { checks }),
  }
  if (report.passed && report.red_then_green.shape !== 'red_then_green') {
    // compareRuns cannot pass a reproduced baseline without turning its red identities green.
    throw new Error(`verify: a pass whose red-then-green shape is ${report.red_then_green.shape}`)
  }
  writeJsonAtomic('verify', join(attempt.dir, VERIFY_JSON), report, { stateRoot: attempt.stateRoot })

  const record: VerifyRecord = {
    v: 1,
    kind: 'verify',
    classification: report.classification,
    red_then_green: report.red_then_green.shape,
    ...(report.red_then_green.note === undefined ? {} : { note: report.red_then_green.note }),
    reasons: report.reasons.slice(0, 20),
    identities: Object.keys(report.identities).length,
    failing: report.failing.slice(0, 100),
    ...(report.fault === undefined ? {} : { fault: report.fault.code }),
  }
  io.out.write(record)
  for (const r of report.checks ?? []) io.stderr.write(`verify: check ${r.clause}[${r.index}]: ${r.status} (${r.code}): ${r.detail}\n`)
  io.stderr.write(`verify: ${report.classification}${report.red_then_green.note === undefined ? ' (red then green)' : `: ${report.red_then_green.note}`}\n`)
  return finishAttempt('verify', attempt, io, decided(report, attempt))
}

/** verify.json's fault when the test run had none and a check could not run: that check's. */
function checkFault (classification: VerifyReport['classification'], checks: readonly CheckResult[] | undefined): { fault?: { code: string, message: string } } {
  const check = classification === 'fault' ? firstCheck(checks, 'fault') : undefined
  return check === undefined ? {} : { fault: { code: check.code, message: oneLine(`check ${check.clause}[${check.index}] could not run, which says nothing about the candidate: ${check.detail}`, 8000) } }
}

/** The content clauses of the config's checks on the candidate: its changed files, and the others from tree.tar. */
function contentChecks (attempt: Attempt, changed: ReadonlyMap<string, Buffer>): CheckResult[] {
  const tree = openTreeReader(attempt.dir)
  return evaluateContentChecks(attempt.config.checks, { changed, read: path => changed.get(path) ?? tree.readFile(path) })
}

function decided (r: VerifyReport, attempt: Attempt): { outcome: VerifyReport['classification'], code: string, message: string } {
  switch (r.classification) {
    case 'scoped_test_verified':
      return { outcome: r.classification, code: 'SCOPED_TEST_VERIFIED', message: `the candidate passed the unchanged scoped tests (${attempt.config.test_packages.join(' ')}): ${r.red_then_green.identities.map(x => x.identity).join(', ')} red then green, ${Object.keys(r.identities).length} identities` }
    case 'failed':
      return { outcome: r.classification, code: 'VERIFY_FAILED', message: `the candidate did not pass verification: ${r.reasons.join('; ')}` }
    case 'timed_out':
      return { outcome: r.classification, code: 'DEADLINE_PASSED', message: `the candidate run was stopped by the deadline ${attempt.admission.deadline} before it reached a verdict` }
    case 'fault':
      // A check's fault (checkFault) says itself which check could not run.
      if (r.fault?.code.startsWith('CHECK_') === true) return { outcome: r.classification, code: r.fault.code, message: r.fault.message }
      return { outcome: r.classification, code: r.fault?.code ?? 'INTERNAL', message: `the candidate run says nothing about the code: ${r.fault?.message ?? r.reasons.join('; ')}` }
  }
}
