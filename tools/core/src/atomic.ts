// Atomic, validated writes inside the state root: temp file (O_EXCL|O_NOFOLLOW) in the
// same directory, write, fsync, rename (or link, for write-once files), fsync the directory.
// Every directory from the state root down must be a real directory owned by us: a symlink
// or a foreign owner inside the state root is refused (STATE_UNSAFE), so nothing we write
// can be redirected.

import { closeSync, constants, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, mkdirSync, chmodSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { SchemaName, SchemaTypes } from '@repairline/schemas'
import { assertValid } from './contracts.ts'
import { hasErrno, toolError } from './errors.ts'
import { parseJsonText } from './json.ts'

const euid = (): number => process.geteuid?.() ?? 0

/** Refuses unless every directory from `stateRoot` down to `dir` is a directory we own. */
export function assertSafeDir (stateRoot: string, dir: string): void {
  const rel = relative(stateRoot, dir)
  if (rel.startsWith('..') || rel.startsWith(sep)) throw toolError('STATE_UNSAFE', `${dir} is outside the state root ${stateRoot}`)
  const parts = rel === '' ? [] : rel.split(sep)
  let p = stateRoot
  for (let i = 0; i <= parts.length; i++) {
    if (i > 0) p = join(p, parts[i - 1] ?? '')
    const st = lstatSync(p)
    if (st.isSymbolicLink()) throw toolError('STATE_UNSAFE', `${p} is a symlink inside the state root`)
    if (!st.isDirectory()) throw toolError('STATE_UNSAFE', `${p} is not a directory`)
    if (st.uid !== euid()) throw toolError('STATE_UNSAFE', `${p} is owned by uid ${st.uid}, not ${euid()}`)
  }
}

/** fsync a directory so a rename or link in it is durable. */
export function fsyncDir (dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try { fsyncSync(fd) } finally { closeSync(fd) }
}

/** Creates `dir` (mode applied exactly, despite umask) if missing; refuses a symlink or non-directory. */
export function ensureDir (stateRoot: string, dir: string, mode: number): void {
  try {
    mkdirSync(dir, { mode })
    chmodSync(dir, mode)
    fsyncDir(dirname(dir))
  } catch (e) {
    if (!hasErrno(e, 'EEXIST')) throw e
  }
  assertSafeDir(stateRoot, dir)
}

export interface AtomicOptions {
  /** The state root: every directory below it is checked (symlinks, owner). */
  stateRoot: string
  /** Fail with EEXIST-style refusal if the file exists (write-once files). */
  exclusive?: boolean
  mode?: number
}

/** A file being written beside its target, put in place only by `commit`. */
export interface AtomicFile {
  /** Appends all of `bytes`; WRITE_FAILED (the temp file removed) when the write fails. */
  write: (bytes: Uint8Array) => void
  /**
   * fsync, close, then rename into place (or, exclusive, link: false when the target
   * appeared meanwhile), fsync the directory. WRITE_FAILED, the temp file removed, on failure.
   */
  commit: () => boolean
  /** Closes and removes the temp file, whatever was written. Harmless after commit or a failure. */
  discard: () => void
}

/**
 * Starts an atomic write of `path`: a temp file (O_EXCL|O_NOFOLLOW) in the same directory,
 * which a crash leaves as `.<name>.tmp-<12 hex>`, never as the target. Undefined, creating
 * nothing, when `exclusive` and the file exists. The target, if present, must be a regular
 * file: a symlink planted there is refused.
 */
export function openAtomicFile (path: string, o: AtomicOptions & { exclusive?: false }): AtomicFile
export function openAtomicFile (path: string, o: AtomicOptions): AtomicFile | undefined
export function openAtomicFile (path: string, o: AtomicOptions): AtomicFile | undefined {
  const dir = dirname(path)
  assertSafeDir(o.stateRoot, dir)
  try {
    const st = lstatSync(path)
    if (!st.isFile()) throw toolError('STATE_UNSAFE', `${path} exists and is not a regular file`)
    if (o.exclusive === true) return undefined
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw e
  }
  const tmp = join(dir, `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`)
  let fd: number | undefined = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, o.mode ?? 0o644)
  const discard = (): void => {
    if (fd !== undefined) closeSync(fd)
    fd = undefined
    try { unlinkSync(tmp) } catch {}
  }
  const failed = (e: unknown): Error => {
    discard()
    return toolError('WRITE_FAILED', `cannot write ${path}: ${(e as Error).message}`, { cause: e })
  }
  return {
    write (bytes) {
      if (fd === undefined) throw toolError('INTERNAL', `${path}: written after its temp file was closed`)
      try {
        for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off)
      } catch (e) {
        throw failed(e)
      }
    },
    commit () {
      if (fd === undefined) throw toolError('INTERNAL', `${path}: committed after its temp file was closed`)
      try {
        fsyncSync(fd)
        closeSync(fd)
        fd = undefined
        if (o.exclusive === true) {
          try {
            linkSync(tmp, path)
          } catch (e) {
            if (hasErrno(e, 'EEXIST')) return false
            throw e
          } finally {
            unlinkSync(tmp)
          }
        } else {
          renameSync(tmp, path)
        }
      } catch (e) {
        throw failed(e)
      }
      fsyncDir(dir)
      return true
    },
    discard,
  }
}

