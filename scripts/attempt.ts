// attempt — the shell-free driver. Runs the chain for one admission:
//
//   pnpm attempt --config ABS --report ABS [--until STEP]
//
// admit run, extract-tree, reproduce, ask-provider, gate-patch, verify, receipt seal — each a
// separate process started with an argv array (execa, no shell) and a minimal explicit
// environment (never the caller's NODE_OPTIONS and the like). After admission every step gets
// `--attempt DIR`, and its stdout and stderr are kept in DIR/logs/<step>.stdout|stderr. Exit 0
// continues; 1 and 69 seal and stop; anything else aborts with that status. Progress goes to
// stderr (step, elapsed, records seen); the last line is one summary, and the exit status is
// the outcome's. `--until STEP` stops after STEP so any later step can be run by hand with
// `--attempt DIR`; a STEP that decides the outcome is sealed as without it.

import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { driverAction, ensureDir, EXIT, parseRecordLine, stateRootOf, type AnyRecord } from '@repairline/core'

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
function argvFor (step: Step, o: { config: string, report: string }, attempt: string | undefined): [string, string[]] {
  const bin = (tool: string): string => join(ROOT, 'tools', tool, 'bin', `${tool}.js`)
  if (step === 'admit') return [process.execPath, [bin('admit'), 'run', '--config', o.config, '--report', o.report]]
  if (attempt === undefined) throw new Error(`${step} needs an attempt`)
  if (step === 'seal') return [process.execPath, [bin('receipt'), 'seal', '--attempt', attempt]]
  return [process.execPath, [bin(step), '--attempt', attempt]]
}

interface StepRun { exit: number, records: AnyRecord[], stderr: string, ms: number }

