// runTests: the fixed test command of a runner on one work tree, in the sandbox, normalized.
// This is the API `reproduce` and `verify` call. It returns the events, their summary, the
// sandbox's report (argv, environment variable names, limits in force and how each was read
// back, resource samples, timing, exit) and, when the run says nothing usable about the code,
// a fault with a stable code. A sandbox that cannot be set up is a thrown ToolError, and so
// is a run stopped below the memory or disk floor (RESOURCES_LOW): a passing condition the
// caller decides nothing on, so the step can run again once there is room.

import { randomBytes } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { ExecutionConfig, TestEvent } from '@repairline/schemas'
import { isValid } from '../contracts.ts'
import { toolError, type ErrorCode } from '../errors.ts'
import { assessRun, EventSummarizer, normalizeGoStream, splitEventLines, type TestSummary } from '../events.ts'
import { assertBindSourcesSafe, unreachableBy } from '../sandbox/bind-check.ts'
import { defaultScanMemoDir } from '../sandbox/bind-scan-memo.ts'
import { runSandbox, type PlacedSandbox, type SandboxResult, type SandboxRunReport } from '../sandbox/run.ts'
import { SANDBOX_GID, SANDBOX_UID, euid, goInstall, nodeInstall } from '../sandbox/host.ts'
import { GO_ADDRESS_SPACE_BYTES, SANDBOX_LIMITS, type SandboxLimits } from '../sandbox/limits.ts'
import type { SandboxMount } from '../sandbox/argv.ts'
import { GO_CACHE_DEST, goCommand, goEnv, goModReplacesOutside, goModUnreadable, type GoCacheCopy } from './go.ts'
import { goCacheWritten, mountGoCache, releaseGoCache, type GoCacheCaps, type MountedGoCache } from './go-cache.ts'
import { ProgressCounter } from './progress.ts'
import { NODE_REPORTER_DEST, NodeEventNormalizer, nodeCommand, nodeEnv, writeNodeReporter } from './node.ts'

function progressSink (runner: RunnerKind, onProgress: (finished: number) => void): (chunk: Buffer) => void {
  const counter = new ProgressCounter(runner, onProgress)
  return chunk => counter.push(chunk)
}

/** Where the work tree is mounted (read-only) inside the sandbox, unless the caller names a place. */
export const SRC_DEST = '/src'

// Mount points the sandbox's own layout owns; a tree or cache may not be mounted on or under them.
const RESERVED = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/dev', GO_CACHE_DEST, '/repairline']

/**
 * Whether `p` can be a mount point inside the sandbox: absolute, normalized, not / and not on
 * or under a place the sandbox's layout owns.
 */
export function usableMountPoint (p: string): boolean {
  if (!p.startsWith('/') || p === '/' || p.endsWith('/') || p.split('/').slice(1).some(c => c === '' || c === '.' || c === '..')) return false
  return !RESERVED.some(r => p === r || p.startsWith(`${r}/`))
}

/** Longest stdout line normalized as-is; longer lines become truncated output events. */
const MAX_EVENT_LINE = 1 << 20

export type RunnerKind = ExecutionConfig['runner']['kind']

