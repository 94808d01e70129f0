// The state-root lock (DESIGN §7). `state_dir/lock` names one attempt. It is created whole
// (a fully written temp file hard-linked into place, so it is never seen half-written) and
// exclusively (link fails if it exists). It is stale if and only if its attempt has
// outcome.json or now is past its deadline + 30 s; a live holder is never broken early,
// whatever its pid does (the lock spans several processes). A stale lock is broken by
// renaming it to lock.broken.<nonce>; the breaker then checks it moved the very lock it
// judged (same inode) and puts back anything else.

import { randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readFileSync, realpathSync, renameSync, unlinkSync, existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Lock, SchemaTypes } from '@repairline/schemas'
import { parseDocument } from './contracts.ts'
import { readFileNoFollow } from './read-file.ts'
import { hasErrno, toolError } from './errors.ts'
import { fsyncDir, writeFileAtomic, jsonFileBytes } from './atomic.ts'
import { assertValid } from './contracts.ts'

/** How long after its deadline a lock without an outcome is presumed dead. */
export const STALE_GRACE_MS = 30_000

export function lockPath (stateRoot: string): string {
  return join(stateRoot, 'lock')
}

/**
 * A lock file (the state lock, a step lock) as it is now, with its inode, or undefined when
 * there is none; a symlink, a non-regular file or a document that breaks its schema is
 * STATE_UNSAFE.
 */
export function readLockFile<N extends 'lock' | 'step-lock'> (name: N, path: string): { doc: SchemaTypes[N], ino: number } | undefined {
  let fd: number
  try {
    // O_NONBLOCK: a FIFO planted in the lock's place must not block the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined
    if (hasErrno(e, 'ELOOP')) throw toolError('STATE_UNSAFE', `${path} is a symlink`, { path })
    throw e
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw toolError('STATE_UNSAFE', `${path} is not a regular file`, { path })
    return { doc: parseDocument(name, readFileSync(fd), path, 'STATE_UNSAFE'), ino: st.ino }
  } finally {
    closeSync(fd)
  }
}

/**
 * Moves the lock file `path`, judged stale when it had inode `ino`, to `grave`. False when it
 * was gone, or replaced since it was judged (what was moved is then put back: it wins).
 */
export function breakLockFile (path: string, ino: number, grave: string): boolean {
  try {
    renameSync(path, grave)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return false
    throw e
  }
  if (lstatSync(grave).ino !== ino) {
    try { linkSync(grave, path); unlinkSync(grave) } catch {}
    fsyncDir(dirname(path))
    return false
  }
  fsyncDir(dirname(path))
  return true
}

function readLockWithInode (stateRoot: string): { lock: Lock, ino: number } | undefined {
  const r = readLockFile('lock', lockPath(stateRoot))
  return r === undefined ? undefined : { lock: r.doc, ino: r.ino }
}

/** The current lock, or undefined when there is none. */
export function readLock (stateRoot: string): Lock | undefined {
  return readLockWithInode(stateRoot)?.lock
}

/**
 * The deadline the lock's attempt was admitted with: admission.json's in the directory the
 * lock names, when it is there, valid and of the lock's key; else undefined (admit takes the
 * lock before it writes admission.json).
 */
function admittedDeadline (lock: Lock): number | undefined {
  try {
    const admission = parseDocument('admission', readFileNoFollow(join(lock.attempt_dir, 'admission.json')), lock.attempt_dir, 'STATE_UNSAFE')
    return admission.attempt_key === lock.attempt_key ? Date.parse(admission.deadline) : undefined
  } catch {
    return undefined
  }
}

/**
 * Stale iff the holder's attempt has an outcome, or now is past its deadline + 30 s. The
 * deadline is the lock's, or the attempt's own admission.json's if that is earlier: a lock
 * rewritten with a later deadline (anyone who can write the state root can) never keeps an
 * admitted attempt alive past the deadline seal and readback go by.
 */
export function isLockStale (lock: Lock, now: Date): boolean {
  if (existsSync(join(lock.attempt_dir, 'outcome.json'))) return true
  const deadline = Math.min(Date.parse(lock.deadline), admittedDeadline(lock) ?? Infinity)
  return now.getTime() > deadline + STALE_GRACE_MS
}

export type AcquireResult = { acquired: true, broken?: Lock } | { acquired: false, holder: Lock }

