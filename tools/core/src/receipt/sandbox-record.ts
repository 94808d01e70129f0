// Readback's check of a sandbox run record on its own (DESIGN §9, §11). verify compares the
// candidate's run with the baseline's, so two records forged alike agree; here each is held
// to what the CLI always runs: the launch chain rebuilt from the record's own command,
// working directory and mounts with the attempt runner's fixed environment and the fixed CLI
// limits, byte for byte (the loader paths of the machine that ran it are taken from the argv,
// and only the known ones); the mounts the attempt's config and its work tree give, and no
// other; every namespace apart from the host's; every limit the run sets read back with the
// value the CLI asks, the session keyring step and the seccomp filter at a digest this
// version builds (for the chain that has them); no resource sample below the floors without the stop that says so; and
// node's reporter at its pinned digest. Host paths (GOROOT, Node's prefix, the attempt's
// directory when it ran) come from the record; only their shape is checked.

import { basename, dirname } from 'node:path'
import type { ExecutionConfig, SandboxRun } from '@repairline/schemas'
import { jcs } from '../digest.ts'
import { launchArgv, type SandboxMount } from '../sandbox/argv.ts'
import { LOADER_PATHS, type LoaderPath } from '../sandbox/host.ts'
import { SANDBOX_LIMITS } from '../sandbox/limits.ts'
import { belowFloor } from '../sandbox/resources.ts'
import { prlimitArgs, rlimitWants } from '../sandbox/rlimits.ts'
import { knownSeccompReadingValues } from '../sandbox/seccomp.ts'
import { SESSION_KEYRING_WANT } from '../sandbox/keyring.ts'
import { GO_CACHE_DEST, goEnv } from '../runners/go.ts'
import { NODE_REPORTER_DEST, nodeEnv } from '../runners/node.ts'
import { NODE_REPORTER_SHA256 } from '../runners/node-reporter.ts'
import { runnerLimits, SRC_DEST, usableMountPoint } from '../runners/run-tests.ts'

const NAMESPACES = ['cgroup', 'ipc', 'mnt', 'net', 'pid', 'user', 'uts']
const DEFAULT_MOD_CACHE = '/tmp/gopath/pkg/mod'

export interface RecordedRun {
  run: SandboxRun
  reporter_sha256?: string
}

/** The environment the record's argv sets, by name. */
function argvEnv (argv: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (let i = argv.indexOf('--setenv'); i !== -1 && i + 2 < argv.length; i = argv.indexOf('--setenv', i + 3)) env[argv[i + 1] ?? ''] = argv[i + 2] ?? ''
  return env
}

/** The loader paths the argv shows right after /usr: only the known ones, as a symlink or a bind of themselves. */
function argvLoader (argv: readonly string[]): LoaderPath[] {
  const out: LoaderPath[] = []
  let i = argv.indexOf('/usr') + 2
  if (i < 2) return out
  for (;;) {
    const [flag, a, b] = [argv[i], argv[i + 1] ?? '', argv[i + 2] ?? '']
    if (flag === '--symlink' && LOADER_PATHS.includes(b)) out.push({ kind: 'symlink', target: a, path: b })
    else if (flag === '--ro-bind' && a === b && LOADER_PATHS.includes(a)) out.push({ kind: 'bind', path: a })
    else return out
    i += 3
  }
}

/** Why `mounts` are not the ones an attempt's run of `tree` gets, or undefined. */
function mountsMisfit (mounts: SandboxRun['mounts'], config: ExecutionConfig, env: Record<string, string>, attemptName: string, tree: 'baseline' | 'candidate'): string | undefined {
  const src = usableMountPoint(config.source_root) ? config.source_root : SRC_DEST
  const work = `/${attemptName}/work/${tree}`
  const want: Array<{ dest: string, mode: 'ro' | 'rw', source: (s: string) => boolean, what: string }> = [{ dest: src, mode: 'ro', source: s => s.endsWith(work), what: `the ${tree} work tree` }]
  const runner = config.runner
  if (runner.kind === 'go') {
    want.push({ dest: GO_CACHE_DEST, mode: 'rw', source: s => dirname(s).endsWith(`${work}-run`) && /^gocache-[0-9a-f]{8}$/.test(basename(s)), what: 'the GOCACHE copy' })
    if (runner.go_mod_cache !== undefined) want.push({ dest: env.GOMODCACHE ?? '', mode: 'ro', source: s => s === runner.go_mod_cache, what: 'go_mod_cache' })
  } else {
    want.push({ dest: NODE_REPORTER_DEST, mode: 'ro', source: s => dirname(s).endsWith(`${work}-run`) && /^ndjson-reporter-[0-9a-f]{8}\.mjs$/.test(basename(s)), what: 'the reporter' })
    if (runner.dependency_dir !== undefined) want.push({ dest: `${src}/node_modules`, mode: 'ro', source: s => s === runner.dependency_dir, what: 'dependency_dir' })
  }
  if (mounts.length !== want.length) return `it mounts ${mounts.length} paths; an attempt's run mounts ${want.length} (${want.map(w => w.what).join(', ')})`
  for (let i = 0; i < want.length; i++) {
    const m = mounts[i]
    const w = want[i]
    if (m === undefined || w === undefined) continue
    if (m.dest !== w.dest || m.mode !== w.mode || !w.source(m.source)) return `mount ${i + 1} is ${m.source} at ${m.dest} (${m.mode}), not ${w.what} at ${w.dest} (${w.mode})`
  }
  return undefined
}