export interface TestRunSpec {
  runner: RunnerKind
  /** The work tree on the host (directories 0755, files 0644/0755), mounted read-only. */
  tree: string
  /**
   * Where the tree appears inside the sandbox (default /src). reproduce and verify use the
   * checkout's own path (source_root): go's build cache keys include the package directory,
   * so the tree built there reuses the operator's host cache, and baseline and candidate look
   * alike to the tests. A path the sandbox's layout owns falls back to /src.
   */
  mountPoint?: string
  testPackages: readonly string[]
  /**
   * A host directory the sandbox user can traverse. Each run places its GOCACHE mount point
   * (`gocache-<hex>/`, unmounted and removed when the run ends) or its reporter
   * (`ndjson-reporter-<hex>.mjs`, left: the directory is the caller's) in it.
   */
  scratch: string
  /** Wall-clock budget of the run, setup included. */
  timeoutMs: number
  /** Default: SANDBOX_LIMITS (the CLI's). The go runner adds the address-space limit; node never has one. */
  limits?: SandboxLimits
  /** go: module cache mounted read-only as GOMODCACHE, at its own host path (same cache keys as host builds). */
  goModCache?: string
  /** node: node_modules mounted read-only on the tree's (empty) node_modules/. */
  dependencyDir?: string
  /**
   * go: the operator's build cache (runner.go_build_cache), shown read-only beneath the run's
   * private writes; absent: the run is cold. Nothing is taken from HOME or the environment.
   */
  goBuildCache?: string
  /** go: caps of the private GOCACHE (default GO_CACHE_CAPS). */
  goCacheCaps?: GoCacheCaps
  /** Filesystems to sample for free space (the state dir, the scratch dir). */
  diskPaths?: readonly string[]
  uid?: number
  gid?: number
  signal?: AbortSignal
  onPlaced?: (p: PlacedSandbox) => void | Promise<void>
  /** Called as tests finish, with how many have (live progress only). */
  onProgress?: (finished: number) => void
}

export interface TestRunFault {
  code: ErrorCode
  message: string
}

export interface TestRun {
  runner: RunnerKind
  /** go1.19.8, or node's version. */
  toolchain: string
  /** The command inside the sandbox. */
  command: string[]
  /** Absent when the run was refused before it started (a go.mod the toolchain cannot read). */
  sandbox?: SandboxRunReport
  events: TestEvent[]
  summary: TestSummary
  /** Set when the run says nothing usable about the code. */
  fault?: TestRunFault
  /** The deadline stopped the run. */
  timedOut: boolean
  goCache?: GoCacheCopy
  /** Why the run's private GOCACHE could not be unmounted or removed (reported, never a verdict). */
  cleanupNote?: string
  reporterSha256?: string
  /** The last lines of stderr (build errors, runner messages), at most 8 KiB. */
  stderrTail: string
}

function emptySummary (): TestSummary {
  return { identities: {}, failing: [], packages: {}, anomalies: [], ran: 0 }
}

/**
 * The limits a runner's run is given from `base`: go's address space at GO_ADDRESS_SPACE_BYTES
 * unless `base` sets one; node never has one (its heap reserves far more than it uses).
 */
export function runnerLimits (base: SandboxLimits, runner: RunnerKind): SandboxLimits {
  if (runner === 'go') return { ...base, addressSpaceBytes: base.addressSpaceBytes ?? GO_ADDRESS_SPACE_BYTES }
  const { addressSpaceBytes: _never, ...rest } = base
  return rest
}

/** A run's sandbox as runTests builds it, before anything is started. */
interface PreparedRun {
  src: string
  mounts: SandboxMount[]
  systemDirs: string[]
  /** The runner's fixed test command. */
  command: string[]
  env: Record<string, string>
  limits: SandboxLimits
  toolchain: string
  goCache?: MountedGoCache
  contentsChecked: string[]
  reporterSha256?: string
  uid: number
  gid: number
  diskPaths: string[]
  /** The tree cannot be run by this toolchain: nothing was prepared (no GOCACHE to release). */
  refused?: TestRunFault
}

/**
 * The sandbox of a test run: the tree at its mount point, the runner's environment, mounts
 * (GOCACHE, module cache, reporter, dependencies), system directories and limits. The one
 * place both the fixed test command and an operator's check command get their sandbox, so a
 * check runs in exactly the tests' sandbox and limits. A prepared GOCACHE must be released
 * (runPrepared does).
 */
