// The one place that starts processes. Always an argv array, never a shell, never the
// caller's environment unless it is passed explicitly. Lint forbids child_process and
// `shell` elsewhere.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'

export interface RunOptions {
  /** The complete environment of the child; nothing is inherited. */
  env: Record<string, string>
  cwd?: string
  input?: Uint8Array | string
  /** Kill after this many milliseconds (SIGKILL). */
  timeoutMs?: number
  /** Bytes kept per stream; beyond it the child is killed and `truncated` is set. */
  maxBuffer?: number
  /**
   * Kill the child, and set `truncated`, once its stdout holds more than `max` of `byte`: a
   * listing of records past its bound needs no more reading.
   */
  stopAfter?: { byte: number, max: number }
  signal?: AbortSignal
}

export interface RunResult {
  exitCode: number | undefined
  signal: string | undefined
  stdout: Buffer
  stderr: Buffer
  timedOut: boolean
  truncated: boolean
  /** Set when the program could not be started (ENOENT, EACCES). */
  spawnError: string | undefined
}

/**
 * Runs `file args` to completion and returns its status and output; never throws for a failed
 * child. Plain child_process, not execa (docs/decisions.md, "Packages wrapped or replaced": execa's import
 * and first spawn cost a tool ~40 ms, paid by six tools per chain). The result keeps execa's
 * meaning, which core's spawn test checks case by case against execa itself: `timeoutMs`,
 * `signal` and an output over `maxBuffer` each SIGKILL the child; the kept output of a stream
 * stops at `maxBuffer` bytes; `exitCode` is undefined when a signal ended the child. After such
 * a kill it returns once the child is gone, even if a process it started still holds its
 * stdout or stderr.
 */
export async function run (file: string, args: readonly string[], o: RunOptions): Promise<RunResult> {
  const max = o.maxBuffer ?? 64 << 20
  let child: ChildProcess
  try {
    child = spawn(file, args, { env: o.env, cwd: o.cwd, shell: false, stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  } catch (e) {
    // Invalid arguments (a NUL byte in argv, a bad cwd type) throw synchronously.
    return { exitCode: undefined, signal: undefined, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timedOut: false, truncated: false, spawnError: (e as Error).message }
  }
  let timedOut = false
  let truncated = false
  // A killed child's output is no longer wanted, and a process it left behind may still hold
  // the pipes open: closing our ends lets 'close' come as soon as the child itself is gone.
  const kill = (): void => {
    child.kill('SIGKILL')
    child.stdout?.destroy()
    child.stderr?.destroy()
  }
  const keep = (stream: Readable | null): Buffer[] => {
    const chunks: Buffer[] = []
    let bytes = 0
    stream?.on('data', (b: Buffer) => {
      if (bytes + b.length > max) {
        if (bytes < max) chunks.push(b.subarray(0, max - bytes))
        bytes = max
        if (!truncated) { truncated = true; kill() }
        return
      }
      chunks.push(b)
      bytes += b.length
    })
    return chunks
  }
  const out = keep(child.stdout)
  const err = keep(child.stderr)
  const stop = o.stopAfter
  if (stop !== undefined) {
    let seen = 0
    child.stdout?.on('data', (b: Buffer) => {
      for (let i = b.indexOf(stop.byte); i !== -1 && seen <= stop.max; i = b.indexOf(stop.byte, i + 1)) seen++
      if (seen > stop.max && !truncated) { truncated = true; kill() }
    })
  }
  if (child.stdin !== null) {
    // A child that exits without reading its input closes the pipe: its exit status tells.
    child.stdin.on('error', () => {})
    child.stdin.end(o.input)
  }
  const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => { timedOut = true; kill() }, o.timeoutMs)
  const onAbort = (): void => { kill() }
  if (o.signal?.aborted === true) kill()
  else o.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    return await new Promise<RunResult>(resolve => {
      const result = (exitCode: number | undefined, signal: string | undefined, spawnError: string | undefined): RunResult =>
        ({ exitCode, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut, truncated, spawnError })
      child.once('error', e => { if (child.pid === undefined) resolve(result(undefined, undefined, e.message)) })
      child.once('close', (code, signal) => { resolve(result(code ?? undefined, signal ?? undefined, undefined)) })
    })
  } finally {
    clearTimeout(timer)
    o.signal?.removeEventListener('abort', onAbort)
  }
}

export interface StreamOptions {
  env: Record<string, string>
  cwd?: string
  detached?: boolean
}

