// Helpers for sandbox tests: directories the sandbox user can reach, small limits that
// prove each limit quickly, node probe scripts run inside the real sandbox, and a scan of
// the host's processes for a marker (survivor checks).

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { findHierarchies, launchArgv, nodeInstall, run, runSandbox, SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxSpec } from '@repairline/core'
import { tempDir } from './tmp.ts'
import { GO_FILES } from './fixture.ts'

const MiB = 1024 ** 2

/** Limits small enough to hit quickly and large enough for node and go to start. */
export const TEST_LIMITS: SandboxLimits = {
  ...SANDBOX_LIMITS,
  memoryBytes: 512 * MiB,
  tasks: 64,
  cpuSeconds: 60,
  fileSizeBytes: 64 * MiB,
  openFiles: 256,
  tmpfsBytes: 64 * MiB,
  stdoutBytes: 8 * MiB,
  stderrBytes: 1 * MiB,
  minAvailableMemoryBytes: 512 * MiB,
  minFreeDiskBytes: 512 * MiB,
  sampleIntervalMs: 1000,
}

/** A temp directory the sandbox user (65534) can traverse and read. */
export function sandboxTemp (t: TestContext | { after: (fn: () => void) => void }, prefix = 'rl-sbx-'): string {
  const dir = tempDir(t, prefix)
  chmodSync(dir, 0o755)
  return dir
}

/** A fresh directory (0755) with `files` (0644) in it. */
export function makeTree (parent: string, name: string, files: Record<string, string>): string {
  const dir = join(parent, name)
  mkdirSync(dir, { mode: 0o755 })
  chmodSync(dir, 0o755)
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel)
    mkdirSync(join(p, '..'), { recursive: true, mode: 0o755 })
    writeFileSync(p, content, { mode: 0o644 })
    chmodSync(p, 0o644)
  }
  return dir
}

export interface ProbeOptions {
  limits?: Partial<SandboxLimits>
  timeoutMs?: number
  args?: string[]
  env?: Record<string, string>
  extra?: Partial<SandboxSpec>
}

/**
 * Runs `source` as an ES module with the host's node inside the real sandbox; the tree is
 * mounted read-only at /src. Returns the sandbox result.
 */
export async function runNodeProbe (tree: string, source: string, o: ProbeOptions = {}): Promise<SandboxResult> {
  writeFileSync(join(tree, 'probe.mjs'), source, { mode: 0o644 })
  chmodSync(join(tree, 'probe.mjs'), 0o644)
  const node = nodeInstall()
  return await runSandbox({
    command: [node.execPath, '/src/probe.mjs', ...(o.args ?? [])],
    cwd: '/src',
    env: { PATH: '/usr/bin:/bin', HOME: '/tmp', ...o.env },
    mounts: [{ source: tree, dest: '/src' }],
    systemDirs: [node.prefix],
    limits: { ...TEST_LIMITS, ...o.limits },
    timeoutMs: o.timeoutMs ?? 30_000,
    ...o.extra,
  })
}

/** Parses the probe's stdout as one JSON object (the probes print exactly one). */
export function probeJson (r: SandboxResult): Record<string, unknown> {
  const text = r.stdout.toString('utf8').trim()
  try {
    return JSON.parse(text.split('\n').at(-1) ?? '') as Record<string, unknown>
  } catch {
    throw new Error(`probe printed no JSON (exit ${String(r.report.exit.code ?? r.report.exit.signal)}): stdout ${JSON.stringify(text.slice(0, 400))} stderr ${JSON.stringify(r.stderr.toString('utf8').slice(0, 800))}`)
  }
}

/** Host pids whose command line contains `marker`. */
export function processesWith (marker: string): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) out.push(Number(name))
    } catch {}
  }
  return out
}

/** The sandbox cgroups this process left behind (there must be none). */
export function leftoverCgroups (): string[] {
  const found = findHierarchies()
  if (!found.ok) throw new Error(found.why)
  const out: string[] = []
  for (const h of found.hierarchies) {
    for (const n of readdirSync(h.ownDir)) if (n.startsWith(`rl-sbx-${process.pid}-`)) out.push(join(h.ownDir, n))
  }
  return out
}

let warm: Promise<string> | undefined

/**
 * A host build cache warmed by one plain `go test` of the go fixture, shared by the test
 * files of this machine (go's cache is safe for concurrent use). Passing it as GOCACHE lets a
 * sandboxed run seed from a warm cache, as an operator's would be; tests that are about the
 * cache build their own.
 */
