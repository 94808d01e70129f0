// reproduce's two lock refusals through its real bin, on attempts admitted and extracted by
// the real admit and extract-tree bins: the state lock no longer names the attempt (LOCK_LOST,
// 75) and another live process holds the attempt's step lock (LOCK_HELD, 75). Neither runs a
// test or writes anything in the attempt (no work/ tree, no baseline files, no outcome), and
// each has its positive control: the lock put back, or its holder gone, the same command
// reproduces.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Baseline, Lock, StepLock } from '@repairline/schemas'
import { isValid, lockPath, parseDocument, processStartTicks, releaseLock, stepLockPath } from '@repairline/core'
import { snapshot } from '../../../test/helpers/snapshot.ts'
import { makeFixture, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { runBin, errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { orphanCgroups, sandboxTemp, warmGoCache } from '../../../test/helpers/sandbox.ts'

interface Admitted { f: Fixture, dir: string, key: string }

/** A fixture in a directory the sandbox user can reach, admitted and extracted by the real bins. */
async function admitted (t: TestContext, o: FixtureOptions = {}): Promise<Admitted> {
  const f = await makeFixture(sandboxTemp(t), o)
  const a = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(a.exitCode, 0, a.stderr)
  const rec = a.records.find(r => r.kind === 'attempt')
  assert.ok(rec?.kind === 'attempt')
  const x = await runBin('extract-tree', ['--attempt', rec.path])
  assert.equal(x.exitCode, 0, x.stderr)
  return { f, dir: rec.path, key: rec.key }
}

async function reproduceBin (a: Admitted): Promise<BinResult> {
  return await runBin('reproduce', ['--attempt', a.dir], { env: { GOCACHE: await warmGoCache() } })
}

const bootId = (): string => readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()

/** A refusal before any work: the code, 75, one stderr line, and the attempt exactly as it was. */
function assertRefused (a: Admitted, r: BinResult, code: 'LOCK_LOST' | 'LOCK_HELD', before: string[], name: string): void {
  const err = errorOf(r)
  assert.equal(err?.code, code, `${name}: expected ${code}, got ${JSON.stringify(err)}; stderr: ${r.stderr}`)
  assert.equal(r.exitCode, 75, `${name}: ${r.stderr}`)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'error', 'result'], name)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'reproduce', exit: 75 }, name)
  assert.match(r.stderr, new RegExp(`^reproduce: ${code}: [^\\n]+\\n`, 'm'), name)
  assert.deepEqual(snapshot(a.dir), before, `${name}: something was written in the attempt`)
  for (const f of ['work', 'baseline.json', 'baseline.events.ndjson', 'outcome.json']) assert.equal(existsSync(join(a.dir, f)), false, `${name}: ${f} exists`)
}

/** The positive control: the same command reproduces the fixture's failing test. */
async function assertReproduces (a: Admitted): Promise<void> {
  const r = await reproduceBin(a)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'baseline', 'result'])
  const b: Baseline = parseDocument('baseline', readFileSync(join(a.dir, 'baseline.json')), 'baseline.json')
  assert.equal(b.reproduced, true)
  assert.deepEqual(b.failing, ['example.com/calc::TestAdd'])
  assert.ok(existsSync(join(a.dir, 'work', 'baseline')))
  assert.equal(existsSync(stepLockPath(a.f.stateDir, a.key)), false, 'the step lock is released when the step ends')
  assert.deepEqual(orphanCgroups(), [])
}

