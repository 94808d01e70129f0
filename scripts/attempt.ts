// attempt — the shell-free driver. Runs the chain for one admission:
//
//   node dist/attempt.mjs --config ABS --report ABS [--until STEP] [--repair-rounds N]   (or pnpm attempt …)
//
// admit run, extract-tree, reproduce, ask-provider, gate-patch, verify, receipt seal — each a
// separate process started with an argv array (execa, no shell) and a minimal explicit
// environment (never the caller's NODE_OPTIONS and the like). After admission every step gets
// `--attempt DIR`, and its stdout and stderr are kept in DIR/logs/<step>.stdout|stderr. Exit 0
// continues; 1 and 69 seal and stop; anything else aborts with that status. Progress goes to
// stderr (step, elapsed, records seen); the last line is one summary, and the exit status is
// the outcome's. `--until STEP` stops after STEP so any later step can be run by hand with
// `--attempt DIR`; a STEP that decides the outcome is sealed as without it. The step logs are
// unsealed bookkeeping: one that cannot be written is said and dropped, never followed
// through a symlink, and never stops the chain. While a step runs, the next step's tool is
// started as a standby (launch.ts): node's start and the bundle's load overlap the step
// before, and the standby does nothing until it is given its arguments; one the chain does
// not need is ended unused. `--no-standby` starts each tool only at its turn. SIGTERM or
// SIGINT to the driver is passed to the step that runs and to the standby (a step's tool then
// kills its sandbox whole: docs/sandbox-lifetime.md); the driver starts nothing more, waits
// for both to end, and ends by that signal (a shell shows 128 + its number: 143, 130).
// `--repair-rounds N` (0–2, default 0): when the chain is sealed rejected after a proposal or
// failed, `admit repair --attempt DIR` admits its repair case and the chain runs again on it,
// up to N times; the exit status is the last attempt's (a refused repair keeps the one before).

import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { driverAction, ensureDir, EXIT, outcomeExit, parseRecordLine, printableLine, STANDBY_VARIABLE, stateRootOf, type AnyRecord, type Outcome } from '@repairline/core'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

export const STEPS = ['admit', 'extract-tree', 'reproduce', 'ask-provider', 'gate-patch', 'verify', 'seal'] as const
export type Step = (typeof STEPS)[number]

/** Variables passed through to the tools; everything else is dropped. */
const PASSTHROUGH = ['REPAIRLINE_TEST_HOOKS', 'REPAIRLINE_TEST_NOW', 'REPAIRLINE_FAULT_AT']

export function toolEnv (env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' }
  for (const k of PASSTHROUGH) if (env[k] !== undefined) out[k] = env[k]
  return out
}

/**
 * The node and argv of a step: the tool's own bin script run by this node, not the package
 * manager's .bin shim (a /bin/sh script that runs sed, dirname and uname and adds NODE_PATH
 * to the environment the driver keeps minimal).
 */
function argvFor (step: Step, o: ChainOptions, attempt: string | undefined): [string, string[]] {
  const bin = binOf(step)
  if (step === 'admit' && o.repairOf !== undefined) return [process.execPath, [bin, 'repair', '--config', o.config, '--attempt', o.repairOf]]
  if (step === 'admit') return [process.execPath, [bin, 'run', '--config', o.config, '--report', o.report]]
  if (attempt === undefined) throw new Error(`${step} needs an attempt`)
  if (step === 'seal') return [process.execPath, [bin, 'seal', '--attempt', attempt]]
  return [process.execPath, [bin, '--attempt', attempt]]
}

/** The bin script of a step's tool. */
function binOf (step: Step): string {
  const tool = step === 'seal' ? 'receipt' : step
  return join(ROOT, 'tools', tool, 'bin', `${tool}.js`)
}

type ToolProcess = ReturnType<typeof execa>