export async function warmGoCache (): Promise<string> {
  warm ??= (async () => {
    const cache = join(tmpdir(), 'repairline-test-gocache')
    const dir = mkdtempSync(join(tmpdir(), 'rl-warm-'))
    try {
      for (const [rel, content] of Object.entries(GO_FILES)) {
        if (typeof content !== 'string') continue
        mkdirSync(join(dir, rel, '..'), { recursive: true })
        writeFileSync(join(dir, rel), content)
      }
      const r = await run('/usr/bin/go', ['test', '-count=1', '.'], { cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir, GOCACHE: cache, GOPATH: join(dir, 'gopath'), GOPROXY: 'off', GOFLAGS: '', GOTOOLCHAIN: 'local', GOWORK: 'off', GOENV: 'off' } })
      if (r.exitCode !== 1 && r.exitCode !== 0) throw new Error(`warming the go cache failed: ${r.stderr.toString()}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    return cache
  })()
  return await warm
}

export interface RawOptions {
  /** bwrap options to drop (each with its value, when it takes one): the protection under test. */
  drop?: string[]
  /** Run bwrap directly as this process (root), without prlimit and setpriv. */
  asRoot?: boolean
}

const TAKES_VALUE = new Set(['--cap-drop', '--remount-ro'])

/**
 * The launch argv of `command` in the test sandbox (the tree at /src) with one protection
 * removed, for positive controls: the same sandbox minus the flag under test, started
 * without the supervisor's gate (so also without its checks) and without the seccomp filter
 * (the supervisor writes it to bwrap's fd). Never used by the tools.
 */
export function rawArgv (tree: string, command: string[], o: RawOptions = {}, limits: SandboxLimits = TEST_LIMITS): string[] {
  const node = nodeInstall()
  const argv = launchArgv({ command, cwd: '/src', env: { PATH: '/usr/bin:/bin', HOME: '/tmp' }, mounts: [{ source: tree, dest: '/src' }], systemDirs: [node.prefix], limits, uid: 65534, gid: 65534, dropPrivileges: true })
  const out: string[] = []
  const start = o.asRoot === true ? argv.indexOf('/usr/bin/bwrap') : 0
  const end = argv.lastIndexOf('--')
  for (let i = start; i < argv.length; i++) {
    const a = argv[i] as string
    if (i < end && (a === '--json-status-fd' || a === '--block-fd' || a === '--seccomp')) { i++; continue }
    if (i < end && i > argv.indexOf('/usr/bin/bwrap') && o.drop?.includes(a) === true) { if (TAKES_VALUE.has(a)) i++; continue }
    out.push(a)
  }
  return out
}

/** rawArgv for the tree's probe.mjs run by node. */
export function rawProbeArgv (tree: string, args: string[], o: RawOptions = {}, limits: SandboxLimits = TEST_LIMITS): string[] {
  return rawArgv(tree, [nodeInstall().execPath, '/src/probe.mjs', ...args], o, limits)
}

export interface PlainResult { exitCode: number | undefined, signal: string | undefined, stdout: string, stderr: string }

/** Runs argv (program first) with an empty environment unless given, stdin /dev/null. */
export async function runArgv (argv: string[], o: { env?: Record<string, string>, timeoutMs?: number } = {}): Promise<PlainResult> {
  const r = await run(argv[0] as string, argv.slice(1), { env: o.env ?? {}, timeoutMs: o.timeoutMs ?? 30_000 })
  return { exitCode: r.exitCode, signal: r.signal, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') }
}

/** Runs the tree's probe.mjs outside any sandbox as uid/gid 65534 (the control for "blocked"). */
export async function runPlainProbe (tree: string, source: string, args: string[] = [], env: Record<string, string> = { PATH: '/usr/bin:/bin' }): Promise<PlainResult> {
  writeFileSync(join(tree, 'probe.mjs'), source, { mode: 0o644 })
  chmodSync(join(tree, 'probe.mjs'), 0o644)
  return await runArgv(['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', nodeInstall().execPath, join(tree, 'probe.mjs'), ...args], { env })
}

/** The last stdout line of a plain or raw run, as JSON. */
export function lastJson (r: PlainResult): Record<string, unknown> {
  const line = r.stdout.trim().split('\n').at(-1) ?? ''
  try { return JSON.parse(line) as Record<string, unknown> } catch {
    throw new Error(`no JSON on stdout (exit ${String(r.exitCode ?? r.signal)}): ${JSON.stringify(r.stdout.slice(0, 400))} stderr ${JSON.stringify(r.stderr.slice(0, 800))}`)
  }
}

/** Sandbox cgroups, from any process, whose supervisor is gone (a teardown that did not finish). */
export function orphanCgroups (): string[] {
  const found = findHierarchies()
  if (!found.ok) throw new Error(found.why)
  const out: string[] = []
  for (const h of found.hierarchies) {
    for (const n of readdirSync(h.ownDir)) {
      const m = /^rl-sbx-(\d+)-[0-9a-f]+$/.exec(n)
      if (m !== null && !existsSync(`/proc/${m[1]}`)) out.push(join(h.ownDir, n))
    }
  }
  return out
}