/** The end state of a streaming child. */
export interface StreamExit { exitCode: number | undefined, signal: string | undefined, spawnError: string | undefined }

/** A started child with piped stdio; awaiting it gives its exit state (never rejects). */
export interface StreamingChild extends PromiseLike<StreamExit> {
  stdin: Writable
  stdout: Readable
  stderr: Readable
  pid: number | undefined
  kill: (signal?: NodeJS.Signals) => boolean
}

/**
 * Starts `file args` with piped stdin/stdout/stderr for streaming use (cat-file --batch).
 * The caller consumes the streams and awaits the child. Plain child_process here: this is
 * on the hot path of every extraction and needs nothing execa adds.
 */
export function spawnStreaming (file: string, args: readonly string[], o: StreamOptions): StreamingChild {
  const child: ChildProcess = spawn(file, args, { env: o.env, cwd: o.cwd, detached: o.detached ?? false, shell: false, stdio: ['pipe', 'pipe', 'pipe'] })
  let spawnError: string | undefined
  const done = new Promise<StreamExit>(resolve => {
    child.once('error', e => { spawnError = e.message; resolve({ exitCode: undefined, signal: undefined, spawnError }) })
    child.once('close', (code, signal) => { resolve({ exitCode: code ?? undefined, signal: signal ?? undefined, spawnError }) })
  })
  return {
    stdin: child.stdin as Writable,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    pid: child.pid,
    kill: (signal?: NodeJS.Signals) => child.kill(signal),
    then: (onfulfilled, onrejected) => done.then(onfulfilled, onrejected),
  }
}

/** The end state of a child whose stdout went to a file descriptor. */
export interface ToFdResult extends StreamExit { stderr: Buffer, timedOut: boolean }

/**
 * Runs `file args` with stdout written straight to the open file descriptor `stdoutFd` (no
 * pipe through this process) and stdin read from `stdin`: an open file descriptor (from its
 * current offset), or bytes piped in. stderr is kept up to `maxStderr` bytes. For bulk output
 * the caller reads back as the child writes (cat-file --batch into a spool).
 */
export async function runToFd (file: string, args: readonly string[], o: { env: Record<string, string>, stdin: number | Uint8Array | string, stdoutFd: number, maxStderr?: number, cwd?: string, timeoutMs?: number, signal?: AbortSignal }): Promise<ToFdResult> {
  const child: ChildProcess = spawn(file, args, { env: o.env, cwd: o.cwd, shell: false, stdio: [typeof o.stdin === 'number' ? o.stdin : 'pipe', o.stdoutFd, 'pipe'] })
  let timedOut = false
  const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => { timedOut = true; child.kill('SIGKILL') }, o.timeoutMs)
  // The caller has read enough (a listing past its bound): SIGKILL, as for a timeout.
  const onAbort = (): void => { child.kill('SIGKILL') }
  if (o.signal?.aborted === true) onAbort()
  else o.signal?.addEventListener('abort', onAbort, { once: true })
  if (typeof o.stdin !== 'number') {
    // A child that exits early closes its stdin: the exit status reports it, not an EPIPE here.
    child.stdin?.on('error', () => {})
    child.stdin?.end(o.stdin)
  }
  const max = o.maxStderr ?? 64 << 10
  const err: Buffer[] = []
  let errBytes = 0
  child.stderr?.on('data', (b: Buffer) => { if (errBytes < max) { err.push(b); errBytes += b.length } })
  try {
    return await new Promise<ToFdResult>(resolve => {
      let spawnError: string | undefined
      child.once('error', e => { spawnError = e.message; resolve({ exitCode: undefined, signal: undefined, spawnError, stderr: Buffer.concat(err), timedOut }) })
      child.once('close', (code, signal) => { resolve({ exitCode: code ?? undefined, signal: signal ?? undefined, spawnError, stderr: Buffer.concat(err).subarray(0, max), timedOut }) })
    })
  } finally {
    clearTimeout(timer)
    o.signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * Runs `file args` to its end synchronously (argv array, explicit environment, stdio
 * ignored, SIGKILL at `timeoutMs`) and gives its exit status: only for a cleanup in a
 * signal's handler (ending-signals.ts), which must be done before the process ends.
 */
export function runSync (file: string, args: readonly string[], o: { env: Record<string, string>, timeoutMs: number }): number | undefined {
  const r = spawnSync(file, args, { env: o.env, shell: false, stdio: 'ignore', timeout: o.timeoutMs, killSignal: 'SIGKILL' })
  return r.status ?? undefined
}
