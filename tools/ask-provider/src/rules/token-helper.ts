// The token comes from the pinned helper only, and the bytes executed are the bytes hashed
// (threat-matrix C1–C3): the helper is opened without following a symlink, must be a
// regular executable file, is copied into a fresh 0700 directory, and the COPY is hashed
// and compared with provider.token_command_sha256 and then run — so swapping the original
// after the check changes nothing. The copy runs without a shell, with an empty
// environment, a timeout and a bounded read; stderr is discarded (never logged). Its stdout
// must be exactly one line of printable ASCII (one final newline allowed), at least
// MIN_SECRET_CHARS long: a shorter token would match text by chance, so no retained file could
// be scanned for it, and it is never sent. The directory is
// removed before the token is used, and also when the step is interrupted (SIGINT, SIGTERM,
// SIGHUP) while the helper runs; one left by a step that was killed outright (its name holds
// the pid) is removed by the next helper run once that pid is gone, since a helper may hold
// secrets of its own. Nothing here ever prints or keeps the token.

import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ExecutionConfig } from '@repairline/schemas'
import { hasErrno, MIN_SECRET_CHARS, run, sha256File, toolError } from '@repairline/core'
import type { ProviderLimits } from '../limits.ts'

const PATH = '/provider/token_command'

function mismatch (message: string, hint?: string): Error {
  return toolError('TOKEN_HELPER_MISMATCH', message, { path: PATH, exit: 1, ...(hint === undefined ? {} : { hint }) })
}

function failed (message: string): Error {
  return toolError('TOKEN_HELPER_FAILED', message, { path: PATH })
}

/** Reads the helper's bytes through one descriptor: no symlink, regular, executable, bounded. */
function readHelper (p: string, maxBytes: number): Buffer {
  let fd: number
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    if (hasErrno(e, 'ELOOP')) throw mismatch(`token helper ${p} is a symlink; pin the file itself`)
    if (hasErrno(e, 'ENOENT')) throw mismatch(`token helper ${p} does not exist`)
    throw mismatch(`token helper ${p} cannot be opened: ${(e as Error).message}`)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw mismatch(`token helper ${p} is not a regular file`)
    if ((st.mode & 0o111) === 0) throw toolError('TOKEN_HELPER_NOT_EXECUTABLE', `token helper ${p} is not executable`, { path: PATH, exit: 1, hint: `make it executable (chmod +x ${p}), then start a new attempt: this one is provider_error` })
    if (st.size > maxBytes) throw mismatch(`token helper ${p} is larger than ${maxBytes} bytes`)
    const buf = Buffer.alloc(st.size)
    let off = 0
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off)
      if (n === 0) break
      off += n
    }
    return buf.subarray(0, off)
  } finally {
    closeSync(fd)
  }
}

/** Runs the pinned helper and returns the token. Throws TOKEN_HELPER_MISMATCH, TOKEN_HELPER_NOT_EXECUTABLE or TOKEN_HELPER_FAILED. */
export async function readToken (config: ExecutionConfig, limits: Pick<ProviderLimits, 'tokenTimeoutMs' | 'tokenMaxBytes' | 'helperMaxBytes'>): Promise<string> {
  const p = config.provider.token_command
  const bytes = readHelper(p, limits.helperMaxBytes)
  sweepStaleCopies(tmpdir())
  const dir = mkdtempSync(join(tmpdir(), `${COPY_PREFIX}${process.pid}-`))
  const interrupted = (signal: NodeJS.Signals): void => {
    rmSync(dir, { recursive: true, force: true })
    stopWatching()
    process.kill(process.pid, signal)
  }
  const stopWatching = (): void => { for (const s of INTERRUPTS) process.off(s, interrupted) }
  for (const s of INTERRUPTS) process.once(s, interrupted)
  try {
    const copy = join(dir, 'helper')
    writeFileSync(copy, bytes, { mode: 0o700, flag: 'wx' })
    const { sha256 } = sha256File(copy)
    if (sha256 !== config.provider.token_command_sha256) {
      throw mismatch(`token helper ${p} has sha256 ${sha256}, but token_command_sha256 is ${config.provider.token_command_sha256}`, 'the helper changed since admission; restore it or admit a new attempt with the new digest')
    }
    const r = await run(copy, [], { env: {}, cwd: dir, timeoutMs: limits.tokenTimeoutMs, maxBuffer: limits.tokenMaxBytes })
    if (r.spawnError !== undefined) throw failed(`token helper ${p} could not be started: ${r.spawnError.replaceAll(copy, '<copy>')}`)
    if (r.timedOut) throw failed(`token helper ${p} did not finish within ${limits.tokenTimeoutMs} ms`)
    if (r.truncated) throw failed(`token helper ${p} printed more than ${limits.tokenMaxBytes} bytes`)
    if (r.exitCode !== 0) throw failed(`token helper ${p} exited with ${r.signal ?? String(r.exitCode)} (its stderr is not shown: it may hold secrets)`)
    let out = r.stdout
    if (out.at(-1) === 0x0a) out = out.subarray(0, -1)
    if (out.length === 0) throw failed(`token helper ${p} printed no token`)
    if (out.includes(0x0a)) throw failed(`token helper ${p} printed more than one line`)
    for (const b of out) if (b < 0x21 || b > 0x7e) throw failed(`token helper ${p} printed a character that is not printable ASCII (the token is one line of visible characters)`)
    if (out.length < MIN_SECRET_CHARS) throw failed(`token helper ${p} printed a token of ${out.length} characters; at least ${MIN_SECRET_CHARS} are needed to keep it out of every retained file (a shorter one would match text by chance)`)
    return out.toString('latin1')
  } finally {
    stopWatching()
    rmSync(dir, { recursive: true, force: true })
  }
}

const COPY_PREFIX = 'rl-token-'
const INTERRUPTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** Removes the private copies of helper runs whose process is gone (a step killed outright). */
function sweepStaleCopies (tmp: string): void {
  let names: string[]
  try { names = readdirSync(tmp) } catch { return }
  for (const name of names) {
    const m = /^rl-token-(\d+)-[A-Za-z0-9]{6}$/.exec(name)
    if (m?.[1] === undefined || existsSync(`/proc/${m[1]}`)) continue
    const p = join(tmp, name)
    try {
      const st = lstatSync(p)
      if (st.isDirectory() && st.uid === process.geteuid?.()) rmSync(p, { recursive: true, force: true })
    } catch {}
  }
}