/**
 * Creates `target` with `bytes`, whole and exclusively: a fully written temp file beside it
 * is hard-linked into place. False when `target` already exists.
 */
export function linkExclusive (stateRoot: string, target: string, bytes: string): boolean {
  const dir = dirname(target)
  const tmp = join(dir, `.${basename(target)}.tmp-${randomBytes(6).toString('hex')}`)
  writeFileAtomic(tmp, bytes, { stateRoot, exclusive: true })
  try {
    linkSync(tmp, target)
    return true
  } catch (e) {
    if (hasErrno(e, 'EEXIST')) return false
    throw e
  } finally {
    unlinkSync(tmp)
    fsyncDir(dir)
  }
}

function tryLink (stateRoot: string, bytes: string): boolean {
  return linkExclusive(stateRoot, lockPath(stateRoot), bytes)
}

/**
 * Takes the lock for `want`. If a stale lock is in the way it is broken (renamed aside)
 * and returned as `broken`, so the caller can mark that attempt interrupted. A live lock
 * is returned as `holder`.
 */
export function acquireLock (stateRoot: string, want: Lock, now: Date): AcquireResult {
  assertValid('lock', want, 'lock', 'INTERNAL')
  const bytes = jsonFileBytes(want)
  for (let round = 0; round < 3; round++) {
    if (tryLink(stateRoot, bytes)) return { acquired: true }
    const current = readLockWithInode(stateRoot)
    if (current === undefined) continue
    if (!isLockStale(current.lock, now)) return { acquired: false, holder: current.lock }
    if (!breakLockFile(lockPath(stateRoot), current.ino, join(stateRoot, `lock.broken.${randomBytes(8).toString('hex')}`))) continue
    if (tryLink(stateRoot, bytes)) return { acquired: true, broken: current.lock }
  }
  const holder = readLock(stateRoot)
  if (holder !== undefined) return { acquired: false, holder }
  throw toolError('LOCK_HELD', 'the lock changed hands repeatedly while being taken; try again')
}

/**
 * Whether the lock's `attempt_dir` and `dir` are one directory: the same path, or two paths
 * (a symlink on either side) with the same real path. A path that no longer resolves is not
 * the attempt. Every reader of the lock asks this, so a step, seal and readback never
 * disagree on whether the lock names an attempt.
 */
export function lockNamesDirectory (lock: Lock, dir: string): boolean {
  if (lock.attempt_dir === dir) return true
  try {
    return realpathSync(lock.attempt_dir) === realpathSync(dir)
  } catch {
    return false
  }
}

/** Refuses (75 LOCK_LOST) unless the lock names this attempt. */
export function assertLockNames (stateRoot: string, key: string, attemptDir: string): void {
  const current = readLock(stateRoot)
  if (current === undefined) throw toolError('LOCK_LOST', `no lock in ${stateRoot}: this attempt no longer holds it`)
  if (current.attempt_key !== key) {
    throw toolError('LOCK_LOST', `the lock names attempt ${current.attempt_key.slice(0, 16)}, not ${key.slice(0, 16)}`)
  }
  if (!lockNamesDirectory(current, attemptDir)) {
    throw toolError('LOCK_LOST', `the lock names this attempt at ${current.attempt_dir}, not at ${attemptDir}`, { hint: `pass the attempt directory as the lock names it, ${current.attempt_dir}: ${attemptDir} is another directory` })
  }
}

/** Removes the lock only if it names this attempt; returns whether it did. */
export function releaseLock (stateRoot: string, key: string, attemptDir: string): boolean {
  const current = readLockWithInode(stateRoot)
  if (current === undefined || current.lock.attempt_key !== key || !lockNamesDirectory(current.lock, attemptDir)) return false
  const grave = join(stateRoot, `.lock.release-${randomBytes(6).toString('hex')}`)
  try {
    renameSync(lockPath(stateRoot), grave)
  } catch (e) {
    // Another process (an admit breaking it as stale) took the lock away since we read it:
    // it is not ours to release any more, and nothing was moved.
    if (hasErrno(e, 'ENOENT')) return false
    throw e
  }
  if (lstatSync(grave).ino !== current.ino) {
    try { linkSync(grave, lockPath(stateRoot)) } catch {}
    unlinkSync(grave)
    fsyncDir(stateRoot)
    return false
  }
  unlinkSync(grave)
  fsyncDir(stateRoot)
  return true
}
