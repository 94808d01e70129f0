// runCli is the only place a tool meets `process`: it builds the injected I/O, prints the
// start record, runs the tool, and turns its result or error into the error record, the
// result record, one stderr line and process.exitCode. Never process.exit(): it would cut
// piped stdout short.

import type { Readable, Writable } from 'node:stream'
import yargs, { type Argv } from 'yargs'
import { EXIT, type ExitCode } from './exit-codes.ts'
import { isToolError, toolError, type ToolError } from './errors.ts'
import { RecordWriter } from './ndjson.ts'
import { clockFrom, type Env } from './hooks.ts'
import type { Outcome } from './outcome.ts'

export type ToolName = 'admit' | 'extract-tree' | 'reproduce' | 'ask-provider' | 'gate-patch' | 'verify' | 'receipt'

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
  /** Subcommands; argv[0] names one (admit run, receipt seal, …). */
  commands?: readonly string[]
  /** The tool's usage text, printed to stdout for --help / -h (no records: not a step). */
  help?: () => Promise<string>
}

/** A yargs instance with the project's settings: strict, never exits, throws on bad flags. */
export function cliParser (tool: string, argv: string[]): Argv {
  return yargs(argv).scriptName(tool).strict().exitProcess(false).fail(false).help(false).version(false).locale('en').detectLocale(false).wrap(100)
}

/** Parses with yargs; any parse failure is a USAGE error (exit 2). */
export async function parseArgs<T> (parser: Argv<T>): Promise<T> {
  try {
    return await parser.parseAsync() as T
  } catch (e) {
    throw toolError('USAGE', (e as Error).message)
  }
}

/** Runs a tool with injected I/O and returns its exit status; prints records and the stderr line. */
export async function runTool (tool: ToolName, argv: string[], io: ToolIo, main: ToolMain, opts: CliOptions = {}): Promise<ExitCode> {
  if (opts.help !== undefined && argv.some(a => a === '--help' || a === '-h')) {
    io.stdout?.write(await opts.help())
    return EXIT.OK
  }
  const command = opts.commands?.includes(argv[0] ?? '') === true ? argv[0] : undefined
  io.out.write(command === undefined ? { v: 1, kind: 'start', tool } : { v: 1, kind: 'start', tool, command })
  let result: ToolResult
  try {
    result = await main(argv, io)
  } catch (e) {
    const err: ToolError = isToolError(e) ? e : toolError('INTERNAL', `internal error: ${(e as Error)?.message ?? String(e)}`)
    if (!isToolError(e) && io.env.REPAIRLINE_DEBUG === '1') io.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`)
    const record = { v: 1 as const, kind: 'error' as const, code: err.code, message: oneLine(err.message) }
    io.out.write({ ...record, ...(err.path === undefined ? {} : { path: err.path }), ...(err.hint === undefined ? {} : { hint: oneLine(err.hint) }) })
    io.stderr.write(`${tool}: ${err.code}: ${oneLine(err.message)}\n`)
    if (err.hint !== undefined) io.stderr.write(`${tool}: hint: ${oneLine(err.hint)}\n`)
    result = { exit: err.exit }
  }
  io.out.write(result.outcome === undefined
    ? { v: 1, kind: 'result', tool, exit: result.exit }
    : { v: 1, kind: 'result', tool, exit: result.exit, outcome: result.outcome })
  return result.exit
}

/** The bin entry point of every tool. */
export async function runCli (tool: ToolName, main: ToolMain, opts: CliOptions = {}): Promise<void> {
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
    process.stderr.write(`${tool}: USAGE: ${(e as Error).message}\n`)
    process.exitCode = EXIT.USAGE
    return
  }
  process.exitCode = await runTool(tool, process.argv.slice(2), io, main, opts)
}

function oneLine (s: string): string {
  return s.replace(/[\r\n]+/g, ' ').slice(0, 8000)
}
