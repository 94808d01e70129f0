// The supervisor: runs one command in the sandbox (DESIGN §11) and reports what ran, under
// which limits (each read back from the kernel), what it used and how it ended.
//
// Order of work, each step a refusal (thrown ToolError) if it fails:
//   1. sample resources (available memory, free disk) and refuse below the floors;
//   2. check every bind source (no socket, FIFO or device; reachable by the sandbox user);
//   3. create the cgroups beneath our own and read every limit back;
//   4. close inherited descriptors that would cross into the sandbox (no FD_CLOEXEC);
//   5. spawn the launcher (launcher.ts), which starts prlimit → setpriv → bwrap already in the
//      cgroups; bwrap reports its child's pid and namespace ids and holds the child before any
//      sandboxed code runs;
//   6. verify that bwrap and its child are in the cgroups, compare every namespace id with
//      ours (a "try" namespace that silently failed is a refusal), read back the rlimits, the
//      tmpfs size, read-only mounts and the uid; then release the child.
// While it runs, the supervisor caps stdout and stderr (pipes ignore RLIMIT_FSIZE), samples
// resources, and at the deadline SIGKILLs bwrap and every task in the cgroups (bwrap does not
// pass SIGTERM on; graceful reporting is the runner's job, e.g. `go test -timeout`). When the
// command ends, every task left in the cgroups is killed; survivors after 2 s are reported.
// A deadline that passes before the command is released is DEADLINE_PASSED (a timeout, not a
// missing primitive); the caller's abort then is RUN_INCOMPLETE. Whatever ends a run (its
// end, the deadline, an abort or a throw at any step, a signal to the supervisor, the
// supervisor's death) ends every process of it: docs/sandbox-lifetime.md.

import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Readable, Writable } from 'node:stream'
import type { SandboxRun } from '@repairline/schemas'
import { isToolError, toolError } from '../errors.ts'
import { sha256Hex } from '../digest.ts'
import { BLOCK_FD, STATUS_FD, launchArgv, type SandboxMount } from './argv.ts'
import { assertBindSourcesSafe, type BindSource } from './bind-check.ts'
import { defaultScanMemoDir } from './bind-scan-memo.ts'
import { SandboxCgroup, type CgroupUsage, type LimitReading } from './cgroup.ts'
import { assertLauncher, defaultLauncherPath, launcherArgv } from './launcher.ts'
import { parseMountinfo } from './mountinfo.ts'
import { SANDBOX_GID, SANDBOX_UID, baseSystemDirs, euid, loaderPaths, missingPrograms } from './host.ts'
import { assertLimits, type SandboxLimits } from './limits.ts'
import { belowFloor, sampleResources, type ResourceSample } from './resources.ts'
import { readBackRlimits, rlimitRefusalHint } from './rlimits.ts'
import { SECCOMP_FD, seccompFilter, seccompReadingValue } from './seccomp.ts'
import { SessionKeyringLine } from './keyring.ts'
import { untilEndingSignal } from '../ending-signals.ts'

export type { SandboxMount } from './argv.ts'

/**
 * A running sandbox is killed whole by what its cgroups hold (every process of the chain is
 * in them from its first instruction): a supervisor ended by SIGINT, SIGTERM or SIGHUP kills
 * every task in them until they are empty (the launcher, alive, reaps what is orphaned),
 * removes them, then ends by that signal (ending-signals.ts); the launcher then sees it die
 * and kills a chain not placed yet. A run is registered before its cgroups are made, so no
 * signal finds them unowned. SIGKILL cannot be caught: the launcher sees its supervisor die
 * (a pidfd) and kills and removes the cgroups itself (launcher.ts).
 */
/** No sandbox process may outlive the kill by more than this. */
export const KILL_GRACE_MS = 2000
/** bwrap must report its child within this long after spawn. */
const START_TIMEOUT_MS = 15_000