/**
 * Writes `bytes` to `path` atomically (openAtomicFile). With `exclusive`, returns false
 * (writing nothing) when the file already exists; otherwise replaces it.
 */
export function writeFileAtomic (path: string, bytes: Uint8Array | string, o: AtomicOptions): boolean {
  const file = openAtomicFile(path, o)
  if (file === undefined) return false
  file.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes)
  return file.commit()
}

/**
 * The bytes a JSON file of ours holds: two-space indented, one trailing newline. A string
 * with a lone surrogate is refused here (a bug: text from outside goes through
 * printableLine): JSON.stringify escapes it, and the strict reader would refuse the file.
 */
export function jsonFileBytes (value: unknown): string {
  const text = JSON.stringify(value, null, 2) + '\n'
  // JSON.stringify writes \ud800-\udfff escapes for lone surrogates only: rare, then checked.
  if (text.includes('\\ud')) {
    const r = parseJsonText(text)
    if (!r.ok) throw toolError('INTERNAL', `refusing to write JSON our reader would refuse: ${r.message}`)
  }
  return text
}

/** Validates `value` against its schema, then writes it atomically. A schema failure here is a bug (70). */
export function writeJsonAtomic<N extends SchemaName> (name: N, path: string, value: SchemaTypes[N], o: AtomicOptions): boolean {
  assertValid(name, value, `refusing to write ${path}`, 'INTERNAL')
  return writeFileAtomic(path, jsonFileBytes(value), o)
}

/**
 * Writes a file outside the state root (an operator-chosen output such as admit report's
 * --out): temp file beside it, fsync, rename, directory fsync. The target may not be a symlink.
 */
export function writePlainFileAtomic (path: string, bytes: Uint8Array | string): void {
  const dir = dirname(path)
  try {
    if (lstatSync(path).isSymbolicLink()) throw toolError('WRITE_FAILED', `${path} is a symlink; refusing to write through it`)
  } catch (e) {
    if ((e as { name?: string }).name === 'ToolError') throw e
    if (!hasErrno(e, 'ENOENT')) throw toolError('WRITE_FAILED', `cannot write ${path}: ${(e as Error).message}`, { cause: e })
  }
  const tmp = join(dir, `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`)
  try {
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)
    try {
      const buf = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
      let off = 0
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    fsyncDir(dir)
  } catch (e) {
    try { unlinkSync(tmp) } catch {}
    if ((e as { name?: string }).name === 'ToolError') throw e
    throw toolError('WRITE_FAILED', `cannot write ${path}: ${(e as Error).message}`, { cause: e })
  }
}