/** The tools running now (the step's and the standby's), which a signal to the driver ends. */
const live = new Set<ToolProcess>()
/** The signal that is ending the driver, once one came. */
let ending: NodeJS.Signals | undefined

function track (child: ToolProcess): ToolProcess {
  live.add(child)
  const forget = (): void => { live.delete(child) }
  child.then(forget, forget)
  return child
}

const DRIVER_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']

/** Passes the signal to every tool running and waits for them; then the driver ends by it. */
function onDriverSignal (signal: NodeJS.Signals): void {
  // The listener stays until the tools have ended: execa's exit hook (signal-exit) ends this
  // process at once, and sends its children a second signal, when it finds no other listener
  // for a signal that came.
  if (ending !== undefined) return
  ending = signal
  for (const child of live) child.kill(signal)
  void Promise.allSettled([...live]).then(() => {
    for (const s of DRIVER_SIGNALS) process.removeListener(s, onDriverSignal)
    process.kill(process.pid, signal)
  })
}

/**
 * A step's tool started ahead of its turn, while the step before it runs: its bin loads the
 * bundle and waits on stdin for its arguments (launch.ts, STANDBY_VARIABLE), so node's start
 * and the bundle's load overlap the step before. Ended unused (its stdin closed) when the
 * chain goes another way.
 */
interface Standby { step: Step, child: ToolProcess }

function startStandby (step: Step, env: Record<string, string>): Standby {
  const child = track(execa(process.execPath, [binOf(step)], { env: { ...env, [STANDBY_VARIABLE]: '1' }, extendEnv: false, reject: false, stdin: 'pipe', buffer: false, encoding: 'utf8', cwd: ROOT }))
  // A standby that died before its turn closed its stdin: the write fails with EPIPE, and
  // the step is then started afresh (runStep) or its exit reported as any step's.
  child.stdin?.on('error', () => {})
  return { step, child }
}

/** Whether a standby is still waiting for its turn (it has not exited). */
const waiting = (s: Standby): boolean => s.child.exitCode === null && s.child.signalCode === null

/** Ends a standby that will not be used (its stdin closed: it goes without a word) and waits for it. */
async function dismiss (standby: Standby | undefined): Promise<void> {
  if (standby === undefined) return
  standby.child.stdin?.end()
  await standby.child
}

/** One step as it ran: its exit status (128 + the number of the signal that killed it, named in `signal`), records, stderr and time. */
interface StepRun { exit: number, signal?: string, records: AnyRecord[], stderr: string, ms: number }

/**
 * One step's copy of a stream in logs/: opened without following a symlink, written
 * synchronously, and never able to stop the chain. logs/ is not sealed, so a log that cannot
 * be written (a full disk, a symlink planted in its place) is said once and dropped; the step
 * itself goes on, and its own writes report a full disk with their codes.
 */
export class StepLog {
  private fd: number | undefined
  failure: string | undefined

  constructor (readonly path: string) {
    try {
      this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
    } catch (e) {
      this.failure = (e as Error).message
    }
  }

  write (text: string): void {
    if (this.fd === undefined) return
    try {
      const bytes = Buffer.from(text)
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at)
    } catch (e) {
      this.failure = (e as Error).message
      this.close()
    }
  }

  close (): void {
    if (this.fd === undefined) return
    try { closeSync(this.fd) } catch {}
    this.fd = undefined
  }
}

/**
 * The logs of a step: none when there is no attempt yet, or when logs/ is no longer the real
 * directory it was made as (checked again before every step: a symlink there is not followed).
 */
export function openLogs (attempt: string | undefined, step: Step): StepLog[] | undefined {
  if (attempt === undefined) return undefined
  const dir = join(attempt, 'logs')
  try {
    ensureDir(stateRootOf(attempt), dir, 0o755)
  } catch (e) {
    process.stderr.write(`attempt: logs: not keeping ${step}'s streams: ${printableLine((e as Error).message, 600)}\n`)
    return undefined
  }
  return [new StepLog(join(dir, `${step}.stdout`)), new StepLog(join(dir, `${step}.stderr`))]
}