export interface SandboxSpec {
  /** The command inside the sandbox: an absolute program and its arguments. */
  command: readonly string[]
  /** Working directory inside the sandbox. */
  cwd: string
  /** The complete environment inside the sandbox (only the names are recorded). */
  env: Readonly<Record<string, string>>
  /** Mounts in order (read-only unless writable), after /usr, the loader paths, /proc, /dev and /tmp. */
  mounts: readonly SandboxMount[]
  /** Host directories shown read-only at the same path (Node's prefix, GOROOT) when outside /usr. */
  systemDirs?: readonly string[]
  limits: SandboxLimits
  /** Wall-clock budget from the call to the kill (whileStarting's time not counted). */
  timeoutMs: number
  /** The unprivileged host user and group when running as root (default 65534). */
  uid?: number
  gid?: number
  /** Filesystems whose free space is sampled (default: the OS temp directory). */
  diskPaths?: readonly string[]
  /**
   * Stops the run like the deadline does; fired before the command is released, the run is
   * refused (RUN_INCOMPLETE) with nothing of it left.
   */
  signal?: AbortSignal
  /** The launcher program (default: the build's, launcher.ts); a missing one is SANDBOX_UNAVAILABLE. */
  launcher?: string
  /**
   * Runs right after bwrap is started, while it builds the sandbox on another core, and
   * before anything in it runs (work a mount's contents still need: a bind mount shows what
   * is added to its source later). What it throws ends the run as a setup failure does; the
   * time it takes is added to the deadline (it is the caller's work, not the command's).
   */
  whileStarting?: () => void
  /**
   * Mount sources whose contents the caller has checked for special files itself, and whose
   * reachability too (the go runner's GOCACHE overlay: its lower layer through the bind-scan
   * memo, its upper layer made empty): they are not walked here.
   */
  contentsChecked?: readonly string[]
  /** Called after placement and every readback, before the command starts (tests read the groups here). */
  onPlaced?: (p: PlacedSandbox) => void | Promise<void>
  /** Sees each stdout chunk as it arrives (live progress only; the result uses the kept bytes). */
  onStdout?: (chunk: Buffer) => void
}

export interface PlacedSandbox {
  bwrapPid: number
  childPid: number
  cgroup: SandboxCgroup
}

export type StopReason = NonNullable<SandboxRun['stop']>['reason']

export type NamespaceReading = SandboxRun['namespaces'][number]

/** What one sandbox run reports (sandbox-run.schema.json). */
export type SandboxRunReport = SandboxRun

export interface SandboxResult {
  report: SandboxRunReport
  /** stdout as kept (at most limits.stdoutBytes). */
  stdout: Buffer
  /** stderr as kept (at most limits.stderrBytes). */
  stderr: Buffer
}

const NAMESPACES = ['user', 'mnt', 'pid', 'net', 'ipc', 'uts', 'cgroup'] as const

/**
 * Closes every descriptor above 2 that lacks FD_CLOEXEC: it was inherited from whoever
 * started us (Node and libuv open everything close-on-exec), and would otherwise be passed
 * through setpriv and bwrap into the sandbox — an inherited directory descriptor reaches the
 * host filesystem whatever the mount namespace shows.
 */
export function closeInheritedFds (): number[] {
  const closed: number[] = []
  const channel = Number(process.env.NODE_CHANNEL_FD ?? -1)
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2) continue
    let flags: number
    try {
      const m = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))
      if (m === null) continue
      flags = parseInt(m[1] ?? '0', 8)
    } catch { continue }
    if ((flags & 0o2000000) !== 0) continue
    if (fd === channel) throw toolError('SANDBOX_UNAVAILABLE', `the IPC channel fd ${fd} is not close-on-exec and would be inherited by the sandbox`)
    try { closeSync(fd); closed.push(fd) } catch {}
  }
  return closed
}

/** Reads newline-separated JSON objects from bwrap's status fd. */
class StatusReader {
  private buf = ''
  readonly objects: Array<Record<string, unknown>> = []
  private waiters: Array<() => void> = []
  ended = false

