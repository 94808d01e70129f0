// runCli is the only place a tool meets `process`: it builds the injected I/O, prints the
// start record, runs the tool, and turns its result or error into the error record, the
// result record, one stderr line and process.exitCode. Never process.exit(): it would cut
// piped stdout short.

import type { Readable, Writable } from 'node:stream'
import { EXIT, type ExitCode } from './exit-codes.ts'
import { ERROR_CODES, hasErrno, isToolError, toolError, type ToolError } from './errors.ts'
import { runStepEndHooks } from './step-end.ts'
import { helpText, type CliSpec } from './cli-args.ts'
import { RecordWriter } from './ndjson.ts'
import { clockFrom, type Env } from './hooks.ts'
import type { Outcome } from './outcome.ts'
import { printableLine } from './printable-line.ts'
import { asksForHelp, STEP_V8_FLAGS } from './help-request.ts'
import { writePlainFailure } from './plain-failure.ts'

/**
 * What a system call's failure that no step mapped itself says about the run, never an
 * internal bug: a full or read-only disk is this step's write failing (73, the step can run
 * again once there is room), a symlink where the state root has a file is unsafe state (73;
 * every state file is opened without following links), and a path that long could only come
 * from the command line or a record (2).
 */
function systemError (e: unknown): ToolError | undefined {
  const where = (e as { path?: unknown }).path
  const path = typeof where === 'string' ? { path: where } : {}
  if (hasErrno(e, 'ENAMETOOLONG')) return toolError('USAGE', `a path is longer than the system allows: ${(e as Error).message}`)
  if (hasErrno(e, 'ENOSPC') || hasErrno(e, 'EDQUOT') || hasErrno(e, 'EROFS')) {
    return toolError('WRITE_FAILED', `cannot write: ${(e as Error).message}`, { ...path, hint: 'make room (or make the state dir writable), then run the step again' })
  }
  if (hasErrno(e, 'ELOOP')) return toolError('STATE_UNSAFE', `a symlink where a file of the state root was expected: ${(e as Error).message}`, path)
  return undefined
}

/** The seven tools, in the chain's order (receipt last). */
export const TOOL_NAMES = ['admit', 'extract-tree', 'reproduce', 'ask-provider', 'gate-patch', 'verify', 'receipt'] as const
export type ToolName = (typeof TOOL_NAMES)[number]

/** The I/O a tool's index.ts receives. Tests build it with fake streams. */
export interface ToolIo {
  stdin: Readable | AsyncIterable<Uint8Array | string>
  out: RecordWriter
  stderr: Writable
  /** Raw stdout, for --help only: records go through `out`. */
  stdout?: Writable
  env: Env
  now: () => Date
  cwd: string
}

/** What a tool returns: its exit status and, when the attempt has one, the outcome. */
export interface ToolResult {
  exit: ExitCode
  outcome?: Outcome
}

export type ToolMain = (argv: string[], io: ToolIo) => Promise<ToolResult>

export interface CliOptions {
  /** The tool's command line: its commands name the start record; --help / -h prints its help
   * text to stdout (no records: not a step). */
  spec?: CliSpec
}

