// Nothing of a sandbox outlives its supervisor (docs/sandbox-lifetime.md). A run is aborted at
// every hook of its start-up, and a supervisor is killed at 40 random moments of it (half
// SIGTERM, half SIGKILL); each time, within 3 s, no process of that run may be alive (found by
// the unique marker in its argv: bwrap's, the launcher's and the command's all carry it;
// never by uid, which other runs share) and none of its cgroups may be left. Positive
// controls: the same finders see a live run's processes and groups, and a missing launcher is
// a refusal, not a run without the guarantee.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: supervisors to kill, argv arrays
import { randomInt } from 'node:crypto'
import { readdirSync, rmdirSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { defaultLauncherPath, findHierarchies, runSandbox, toolError, type SandboxSpec } from '../src/index.ts'
import { ROOT } from '../../../test/helpers/bin.ts'
import { TEST_LIMITS, leftoverCgroups, makeTree, processesWith, sandboxTemp } from '../../../test/helpers/sandbox.ts'

/** A unique extra duration for `sleep`, so every process of a run names it in its argv. */
const markerOf = (): string => `0.000${String(randomInt(1e9))}`

/** Polls `check` until it holds or `ms` passes; returns whether it held. */
async function eventually (check: () => boolean, ms = 3000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise(resolve => setTimeout(resolve, 10))) if (check()) return true
  return check()
}

function killAll (pids: readonly number[]): void {
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL') } catch {} }
}

/** The directories a supervisor's groups are made in: ours, or a victim's own (lifetime-victim.ts). */
function parentsOf (pid: number): string[] {
  const found = findHierarchies()
  if (!found.ok) throw new Error(found.why)
  return found.hierarchies.map(h => pid === process.pid ? h.ownDir : join(h.ownDir, `rl-test-life-${pid}`))
}

/** The sandbox cgroups whose supervisor is `pid` (its pid is in their names). */
function groupsOf (pid: number): string[] {
  return parentsOf(pid).flatMap(dir => {
    try { return readdirSync(dir).filter(n => n.startsWith(`rl-sbx-${pid}-`)).map(n => join(dir, n)) } catch { return [] }
  })
}

/** What is left of a run: its processes (by marker) and its groups. */
const leftOf = (marker: string, supervisor: number): string[] => [...processesWith(marker).map(p => `pid ${p}`), ...groupsOf(supervisor)]

type Hooks = (abort: AbortController) => Partial<SandboxSpec>

test('a run aborted at any hook of its start-up leaves no process and no cgroup; the finders see a live run (control)', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', { 'a.txt': 'a\n' })
  const run = async (marker: string, hooks: Hooks, command = ['/usr/bin/sleep', '60', marker]): Promise<unknown> => {
    const abort = new AbortController()
    const extra = hooks(abort)
    return await runSandbox({ command, cwd: '/src', env: {}, mounts: [{ source: tree, dest: '/src' }], limits: TEST_LIMITS, timeoutMs: 60_000, signal: abort.signal, ...extra })
  }
  const cases: Array<{ at: string, hooks: Hooks, code: string }> = [
    { at: 'whileStarting throws', hooks: () => ({ whileStarting: () => { throw toolError('SANDBOX_BIND_UNSAFE', 'a special file was seeded') } }), code: 'SANDBOX_BIND_UNSAFE' },
    { at: 'aborted before the call', hooks: a => { a.abort(); return {} }, code: 'RUN_INCOMPLETE' },
    // whileStarting runs right after the launcher is spawned, before bwrap's report is read.
    { at: 'aborted before bwrap reports', hooks: a => ({ whileStarting: () => { a.abort() } }), code: 'RUN_INCOMPLETE' },
    { at: 'aborted after bwrap reports (placed, not released)', hooks: a => ({ onPlaced: () => { a.abort() } }), code: 'RUN_INCOMPLETE' },
    { at: 'onPlaced throws', hooks: () => ({ onPlaced: () => { throw toolError('SANDBOX_UNAVAILABLE', 'a readback failed') } }), code: 'SANDBOX_UNAVAILABLE' },
  ]
  for (const c of cases) {
    const marker = markerOf()
    await assert.rejects(run(marker, c.hooks), { code: c.code }, c.at)
    const ok = await eventually(() => leftOf(marker, process.pid).length === 0)
    const left = leftOf(marker, process.pid)
    killAll(processesWith(marker))
    assert.ok(ok, `${c.at}: left ${left.join(', ')}`)
  }
  // Positive control: while placed, the run's processes carry the marker and are in its groups.
  const marker = markerOf()
  let seen: { byMarker: number[], inGroup: number[], placed: number[], groups: string[] } | undefined
  const r = await run(marker, () => ({
    onPlaced: p => { seen = { byMarker: processesWith(marker), inGroup: p.cgroup.pids(), placed: [p.bwrapPid, p.childPid], groups: leftoverCgroups() } },
  }), ['/usr/bin/sleep', marker]) as { report: { exit: { code: number | null } } }
  assert.equal(r.report.exit.code, 0)
  assert.ok(seen !== undefined)
  for (const pid of seen.placed) {
    assert.ok(seen.byMarker.includes(pid), `pid ${pid} not found by its marker: ${seen.byMarker.join(', ')}`)
    assert.ok(seen.inGroup.includes(pid), `pid ${pid} not in its cgroup: ${seen.inGroup.join(', ')}`)
  }
  assert.notDeepEqual(seen.groups, [])
  assert.deepEqual(leftOf(marker, process.pid), [])
})

