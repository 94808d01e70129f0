// reproduce: the third step. It materializes the extracted baseline under <attempt>/work/,
// runs the fixed test command of the config's runner on it in the sandbox, writes
// baseline.events.ndjson (the normalized events) and baseline.json (every identity with its
// result, the failing set, the exit code, the command, argv and environment names, the limits
// in force and how each was read back, resource samples, anomalies), and prints a `baseline`
// record. Exit 0 when the case's identity failed; otherwise the attempt ends not_reproduced
// (no provider call can follow), fault (the run says nothing usable about the code, or the
// sandbox could not be set up) or timed_out. `--preflight` only proves the sandbox.

import { mkdirSync, rmSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import type { Baseline, BaselineRecord, CheckResult } from '@repairline/schemas'
import {
  EXIT, WRITE_MARGIN_MS, attemptTestRunSpec, checksTimedOut, firstCheck, loadAttempt, runCommandChecks, throttledProgress, faultPoint, finishAttempt, materializeTree, openStep, removeScratch, runTests, sandboxPreflight, toolError, writeJsonAtomic, writeTestEvents,
  TREE_MANIFEST, TREE_TAR, ERROR_CODES, type TestRun, type ToolIo, type ToolResult, type ExitCode,
} from '@repairline/core'
import { decideReproduction } from './rules/reproduction.ts'
import { setupVerdictOf } from './rules/sandbox-fault.ts'

export interface ReproduceOptions {
  /** The attempt directory (absolute). */
  attempt: string
}

export interface PreflightOptions {
  runner: 'go' | 'node'
}

/**
 * The baseline's work tree and its scratch directory (the GOCACHE mount point or the
 * reporter), under <attempt>/work/. The tree stays after the run; scratch is removed.
 */
const TREE_DIR = 'baseline'
const SCRATCH_DIR = 'baseline-run'

/** The runner an attempt's config names (for --preflight --attempt). */
export function runnerOfAttempt (dir: string): 'go' | 'node' {
  return loadAttempt(dir).config.runner.kind
}

/** reproduce --preflight: one preflight record; exit 0, or the first failed check's exit (77 for a missing primitive). */

export async function reproducePreflight (o: PreflightOptions, io: ToolIo): Promise<ToolResult> {
  const r = await sandboxPreflight({ runner: o.runner })
  io.out.write({ v: 1, kind: 'preflight', runner: o.runner, ok: r.ok, checks: r.checks, limits: r.limits, namespaces: r.namespaces, samples: r.samples })
  for (const c of r.checks) io.stderr.write(`reproduce: preflight: ${c.ok ? 'ok' : 'FAILED'}: ${c.name}: ${c.detail.replace(/\s+/g, ' ')}\n`)
  for (const l of r.limits) io.stderr.write(`reproduce: preflight: in force: ${l.name} = ${l.got} (${l.mechanism}, read back from ${l.source})\n`)
  const bad = r.checks.find(c => !c.ok)
  if (bad === undefined) return { exit: EXIT.OK }
  return { exit: ERROR_CODES[bad.code ?? 'SANDBOX_UNAVAILABLE'].exit as ExitCode }
}

export async function reproduce (o: ReproduceOptions, io: ToolIo): Promise<ToolResult> {
  const step = openStep('reproduce', o.attempt, io, ['inputs/execution.json', 'admission.json', 'started.json', TREE_MANIFEST, TREE_TAR])
  if (step.done) return step.result
  const { attempt } = step
  const caseIdentity = attempt.admission.case.test.name
  const stateRoot = attempt.stateRoot
  const work = join(attempt.dir, 'work')
  const tree = join(work, TREE_DIR)
  const scratch = join(work, SCRATCH_DIR)

  let run: TestRun
  try {
    // A rerun after a crash finds the previous scratch trees: they are not sealed, start over.
    // The tree is ours (mounted read-only); scratch may hold a run's GOCACHE still mounted.
    rmSync(tree, { recursive: true, force: true })
    const left = await removeScratch(scratch)
    if (left !== undefined) throw toolError('WRITE_FAILED', `cannot remove the leftover scratch of an earlier run: ${left}`, { path: scratch })
    materializeTree(attempt.dir, tree)
    mkdirSync(scratch, { mode: 0o755 })
    chmodSync(scratch, 0o755)
    faultPoint(io.env, 'sandbox-start')
    // The spec verify uses for the candidate too: the identical command and sandbox.
    run = await runTests(attemptTestRunSpec(attempt, { tree, scratch, now: io.now(), onProgress: throttledProgress(n => io.stderr.write(`reproduce: progress: ${n} tests finished\n`)) }))
  } catch (e) {
    const v = setupVerdictOf(e)
    if (v === undefined) throw e
    const result = finishAttempt('reproduce', attempt, io, { outcome: v.outcome, code: v.code, message: v.message })
    io.out.write({ v: 1, kind: 'error', code: v.code, message: oneLine(v.message) })
    io.stderr.write(`reproduce: ${v.outcome}: ${v.code}: ${oneLine(v.message)}\n`)
    return result
  } finally {
    // The run's scratch is never sealed nor read again. Whatever a test left, its removal
    // failing is reported and never replaces the run's verdict.
    const left = await removeScratch(scratch)
    if (left !== undefined) io.stderr.write(`reproduce: warning: scratch not removed: ${oneLine(left)}\n`)
  }

  const events = writeTestEvents(join(attempt.dir, 'baseline.events.ndjson'), run.events, stateRoot)
  const decision = decideReproduction(run, caseIdentity)
  // The config's check commands, on the reproduced baseline before the provider is ever
  // called (seed 004): one that cannot run here cannot judge a candidate either.
  let checks: CheckResult[] | undefined
  const commands = attempt.config.checks?.commands
  if (decision.verdict === 'reproduced' && commands !== undefined) {
    try {
      checks = await runCommandChecks(commands, {
        spec: attemptTestRunSpec(attempt, { tree, scratch, now: io.now() }),
        deadlineMs: Date.parse(attempt.admission.deadline) - WRITE_MARGIN_MS,
        now: () => io.now(),
        warn: line => io.stderr.write(`reproduce: warning: ${oneLine(line)}\n`),
      })
    } finally {
      const left = await removeScratch(scratch)
      if (left !== undefined) io.stderr.write(`reproduce: warning: scratch not removed: ${oneLine(left)}\n`)
    }
  }
  const baseline: Baseline = {
    v: 1,
    attempt_key: attempt.key,
    case_identity: caseIdentity,
    reproduced: decision.verdict === 'reproduced',
    runner: run.runner,
    toolchain: run.toolchain,
    command: run.command,
    exit_code: run.sandbox?.exit.code ?? null,
    timed_out: run.timedOut,
    ...(run.fault === undefined ? {} : { fault: { code: run.fault.code, message: oneLine(run.fault.message) } }),
    identities: run.summary.identities,
    failing: run.summary.failing,
    anomalies: run.summary.anomalies,
    events,
    ...(run.sandbox === undefined ? {} : { run: run.sandbox }),
    ...(run.goCache === undefined ? {} : { go_cache: { ...(run.goCache.seededFrom === undefined ? {} : { seeded_from: run.goCache.seededFrom }), files: run.goCache.files, bytes: run.goCache.bytes, ...(run.goCache.method === undefined ? {} : { method: run.goCache.method }), ...(run.goCache.note === undefined ? {} : { note: run.goCache.note }) } }),
    ...(run.reporterSha256 === undefined ? {} : { reporter_sha256: run.reporterSha256 }),
    stderr_tail: run.stderrTail,
    ...(checks === undefined ? {} : { checks }),
  }
  writeJsonAtomic('baseline', join(attempt.dir, 'baseline.json'), baseline, { stateRoot })
  const record: BaselineRecord = {
    v: 1,
    kind: 'baseline',
    case_identity: caseIdentity,
    reproduced: baseline.reproduced,
    identities: Object.keys(run.summary.identities).length,
    failing: run.summary.failing.slice(0, 100),
    exit_code: baseline.exit_code,
    ...(run.fault === undefined ? {} : { fault: run.fault.code }),
  }
  io.out.write(record)
  const n = Object.keys(run.summary.identities).length
  io.stderr.write(`reproduce: ${run.toolchain}: ${n} identit${n === 1 ? 'y' : 'ies'}, ${run.summary.failing.length} failed, exit ${String(baseline.exit_code ?? run.sandbox?.exit.signal ?? '-')}${run.sandbox === undefined ? '' : ` in ${run.sandbox.timing.run_ms} ms`}\n`)
  for (const a of run.summary.anomalies.slice(0, 20)) io.stderr.write(`reproduce: anomaly: ${oneLine(a)}\n`)

  for (const r of checks ?? []) io.stderr.write(`reproduce: check ${r.clause}[${r.index}] on the baseline: ${r.status} (${r.code}): ${r.detail}\n`)
  if (checksTimedOut(checks)) {
    const message = `the attempt's deadline stopped the check commands on the baseline before they reached a verdict`
    const result = finishAttempt('reproduce', attempt, io, { outcome: 'timed_out', code: 'DEADLINE_PASSED', message })
    io.stderr.write(`reproduce: timed_out: DEADLINE_PASSED: ${message}\n`)
    return result
  }
  const broken = firstCheck(checks, 'fault')
  if (broken !== undefined) {
    const message = `check ${broken.clause}[${broken.index}] could not run on the baseline, so it could not judge a candidate; no provider call was made: ${broken.detail}`
    const result = finishAttempt('reproduce', attempt, io, { outcome: 'fault', code: broken.code, message })
    io.stderr.write(`reproduce: fault: ${broken.code}: ${oneLine(message)}\n`)
    return result
  }
  if (decision.verdict === 'reproduced') {
    io.stderr.write(`reproduce: reproduced: ${caseIdentity} failed on the baseline\n`)
    return { exit: EXIT.OK }
  }
  const outcome = decision.verdict
  const result = finishAttempt('reproduce', attempt, io, { outcome, code: decision.code, message: decision.message })
  io.stderr.write(`reproduce: ${outcome}: ${decision.code}: ${oneLine(decision.message)}\n`)
  return result
}

function oneLine (s: string): string {
  return s.replace(/[\r\n]+/g, ' ').slice(0, 8000)
}