  constructor (stream: Readable) {
    stream.setEncoding('utf8')
    stream.on('data', (s: string) => {
      this.buf += s
      for (;;) {
        const nl = this.buf.indexOf('\n')
        if (nl === -1) break
        const line = this.buf.slice(0, nl).trim()
        this.buf = this.buf.slice(nl + 1)
        if (line === '') continue
        try { this.objects.push(JSON.parse(line) as Record<string, unknown>) } catch {}
      }
      this.wake()
    })
    stream.on('end', () => { this.ended = true; this.wake() })
    stream.on('error', () => { this.ended = true; this.wake() })
  }

  private wake (): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** The first object with `key`, or undefined when the stream ended without one. */
  async first (key: string): Promise<Record<string, unknown> | undefined> {
    for (;;) {
      const o = this.objects.find(x => key in x)
      if (o !== undefined) return o
      if (this.ended) return undefined
      await new Promise<void>(resolve => this.waiters.push(resolve))
    }
  }
}

/**
 * Keeps at most `cap` bytes of a stream; calls `over` once when more arrives. The bytes are
 * copied as they arrive into one buffer: FIRST_KEPT_BYTES at first, then, if more come, one of
 * the whole cap, whose pages become resident only as they are written. The kept output is
 * never concatenated, so a flood costs the supervisor the cap and the chunks in flight, not
 * twice the cap (threat matrix §10: RSS ≤ cap + 64 MiB; test/adversarial/resources.test.ts),
 * and a run that prints little never takes the cap (64 MiB of external memory, which would
 * make V8 collect early).
 */
class CappedSink {
  private buf: Buffer | undefined
  kept = 0
  total = 0

  constructor (private readonly cap: number, private readonly over: () => void) {}

  push (b: Buffer): void {
    this.total += b.length
    if (this.kept < this.cap) {
      const take = Math.min(b.length, this.cap - this.kept)
      if (this.buf === undefined || this.kept + take > this.buf.length) this.grow(this.kept + take)
      this.kept += b.copy(this.buf as Buffer, this.kept, 0, take)
    }
    if (this.total > this.cap) this.over()
  }

  private grow (need: number): void {
    const next = Buffer.allocUnsafeSlow(need <= FIRST_KEPT_BYTES ? Math.min(this.cap, FIRST_KEPT_BYTES) : this.cap)
    this.buf?.copy(next, 0, 0, this.kept)
    this.buf = next
  }

  /** The kept bytes (a view of the sink's buffer). */
  bytes (): Buffer { return this.buf === undefined ? Buffer.alloc(0) : this.buf.subarray(0, this.kept) }
}

/** What a sink takes before it takes its whole cap. */
const FIRST_KEPT_BYTES = 1 << 20

function nsId (pid: number | 'self', name: string): string {
  return readlinkSync(`/proc/${pid}/ns/${name}`)
}