test('the state lock no longer names the attempt: LOCK_LOST (75), no test run and nothing written; with the lock put back, the same command reproduces', async t => {
  // Two cases, so that a second admission can take the lock once the first attempt's is gone.
  const a = await admitted(t, { cases: [{ package: '.', name: 'example.com/calc::TestAdd' }, { id: 'add-again', package: '.', name: 'example.com/calc::TestAdd' }] })
  const path = lockPath(a.f.stateDir)
  const held = readFileSync(path)
  const lock = parseDocument('lock', held, 'lock')
  assert.deepEqual([lock.attempt_key, lock.attempt_dir], [a.key, a.dir])
  const rewrite = (change: Partial<Lock>): void => {
    const forged = { ...lock, ...change }
    assert.ok(isValid('lock', forged))
    writeFileSync(path, JSON.stringify(forged, null, 2) + '\n')
  }
  const losses: Record<string, () => Promise<void>> = {
    'released (no lock at all)': async () => { assert.equal(releaseLock(a.f.stateDir, a.key, a.dir), true) },
    'naming another attempt key': async () => { rewrite({ attempt_key: 'f'.repeat(64) }) },
    'naming this key under another attempt directory': async () => { rewrite({ attempt_dir: join(a.f.stateDir, 'attempts', '0123456789abcdef') }) },
    // What an operator meets: the lock released (a seal, a break) and the next case admitted.
    'taken by the next admission': async () => {
      assert.equal(releaseLock(a.f.stateDir, a.key, a.dir), true)
      const next = await runBin('admit', ['run', '--config', a.f.configPath, '--report', a.f.reportPath])
      assert.equal(next.exitCode, 0, next.stderr)
      const taken = parseDocument('lock', readFileSync(path), 'lock')
      assert.notEqual(taken.attempt_key, a.key, 'the next admission holds the lock')
    },
  }
  for (const [name, lose] of Object.entries(losses)) {
    await lose()
    const lockNow = existsSync(path) ? readFileSync(path) : undefined
    const before = snapshot(a.dir)
    const r = await reproduceBin(a)
    assertRefused(a, r, 'LOCK_LOST', before, name)
    // The hint names the path the lock holds, whichever side a symlink is on.
    if (name === 'naming this key under another attempt directory') assert.match(r.stderr, new RegExp(`hint: pass the attempt directory as the lock names it, ${join(a.f.stateDir, 'attempts', '0123456789abcdef')}:`))
    assert.deepEqual(existsSync(path) ? readFileSync(path) : undefined, lockNow, `${name}: the lock was touched`)
    assert.equal(existsSync(stepLockPath(a.f.stateDir, a.key)), false, `${name}: the step lock was taken`)
    writeFileSync(path, held)
  }
  assert.deepEqual(orphanCgroups(), [])

  // Positive control: the lock as admit wrote it.
  assert.ok(readFileSync(path).equals(held))
  await assertReproduces(a)
})

test('another live process holds the attempt\'s step lock: LOCK_HELD (75), no test run and nothing written; once it is killed, the same command reproduces', async t => {
  const a = await admitted(t)
  const holder = execa('/usr/bin/sleep', ['600'], { reject: false })
  t.after(() => { holder.kill('SIGKILL') })
  const pid = holder.pid
  assert.ok(pid !== undefined)
  const ticks = processStartTicks(pid)
  assert.ok(ticks !== undefined)
  const stepLock = stepLockPath(a.f.stateDir, a.key)
  mkdirSync(join(a.f.stateDir, 'steps'), { recursive: true })
  const stateLock = readFileSync(lockPath(a.f.stateDir))
  for (const step of ['reproduce', 'verify'] as const) {
    const lock: StepLock = { v: 1, attempt_key: a.key, step, pid, start_ticks: ticks, boot_id: bootId() }
    assert.ok(isValid('step-lock', lock))
    writeFileSync(stepLock, JSON.stringify(lock, null, 2) + '\n')
    const lockBytes = readFileSync(stepLock)
    const before = snapshot(a.dir)
    const r = await reproduceBin(a)
    assertRefused(a, r, 'LOCK_HELD', before, `held by ${step}`)
    assert.match(r.stderr, new RegExp(`${step} \\(pid ${pid}\\) is working on attempt ${a.key.slice(0, 16)}`))
    assert.ok(readFileSync(stepLock).equals(lockBytes), 'the live holder\'s step lock is untouched')
    assert.ok(readFileSync(lockPath(a.f.stateDir)).equals(stateLock), 'the state lock is untouched')
  }
  assert.deepEqual(orphanCgroups(), [])

  // Positive control: the holder killed (as a crash would), its lock is stale and the same command reproduces.
  holder.kill('SIGKILL')
  await holder
  assert.equal(processStartTicks(pid), undefined)
  assert.ok(existsSync(stepLock))
  await assertReproduces(a)
})