async function prepareRun (spec: TestRunSpec): Promise<PreparedRun> {
  const root = euid() === 0
  const uid = root ? spec.uid ?? SANDBOX_UID : euid()
  const gid = root ? spec.gid ?? SANDBOX_GID : process.getegid?.() ?? uid
  const base = spec.limits ?? SANDBOX_LIMITS
  if (!statSync(spec.tree).isDirectory()) throw toolError('INTERNAL', `work tree ${spec.tree} is not a directory`)
  const src = spec.mountPoint !== undefined && usableMountPoint(spec.mountPoint) ? spec.mountPoint : SRC_DEST
  const mounts: SandboxMount[] = [{ source: spec.tree, dest: src }]
  const systemDirs: string[] = []
  const contentsChecked: string[] = []
  const diskPaths = [...(spec.diskPaths ?? []), spec.scratch]

  if (spec.runner === 'go') {
    const go = goInstall()
    const toolchain = go.version
    const command = goCommand(go.goBin, spec.testPackages, spec.timeoutMs)
    const limits = runnerLimits(base, 'go')
    const unreadable = goModUnreadable(spec.tree, spec.testPackages, go.version)
    const outside = unreadable === undefined ? goModReplacesOutside(spec.tree, spec.testPackages) : undefined
    if (unreadable !== undefined || outside !== undefined) {
      const refused: TestRunFault = unreadable !== undefined ? { code: 'TOOLCHAIN_UNSUPPORTED', message: unreadable } : { code: 'GO_REPLACE_OUTSIDE_TREE', message: outside as string }
      return { src, mounts, systemDirs, command, env: {}, limits, toolchain, contentsChecked, uid, gid, diskPaths, refused }
    }
    systemDirs.push(go.goroot)
    const modDest = spec.goModCache === undefined ? undefined : usableMountPoint(spec.goModCache) && !spec.goModCache.startsWith(`${src}/`) && src !== spec.goModCache ? spec.goModCache : '/gomod'
    const env = goEnv(go.goroot, modDest)
    // The operator's cache is shown beneath the run's writes: checked for special files as a
    // system directory is (a memo trusted while every directory keeps its stamp), so an
    // unchanged cache is not walked again.
    if (spec.goBuildCache !== undefined) assertBindSourcesSafe([{ path: spec.goBuildCache, system: true }], uid, gid, defaultScanMemoDir())
    const goCache = await mountGoCache(join(spec.scratch, `gocache-${randomBytes(4).toString('hex')}`), spec.goBuildCache, uid, gid, spec.goCacheCaps)
    const why = unreachableBy(goCache.dir, uid, gid)
    if (why !== undefined) {
      await releaseGoCache(goCache)
      throw toolError('SANDBOX_BIND_UNSAFE', `the private GOCACHE ${goCache.dir} ${why}`, { path: goCache.dir, hint: `the scratch directory must be reachable by uid ${uid}` })
    }
    contentsChecked.push(goCache.dir)
    mounts.push({ source: goCache.dir, dest: GO_CACHE_DEST, writable: true })
    if (spec.goModCache !== undefined && modDest !== undefined) mounts.push({ source: spec.goModCache, dest: modDest })
    return { src, mounts, systemDirs, command, env, limits, toolchain, goCache, contentsChecked, uid, gid, diskPaths }
  }
  const node = nodeInstall()
  const command = nodeCommand(node.execPath, spec.testPackages)
  systemDirs.push(node.prefix)
  const reporter = join(spec.scratch, `ndjson-reporter-${randomBytes(4).toString('hex')}.mjs`)
  const reporterSha256 = writeNodeReporter(reporter)
  mounts.push({ source: reporter, dest: NODE_REPORTER_DEST })
  if (spec.dependencyDir !== undefined) {
    if (!existsSync(join(spec.tree, 'node_modules'))) throw toolError('SANDBOX_UNAVAILABLE', `${spec.tree} has no node_modules/ directory to mount dependency_dir on`)
    mounts.push({ source: spec.dependencyDir, dest: `${src}/node_modules` })
  }
  return { src, mounts, systemDirs, command, env: nodeEnv(), limits: runnerLimits(base, 'node'), toolchain: `node ${node.version}`, contentsChecked, reporterSha256, uid, gid, diskPaths }
}