const since = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)}s`

async function runStep (step: Step, o: { config: string, report: string }, attempt: string | undefined, env: Record<string, string>, t0: number, logDir: string | undefined): Promise<StepRun> {
  const [file, args] = argvFor(step, o, attempt)
  const started = performance.now()
  const child = execa(file, args, { env, extendEnv: false, reject: false, stdin: 'ignore', buffer: false, encoding: 'utf8', cwd: ROOT })
  const logs: WriteStream[] = []
  const openLog = (name: string): WriteStream | undefined => {
    if (logDir === undefined) return undefined
    const s = createWriteStream(join(logDir, name), { mode: 0o644 })
    logs.push(s)
    return s
  }
  const outLog = openLog(`${step}.stdout`)
  const errLog = openLog(`${step}.stderr`)
  const records: AnyRecord[] = []
  let stdoutText = ''
  let stderr = ''
  child.stdout?.on('data', (d: string) => {
    outLog?.write(d)
    stdoutText += d
    let nl: number
    while ((nl = stdoutText.indexOf('\n')) !== -1) {
      const line = stdoutText.slice(0, nl)
      stdoutText = stdoutText.slice(nl + 1)
      try {
        records.push(parseRecordLine(line, `${step} stdout`))
      } catch (e) {
        process.stderr.write(`attempt: ${step} printed a bad record: ${(e as Error).message}\n`)
      }
    }
  })
  child.stderr?.on('data', (d: string) => {
    errLog?.write(d)
    stderr += d
    // reproduce and verify say how many tests have finished, at most once a second.
    const m = /: progress: (\d+) tests finished\n[^]*$/.exec(d)
    if (m !== null) process.stderr.write(`[${since(t0)}] ${step}: ${m[1] ?? ''} tests seen so far\n`)
  })
  const r = await child
  await Promise.all(logs.map(async s => await new Promise(resolve => s.end(resolve))))
  return { exit: r.exitCode ?? (r.signal === undefined ? 70 : 128), records, stderr, ms: performance.now() - started }
}

export interface DriveOptions { config: string, report: string, until?: Step }

/** The exit statuses of the one table, the only ones the driver passes on. */
const DRIVER_EXITS: ReadonlySet<number> = new Set(Object.values(EXIT))

/** Runs the chain; returns the exit status (the outcome's, or the aborting step's). */
export async function drive (o: DriveOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const t0 = performance.now()
  const childEnv = toolEnv(env)
  let attempt: string | undefined
  let logDir: string | undefined
  let sealNext = false
  for (const step of STEPS) {
    if (step === 'seal' && attempt === undefined) break
    if (sealNext && step !== 'seal') continue
    process.stderr.write(`[${since(t0)}] ${step} …\n`)
    const run = await runStep(step, o, attempt, childEnv, t0, logDir)
    const err = run.records.find(r => r.kind === 'error')
    const result = run.records.find(r => r.kind === 'result')
    const outcome = result?.kind === 'result' ? result.outcome : undefined
    process.stderr.write(`[${since(t0)}] ${step}: exit ${run.exit}${outcome === undefined ? '' : ` (${outcome})`}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''} in ${(run.ms / 1000).toFixed(1)}s\n`)
    if (step === 'admit') {
      const a = run.records.find(r => r.kind === 'attempt')
      if (a?.kind === 'attempt') {
        attempt = a.path
        logDir = join(attempt, 'logs')
        ensureDir(stateRootOf(attempt), logDir, 0o755)
        keepAdmitLogs(logDir, run)
      }
    }
    // A step that printed no result record crashed or never started: that is never a verdict.
    const printedExit = result?.kind === 'result' ? result.exit : undefined
    if (printedExit !== run.exit) {
      process.stderr.write(`repairline: aborted at ${step}: it exited ${run.exit} without a matching result record (a crash or a missing build); attempt ${attempt ?? '-'} (logs in ${logDir ?? '-'})\n`)
      // Only the exit statuses of the table may leave the driver: a crash is 70 (INTERNAL).
      return run.exit === 0 || run.exit === 1 || run.exit === 69 || !DRIVER_EXITS.has(run.exit) ? 70 : run.exit
    }
    if (step === 'admit') {
      if (run.exit !== 0) {
        process.stderr.write(`repairline: not admitted: exit ${run.exit}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''}\n`)
        return run.exit
      }
    } else if (step === 'seal') {
      return summarize(attempt, run.exit, t0)
    } else {
      const action = driverAction(run.exit)
      if (action === 'seal') sealNext = true
      else if (action !== 'continue') {
        process.stderr.write(`repairline: aborted at ${step}: exit ${run.exit}${err?.kind === 'error' ? ` ${err.code}: ${err.message}` : ''}; attempt ${attempt ?? '-'} (logs in ${logDir ?? '-'})\n`)
        return run.exit
      }
    }
    // A step that decided the outcome ends the chain: it is sealed whatever --until said.
    if (o.until === step && !sealNext) {
      const next = STEPS[STEPS.indexOf(step) + 1]
      process.stderr.write(`repairline: stopped after ${step} as asked; continue by hand: ${next === 'seal' ? 'receipt seal' : next} --attempt ${attempt ?? '?'}\n`)
      return run.exit
    }
  }
  return summarize(attempt, 70, t0)
}

function keepAdmitLogs (logDir: string, run: StepRun): void {
  const out = createWriteStream(join(logDir, 'admit.stdout'))
  out.end(run.records.map(r => JSON.stringify(r) + '\n').join(''))
  createWriteStream(join(logDir, 'admit.stderr')).end(run.stderr)
}

function summarize (attempt: string | undefined, sealExit: number, t0: number): number {
  if (attempt === undefined) return sealExit
  const outcomePath = join(attempt, 'outcome.json')
  if (!existsSync(outcomePath)) {
    process.stderr.write(`repairline: no outcome for ${attempt} (seal exited ${sealExit})\n`)
    return sealExit === 0 ? 70 : sealExit
  }
  const o = JSON.parse(readFileSync(outcomePath, 'utf8')) as { outcome: string, retryable?: boolean, reason: { code: string, message: string } }
  process.stderr.write(`repairline: ${o.outcome}${o.retryable === true ? ' (retryable)' : ''} — ${o.reason.code}: ${o.reason.message} — attempt ${attempt}, receipt ${join(attempt, 'receipt.json')} (${since(t0)})\n`)
  return sealExit
}

function parseArgv (argv: string[]): DriveOptions {
  const o: Partial<DriveOptions> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = argv[i + 1]
    if ((a === '--config' || a === '--report' || a === '--until') && v !== undefined) {
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
    } else {
      throw new Error(`unknown argument ${a ?? ''}`)
    }
  }
  if (o.config === undefined || o.report === undefined) throw new Error(USAGE)
  return o as DriveOptions
}

const USAGE = 'usage: pnpm attempt --config ABS --report ABS [--until STEP]'

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Progress is for people: a closed or full stderr must not stop the chain half way.
  process.stderr.on('error', () => {})
  const argv = process.argv.slice(2)
  let o: DriveOptions | undefined
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n  runs admit, extract-tree, reproduce, ask-provider, gate-patch, verify and receipt seal for one admission;\n  --until STEP stops after STEP. Exit status: the outcome's (see the README's exit table).\n`)
  } else {
    try {
      o = parseArgv(argv)
    } catch (e) {
      process.stderr.write(`attempt: USAGE: ${(e as Error).message}\n`)
      process.exitCode = 2
    }
  }
  if (o !== undefined) {
    try {
      process.exitCode = await drive(o)
    } catch (e) {
      // Not the operator's mistake: the driver itself failed.
      process.stderr.write(`attempt: INTERNAL: ${(e as Error).message.replace(/[\r\n]+/g, ' ')}\n`)
      process.exitCode = 70
    }
  }
}