/**
 * Why the run record `doc.run` is not what an attempt's CLI run records, or undefined. Only
 * for a record with a run (a run refused before it started has none).
 */
export function sandboxRecordMisfit (doc: RecordedRun, config: ExecutionConfig, attemptName: string, tree: 'baseline' | 'candidate'): string | undefined {
  const { run } = doc
  const runner = config.runner.kind
  const env = argvEnv(run.argv)
  const goroot = env.GOROOT ?? ''
  const expectedEnv = runner === 'go' ? goEnv(goroot, env.GOMODCACHE === DEFAULT_MOD_CACHE ? undefined : env.GOMODCACHE) : nodeEnv()
  if (runner === 'go' && (!goroot.startsWith('/') || run.command[0] !== `${goroot}/bin/go`)) return `its go (${run.command[0] ?? ''}) is not GOROOT's (${goroot || 'none set'})`
  if (jcs(env) !== jcs(expectedEnv) || run.env_names.join('\0') !== Object.keys(expectedEnv).sort().join('\0')) return `its environment is not the ${runner} runner's fixed one`
  const mounts = mountsMisfit(run.mounts, config, env, attemptName, tree)
  if (mounts !== undefined) return mounts
  const limits = runnerLimits(SANDBOX_LIMITS, runner)
  const systemDir = runner === 'go' ? goroot : dirname(dirname(run.command[0] ?? ''))
  const sandboxMounts: SandboxMount[] = run.mounts.map(m => ({ source: m.source, dest: m.dest, ...(m.mode === 'rw' ? { writable: true } : {}) }))
  const spec = { command: run.command, cwd: run.cwd, env: expectedEnv, mounts: sandboxMounts, systemDirs: [systemDir], limits, uid: run.uid, gid: run.gid, dropPrivileges: run.argv.includes('--reuid=' + String(run.uid)), loader: argvLoader(run.argv) }
  const want = launchArgv(spec)
  // Runs sealed before the kernel-state steps (session keyring, covered key files, seccomp
  // filter) ran the chain without them; node's runs sealed before the address space was set
  // for them (it was left as inherited) ran that chain without that one option too. Their
  // receipts stay readable, and say by their argv that they ran without those steps.
  const beforeKernelState = launchArgv({ ...spec, kernelState: false })
  const addressSpace = prlimitArgs(limits).find(a => a.startsWith('--as='))
  const earlier = runner === 'node' ? beforeKernelState.filter(a => a !== addressSpace) : beforeKernelState
  const chain = [want, beforeKernelState, earlier].find(c => run.argv.join('\0') === c.join('\0'))
  if (chain === undefined) {
    const at = want.findIndex((a, i) => run.argv[i] !== a)
    return `its argv is not the fixed launch chain (first difference at argument ${at + 1}: ${JSON.stringify(run.argv[at] ?? null)} where the chain has ${JSON.stringify(want[at] ?? null)})`
  }
  const names = run.namespaces.map(n => n.name).sort()
  if (names.join() !== NAMESPACES.join() || run.namespaces.some(n => n.sandbox === n.host)) return `its namespaces are not all ${NAMESPACES.join(', ')}, each apart from the host's`
  const wants = [
    ...rlimitWants(limits),
    { name: 'tmpfs /tmp size', want: `size=${limits.tmpfsBytes / 1024}k` },
    { name: 'mount /', want: 'ro' },
    { name: 'mount /dev', want: 'ro' },
    ...run.mounts.map(m => ({ name: `mount ${m.dest}`, want: m.mode })),
    { name: 'memory', want: String(limits.memoryBytes) },
    { name: 'tasks', want: String(limits.tasks) },
    // /proc/<pid>/status Uid: real, effective, saved and filesystem uid, tab-separated.
    { name: 'uid of sandbox', want: Array(4).fill(String(run.uid)).join('\t') },
    { name: 'stdout cap', want: String(limits.stdoutBytes) },
    { name: 'stderr cap', want: String(limits.stderrBytes) },
  ]
  if (chain === want) wants.push({ name: 'session keyring', want: SESSION_KEYRING_WANT })
  for (const w of wants) {
    const r = run.limits.find(l => l.name === w.name)
    if (r === undefined || String(r.want) !== w.want) return `limit ${w.name} is ${r === undefined ? 'not recorded as read back' : `recorded as asked ${String(r.want)}`}; the CLI asks ${w.want}`
  }
  if (chain === want) {
    const filter = run.limits.find(l => l.name === 'seccomp filter')
    const known = knownSeccompReadingValues()
    if (filter === undefined || filter.mechanism !== 'seccomp' || !known.includes(filter.want) || filter.got !== filter.want) return `its seccomp filter is ${filter === undefined ? 'not recorded' : `recorded as ${filter.want}`}; the CLI's filter is one of ${known.join(', ')}`
  }
  if (run.stop?.reason !== 'resource_low') {
    for (const s of run.samples) {
      const low = belowFloor(s, limits.minAvailableMemoryBytes, limits.minFreeDiskBytes)
      if (low !== undefined) return `a resource sample at ${s.at} is below the floor (${low}), but the run was not stopped for it`
    }
  }
  if (runner === 'node' && doc.reporter_sha256 !== NODE_REPORTER_SHA256) return `its reporter's digest ${doc.reporter_sha256 ?? 'none'} is not the pinned ${NODE_REPORTER_SHA256}`
  return undefined
}
