// Process-tree limits through cgroup v1 (DESIGN §11; this is the rung that works on a host
// without systemd: memory with memsw, pids, cpu). The sandbox's groups are created BENEATH
// the groups this process runs in, as read from /proc/self/cgroup, one per controller; this
// process never moves itself or anything else out of the group it started in. Limits are
// written, then read back from the same files: a reading that differs from what was asked
// is a refusal. The sandbox's processes are never moved in from outside: the launcher
// (launcher.ts) starts the launch chain already in the groups, and the supervisor verifies
// the placement from /proc/<pid>/cgroup. At the end every task in the groups is SIGKILLed and
// the groups are removed once empty; a supervisor that died first has its launcher do that.

import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync, existsSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { toolError } from '../errors.ts'
import type { LimitReading, SandboxRun } from '@repairline/schemas'
import type { SandboxLimits } from './limits.ts'
import { parseMountinfo } from './mountinfo.ts'

export const CONTROLLERS = ['memory', 'pids', 'cpu'] as const
export type Controller = (typeof CONTROLLERS)[number]

/** How one limit is in force (limit-reading.schema.json). */
export type { LimitReading }

interface Hierarchy {
  controller: Controller
  /** Where this process's own group is, as a directory. */
  ownDir: string
  /** Its path inside the hierarchy, from /proc/self/cgroup. */
  ownPath: string
}

const CFS_PERIOD_US = 100_000
const NAME_PREFIX = 'rl-sbx-'

/** Parses /proc/<pid>/cgroup into controller → path (v1 lines only). */
export function parseProcCgroup (text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line)
    if (m === null || m[1] === '') continue
    for (const c of (m[1] ?? '').split(',')) out.set(c, m[2] ?? '')
  }
  return out
}

/** The v1 hierarchies of memory, pids and cpu, with this process's own group in each. */
export function findHierarchies (): { ok: true, hierarchies: Hierarchy[] } | { ok: false, why: string } {
  const own = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'))
  const mounts = new Map<string, { mountPoint: string, root: string }>()
  for (const { fstype, root, mountPoint, superOptions } of parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'))) {
    if (fstype !== 'cgroup') continue
    for (const opt of superOptions) {
      if ((CONTROLLERS as readonly string[]).includes(opt) && !mounts.has(opt)) mounts.set(opt, { mountPoint, root })
    }
  }
  const hierarchies: Hierarchy[] = []
  for (const c of CONTROLLERS) {
    const m = mounts.get(c)
    const ownPath = own.get(c)
    if (m === undefined) return { ok: false, why: `no cgroup v1 hierarchy with the ${c} controller is mounted` }
    if (ownPath === undefined) return { ok: false, why: `/proc/self/cgroup names no ${c} group` }
    if (m.root !== '/' && !(ownPath === m.root || ownPath.startsWith(`${m.root}/`))) return { ok: false, why: `our ${c} group ${ownPath} is outside its mount's root ${m.root}` }
    const rel = m.root === '/' ? ownPath : ownPath.slice(m.root.length)
    const ownDir = join(m.mountPoint, rel)
    if (!existsSync(join(ownDir, 'cgroup.procs'))) return { ok: false, why: `our ${c} group ${ownDir} is not there (the hierarchy is not visible at its mount point)` }
    hierarchies.push({ controller: c, ownDir, ownPath })
  }
  return { ok: true, hierarchies }
}

function readTrim (p: string): string {
  return readFileSync(p, 'utf8').trim()
}

function pidAlive (pid: number): boolean {
  return existsSync(`/proc/${pid}`)
}

/** Removes empty sandbox groups left by a supervisor that died (its pid is in the name). */
function removeStale (h: Hierarchy): void {
  let names: string[]
  try { names = readdirSync(h.ownDir) } catch { return }
  for (const n of names) {
    const m = /^rl-sbx-(\d+)-[0-9a-f]+$/.exec(n)
    if (m === null || pidAlive(Number(m[1]))) continue
    // Its supervisor died without a teardown (SIGKILL): whatever still runs in it is a
    // sandbox nobody supervises. Killed, then the group goes once the kernel has reaped them.
    const dir = join(h.ownDir, n)
    for (let tries = 0; tries < 50; tries++) {
      try { rmdirSync(dir); break } catch {}
      for (const pid of tasksIn(dir)) { try { process.kill(pid, 'SIGKILL') } catch {} }
      Atomics.wait(PAUSE, 0, 0, 2)
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4))

/** The pids in one cgroup directory (none when it cannot be read). */
function tasksIn (dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(l => l !== '').map(Number)
  } catch {
    return []
  }
}

