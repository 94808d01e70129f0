// The step lock: one process at a time works on an attempt. The state lock (lock.ts) names the
// attempt for the whole chain, across processes, so it cannot tell two of the chain's processes
// apart: two runs of one step on the same attempt would both pass it and both decide (measured:
// a second ask-provider started while the first waited for the provider took the first's
// dispatch.json for an interrupted call and wrote a retryable provider_error; the first's
// answer was then lost). Every step after admit, and `receipt seal`, takes this lock once the
// state lock names its attempt and before it reads or writes the attempt's files; a live
// holder is LOCK_HELD (75) and the run decides nothing.
//
// state_dir/steps/<attempt key>.lock names one process by pid, start time and boot, so it is
// stale exactly when that process is gone (killed, crashed, or an earlier boot), whatever the
// pid is used for now: the next step breaks it (renamed aside, the inode checked, as lock.ts
// does). The locks a process took are removed when its step ends (runTool's step-end hooks).

import { randomBytes } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { StepLock } from '@repairline/schemas'
import { assertValid } from './contracts.ts'
import { ensureDir, fsyncDir, jsonFileBytes } from './atomic.ts'
import { toolError } from './errors.ts'
import { breakLockFile, linkExclusive, readLockFile } from './lock.ts'
import { atStepEnd } from './step-end.ts'

type Holder = Pick<StepLock, 'pid' | 'start_ticks' | 'boot_id'>

/** Where the step lock of attempt `key` lives. */
export function stepLockPath (stateRoot: string, key: string): string {
  return join(stateRoot, 'steps', `${key}.lock`)
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or undefined when no such process runs. */
export function processStartTicks (pid: number | 'self'): number | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1')
  } catch {
    return undefined
  }
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state); a zombie has exited already.
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined
  const ticks = Number(fields[19])
  return Number.isSafeInteger(ticks) ? ticks : undefined
}

function bootId (): string {
  return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()
}

function thisProcess (): Holder {
  const ticks = processStartTicks('self')
  if (ticks === undefined) throw toolError('INTERNAL', 'cannot read this process\'s start time from /proc/self/stat')
  return { pid: process.pid, start_ticks: ticks, boot_id: bootId() }
}

const same = (a: Holder, b: Holder): boolean => a.pid === b.pid && a.start_ticks === b.start_ticks && a.boot_id === b.boot_id

/** True while the process a lock names still runs (same boot, same pid, same start time). */
export function isHolderAlive (lock: Holder): boolean {
  return lock.boot_id === bootId() && processStartTicks(lock.pid) === lock.start_ticks
}

/** The live process working on attempt `key` (the holder of its step lock), if there is one. */
export function liveStepHolder (stateRoot: string, key: string): StepLock | undefined {
  const current = readLockFile('step-lock', stepLockPath(stateRoot, key))
  return current !== undefined && isHolderAlive(current.doc) ? current.doc : undefined
}

/** The step locks this process holds, by path. */
const held = new Map<string, Holder>()

function hold (path: string, me: Holder): void {
  held.set(path, me)
  atStepEnd(releaseStepLocks)
}

/**
 * Takes the step lock of attempt `key` for `step`, or throws LOCK_HELD (75) while another live
 * process holds it. A lock this process already holds is kept (steps run in process by tests
 * and by a driver that calls them in turn); one whose process is gone is broken and taken.
 */
export function acquireStepLock (stateRoot: string, key: string, step: StepLock['step']): void {
  const me = thisProcess()
  const want: StepLock = { v: 1, attempt_key: key, step, ...me }
  assertValid('step-lock', want, 'step lock', 'INTERNAL')
  const path = stepLockPath(stateRoot, key)
  ensureDir(stateRoot, join(stateRoot, 'steps'), 0o755)
  const bytes = jsonFileBytes(want)
  for (let round = 0; round < 3; round++) {
    if (linkExclusive(stateRoot, path, bytes)) {
      hold(path, me)
      return
    }
    const current = readLockFile('step-lock', path)
    if (current === undefined) continue
    const holder = current.doc
    if (same(holder, me)) {
      hold(path, me)
      return
    }
    if (isHolderAlive(holder)) {
      throw toolError('LOCK_HELD', `${holder.step} (pid ${holder.pid}) is working on attempt ${key.slice(0, 16)}; this run read and decided nothing`, {
        path,
        hint: `wait for pid ${holder.pid} to end, then run ${step} again`,
      })
    }
    const grave = join(stateRoot, 'steps', `.broken-${randomBytes(8).toString('hex')}`)
    if (breakLockFile(path, current.ino, grave)) unlinkSync(grave)
  }
  throw toolError('LOCK_HELD', `the step lock of attempt ${key.slice(0, 16)} changed hands repeatedly while being taken; try again`, { path })
}

/** Removes every step lock this process holds that still names it. Best effort. */
export function releaseStepLocks (): void {
  for (const [path, me] of held) {
    held.delete(path)
    try {
      const current = readLockFile('step-lock', path)
      if (current !== undefined && same(current.doc, me)) {
        unlinkSync(path)
        fsyncDir(dirname(path))
      }
    } catch {
      // A lock left behind names a process that is about to be gone: the next step breaks it.
    }
  }
}