/** Runs `command` in a prepared sandbox; its GOCACHE is released whatever happens. */
async function runPrepared (spec: TestRunSpec, p: PreparedRun, command: readonly string[], timeoutMs: number, onStdout?: (chunk: Buffer) => void): Promise<{ r: SandboxResult, written?: { files: number, bytes: number }, cleanupNote?: string }> {
  let written: { files: number, bytes: number } | undefined
  let cleanupNote: string | undefined
  let r: SandboxResult
  try {
    r = await runSandbox({
      command, cwd: p.src, env: p.env, mounts: p.mounts, systemDirs: p.systemDirs, limits: p.limits, timeoutMs, uid: p.uid, gid: p.gid, diskPaths: p.diskPaths,
      ...(p.contentsChecked.length === 0 ? {} : { contentsChecked: p.contentsChecked }),
      ...(spec.signal === undefined ? {} : { signal: spec.signal }),
      ...(spec.onPlaced === undefined ? {} : { onPlaced: spec.onPlaced }),
      ...(onStdout === undefined ? {} : { onStdout }),
    })
  } finally {
    // What a test left in its GOCACHE goes with the tmpfs: nothing to walk, nothing on disk.
    if (p.goCache !== undefined) {
      written = goCacheWritten(p.goCache)
      cleanupNote = await releaseGoCache(p.goCache)
    }
  }
  return { r, ...(written === undefined ? {} : { written }), ...(cleanupNote === undefined ? {} : { cleanupNote }) }
}

/** What an operator's check command did in the tests' sandbox (checks/command.ts classifies it). */
export interface CheckCommandRun {
  /** The tree cannot be run by this toolchain (TOOLCHAIN_UNSUPPORTED, GO_REPLACE_OUTSIDE_TREE): nothing started. */
  refused?: TestRunFault
  result?: SandboxResult
  /** Why the run's private GOCACHE could not be unmounted or removed (reported, never a verdict). */
  cleanupNote?: string
}

/**
 * Runs `argv` (an absolute program and its arguments, never through a shell) on `spec.tree`
 * in exactly the sandbox, environment, mounts and limits runTests gives the runner's tests,
 * with `timeoutMs` as its budget. Throws what runSandbox throws when the sandbox cannot be set
 * up; a command that fails, is killed or floods output is a result.
 */
export async function runCheckCommand (spec: TestRunSpec, argv: readonly string[], timeoutMs: number): Promise<CheckCommandRun> {
  const p = await prepareRun(spec)
  if (p.refused !== undefined) return { refused: p.refused }
  const { r, cleanupNote } = await runPrepared(spec, p, argv, timeoutMs)
  return { result: r, ...(cleanupNote === undefined ? {} : { cleanupNote }) }
}