/** Every descendant of `root`, from /proc/<pid>/task/<tid>/children. */
function descendants (root: number): number[] {
  const out: number[] = []
  const frontier = [root]
  while (frontier.length > 0) {
    const p = frontier.pop() as number
    let tids: string[]
    try { tids = readdirSync(`/proc/${p}/task`) } catch { continue }
    for (const tid of tids) {
      let text = ''
      try { text = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8') } catch {}
      for (const c of text.split(' ')) {
        if (c.trim() === '') continue
        out.push(Number(c))
        frontier.push(Number(c))
      }
    }
  }
  return out
}

/** The one child of the launcher: the chain's first process, by now bwrap. */
function launcherChild (launcher: number): number {
  let text = ''
  try { text = readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8') } catch {}
  const pids = text.split(' ').filter(p => p.trim() !== '').map(Number)
  if (pids.length !== 1) throw toolError('SANDBOX_UNAVAILABLE', `the sandbox launcher ${launcher} has ${pids.length} children, not its one chain`)
  return pids[0] as number
}

// read(2)'s syscall number, to recognize bwrap's child blocked on the start gate.
const READ_SYSCALL: Partial<Record<string, number>> = { x64: 0, arm64: 63, riscv64: 63 }

/**
 * Waits until bwrap's child sits in read(BLOCK_FD, …, 1): it has finished every mount and
 * namespace step and runs nothing of the sandboxed command yet. bwrap reports the child's
 * pid right after clone, before that setup, so the mount table is only final from here on.
 */
async function waitAtGate (childPid: number, until: number): Promise<void> {
  const nr = READ_SYSCALL[process.arch]
  if (nr === undefined) throw toolError('SANDBOX_UNAVAILABLE', `cannot tell when bwrap reaches its start gate on ${process.arch}`)
  const want = new RegExp(`^${nr} 0x${BLOCK_FD.toString(16)} \\S+ 0x1 `)
  for (;;) {
    let text: string
    try { text = readFileSync(`/proc/${childPid}/syscall`, 'utf8') } catch {
      throw toolError('SANDBOX_UNAVAILABLE', `bwrap's child ${childPid} ended before its start gate`)
    }
    if (want.test(text)) return
    if (performance.now() > until) throw toolError('SANDBOX_UNAVAILABLE', `bwrap's child ${childPid} did not reach its start gate in time (at: ${text.trim()})`)
    await new Promise(resolve => setTimeout(resolve, 1))
  }
}

function statusIds (pid: number): { uid: string, gid: string } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  return { uid: /^Uid:\s+(.*)$/m.exec(s)?.[1]?.trim() ?? '', gid: /^Gid:\s+(.*)$/m.exec(s)?.[1]?.trim() ?? '' }
}

/** Reads the mount table of the held child: tmpfs size and read-only mounts. */
function readBackMounts (childPid: number, spec: SandboxSpec): LimitReading[] {
  const source = `/proc/${childPid}/mountinfo`
  const rows = parseMountinfo(readFileSync(source, 'utf8'))
  const at = (p: string): (typeof rows)[number] | undefined => rows.filter(r => r.mountPoint === p).at(-1)
  const readings: LimitReading[] = []
  const tmp = at('/tmp')
  const wantSize = `size=${spec.limits.tmpfsBytes / 1024}k`
  const gotSize = tmp === undefined ? 'absent' : tmp.fstype !== 'tmpfs' ? `${tmp.fstype}, not tmpfs` : (tmp.superOptions.find(o => o.startsWith('size=')) ?? 'no size')
  readings.push({ name: 'tmpfs /tmp size', want: wantSize, got: gotSize, mechanism: 'tmpfs', source })
  if (gotSize !== wantSize) throw toolError('SANDBOX_UNAVAILABLE', `tmpfs: /tmp size did not take: asked ${wantSize}, ${source} says ${gotSize}`)
  for (const m of [{ dest: '/', writable: false }, { dest: '/dev', writable: false }, ...spec.mounts]) {
    const row = at(m.dest)
    const want = m.writable === true ? 'rw' : 'ro'
    const got = row === undefined ? 'absent' : row.options.includes('ro') ? 'ro' : 'rw'
    readings.push({ name: `mount ${m.dest}`, want, got, mechanism: 'mount', source })
    if (got !== want) throw toolError('SANDBOX_UNAVAILABLE', `mount: ${m.dest} should be ${want}, ${source} says ${got}`)
  }
  return readings
}

/**
 * Runs `spec.command` in the sandbox and returns its report and output. Throws a ToolError
 * (SANDBOX_UNAVAILABLE, SANDBOX_BIND_UNSAFE, RESOURCES_LOW) when the sandbox cannot be set
 * up as specified; a command that fails, is killed, or floods output is a report, not an
 * exception.
 */
export async function runSandbox (spec: SandboxSpec): Promise<SandboxResult> {
  assertLimits(spec.limits)
  const t0 = performance.now()
  let deadlineAt = t0 + spec.timeoutMs
  const startedAt = new Date()
  const missing = missingPrograms()
  if (missing.length > 0) throw toolError('SANDBOX_UNAVAILABLE', `sandbox programs missing: ${missing.join(', ')}`, { hint: 'install bubblewrap, util-linux and keyutils' })
  const root = euid() === 0
  const uid = root ? spec.uid ?? SANDBOX_UID : euid()
  const gid = root ? spec.gid ?? SANDBOX_GID : process.getegid?.() ?? uid
  if (uid === 0) throw toolError('SANDBOX_UNAVAILABLE', 'the sandbox user may not be root')
  // Group root reads every root:root 0640 file of the tree and the toolchain: no less than root.
  if (gid === 0) throw toolError('SANDBOX_UNAVAILABLE', 'the sandbox group may not be root (gid 0)')
  const l = spec.limits

  const diskPaths = spec.diskPaths ?? [tmpdir()]
  const samples: ResourceSample[] = [sampleResources(diskPaths)]
  const low = belowFloor(samples[0] as ResourceSample, l.minAvailableMemoryBytes, l.minFreeDiskBytes)
  if (low !== undefined) throw toolError('RESOURCES_LOW', `refusing to start the sandbox: ${low}`, { hint: 'free memory or disk, then run again' })

  const loader = loaderPaths()
  const sources: BindSource[] = baseSystemDirs(loader).map(path => ({ path, system: true }))
  for (const d of spec.systemDirs ?? []) sources.push({ path: d, system: true })
  for (const m of spec.mounts) if (spec.contentsChecked?.includes(m.source) !== true) sources.push({ path: m.source })
  assertBindSourcesSafe(sources, uid, gid, defaultScanMemoDir())

  if (performance.now() >= deadlineAt) throw toolError('DEADLINE_PASSED', `the deadline (${spec.timeoutMs} ms) passed before the sandbox started`)
  const argv = launchArgv({ command: spec.command, cwd: spec.cwd, env: spec.env, mounts: spec.mounts, systemDirs: spec.systemDirs ?? [], limits: l, uid, gid, dropPrivileges: root, loader })
  // Before the cgroups: an architecture without a filter is refused with nothing made.
  const filter = seccompFilter()
  const keyring = new SessionKeyringLine()
  const launcher = assertLauncher(spec.launcher ?? defaultLauncherPath())
  // Named here, made only once the launcher runs: it removes them if this process dies.
  const cg = SandboxCgroup.plan()
  // Registered before anything is made: a signal from here on finds it owned. The launcher
  // is left alive: it reaps what the kill orphans, and ends once this process has.
  const untrack = untilEndingSignal(() => {
    cg.drainSync(KILL_GRACE_MS)
    cg.remove()
  })
  const readings: LimitReading[] = []
  let child: ChildProcess | undefined
  let stop: SandboxRunReport['stop']
  let survivors = 0
  let usage: CgroupUsage | undefined
  let closedFds: number[]
  let namespaces: NamespaceReading[]
  let exitCode: number | null = null
  let exitSignal: string | null = null
  let setupMs: number
  let runStart: number
  let teardownStart: number
  const stdout = new CappedSink(l.stdoutBytes, () => halt('output_limit', `stdout passed ${l.stdoutBytes} bytes`))
  const stderr = new CappedSink(l.stderrBytes, () => halt('output_limit', `stderr passed ${l.stderrBytes} bytes`))
  /** Tells the launcher to stop the run ('k' on its stdin): it kills the chain, placed or not. */
  let stopLauncher = (): void => {}
  /** Ends the launcher's stdin: only once it has ended (an end means its supervisor is gone). */
  let releaseLauncher = (): void => {}
  let bwrapPid = 0
  let childPid = 0
  const timers: NodeJS.Timeout[] = []

  function halt (reason: StopReason, detail: string): void {
    if (stop !== undefined) return
    stop = { reason, detail }
    // bwrap first: killed after its child, it could see the child die and exit 137 on its own
    // before its SIGKILL lands (a preempted supervisor between the two calls), and the run
    // would read as the command's exit rather than the supervisor's kill. The launcher relays
    // bwrap's status and, told to stop, kills a chain not yet placed; it is not killed: it
    // reaps what the kill orphans (an unreaped zombie keeps its cgroup from going).
    if (bwrapPid > 0) { try { process.kill(bwrapPid, 'SIGKILL') } catch {} }
    if (childPid > 0) { try { process.kill(childPid, 'SIGKILL') } catch {} }
    stopLauncher()
    cg.killAll()
  }
  const onAbort = (): void => halt('aborted', 'the run was cancelled')
  /** Refuses when the run was stopped while it was being set up (no command ran). */
  function assertNotStopped (): void {
    if (stop === undefined) return
    if (stop.reason === 'aborted') throw toolError('RUN_INCOMPLETE', `the run was cancelled while its sandbox was being set up: ${stop.detail}`)
    throw toolError(stop.reason === 'deadline' ? 'DEADLINE_PASSED' : 'SANDBOX_UNAVAILABLE', `the sandbox was stopped while being set up: ${stop.detail}`)
  }

  try {
    closedFds = closeInheritedFds()
    // 'pipe' is a socket pair (libuv), which no process in the sandbox can open by path:
    // /proc/<runner>/fd/1 gives ENXIO. A FIFO or a file in its place would let a test write
    // events into the runner's stdout (test/adversarial/events.test.ts). stdin is the
    // launcher's go: the chain itself gets /dev/null.
    // detached: a process group of its own, so a terminal's signals reach the supervisor,
    // which stops the run, not the launcher.
    const full = launcherArgv(launcher, process.pid, cg.directories(), argv)
    const c = spawn(full[0] as string, full.slice(1), { stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'], env: {}, detached: true })
    child = c
    const launcherPid = c.pid ?? 0
    const exited = new Promise<void>(resolve => c.on('exit', (code, signal) => { exitCode = code; exitSignal = signal; resolve() }))
    const closed = new Promise<void>(resolve => c.on('close', () => resolve()))
    c.on('error', () => {})
    const go = c.stdin as Writable
    go.on('error', () => {})
    stopLauncher = () => { go.write('k') }
    releaseLauncher = () => { go.destroy() }
    cg.make(l)
    readings.push(...cg.readings)
    // The groups exist with their limits: the launcher may start the chain in them. Its
    // stdin stays open until it has ended.
    go.write('1')
    if (spec.signal?.aborted === true) onAbort()
    spec.signal?.addEventListener('abort', onAbort, { once: true })
    ;(c.stdout as Readable).on('data', (b: Buffer) => { stdout.push(b); spec.onStdout?.(b) })
    ;(c.stderr as Readable).on('data', (b: Buffer) => stderr.push(keyring.take(b)))
    ;(c.stderr as Readable).on('end', () => stderr.push(keyring.end()))
    // bwrap reads the filter to its end before it builds the sandbox (argv.ts --seccomp).
    const filterFd = (c.stdio as readonly unknown[])[SECCOMP_FD] as Writable
    filterFd.on('error', () => {})
    filterFd.end(filter.bytes)
    const status = new StatusReader(c.stdio[STATUS_FD] as Readable)
    const gate = c.stdio[BLOCK_FD] as Writable
    gate.on('error', () => {})
    // Consume the gate socket's read side, so it ends (and the child's 'close' fires) at exit.
    ;(c.stdio[BLOCK_FD] as Readable).resume()
    if (spec.whileStarting !== undefined && stop === undefined) {
      const before = performance.now()
      spec.whileStarting()
      // The caller's work, done here only to overlap bwrap's: it spends none of the command's budget.
      deadlineAt += performance.now() - before
    }

    const startTimer = setTimeout(() => halt(performance.now() >= deadlineAt ? 'deadline' : 'aborted', `bwrap did not report its child within ${START_TIMEOUT_MS} ms`), Math.min(START_TIMEOUT_MS, Math.max(0, deadlineAt - performance.now())))
    const first = await Promise.race([status.first('child-pid'), exited.then(() => undefined)])
    clearTimeout(startTimer)
    if (first === undefined || typeof first['child-pid'] !== 'number') {
      await exited
      assertNotStopped()
      const why = stderr.bytes().toString('utf8').trim().split('\n').slice(-3).join(' / ')
      const hint = rlimitRefusalHint(why, spec.limits)
      throw toolError('SANDBOX_UNAVAILABLE', `bwrap did not start its sandbox (exit ${String(exitCode ?? exitSignal)}): ${why === '' ? 'no message' : why}`, hint === undefined ? {} : { hint })
    }
    childPid = first['child-pid']
    assertNotStopped()
    // bwrap is the launcher's only child (the chain's first process, exec'd into bwrap).
    bwrapPid = launcherChild(launcherPid)
    await waitAtGate(childPid, Math.min(performance.now() + START_TIMEOUT_MS, deadlineAt))
    assertNotStopped()

    // Placement, as the launcher made it: both bwrap processes (the outer monitor and the
    // held child) and anything else below them, before any sandboxed code runs.
    cg.assertPlaced(bwrapPid)
    cg.assertPlaced(childPid)
    const inGroup = cg.pids()
    for (const pid of [bwrapPid, ...descendants(bwrapPid)]) {
      if (!inGroup.includes(pid)) throw toolError('SANDBOX_UNAVAILABLE', `cgroup: sandbox process ${pid} is not in ${cg.name}`)
    }

    // Namespaces: every one must differ from ours (bwrap's --unshare-*-try fails open).
    namespaces = NAMESPACES.map(n => ({ name: n, host: nsId('self', n), sandbox: nsId(childPid, n) }))
    for (const n of namespaces) {
      if (n.host === n.sandbox) throw toolError('SANDBOX_UNAVAILABLE', `namespace ${n.name} is shared with the host (${n.host})`)
      const reported = first[`${n.name}-namespace`]
      if (typeof reported === 'number' && !n.sandbox.endsWith(`[${reported}]`)) {
        throw toolError('SANDBOX_UNAVAILABLE', `namespace ${n.name}: bwrap reported ${reported}, /proc/${childPid}/ns/${n.name} is ${n.sandbox}`)
      }
    }
    const want = `${uid}\t${uid}\t${uid}\t${uid}`
    for (const pid of [bwrapPid, childPid]) {
      const ids = statusIds(pid)
      readings.push({ name: `uid of ${pid === bwrapPid ? 'bwrap' : 'sandbox'}`, want, got: ids.uid, mechanism: 'uid', source: `/proc/${pid}/status` })
      if (ids.uid !== want) throw toolError('SANDBOX_UNAVAILABLE', `sandbox process ${pid} runs as uid ${ids.uid}, not ${uid}`)
    }
    // keyctl wrote its line before it execed bwrap, whose child is now at the gate.
    await Promise.race([keyring.settled(), exited])
    readings.push(keyring.reading())
    readings.push({ name: 'seccomp filter', want: seccompReadingValue(filter), got: seccompReadingValue(filter), mechanism: 'seccomp', source: `bytes written to bwrap --seccomp ${SECCOMP_FD}` })
    readings.push(...readBackRlimits(childPid, l))
    readings.push(...readBackMounts(childPid, spec))
    readings.push({ name: 'stdout cap', want: String(l.stdoutBytes), got: String(l.stdoutBytes), mechanism: 'supervisor', source: 'supervisor pipe reader' })
    readings.push({ name: 'stderr cap', want: String(l.stderrBytes), got: String(l.stderrBytes), mechanism: 'supervisor', source: 'supervisor pipe reader' })
    if (spec.onPlaced !== undefined) await spec.onPlaced({ bwrapPid, childPid, cgroup: cg })
    assertNotStopped()

    // Run.
    setupMs = performance.now() - t0
    runStart = performance.now()
    timers.push(setTimeout(() => halt('deadline', `the deadline (${spec.timeoutMs} ms) passed`), Math.max(0, deadlineAt - performance.now())))
    timers.push(setInterval(() => {
      const s = sampleResources(diskPaths)
      samples.push(s)
      const why = belowFloor(s, l.minAvailableMemoryBytes, l.minFreeDiskBytes)
      if (why !== undefined) halt('resource_low', why)
    }, l.sampleIntervalMs))
    gate.end('1')
    await exited
    spec.signal?.removeEventListener('abort', onAbort)
    teardownStart = performance.now()
    for (const t of timers) clearTimeout(t)
    // The command is done: nothing of the sandbox may outlive it.
    survivors = (await cg.drain(KILL_GRACE_MS)).length
    let closeTimer: NodeJS.Timeout | undefined
    await Promise.race([closed, new Promise(resolve => { closeTimer = setTimeout(resolve, KILL_GRACE_MS) })])
    clearTimeout(closeTimer)
    const final = status.objects.find(o => 'exit-code' in o)
    if (final !== undefined && typeof final['exit-code'] === 'number' && stop === undefined) {
      exitCode = final['exit-code']
      exitSignal = null
    }
    usage = cg.usage()
  } catch (e) {
    // The deadline passing while the sandbox is still being set up is a timeout, not a missing primitive.
    if (performance.now() >= deadlineAt && isToolError(e) && e.code === 'SANDBOX_UNAVAILABLE') {
      throw toolError('DEADLINE_PASSED', `the deadline (${spec.timeoutMs} ms) passed while the sandbox was being set up: ${e.message}`)
    }
    throw e
  } finally {
    for (const t of timers) clearTimeout(t)
    spec.signal?.removeEventListener('abort', onAbort)
    stopLauncher()
    if (usage === undefined) {
      await cg.drain(KILL_GRACE_MS)
    }
    // The launcher ends once it has reaped the chain and all it orphaned: nothing of the run
    // is left when it has, and the groups can go. One that does not is killed.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const c = child
      let reapTimer: NodeJS.Timeout | undefined
      await Promise.race([new Promise(resolve => c.once('exit', resolve)), new Promise(resolve => { reapTimer = setTimeout(resolve, KILL_GRACE_MS) })])
      clearTimeout(reapTimer)
      if (c.exitCode === null && c.signalCode === null) { try { c.kill('SIGKILL') } catch {} }
    }
    releaseLauncher()
    const left = cg.remove()
    if (left.length > 0 && survivors === 0) survivors = cg.pids().length
    untrack()
  }
  const endedAt = new Date()
  const end = performance.now()
  const out = stdout.bytes()
  const err = stderr.bytes()
  const report: SandboxRunReport = {
    argv,
    command: [...spec.command],
    cwd: spec.cwd,
    env_names: Object.keys(spec.env).sort(),
    uid,
    gid,
    mounts: spec.mounts.map(m => ({ source: m.source, dest: m.dest, mode: m.writable === true ? 'rw' : 'ro' })),
    exit: { code: exitCode, signal: exitSignal },
    ...(stop === undefined ? {} : { stop }),
    limits: readings,
    namespaces,
    usage: usage as CgroupUsage,
    samples,
    survivors,
    closed_inherited_fds: closedFds,
    output: { stdout_bytes: stdout.total, stdout_kept: stdout.kept, stdout_sha256: sha256Hex(out), stderr_bytes: stderr.total, stderr_kept: stderr.kept, stderr_sha256: sha256Hex(err) },
    timing: {
      started_at: startedAt.toISOString(),
      ended_at: endedAt.toISOString(),
      setup_ms: round(setupMs),
      run_ms: round(teardownStart - runStart),
      teardown_ms: round(end - teardownStart),
    },
  }
  return { report, stdout: out, stderr: err }
}

function round (ms: number): number {
  return Math.round(ms * 10) / 10
}
