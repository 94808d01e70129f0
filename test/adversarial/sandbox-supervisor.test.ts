// A supervisor that dies while its sandbox runs. Caught signals (SIGINT, SIGTERM, SIGHUP): the
// supervisor kills the sandbox's process group and cgroups, removes the groups and ends by
// that signal. Without the listeners (as under SIGKILL, which nothing catches: S12 in
// tools/core/test/runners-adversarial, and tools/core/test/sandbox-lifetime.test.ts) the
// supervisor's launcher kills and removes them once it sees the supervisor die; and the next
// supervisor kills whatever still runs in a dead supervisor's cgroups and removes them, with
// its control: a group whose supervisor is alive is left alone. (Before the listeners,
// killing `admit run` with SIGTERM at the moment bwrap started left bwrap's child, about one time in ten, waiting for ever on its uid map:
// bwrap had died of SIGPIPE writing its status to the dead supervisor. A probe of 210 such
// kills left none after; no test here can hit that window on demand.)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: a supervisor process to kill, argv arrays
import { randomInt } from 'node:crypto'
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHierarchies, SandboxCgroup } from '@repairline/core'
import { ROOT } from '../helpers/bin.ts'
import { makeTree, orphanCgroups, processesWith, sandboxTemp, TEST_LIMITS } from '../helpers/sandbox.ts'

const VICTIM = join(ROOT, 'test', 'helpers', 'sandbox-victim.ts')

/** A unique extra duration for `sleep`, so the sandboxed command's argv names its run. */
const markerOf = (): string => `0.000${String(randomInt(1e9))}`

interface Victim { child: ChildProcess, ended: Promise<{ code: number | null, signal: NodeJS.Signals | null }> }

/** Starts the victim supervisor and resolves once it prints `line`. */
async function startVictim (marker: string, tree: string, mode: 'protected' | 'unprotected', line: 'placed' | 'released'): Promise<Victim> {
  const child = spawn(process.execPath, ['--import', 'tsx', VICTIM, marker, tree, mode], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT })
  const ended = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })))
  let out = ''
  let err = ''
  child.stderr?.on('data', (b: Buffer) => { err += b.toString('utf8') })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => { out += b.toString('utf8'); if (out.includes(line)) resolve() })
    void ended.then(e => reject(new Error(`the victim ended (${String(e.code ?? e.signal)}) before ${line}: ${err.slice(-600)}`)))
  })
  return { child, ended }
}

/** Waits up to `ms` for `check` to hold; returns whether it did. */
async function eventually (check: () => boolean, ms = 3000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise(resolve => setTimeout(resolve, 20))) if (check()) return true
  return check()
}

function killAll (pids: readonly number[]): void {
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL') } catch {} }
}

const groupsOf = (pid: number | undefined): string[] => orphanCgroups().filter(d => d.includes(`/rl-sbx-${String(pid)}-`))

test('a supervisor ended by SIGTERM, SIGINT or SIGHUP, before or after the command is released, kills its sandbox, removes its cgroups and ends by that signal', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', { 'a.txt': 'a\n' })
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    for (const at of ['placed', 'released'] as const) {
      const marker = markerOf()
      const v = await startVictim(marker, tree, 'protected', at)
      v.child.kill(signal)
      const ended = await v.ended
      assert.deepEqual(ended, { code: null, signal }, `${signal} at ${at}`)
      assert.ok(await eventually(() => processesWith(marker).length === 0), `${signal} at ${at}: sandbox processes outlived the supervisor: ${processesWith(marker).join(', ')}`)
      assert.deepEqual(groupsOf(v.child.pid), [], `${signal} at ${at}`)
      killAll(processesWith(marker))
    }
  }
  // Control: the same supervisor without its listeners ends by the signal too, without a
  // teardown of its own; its launcher sees it die and kills and removes the groups itself
  // (the path a SIGKILL takes: tools/core/test/sandbox-lifetime.test.ts).
  const marker = markerOf()
  const v = await startVictim(marker, tree, 'unprotected', 'released')
  v.child.kill('SIGTERM')
  assert.deepEqual(await v.ended, { code: null, signal: 'SIGTERM' })
  assert.ok(await eventually(() => processesWith(marker).length === 0))
  assert.ok(await eventually(() => groupsOf(v.child.pid).length === 0), `the launcher left ${groupsOf(v.child.pid).join(', ')}`)
})

test('a new supervisor kills what still runs in a dead supervisor\'s cgroups and removes them; a live supervisor\'s group is left alone', async t => {
  const found = findHierarchies()
  assert.ok(found.ok, found.ok ? '' : found.why)
  // A dead supervisor: a process that has exited (its pid is not reused within this test).
  const gone = spawn('/usr/bin/true', [], { stdio: 'ignore' })
  await new Promise(resolve => gone.once('exit', resolve))
  // A live one: a process that stays up until the end.
  const alive = spawn('/usr/bin/sleep', ['60'], { stdio: 'ignore' })
  t.after(() => { alive.kill('SIGKILL') })
  const tasks: Record<'dead' | 'live', { marker: string, dirs: string[] }> = { dead: { marker: markerOf(), dirs: [] }, live: { marker: markerOf(), dirs: [] } }
  for (const [which, pid] of [['dead', gone.pid], ['live', alive.pid]] as const) {
    const sleeper = spawn('/usr/bin/sleep', ['60', tasks[which].marker], { stdio: 'ignore' })
    t.after(() => { sleeper.kill('SIGKILL') })
    for (const h of found.ok ? found.hierarchies : []) {
      const dir = join(h.ownDir, `rl-sbx-${String(pid)}-0000${which === 'dead' ? 'dead' : 'beef'}`)
      mkdirSync(dir)
      writeFileSync(join(dir, 'cgroup.procs'), String(sleeper.pid))
      tasks[which].dirs.push(dir)
    }
  }
  assert.equal(processesWith(tasks.dead.marker).length, 1)
  // Creating the next sandbox's groups sweeps the dead supervisor's.
  SandboxCgroup.create(TEST_LIMITS).remove()
  assert.ok(await eventually(() => processesWith(tasks.dead.marker).length === 0), 'the task of the dead supervisor\'s group still runs')
  for (const d of tasks.dead.dirs) assert.equal(existsSync(d), false, d)
  // Positive control: the live supervisor's group and its task are untouched.
  assert.equal(processesWith(tasks.live.marker).length, 1)
  for (const d of tasks.live.dirs) assert.equal(existsSync(d), true, d)
  killAll(processesWith(tasks.live.marker))
  for (const d of tasks.live.dirs) assert.ok(await eventually(() => { try { rmdirSync(d); return true } catch { return false } }), d)
})