/** What the process tree used and which limits it hit (sandbox-run.json's usage). */
export type CgroupUsage = SandboxRun['usage']

/** One sandbox's groups: created with limits, read back, populated, killed, removed. */
export class SandboxCgroup {
  readonly name: string
  readonly dirs: Record<Controller, string>
  readonly readings: LimitReading[] = []
  private removed = false

  private constructor (name: string, dirs: Record<Controller, string>, private readonly hierarchies: readonly Hierarchy[]) {
    this.name = name
    this.dirs = dirs
  }

  /**
   * Creates the groups beneath our own and applies the limits; every limit is read back.
   * Refuses with SANDBOX_UNAVAILABLE (removing whatever it created) when a hierarchy is
   * missing, a write fails, or a reading differs.
   */
  static create (limits: Pick<SandboxLimits, 'memoryBytes' | 'tasks' | 'cpuPercent'>): SandboxCgroup {
    const cg = SandboxCgroup.plan()
    cg.make(limits)
    return cg
  }

  /**
   * Names the groups beneath our own, making nothing yet (the launcher that would remove them
   * is started between the two: launcher.ts). Refuses when a hierarchy is missing.
   */
  static plan (): SandboxCgroup {
    const found = findHierarchies()
    if (!found.ok) throw toolError('SANDBOX_UNAVAILABLE', `cgroup: ${found.why}`, { hint: 'the sandbox needs cgroup v1 memory, pids and cpu controllers writable by root' })
    const name = `${NAME_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`
    const dirs = {} as Record<Controller, string>
    for (const h of found.hierarchies) dirs[h.controller] = join(h.ownDir, name)
    return new SandboxCgroup(name, dirs, found.hierarchies)
  }

  /** Makes the planned groups with the limits, as create() does. */
  make (limits: Pick<SandboxLimits, 'memoryBytes' | 'tasks' | 'cpuPercent'>): void {
    try {
      for (const h of this.hierarchies) {
        removeStale(h)
        mkdirSync(this.dirs[h.controller], { mode: 0o755 })
      }
      this.apply(limits)
    } catch (e) {
      this.removeQuietly()
      if ((e as { name?: string }).name === 'ToolError') throw e
      throw toolError('SANDBOX_UNAVAILABLE', `cgroup: ${(e as Error).message}`, { cause: e, hint: 'the sandbox needs cgroup v1 memory, pids and cpu controllers writable by root' })
    }
  }

  private write (c: Controller, file: string, value: string): void {
    const p = join(this.dirs[c], file)
    try {
      writeFileSync(p, value)
    } catch (e) {
      throw toolError('SANDBOX_UNAVAILABLE', `cgroup: cannot write ${value} to ${p}: ${(e as Error).message}`, { cause: e })
    }
  }

  private readBack (c: Controller, file: string, name: string, want: string): void {
    const p = join(this.dirs[c], file)
    const got = readTrim(p)
    this.readings.push({ name, want, got, mechanism: 'cgroup-v1', source: p })
    if (got !== want) throw toolError('SANDBOX_UNAVAILABLE', `cgroup: ${name} did not take: wrote ${want} to ${p}, read back ${got}`)
  }

