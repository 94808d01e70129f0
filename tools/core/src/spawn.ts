// The one place that starts processes. Always an argv array, never a shell, never the
// caller's environment unless it is passed explicitly. Lint forbids child_process and
// `shell` elsewhere.

import { execa, type ResultPromise } from 'execa'

export interface RunOptions {
  /** The complete environment of the child; nothing is inherited. */
  env: Record<string, string>
  cwd?: string
  input?: Uint8Array | string
  /** Kill after this many milliseconds (SIGKILL). */
  timeoutMs?: number
  /** Bytes kept per stream; beyond it the child is killed and `truncated` is set. */
  maxBuffer?: number
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

/** Runs `file args` to completion and returns its status and output; never throws for a failed child. */
export async function run (file: string, args: readonly string[], o: RunOptions): Promise<RunResult> {
  const r = await execa(file, args, {
    env: o.env,
    extendEnv: false,
    shell: false,
    reject: false,
    stripFinalNewline: false,
    encoding: 'buffer',
    stdin: o.input === undefined ? 'ignore' : 'pipe',
    input: o.input,
    cwd: o.cwd,
    timeout: o.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: o.maxBuffer ?? 64 << 20,
    cancelSignal: o.signal,
  })
  const spawnError = r.failed && r.exitCode === undefined && r.signal === undefined && !r.timedOut && !r.isMaxBuffer ? r.originalMessage ?? r.shortMessage : undefined
  return {
    exitCode: r.exitCode,
    signal: r.signal,
    stdout: Buffer.from(r.stdout as Uint8Array),
    stderr: Buffer.from(r.stderr as Uint8Array),
    timedOut: r.timedOut,
    truncated: r.isMaxBuffer,
    spawnError,
  }
}

export interface StreamOptions {
  env: Record<string, string>
  cwd?: string
  /** Extra file descriptors beyond stdio (for --json-status-fd and the like). */
  extraFds?: number
  detached?: boolean
}

/**
 * Starts `file args` with piped stdin/stdout/stderr for streaming use (cat-file --batch,
 * the sandbox). The caller consumes the streams and awaits the returned promise.
 */
export function spawnStreaming (file: string, args: readonly string[], o: StreamOptions): ResultPromise<{ encoding: 'buffer', buffer: false, reject: false }> {
  const extra = Array.from({ length: o.extraFds ?? 0 }, () => 'pipe' as const)
  return execa(file, args, {
    env: o.env,
    extendEnv: false,
    shell: false,
    reject: false,
    encoding: 'buffer',
    buffer: false,
    cwd: o.cwd,
    detached: o.detached ?? false,
    stdio: ['pipe', 'pipe', 'pipe', ...extra],
  }) as unknown as ResultPromise<{ encoding: 'buffer', buffer: false, reject: false }>
}
