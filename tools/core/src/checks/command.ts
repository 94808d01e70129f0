// The commands of the execution config's checks (seed 004): resolution, the run, and the
// classification that verify and reproduce apply to a run and readback applies again to its
// record.
//
// exec is resolved once per run, on the host, to an absolute program the sandbox shows: a bare
// name in the runner's toolchain bin directory (GOROOT/bin for go, Node's bin for node), then
// /usr/bin and /usr/sbin; an absolute path only under /usr or that toolchain directory. The
// resolved program and the args are the argv, run without a shell in exactly the tests'
// sandbox, environment, mounts, working directory and limits (runners/run-tests.ts'
// runCheckCommand), for min(timeout_ms, the time left until the attempt's deadline).
//
// Classification (seed 004's table; fault says nothing about the code, in either direction):
//   exec does not resolve, the sandbox cannot start it, exit 126 or 127 → fault CHECK_NOT_STARTED
//   an exit code in fault_exit_codes                                 → fault CHECK_FAULT_EXIT
//   stopped at its own timeout_ms                                   → fault CHECK_TIMED_OUT
//   stopped for its output, a memory or tasks limit hit, survivors   → fault CHECK_RUN_INCOMPLETE
//   exit 0 and stdout_contains / stdout_matches hold (or none)       → pass
//   exit 0 and a stdout assertion does not hold                      → fail CHECK_STDOUT_MISMATCH
//   any other exit (or a signal)                                     → fail CHECK_EXIT_NONZERO
// The attempt's deadline stopping a command, or coming before it could start, is no verdict on
// the check: it and every later command are not_run CHECK_DEADLINE_PASSED, and the step ends
// timed_out (checks/verdict.ts).

import { chmodSync, mkdirSync } from 'node:fs'
import type { CheckResult, ExecutionConfig, SandboxRun } from '@repairline/schemas'
import { isToolError, toolError } from '../errors.ts'
import { sha256Hex } from '../digest.ts'
import { printableLine } from '../printable-line.ts'
import { runCheckCommand, type TestRunSpec } from '../runners/run-tests.ts'
import { removeScratch } from '../runners/scratch.ts'
import { compileSafeRegex, findMatch } from './regex.ts'
import { resolveCheckExec } from './exec.ts'

export type CommandCheck = NonNullable<NonNullable<ExecutionConfig['checks']>['commands']>[number]

/** Exit codes that mean the program (or one it execs) could not be found or executed. */
export const NOT_STARTED_EXIT_CODES: ReadonlySet<number> = new Set([126, 127])

const EMPTY_SHA256 = sha256Hex(Buffer.alloc(0))

/** The command as one line of text (details and reasons). */
function commandName (c: CommandCheck): string {
  const s = [c.exec, ...c.args].join(' ')
  return s.length > 200 ? `${s.slice(0, 199)}…` : s
}

/** What a command run shows, as a live run and its record (readback) both give it. */
export interface CommandFacts {
  resolved?: string
  /** Why nothing was started (not resolvable, the sandbox could not start it, a refused tree). */
  notStarted?: string
  exitCode: number | null
  signal: string | null
  /** The supervisor's stop, if any. */
  stop?: SandboxRun['stop']
  /** A memory or tasks limit hit, or survivors of the kill. */
  limitHit?: string
  /** The run's budget was the clause's own timeout_ms (not the attempt's deadline). */
  ownTimeout: boolean
  stdoutMatched?: boolean
}

/** Whether stdout satisfies the clause's assertions; undefined when it has none. */
export function stdoutAssertionsHold (c: CommandCheck, stdout: string): boolean | undefined {
  if (c.stdout_contains === undefined && c.stdout_matches === undefined) return undefined
  if (c.stdout_contains !== undefined && !stdout.includes(c.stdout_contains)) return false
  if (c.stdout_matches !== undefined && findMatch(compileSafeRegex(c.stdout_matches), stdout) === undefined) return false
  return true
}