export function closeLogs (logs: readonly StepLog[] | undefined): void {
  for (const log of logs ?? []) {
    log.close()
    if (log.failure !== undefined) process.stderr.write(`attempt: logs: cannot keep ${log.path}: ${printableLine(log.failure, 600)}\n`)
  }
}

const since = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)}s`

/**
 * Runs one step: its standby if one waits for it (given the step's arguments), else a new
 * process; and, once it runs, starts `next` (when given) as the standby of the next turn.
 */
async function runStep (step: Step, o: ChainOptions, attempt: string | undefined, env: Record<string, string>, t0: number, standby: Standby | undefined, next: Step | undefined): Promise<{ run: StepRun, standby: Standby | undefined }> {
  const [file, args] = argvFor(step, o, attempt)
  const started = performance.now()
  let child: ToolProcess
  if (standby?.step === step && waiting(standby)) {
    child = standby.child
    child.stdin?.end(JSON.stringify(args.slice(1)) + '\n')
  } else {
    await dismiss(standby)
    child = track(execa(file, args, { env, extendEnv: false, reject: false, stdin: 'ignore', buffer: false, encoding: 'utf8', cwd: ROOT }))
  }
  const ahead = next === undefined || ending !== undefined ? undefined : startStandby(next, env)
  // Decoded as a stream: a character split across two reads stays whole.
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  const logs = openLogs(attempt, step)
  const records: AnyRecord[] = []
  let stdoutText = ''
  let stderr = ''
  child.stdout?.on('data', (d: string) => {
    logs?.[0]?.write(d)
    stdoutText += d
    let nl: number
    while ((nl = stdoutText.indexOf('\n')) !== -1) {
      const line = stdoutText.slice(0, nl)
      stdoutText = stdoutText.slice(nl + 1)
      try {
        records.push(parseRecordLine(line, `${step} stdout`))
      } catch (e) {
        process.stderr.write(`attempt: ${step} printed a bad record: ${printableLine((e as Error).message, 600)}\n`)
      }
    }
  })
  child.stderr?.on('data', (d: string) => {
    logs?.[1]?.write(d)
    stderr += d
    // reproduce and verify say how many tests have finished, at most once a second.
    const m = /: progress: (\d+) tests finished\n[^]*$/.exec(d)
    if (m !== null) process.stderr.write(`[${since(t0)}] ${step}: ${m[1] ?? ''} tests seen so far\n`)
  })
  const r = await child
  closeLogs(logs)
  // Killed by a signal: the shell's convention, 128 + its number (SIGTERM 143), and its name.
  const signal = r.exitCode === undefined && r.signal !== undefined ? r.signal : undefined
  const exit = r.exitCode ?? (signal === undefined ? 70 : 128 + (osConstants.signals[signal as NodeJS.Signals] ?? 0))
  return { run: { exit, ...(signal === undefined ? {} : { signal }), records, stderr, ms: performance.now() - started }, standby: ahead }
}

export interface DriveOptions {
  config: string
  report: string
  until?: Step
  /** Start no tool ahead of its turn (--no-standby): each step starts when the one before ended. */
  noStandby?: boolean
  /** Repair rounds after a sealed rejected or failed outcome (--repair-rounds, 0–2; default 0). */
  repairRounds?: number
}

/** One chain's options: admit runs `admit repair --attempt repairOf` instead of `admit run` when set. */
interface ChainOptions extends DriveOptions { repairOf?: string }

/** How one chain ended: its exit status, its attempt, whether it was sealed with an outcome, and the admit refusal's code. */
interface ChainEnd { exit: number, attempt?: string, outcome?: Outcome, refused?: string }

export const MAX_REPAIR_ROUNDS = 2

/** The exit statuses of the one table, the only ones the driver passes on. */
const DRIVER_EXITS: ReadonlySet<number> = new Set(Object.values(EXIT))

/** Runs the chain; returns the exit status (the outcome's, or the aborting step's). */
export async function drive (o: DriveOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The standby waiting for the next turn; one still waiting when the chain ends is not needed.
  const ahead: { standby?: Standby } = {}
  try {
    let end = await driveSteps(o, env, ahead)
    // Repair rounds: each a chain of its own on the repair case of the attempt just sealed
    // (admit repair decides whether it can be repaired; a refusal ends the rounds and the
    // driver keeps that attempt's exit status).
    for (let round = 1; round <= (o.repairRounds ?? 0); round++) {
      if (ending !== undefined || end.attempt === undefined || !repairable(end)) break
      process.stderr.write(`repairline: repair round ${round} of ${o.repairRounds ?? 0}: repairing ${end.attempt} (${end.outcome ?? ''})\n`)
      const next = await driveSteps({ ...o, repairOf: end.attempt }, env, ahead)
      if (next.refused !== undefined && next.exit === EXIT.NO) {
        process.stderr.write(`repairline: not repaired (${next.refused}); the outcome stays ${end.outcome ?? ''} — attempt ${end.attempt}\n`)
        break
      }
      end = next
    }
    return end.exit
  } finally {
    await dismiss(ahead.standby)
  }
}

/**
 * Whether a sealed attempt is worth `admit repair`: failed, or rejected once a proposal
 * exists (by the gate or the summary's text contract). admit repair checks it again and
 * refuses the rest with its code.
 */
function repairable (end: ChainEnd): boolean {
  if (end.attempt === undefined) return false
  return end.outcome === 'failed' || (end.outcome === 'rejected' && existsSync(join(end.attempt, 'proposal.json')))
}

async function driveSteps (o: ChainOptions, env: NodeJS.ProcessEnv, ahead: { standby?: Standby }): Promise<ChainEnd> {
  const r = await driveChainSteps(o, env, ahead)
  return { ...r, ...(r.attempt === undefined ? {} : sealedOutcome(r.attempt)) }
}

/** The outcome of a sealed attempt (receipt.json and outcome.json present), else nothing. */
function sealedOutcome (attempt: string): { outcome?: Outcome } {
  if (!existsSync(join(attempt, 'receipt.json')) || !existsSync(join(attempt, 'outcome.json'))) return {}
  try {
    return { outcome: (JSON.parse(readFileSync(join(attempt, 'outcome.json'), 'utf8')) as { outcome: Outcome }).outcome }
  } catch {
    return {}
  }
}

async function driveChainSteps (o: ChainOptions, env: NodeJS.ProcessEnv, ahead: { standby?: Standby }): Promise<{ exit: number, attempt?: string, refused?: string }> {
  const t0 = performance.now()
  const childEnv = toolEnv(env)
  let attempt: string | undefined
  const at = (): { attempt?: string } => attempt === undefined ? {} : { attempt }
  let sealNext = false
  for (const step of STEPS) {
    // A signal is ending the driver: no further step starts (its handler ends the process).
    if (ending !== undefined) return { exit: 128 + (osConstants.signals[ending] ?? 0), ...at() }
    if (step === 'seal' && attempt === undefined) break
    if (sealNext && step !== 'seal') continue
    process.stderr.write(`[${since(t0)}] ${step} …\n`)
    const turn = await runStep(step, o, attempt, childEnv, t0, ahead.standby, o.until === step || o.noStandby === true ? undefined : STEPS[STEPS.indexOf(step) + 1])
    const run = turn.run
    ahead.standby = turn.standby
    const err = run.records.find(r => r.kind === 'error')
    const result = run.records.find(r => r.kind === 'result')
    const outcome = result?.kind === 'result' ? result.outcome : undefined
    process.stderr.write(`[${since(t0)}] ${step}: ${run.signal === undefined ? `exit ${run.exit}` : `killed by ${run.signal}`}${outcome === undefined ? '' : ` (${outcome})`}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''} in ${(run.ms / 1000).toFixed(1)}s\n`)
    if (step === 'admit') {
      const a = run.records.find(r => r.kind === 'attempt')
      if (a?.kind === 'attempt') {
        attempt = a.path
        // Only in a started attempt: a logs/ beside admission.json alone would make the
        // directory look worked on, and its key consumed for good (DESIGN §7).
        if (existsSync(join(attempt, 'started.json'))) keepAdmitLogs(attempt, run)
      }
    }
    // A step that printed no result record crashed or never started: that is never a verdict.
    const printedExit = result?.kind === 'result' ? result.exit : undefined
    if (printedExit !== run.exit) {
      const how = run.signal === undefined ? `it exited ${run.exit} without a matching result record (a crash or a missing build)` : `it was killed by ${run.signal} before its result record (a signal from outside the chain)`
      process.stderr.write(`repairline: aborted at ${step}: ${how}; attempt ${attempt ?? '-'} (logs in ${attempt === undefined ? '-' : join(attempt, 'logs')})\n`)
      // Only the exit statuses of the table may leave the driver: a crash is 70 (INTERNAL).
      return { exit: run.exit === 0 || run.exit === 1 || run.exit === 69 || !DRIVER_EXITS.has(run.exit) ? 70 : run.exit, ...at() }
    }
    if (step === 'admit') {
      if (run.exit !== 0) {
        process.stderr.write(`repairline: not admitted: exit ${run.exit}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''}\n`)
        return { exit: run.exit, ...(err?.kind === 'error' ? { refused: err.code } : {}) }
      }
    } else if (step === 'seal') {
      return { exit: summarize(attempt, run.exit, t0), ...at() }
    } else {
      const action = driverAction(run.exit)
      if (action === 'seal') sealNext = true
      else if (action !== 'continue') {
        process.stderr.write(`repairline: aborted at ${step}: exit ${run.exit}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''}; attempt ${attempt ?? '-'} (logs in ${attempt === undefined ? '-' : join(attempt, 'logs')})\n`)
        return { exit: run.exit, ...at() }
      }
    }
    // A step that decided the outcome ends the chain: it is sealed whatever --until said
    // (verify's scoped_test_verified too, which exits 0).
    if (o.until === step && !sealNext && outcome === undefined) {
      const next = STEPS[STEPS.indexOf(step) + 1]
      process.stderr.write(`repairline: stopped after ${step} as asked; continue by hand: ${next === 'seal' ? 'receipt seal' : next} --attempt ${attempt === undefined ? '?' : JSON.stringify(attempt)}\n`)
      return { exit: run.exit, ...at() }
    }
  }
  return { exit: summarize(attempt, 70, t0), ...at() }
}

/** admit ran before its attempt existed: its streams are kept once the attempt is known. */
function keepAdmitLogs (attempt: string, run: StepRun): void {
  const logs = openLogs(attempt, 'admit')
  logs?.[0]?.write(run.records.map(r => JSON.stringify(r) + '\n').join(''))
  logs?.[1]?.write(run.stderr)
  closeLogs(logs)
}

export function summarize (attempt: string | undefined, sealExit: number, t0: number): number {
  if (attempt === undefined) return sealExit
  const outcomePath = join(attempt, 'outcome.json')
  if (!existsSync(outcomePath)) {
    process.stderr.write(`repairline: no outcome for ${attempt} (seal exited ${sealExit})\n`)
    return sealExit === 0 ? 70 : sealExit
  }
  const o = JSON.parse(readFileSync(outcomePath, 'utf8')) as { outcome: Outcome, retryable?: boolean, reason: { code: string, message: string } }
  const what = `${o.outcome}${o.retryable === true ? ' (retryable)' : ''} — ${o.reason.code}: ${printableLine(o.reason.message, 2000)}`
  // Seal exits with the outcome's own status; anything else, or no receipt, is a seal that failed.
  const receipt = join(attempt, 'receipt.json')
  if (sealExit !== outcomeExit(o.outcome, o.retryable) || !existsSync(receipt)) {
    process.stderr.write(`repairline: ${what} — but not sealed (receipt seal exited ${sealExit}); attempt ${attempt}: run receipt seal --attempt ${JSON.stringify(attempt)} (${since(t0)})\n`)
    return sealExit === outcomeExit(o.outcome, o.retryable) ? 70 : sealExit
  }
  process.stderr.write(`repairline: ${what} — attempt ${attempt}, receipt ${receipt} (${since(t0)})\n`)
  return sealExit
}

function parseArgv (argv: string[]): DriveOptions {
  const o: Partial<DriveOptions> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = argv[i + 1]
    if (a === '--no-standby') {
      if (o.noStandby === true) throw new Error(`${a} given twice`)
      o.noStandby = true
    } else if (a === '--repair-rounds' && v !== undefined) {
      if (o.repairRounds !== undefined) throw new Error(`${a} given twice`)
      if (!/^[0-2]$/.test(v)) throw new Error(`--repair-rounds must be 0, 1 or ${MAX_REPAIR_ROUNDS}, got ${JSON.stringify(v)}`)
      o.repairRounds = Number(v)
      i++
    } else if (a === '--repair-rounds') {
      throw new Error(`${a} needs a value`)
    } else if ((a === '--config' || a === '--report' || a === '--until') && v !== undefined) {
      // As in every tool: an option given twice is a usage error, never "the last one wins".
      const key = a === '--config' ? 'config' : a === '--report' ? 'report' : 'until'
      if (o[key] !== undefined) throw new Error(`${a} given twice`)
      if (a === '--until') {
        if (!(STEPS as readonly string[]).includes(v)) throw new Error(`--until must be one of ${STEPS.join(', ')}`)
        o.until = v as Step
      } else {
        if (!v.startsWith('/')) throw new Error(`${a} must be an absolute path`)
        o[a === '--config' ? 'config' : 'report'] = v
      }
      i++
    } else if (a === '--config' || a === '--report' || a === '--until') {
      throw new Error(`${a} needs a value`)
    } else {
      throw new Error(`unknown argument ${a ?? ''}`)
    }
  }
  if (o.config === undefined || o.report === undefined) throw new Error(USAGE)
  return o as DriveOptions
}

const USAGE = 'usage: node dist/attempt.mjs --config ABS --report ABS [--until STEP] [--no-standby] [--repair-rounds N]  (or: pnpm attempt …)'

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Progress is for people: a closed or full stderr must not stop the chain half way.
  process.stderr.on('error', () => {})
  const argv = process.argv.slice(2)
  let o: DriveOptions | undefined
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n  runs admit, extract-tree, reproduce, ask-provider, gate-patch, verify and receipt seal for one admission;\n  --until STEP stops after STEP; --no-standby starts each tool only when the step before it ended;\n  --repair-rounds N (0-2, default 0) admits up to N repairs (admit repair) of an attempt rejected after a proposal or failed, each a chain of its own.\n  Exit status: the outcome's (see the README's exit table).\n`)
  } else {
    try {
      o = parseArgv(argv)
    } catch (e) {
      process.stderr.write(`attempt: USAGE: ${printableLine((e as Error).message, 2000)}\n`)
      process.exitCode = 2
    }
  }
  if (o !== undefined) {
    for (const s of DRIVER_SIGNALS) process.on(s, onDriverSignal)
    try {
      process.exitCode = await drive(o)
    } catch (e) {
      // Not the operator's mistake: the driver itself failed.
      process.stderr.write(`attempt: INTERNAL: ${printableLine((e as Error).message, 2000)}\n`)
      process.exitCode = 70
    }
  }
}