  private apply (l: Pick<SandboxLimits, 'memoryBytes' | 'tasks' | 'cpuPercent'>): void {
    const mem = String(l.memoryBytes)
    this.write('memory', 'memory.limit_in_bytes', mem)
    this.readBack('memory', 'memory.limit_in_bytes', 'memory', mem)
    // memsw = memory: the group may not use swap at all.
    if (existsSync(join(this.dirs.memory, 'memory.memsw.limit_in_bytes'))) {
      this.write('memory', 'memory.memsw.limit_in_bytes', mem)
      this.readBack('memory', 'memory.memsw.limit_in_bytes', 'memory+swap', mem)
    } else {
      const swap = /^SwapTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]
      this.readings.push({ name: 'memory+swap', want: mem, got: `no swap accounting; SwapTotal ${swap ?? '?'} kB`, mechanism: 'host', source: '/proc/meminfo' })
      if (swap !== '0') throw toolError('SANDBOX_UNAVAILABLE', 'cgroup: memory.memsw.limit_in_bytes is missing (no swap accounting) and the host has swap, so swap cannot be held at 0')
    }
    // The OOM killer must act at the limit (oom_kill_disable 1 would freeze the group instead).
    const oomPath = join(this.dirs.memory, 'memory.oom_control')
    const oom = /^oom_kill_disable \d+$/m.exec(readFileSync(oomPath, 'utf8'))?.[0] ?? 'absent'
    this.readings.push({ name: 'oom killer', want: 'oom_kill_disable 0', got: oom, mechanism: 'cgroup-v1', source: oomPath })
    if (oom !== 'oom_kill_disable 0') throw toolError('SANDBOX_UNAVAILABLE', `cgroup: ${oomPath} says ${oom}: the OOM killer would not act at the limit`)
    const tasks = String(l.tasks)
    this.write('pids', 'pids.max', tasks)
    this.readBack('pids', 'pids.max', 'tasks', tasks)
    const quota = String(Math.round(l.cpuPercent * CFS_PERIOD_US / 100))
    this.write('cpu', 'cpu.cfs_period_us', String(CFS_PERIOD_US))
    this.readBack('cpu', 'cpu.cfs_period_us', 'cpu period (us)', String(CFS_PERIOD_US))
    this.write('cpu', 'cpu.cfs_quota_us', quota)
    this.readBack('cpu', 'cpu.cfs_quota_us', 'cpu quota (us per period)', quota)
  }

  /**
   * The group directories, one per hierarchy (controllers mounted together share one): the
   * launcher writes the chain's first process into each one's cgroup.procs.
   */
  directories (): string[] {
    return [...new Set(CONTROLLERS.map(c => this.dirs[c]))]
  }

  /** Refuses unless `pid` is in every group, as /proc/<pid>/cgroup says. */
  assertPlaced (pid: number): void {
    const now = parseProcCgroup(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))
    for (const c of CONTROLLERS) {
      const p = now.get(c) ?? ''
      if (!p.endsWith(`/${this.name}`)) throw toolError('SANDBOX_UNAVAILABLE', `cgroup: pid ${pid} is in ${c}:${p}, not in ${this.name}`)
    }
  }

  /** Every pid in any of the groups. */
  pids (): number[] {
    return [...new Set(CONTROLLERS.flatMap(c => tasksIn(this.dirs[c])))]
  }

  /** SIGKILLs every task in the groups. Returns how many were signalled. */
  killAll (): number {
    let n = 0
    for (const pid of this.pids()) {
      try { process.kill(pid, 'SIGKILL'); n++ } catch {}
    }
    return n
  }

  /**
   * Kills every task until the groups are empty or `graceMs` passes; returns the pids still
   * present then (survivors).
   */
  async drain (graceMs: number): Promise<number[]> {
    const until = Date.now() + graceMs
    for (;;) {
      const left = this.pids()
      if (left.length === 0 || Date.now() >= until) return left
      for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
      await new Promise(resolve => setTimeout(resolve, 2))
    }
  }

  /** drain, blocking this thread: for a supervisor about to end by a signal, which cannot await. */
  drainSync (graceMs: number): number[] {
    const until = Date.now() + graceMs
    for (;;) {
      const left = this.pids()
      if (left.length === 0 || Date.now() >= until) return left
      for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
      Atomics.wait(PAUSE, 0, 0, 2)
    }
  }

  /** What the run used and which limits it hit. */
  usage (): CgroupUsage {
    const num = (c: Controller, file: string): number => {
      try { return Number(readTrim(join(this.dirs[c], file))) } catch { return 0 }
    }
    const field = (c: Controller, file: string, key: string): number => {
      try {
        const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(join(this.dirs[c], file), 'utf8'))
        return m === null ? 0 : Number(m[1])
      } catch { return 0 }
    }
    return {
      memory_peak_bytes: num('memory', 'memory.max_usage_in_bytes'),
      memory_failcnt: num('memory', 'memory.failcnt'),
      oom_kills: field('memory', 'memory.oom_control', 'oom_kill'),
      tasks_limit_hits: field('pids', 'pids.events', 'max'),
      cpu_throttled_periods: field('cpu', 'cpu.stat', 'nr_throttled'),
      cpu_throttled_ns: field('cpu', 'cpu.stat', 'throttled_time'),
    }
  }

  /** Removes the groups; they must be empty. Returns the directories that could not be removed. */
  remove (): string[] {
    if (this.removed) return []
    const left: string[] = []
    for (const c of CONTROLLERS) {
      try { rmdirSync(this.dirs[c]) } catch (e) {
        if ((e as { code?: string }).code !== 'ENOENT') left.push(this.dirs[c])
      }
    }
    if (left.length === 0) this.removed = true
    return left
  }

  private removeQuietly (): void {
    this.killAll()
    this.remove()
  }
}