/** The status, code and detail of a command check from what its run shows (seed 004). */
export function classifyCommand (c: CommandCheck, f: CommandFacts): Pick<CheckResult, 'status' | 'code' | 'detail'> {
  const shown = commandName(c)
  const fault = (code: CheckResult['code'], why: string): Pick<CheckResult, 'status' | 'code' | 'detail'> => ({ status: 'fault', code, detail: printableLine(`${shown}: ${why}: the check could not run, which says nothing about the code`, 2000) })
  if (f.notStarted !== undefined) return fault('CHECK_NOT_STARTED', `could not start: ${f.notStarted}`)
  if (f.stop?.reason === 'deadline') {
    return f.ownTimeout ? fault('CHECK_TIMED_OUT', `stopped at its timeout_ms (${c.timeout_ms} ms)`) : fault('CHECK_RUN_INCOMPLETE', `stopped by the attempt's deadline: ${f.stop.detail}`)
  }
  if (f.stop !== undefined) return fault('CHECK_RUN_INCOMPLETE', `stopped by the sandbox (${f.stop.reason}): ${f.stop.detail}`)
  if (f.limitHit !== undefined) return fault('CHECK_RUN_INCOMPLETE', f.limitHit)
  if (f.exitCode !== null && NOT_STARTED_EXIT_CODES.has(f.exitCode)) return fault('CHECK_NOT_STARTED', `exit ${f.exitCode}: a program it runs could not be found or executed`)
  if (f.exitCode !== null && c.fault_exit_codes?.includes(f.exitCode) === true) return fault('CHECK_FAULT_EXIT', `exit ${f.exitCode}, one of its fault_exit_codes`)
  if (f.exitCode !== 0) return { status: 'fail', code: 'CHECK_EXIT_NONZERO', detail: printableLine(`${shown}: ran and exited ${f.exitCode === null ? `on signal ${f.signal ?? 'unknown'}` : String(f.exitCode)}`, 2000) }
  if (f.stdoutMatched === false) return { status: 'fail', code: 'CHECK_STDOUT_MISMATCH', detail: printableLine(`${shown}: exited 0, but its stdout does not hold ${[c.stdout_contains === undefined ? '' : `text ${JSON.stringify(c.stdout_contains)}`, c.stdout_matches === undefined ? '' : `regex ${JSON.stringify(c.stdout_matches)}`].filter(s => s !== '').join(' and ')}`, 2000) }
  return { status: 'pass', code: 'CHECK_PASSED', detail: printableLine(`${shown}: exited 0${f.stdoutMatched === true ? ' and its stdout holds what the clause asks' : ''}`, 2000) }
}

/** The facts of a recorded command result (readback classifies them again). */
export function recordedCommandFacts (r: NonNullable<CheckResult['command']>): CommandFacts {
  const run = r.run
  const usage = run?.usage
  const limitHit = usage === undefined ? undefined : usage.oom_kills > 0 ? `the memory limit killed ${usage.oom_kills} process(es)` : usage.tasks_limit_hits > 0 ? `the tasks limit refused ${usage.tasks_limit_hits} fork(s)` : (run?.survivors ?? 0) > 0 ? `${run?.survivors ?? 0} process(es) survived the kill` : undefined
  return {
    ...(r.resolved === undefined ? {} : { resolved: r.resolved }),
    ...(run === undefined ? { notStarted: 'nothing was started' } : {}),
    exitCode: r.exit_code,
    signal: r.signal,
    ...(run?.stop === undefined ? {} : { stop: run.stop }),
    ...(limitHit === undefined ? {} : { limitHit }),
    ownTimeout: r.timed_out,
    ...(r.stdout_matched === undefined ? {} : { stdoutMatched: r.stdout_matched }),
  }
}

export interface CommandChecksOptions {
  /** The spec of the attempt's test run on this tree (attemptTestRunSpec), its scratch included. */
  spec: TestRunSpec
  /** The attempt's deadline, as ms since the epoch, less the write margin. */
  deadlineMs: number
  now: () => Date
  /** Told what could not be cleaned up (the step's stderr). */
  warn?: (line: string) => void
}

/** The result of a command the attempt's deadline stopped or kept from starting. */
function deadlineResult (c: CommandCheck, index: number, why: string): CheckResult {
  return { clause: 'commands', index, status: 'not_run', code: 'CHECK_DEADLINE_PASSED', detail: printableLine(`${commandName(c)}: ${why}: no verdict on the check`, 2000) }
}

/**
 * Runs every command of `commands` on `spec.tree`, in order, each with a fresh scratch
 * directory (its own private GOCACHE, removed after it), and returns one result per command.
 * RESOURCES_LOW and errors that are not the sandbox's are thrown.
 */
