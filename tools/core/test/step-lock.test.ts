// The step lock (step-lock.ts): a live process holding it refuses every other (LOCK_HELD);
// a holder that is gone — exited, its pid now someone else's, or from an earlier boot — is
// broken and the lock taken; the holder takes it again freely and releases only its own.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: a real live process to name as the holder
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { acquireStepLock, isHolderAlive, processStartTicks, releaseStepLocks, stepLockPath } from '../src/index.ts'
import type { StepLock } from '@repairline/schemas'
import { tempDir } from '../../../test/helpers/tmp.ts'

const KEY = 'c'.repeat(64)
const bootId = (): string => readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()

function writeHolder (stateRoot: string, holder: { pid: number, start_ticks: number, boot_id: string }): string {
  const path = stepLockPath(stateRoot, KEY)
  mkdirSync(join(stateRoot, 'steps'), { recursive: true })
  writeFileSync(path, JSON.stringify({ v: 1, attempt_key: KEY, step: 'verify', ...holder }, null, 2) + '\n')
  return path
}

const holderOf = (path: string): StepLock => JSON.parse(readFileSync(path, 'utf8')) as StepLock

test('a live holder refuses the lock (LOCK_HELD) and keeps it; once it has exited, the lock is broken and taken', async t => {
  const stateRoot = tempDir(t)
  const child = spawn('/usr/bin/sleep', ['60'], { stdio: 'ignore' })
  t.after(() => child.kill('SIGKILL'))
  await new Promise(resolve => child.once('spawn', resolve))
  const pid = child.pid as number
  const ticks = processStartTicks(pid)
  assert.ok(ticks !== undefined)
  const path = writeHolder(stateRoot, { pid, start_ticks: ticks, boot_id: bootId() })
  const before = readFileSync(path)
  assert.throws(() => acquireStepLock(stateRoot, KEY, 'ask-provider'), { code: 'LOCK_HELD', message: new RegExp(`verify \\(pid ${pid}\\) is working on attempt`) })
  assert.deepEqual(readFileSync(path), before, 'the live holder\'s lock is untouched')

  // Positive control: the same lock once its process has exited is stale.
  child.kill('SIGKILL')
  await new Promise(resolve => child.once('exit', resolve))
  assert.equal(isHolderAlive(holderOf(path)), false)
  acquireStepLock(stateRoot, KEY, 'ask-provider')
  assert.deepEqual(holderOf(path), { ...holderOf(path), pid: process.pid, step: 'ask-provider' })
  releaseStepLocks()
  assert.equal(existsSync(path), false, 'released')
})

test('a lock naming a reused pid (another start time) or an earlier boot is stale', t => {
  const stateRoot = tempDir(t)
  const ticks = processStartTicks('self') as number
  for (const holder of [{ pid: process.pid, start_ticks: ticks + 1, boot_id: bootId() }, { pid: process.pid, start_ticks: ticks, boot_id: '00000000-0000-0000-0000-000000000000' }]) {
    const path = writeHolder(stateRoot, holder)
    acquireStepLock(stateRoot, KEY, 'reproduce')
    assert.equal(holderOf(path).step, 'reproduce')
    releaseStepLocks()
  }
})

test('the holder takes its own lock again; release leaves a lock that names another process', t => {
  const stateRoot = tempDir(t)
  acquireStepLock(stateRoot, KEY, 'gate-patch')
  acquireStepLock(stateRoot, KEY, 'verify')
  const path = stepLockPath(stateRoot, KEY)
  assert.equal(holderOf(path).step, 'gate-patch', 'kept as taken')
  // Replaced behind our back (not possible while we live, but release must not trust it).
  writeHolder(stateRoot, { pid: 1, start_ticks: processStartTicks(1) ?? 0, boot_id: bootId() })
  releaseStepLocks()
  assert.equal(holderOf(path).pid, 1, 'another process\'s lock is not removed')
})

test('a malformed or symlinked step lock is STATE_UNSAFE, not taken', t => {
  const stateRoot = tempDir(t)
  const path = stepLockPath(stateRoot, KEY)
  mkdirSync(join(stateRoot, 'steps'))
  writeFileSync(path, '{"v":1}\n')
  assert.throws(() => acquireStepLock(stateRoot, KEY, 'verify'), { code: 'STATE_UNSAFE' })
  assert.equal(readFileSync(path, 'utf8'), '{"v":1}\n')
  rmSync(path)
  writeFileSync(join(stateRoot, 'elsewhere'), '{}\n')
  symlinkSync(join(stateRoot, 'elsewhere'), path)
  assert.throws(() => acquireStepLock(stateRoot, KEY, 'verify'), { code: 'STATE_UNSAFE', message: /symlink/ })
  // Positive control: with the file gone, the lock is taken.
  rmSync(path)
  acquireStepLock(stateRoot, KEY, 'verify')
  releaseStepLocks()
})