/** Runs the fixed command of `spec.runner` on `spec.tree` in the sandbox. */
export async function runTests (spec: TestRunSpec): Promise<TestRun> {
  const p = await prepareRun(spec)
  const { src, toolchain, command, goCache, reporterSha256 } = p
  if (p.refused !== undefined) {
    return { runner: spec.runner, toolchain, command, events: [], summary: emptySummary(), fault: p.refused, timedOut: false, stderrTail: '' }
  }
  const { r, written, cleanupNote } = await runPrepared(spec, p, command, spec.timeoutMs, spec.onProgress === undefined ? undefined : progressSink(spec.runner, spec.onProgress))
  {
    const summarizer = new EventSummarizer({ packageResults: spec.runner === 'go' })
    const events: TestEvent[] = []
    let reportedFailures: number | undefined
    const keep = (ev: TestEvent): void => {
      if (!isValid('test-event', ev)) {
        summarizer.flag(`an event broke test-event.schema.json and was kept as output: ${JSON.stringify(ev).slice(0, 120)}`)
        ev = { Action: 'output', Output: `${JSON.stringify(ev).slice(0, 4096)}\n` }
      }
      events.push(ev)
      summarizer.add(ev)
    }
    if (spec.runner === 'go') {
      for await (const ev of normalizeGoStream([r.stdout], MAX_EVENT_LINE)) keep(ev)
    } else {
      const n = new NodeEventNormalizer(src)
      for await (const l of splitEventLines([r.stdout], MAX_EVENT_LINE)) {
        if (l.truncated) {
          summarizer.flag(`stdout line ${l.line} is longer than ${MAX_EVENT_LINE} bytes (truncated)`)
          keep({ Action: 'output', Output: `${l.text}… [truncated]\n` })
          continue
        }
        for (const ev of n.line(l.text)) keep(ev)
      }
      for (const a of n.anomalies) summarizer.flag(a)
      reportedFailures = n.reportedFailures
    }
    const summary = summarizer.finish()
    if (reportedFailures !== undefined && (reportedFailures > 0) !== (summary.failing.length > 0)) {
      summary.anomalies.push(`node's closing diagnostics say ${reportedFailures} failed, the events ${summary.failing.length}`)
    }
    const stderrText = r.stderr.toString('utf8')
    const stderrTail = stderrText.length > 8192 ? stderrText.slice(-8192) : stderrText
    const run: TestRun = {
      runner: spec.runner, toolchain, command, sandbox: r.report, events, summary, timedOut: r.report.stop?.reason === 'deadline', stderrTail,
      ...(goCache === undefined ? {} : { goCache: goCacheRecord(goCache, written ?? { files: 0, bytes: 0 }) }),
      ...(reporterSha256 === undefined ? {} : { reporterSha256 }),
      ...(cleanupNote === undefined ? {} : { cleanupNote }),
    }
    const fault = decideFault(r.report, summary)
    if (fault?.code === 'RESOURCES_LOW') throw toolError('RESOURCES_LOW', `${fault.message}; nothing was decided`, { hint: 'free memory or disk, then run the step again' })
    if (fault !== undefined) run.fault = fault
    return run
  }
}

function goCacheRecord (m: MountedGoCache, written: { files: number, bytes: number }): GoCacheCopy {
  return {
    ...(m.seededFrom === undefined ? {} : { seededFrom: m.seededFrom }),
    ...(m.method === undefined ? {} : { method: m.method }),
    files: written.files,
    bytes: written.bytes,
    ...(m.note === undefined ? {} : { note: m.note }),
  }
}

/** Why a finished sandbox run says nothing usable about the code, or undefined. */
export function decideFault (r: SandboxRunReport, summary: TestSummary): TestRunFault | undefined {
  if (r.stop !== undefined) {
    switch (r.stop.reason) {
      case 'deadline': return { code: 'RUN_INCOMPLETE', message: `the sandbox was killed at the deadline: ${r.stop.detail}` }
      case 'output_limit': return { code: 'OUTPUT_LIMIT', message: `the sandbox was killed for its output: ${r.stop.detail}` }
      case 'resource_low': return { code: 'RESOURCES_LOW', message: `the sandbox was stopped: ${r.stop.detail}` }
      case 'aborted': return { code: 'RUN_INCOMPLETE', message: 'the run was cancelled' }
    }
  }
  if (r.usage.oom_kills > 0) return { code: 'RESOURCE_LIMIT_HIT', message: `the memory limit killed ${r.usage.oom_kills} process(es) (peak ${r.usage.memory_peak_bytes} bytes)` }
  if (r.usage.tasks_limit_hits > 0) return { code: 'RESOURCE_LIMIT_HIT', message: `the tasks limit refused ${r.usage.tasks_limit_hits} fork(s)` }
  if (r.survivors > 0) return { code: 'RUN_INCOMPLETE', message: `${r.survivors} sandbox process(es) survived the kill` }
  const f = assessRun(summary, r.exit.code)
  return f === undefined ? undefined : { code: f.code, message: f.message }
}