export async function runCommandChecks (commands: readonly CommandCheck[], o: CommandChecksOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = []
  let stopped = false
  for (const [index, c] of commands.entries()) {
    const left = o.deadlineMs - o.now().getTime()
    if (stopped || left <= 0) {
      results.push(deadlineResult(c, index, stopped ? "not started: the attempt's deadline stopped an earlier command" : "not started before the attempt's deadline"))
      stopped = true
      continue
    }
    const budget = Math.min(c.timeout_ms, left)
    const ownTimeout = c.timeout_ms <= left
    const res = resolveCheckExec(c.exec, o.spec.runner)
    const argv = 'resolved' in res ? [res.resolved, ...c.args] : [c.exec, ...c.args]
    let facts: CommandFacts = { exitCode: null, signal: null, ownTimeout, ...('resolved' in res ? { resolved: res.resolved } : { notStarted: res.why }) }
    let run: SandboxRun | undefined
    let stdout: Buffer = Buffer.alloc(0)
    if ('resolved' in res) {
      try {
        // The scratch is the tests' (attemptTestRunSpec's), made anew for each command.
        const before = await removeScratch(o.spec.scratch)
        if (before !== undefined) throw toolError('WRITE_FAILED', `cannot remove the leftover scratch before check commands[${index}]: ${before}`, { path: o.spec.scratch })
        mkdirSync(o.spec.scratch, { mode: 0o755 })
        chmodSync(o.spec.scratch, 0o755)
        const r = await runCheckCommand(o.spec, argv, budget)
        if (r.refused !== undefined) facts = { ...facts, notStarted: `${r.refused.code}: ${r.refused.message}` }
        else if (r.result !== undefined) {
          run = r.result.report
          stdout = r.result.stdout
          const u = run.usage
          const limitHit = u.oom_kills > 0 ? `the memory limit killed ${u.oom_kills} process(es)` : u.tasks_limit_hits > 0 ? `the tasks limit refused ${u.tasks_limit_hits} fork(s)` : run.survivors > 0 ? `${run.survivors} process(es) survived the kill` : undefined
          if (run.stop?.reason === 'resource_low') throw toolError('RESOURCES_LOW', `a check command was stopped: ${run.stop.detail}; nothing was decided`, { hint: 'free memory or disk, then run the step again' })
          if (run.stop?.reason === 'deadline' && !ownTimeout) stopped = true
          const matched = run.exit.code === 0 && run.stop === undefined ? stdoutAssertionsHold(c, stdout.toString('utf8')) : undefined
          facts = { ...facts, exitCode: run.exit.code, signal: run.exit.signal, ...(run.stop === undefined ? {} : { stop: run.stop }), ...(limitHit === undefined ? {} : { limitHit }), ...(matched === undefined ? {} : { stdoutMatched: matched }) }
        }
      } catch (e) {
        if (!isToolError(e)) throw e
        if (e.code === 'DEADLINE_PASSED') stopped = true
        if (e.code !== 'SANDBOX_UNAVAILABLE' && e.code !== 'SANDBOX_BIND_UNSAFE') throw e
        facts = { ...facts, notStarted: `${e.code}: ${e.message}` }
      } finally {
        // Whatever a command left, its removal failing is reported and never replaces the verdict.
        const leftover = await removeScratch(o.spec.scratch)
        if (leftover !== undefined) o.warn?.(`scratch of check commands[${index}] not removed: ${leftover}`)
      }
    }
    if (stopped) {
      results.push(deadlineResult(c, index, "stopped by the attempt's deadline"))
      continue
    }
    const verdict = classifyCommand(c, facts)
    results.push({
      clause: 'commands',
      index,
      ...verdict,
      command: {
        exec: c.exec,
        ...('resolved' in res ? { resolved: res.resolved } : {}),
        argv,
        timeout_ms: budget,
        exit_code: facts.exitCode,
        signal: facts.signal,
        timed_out: run?.stop?.reason === 'deadline' && ownTimeout,
        stdout_bytes: run?.output.stdout_bytes ?? 0,
        stdout_sha256: run === undefined ? EMPTY_SHA256 : sha256Hex(stdout),
        ...(facts.stdoutMatched === undefined ? {} : { stdout_matched: facts.stdoutMatched }),
        ...(run === undefined ? {} : { run }),
      },
    })
  }
  return results
}