/** Runs a tool with injected I/O and returns its exit status; prints records and the stderr line. */
export async function runTool (tool: ToolName, argv: string[], io: ToolIo, main: ToolMain, opts: CliOptions = {}): Promise<ExitCode> {
  const spec = opts.spec
  if (spec !== undefined && asksForHelp(argv)) {
    io.stdout?.write(helpText(spec))
    return EXIT.OK
  }
  const first = argv[0]
  const command = first !== undefined && spec?.commands !== undefined && Object.hasOwn(spec.commands, first) ? first : undefined
  io.out.write(command === undefined ? { v: 1, kind: 'start', tool } : { v: 1, kind: 'start', tool, command })
  let result: ToolResult
  try {
    result = await main(argv, io)
  } catch (e) {
    const err: ToolError = isToolError(e) ? e : systemError(e) ?? toolError('INTERNAL', `internal error: ${(e as Error)?.message ?? String(e)}`)
    if (!isToolError(e) && io.env.REPAIRLINE_DEBUG === '1') io.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`)
    const record = { v: 1 as const, kind: 'error' as const, code: err.code, message: oneLine(err.message) }
    io.out.write({ ...record, ...(err.path === undefined ? {} : { path: err.path.slice(0, MAX_RECORD_PATH) }), ...(err.hint === undefined ? {} : { hint: oneLine(err.hint) }) })
    io.stderr.write(`${tool}: ${err.code}: ${oneLine(err.message)}\n`)
    if (err.hint !== undefined) io.stderr.write(`${tool}: hint: ${oneLine(err.hint)}\n`)
    result = { exit: err.exit }
  } finally {
    // The step is over, decided or not: the next process may work on the attempt.
    runStepEndHooks()
  }
  io.out.write(result.outcome === undefined
    ? { v: 1, kind: 'result', tool, exit: result.exit }
    : { v: 1, kind: 'result', tool, exit: result.exit, outcome: result.outcome })
  return result.exit
}

/** The bin entry point of every tool. Settles every error itself: a tool's cli.ts need not await it. */
export async function runCli (spec: CliSpec, main: ToolMain): Promise<void> {
  const tool = spec.tool
  let io: ToolIo
  try {
    io = {
      stdin: process.stdin,
      out: new RecordWriter(process.stdout),
      stderr: process.stderr,
      stdout: process.stdout,
      env: process.env,
      now: clockFrom(process.env),
      cwd: process.cwd(),
    }
  } catch (e) {
    // A bad REPAIRLINE_TEST_NOW, or a working directory that was removed under the shell.
    const why = (e as NodeJS.ErrnoException).syscall === 'uv_cwd' ? 'the current directory no longer exists; cd to one that does' : (e as Error).message
    // The records every run prints, written plainly: the record writer is part of what failed.
    const first = process.argv[2]
    const command = first !== undefined && spec.commands !== undefined && Object.hasOwn(spec.commands, first) ? first : undefined
    writePlainFailure({ tool, ...(command === undefined ? {} : { command }), code: 'USAGE', message: oneLine(why), exit: EXIT.USAGE })
    return
  }
  // stderr is for people: a reader that went away (EPIPE) or a full disk must not kill a step
  // half way (ask-provider between dispatch.json and the call would spend the attempt unsent).
  process.stderr.on('error', () => {})
  // Records lost to a failed stdout (not a closed pipe): the files the tool wrote are durable,
  // but whoever reads its records got an incomplete stream. Reported once every write settled.
  const out = io.out
  process.once('beforeExit', () => {
    if (out.failure === undefined || out.failureReported) return
    process.stderr.write(`${tool}: OUTPUT_FAILED: cannot write records to stdout: ${oneLine(out.failure.message)}\n`)
    process.exitCode = ERROR_CODES.OUTPUT_FAILED.exit
  })
  // WebAssembly (tree-sitter's grammars in the gate, verify and readback; undici's HTTP
  // parser in ask-provider) is compiled by V8's baseline compiler only. By default V8 compiles
  // each module again with TurboFan on background threads, and a Node process does not exit
  // before those jobs finish: ~150 ms of wall time and a second core per process, far more
  // than the faster code wins back on the few files a gate parses or the one response a tool
  // reads. Measured here: `gate-patch --check` 435 → 215 ms, readback of 3 attempts 527 →
  // 384 ms, one undici request from a fresh process 629 → 461 ms; a warm parse of a 114 KB Go
  // file takes 143 ms against 93–126 ms. It applies to modules compiled after this line only.
  // The launcher has set it already (launch.ts); a tool loaded without it sets it here.
  // (Imported here, not at the top: --help compiles no WebAssembly and need not load node:v8.)
  const argv = process.argv.slice(2)
  if (!asksForHelp(argv)) (await import('node:v8')).setFlagsFromString(STEP_V8_FLAGS)
  process.exitCode = await runTool(tool, argv, io, main, { spec })
}

/** The longest `path` an error record holds (its schema's bound). */
const MAX_RECORD_PATH = 4096

const oneLine = (s: string): string => printableLine(s, 8000)