test('a missing launcher is a refusal before anything is made: no run goes without the lifetime guarantee', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const missing = join(sandboxTemp(t), 'sandbox-launch')
  await assert.rejects(runSandbox({ command: ['/usr/bin/true'], cwd: '/src', env: {}, mounts: [{ source: tree, dest: '/src' }], limits: TEST_LIMITS, timeoutMs: 30_000, launcher: missing }), (e: Error & { code?: string, hint?: string }) => {
    assert.equal(e.code, 'SANDBOX_UNAVAILABLE')
    assert.match(e.message, /the sandbox launcher .*sandbox-launch is missing/)
    assert.match(e.hint ?? '', /C compiler/)
    return true
  })
  assert.deepEqual(leftoverCgroups(), [])
  // Control: the build's launcher runs the same command.
  const r = await runSandbox({ command: ['/usr/bin/true'], cwd: '/src', env: {}, mounts: [{ source: tree, dest: '/src' }], limits: TEST_LIMITS, timeoutMs: 30_000, launcher: defaultLauncherPath() })
  assert.equal(r.report.exit.code, 0)
})

type Line = 'starting' | 'spawned' | 'placed'
interface Victim { child: ChildProcess, ended: Promise<{ code: number | null, signal: NodeJS.Signals | null }>, said: (line: Line) => boolean, when: (line: Line) => Promise<void>, stderr: () => string }

test('a supervisor killed at 40 random moments of start-up (half SIGTERM, half SIGKILL) leaves no process and no cgroup of its run', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'a.txt': 'a\n' })
  // The supervisor, bundled: node starts it in a fraction of what tsx takes for the sources.
  const bundle = join(dir, 'victim.mjs')
  await build({ entryPoints: [join(ROOT, 'tools', 'core', 'test', 'lifetime-victim.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } })
  const live = new Set<ChildProcess>()
  const markers: string[] = []
  const victims: number[] = []
  /** Removes a victim's own groups (empty by then) and, in a failed run, what is left in them. */
  const removeNest = (pid: number): void => {
    for (const g of groupsOf(pid)) { try { rmdirSync(g) } catch {} }
    for (const dir of parentsOf(pid)) { try { rmdirSync(dir) } catch {} }
  }
  t.after(() => {
    for (const c of live) c.kill('SIGKILL')
    for (const m of markers) killAll(processesWith(m))
    for (const pid of victims) removeNest(pid)
  })

  /** Starts a supervisor and resolves once it is about to call runSandbox. */
  const start = async (marker: string): Promise<Victim> => {
    markers.push(marker)
    const child = spawn(process.execPath, [bundle, marker, tree, defaultLauncherPath()], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT })
    live.add(child)
    if (child.pid !== undefined) victims.push(child.pid)
    const ended = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => { live.delete(child); resolve({ code, signal }) }))
    let out = ''
    let err = ''
    child.stderr?.on('data', (b: Buffer) => { err += b.toString('utf8') })
    const said = (line: Line): boolean => out.includes(`${line}\n`)
    const when = async (line: Line): Promise<void> => await new Promise<void>((resolve, reject) => {
      if (said(line)) { resolve(); return }
      child.stdout?.on('data', () => { if (said(line)) resolve() })
      void ended.then(e => { if (!said(line)) reject(new Error(`the supervisor ended (${String(e.code ?? e.signal)}) before ${line}: ${err.slice(-600)}`)) })
    })
    child.stdout?.on('data', (b: Buffer) => { out += b.toString('utf8') })
    await when('starting')
    return { child, ended, said, when, stderr: () => err }
  }

  // The start-up's length here and now: from the call, and from the launcher's spawn, to the
  // placed sandbox.
  const probe = await start(markerOf())
  const t0 = performance.now()
  await probe.when('spawned')
  const t1 = performance.now()
  await probe.when('placed')
  const span = { starting: performance.now() - t0, spawned: performance.now() - t1 }
  probe.child.kill('SIGTERM')
  await probe.ended
  removeNest(probe.child.pid as number)

  const failures: string[] = []
  let afterPlaced = 0
  const one = async (i: number): Promise<void> => {
    const signal = i % 2 === 0 ? 'SIGTERM' : 'SIGKILL'
    // Half the kills from the call on (most of which find nothing started yet), half from the
    // launcher's spawn on: the launcher, bwrap's start and the placement.
    const from: Line = i % 4 < 2 ? 'starting' : 'spawned'
    const marker = markerOf()
    const v = await start(marker)
    await v.when(from)
    const delay = randomInt(Math.max(1, Math.round(span[from] * 1.5)))
    await new Promise(resolve => setTimeout(resolve, delay))
    if (v.said('placed')) afterPlaced++
    v.child.kill(signal)
    const ended = await v.ended
    const supervisor = v.child.pid as number
    const gone = await eventually(() => leftOf(marker, supervisor).length === 0)
    const left = leftOf(marker, supervisor)
    killAll(processesWith(marker))
    // A supervisor ends by the signal it was sent (a shell shows 128 + its number).
    if (ended.signal !== signal) failures.push(`#${i} ${signal} ${delay} ms after ${from}: ended ${String(ended.code ?? ended.signal)}: ${v.stderr().slice(-400)}`)
    if (!gone) failures.push(`#${i} ${signal} ${delay} ms after ${from}: left ${left.join(', ')}`)
    removeNest(supervisor)
  }
  // Three supervisors at a time, each with its own marker and groups.
  let next = 0
  await Promise.all([0, 1, 2].map(async () => { while (next < 40) await one(next++) }))
  assert.deepEqual(failures, [])
  t.diagnostic(`start-up ${Math.round(span.starting)} ms from the call, ${Math.round(span.spawned)} ms from the launcher's spawn; ${afterPlaced} of 40 kills landed after placement`)
})
