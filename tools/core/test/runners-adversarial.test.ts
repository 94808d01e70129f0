// Threat-matrix rows T2, T3, S7 and S12 against the runners and the sandbox, on real trees in
// the real sandbox, and the GOCACHE copy's links: a warm go test cache cannot replay a result (-count=1), a committed go.work
// and the caller's GOFLAGS do not steer the run (GOWORK=off, GOFLAGS= under --clearenv), the
// sandbox refuses to run as uid 0, and no sandbox process outlives a SIGKILLed supervisor
// (bwrap --die-with-parent). Each "blocked" result has its positive control beside it: the
// same probe on the host, or in the same sandbox with the one protection removed, succeeds.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmodSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { assertSandboxReady, GO_ADDRESS_SPACE_BYTES, GO_CACHE_DEST, goCommand, goEnv, goInstall, KILL_GRACE_MS, mountGoCache, releaseGoCache, run, runSandbox, runTests, sandboxPreflight } from '../src/index.ts'
import type { TestEvent } from '@repairline/schemas'
import { GO_FILES } from '../../../test/helpers/fixture.ts'
import { ROOT } from '../../../test/helpers/bin.ts'
import { TEST_LIMITS, leftoverCgroups, makeTree, processesWith, sandboxTemp, warmGoCache } from '../../../test/helpers/sandbox.ts'

const strip = (files: Record<string, unknown>): Record<string, string> => Object.fromEntries(Object.entries(files).filter(([, v]) => typeof v === 'string')) as Record<string, string>

// The go fixture with Add fixed (a package whose tests all pass, so go may cache the result)
// and a test that logs a fresh nonce each time it really executes: a replayed result repeats
// the nonce of the run it was cached from.
const PASSING_GO: Record<string, string> = {
  ...strip(GO_FILES),
  'calc.go': 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n',
  'nonce_test.go': 'package calc\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestNonce(t *testing.T) {\n\tt.Logf("nonce=%d", time.Now().UnixNano())\n}\n',
}
const PASSING_IDS = { 'example.com/calc::TestAdd': { result: 'pass' }, 'example.com/calc::TestDouble': { result: 'pass' }, 'example.com/calc::TestNonce': { result: 'pass' } }

/** The environment of a plain host `go test`; `over` replaces or (undefined) removes names. */
function hostGoEnv (dir: string, cache: string, over: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { PATH: `${goInstall().goroot}/bin:/usr/bin:/bin`, HOME: dir, GOCACHE: cache, GOPATH: join(dir, 'gopath'), GOPROXY: 'off', GOFLAGS: '', GOTOOLCHAIN: 'local', GOWORK: 'off', GOENV: 'off', ...over }
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
}

interface HostGo { exitCode: number | undefined, stdout: string, stderr: string }

async function hostGoTest (tree: string, args: string[], env: Record<string, string>): Promise<HostGo> {
  const r = await run(goInstall().goBin, ['test', ...args], { cwd: tree, env, timeoutMs: 120_000 })
  return { exitCode: r.exitCode, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') }
}

/** The nonces TestNonce logged in go test -json output (one per execution or replay). */
function noncesIn (jsonLines: string): string[] {
  return [...jsonLines.matchAll(/nonce=(\d+)/g)].map(m => m[1] ?? '')
}

const outputOf = (events: readonly TestEvent[]): string => events.map(e => e.Output ?? '').join('')

test('T2: a warm go test cache (the same tree, path and GOCACHE) cannot replay a result in the sandbox: -count=1 executes every test; without -count=1 the same cache replays "(cached)" on the host and in the same sandbox', async t => {
  const dir = sandboxTemp(t)
  // tree-with-warm-test-cache: its passing result sits in the host cache the run seeds from.
  const tree = makeTree(dir, 'tree', PASSING_GO)
  const cache = makeTree(dir, 'hostcache', {})
  const scratch = makeTree(dir, 'scratch', {})
  const env = hostGoEnv(dir, cache)
  const go = goInstall()
  // The runner's own arguments minus -count=1 (go keys a cached result by them, -timeout included).
  const command = goCommand(go.goBin, ['.'], 120_000)
  assert.ok(command.includes('-count=1'))
  const uncounted = command.filter(a => a !== '-count=1')

  const cold = await hostGoTest(tree, uncounted.slice(2), env)
  assert.equal(cold.exitCode, 0, cold.stderr)
  assert.doesNotMatch(cold.stdout, /\(cached\)/, 'the first host run executes')
  const [cachedNonce] = noncesIn(cold.stdout)
  assert.ok(cachedNonce !== undefined, cold.stdout)
  // Positive control on the host: the same command again replays the stored result and its nonce.
  const replay = await hostGoTest(tree, uncounted.slice(2), env)
  assert.match(replay.stdout, /\(cached\)/)
  assert.deepEqual(noncesIn(replay.stdout), [cachedNonce], 'the cache was warm: the host replays the stored nonce')

  // The runner, seeded from that cache, with the tree at its host path (the same cache keys).
  const r = await runTests({ runner: 'go', tree, mountPoint: tree, testPackages: ['.'], scratch, timeoutMs: 120_000, goBuildCache: cache, limits: TEST_LIMITS })
  assert.equal(r.fault, undefined, `${JSON.stringify(r.fault)} ${r.stderrTail}`)
  assert.deepEqual(r.summary.identities, PASSING_IDS)
  assert.equal(r.goCache?.seededFrom, cache)
  assert.ok((r.goCache?.files ?? 0) > 0, JSON.stringify(r.goCache))
  for (const name of Object.keys(PASSING_IDS).map(id => id.split('::')[1])) {
    assert.ok(r.events.some(e => e.Action === 'run' && e.Test === name), `${name} has a run event`)
    assert.ok(r.events.some(e => e.Action === 'pass' && e.Test === name && typeof e.Elapsed === 'number'), `${name} passed with an Elapsed`)
  }
  assert.ok(r.events.some(e => e.Action === 'pass' && e.Test === undefined && typeof e.Elapsed === 'number'), 'the package passed with an Elapsed')
  assert.doesNotMatch(outputOf(r.events), /\(cached\)/)
  const nonces = noncesIn(outputOf(r.events))
  assert.equal(nonces.length, 1, outputOf(r.events))
  assert.notEqual(nonces[0], cachedNonce, 'TestNonce really executed in the sandbox')

  // Positive control in the same sandbox: the runner's command minus -count=1, the same
  // environment, tree path and a private GOCACHE over the same build cache, replays the result.
  assert.deepEqual(r.command, command)
  // Released before the temp directory's removal (a hook registered earlier) could reach into it.
  const copy = await mountGoCache(join(scratch, 'control-gocache'), cache, 65534, 65534)
  let ctl: Awaited<ReturnType<typeof runSandbox>>
  try {
    ctl = await runSandbox({
      command: uncounted, cwd: tree, env: goEnv(go.goroot, undefined),
      mounts: [{ source: tree, dest: tree }, { source: copy.dir, dest: GO_CACHE_DEST, writable: true }],
      systemDirs: [go.goroot], limits: { ...TEST_LIMITS, addressSpaceBytes: GO_ADDRESS_SPACE_BYTES }, timeoutMs: 120_000, diskPaths: [scratch],
    })
  } finally {
    await releaseGoCache(copy)
  }
  const ctlOut = ctl.stdout.toString('utf8')
  assert.equal(ctl.report.exit.code, 0, ctl.stderr.toString('utf8'))
  assert.match(ctlOut, /\(cached\)/, 'without -count=1 the sandbox replays the cached result')
  assert.deepEqual(noncesIn(ctlOut), [cachedNonce])
  assert.deepEqual(leftoverCgroups(), [])
})

test('T3: a committed go.work naming a missing module and the caller\'s GOFLAGS do not steer the sandboxed run; on the host, go.work breaks plain go test and GOFLAGS=-run=Nothing runs no test', async t => {
  const dir = sandboxTemp(t)
  // tree-with-go-work-steering: a go.work that puts a module which does not exist in the workspace.
  const tree = makeTree(dir, 'tree', { ...PASSING_GO, 'go.work': 'go 1.19\n\nuse (\n\t.\n\t./missing\n)\n' })
  const scratch = makeTree(dir, 'scratch', {})
  const cache = await warmGoCache()

  // Positive controls on the host: with GOWORK unset go reads go.work and fails on ./missing;
  // with GOWORK=off the same tree passes, so go.work is the whole difference.
  const steered = await hostGoTest(tree, ['-json', '-count=1', '.'], hostGoEnv(dir, cache, { GOWORK: undefined }))
  assert.notEqual(steered.exitCode, 0, steered.stdout)
  assert.match(steered.stderr, /open .*\/tree\/missing\/go\.mod: no such file or directory/, steered.stderr)
  const off = await hostGoTest(tree, ['-json', '-count=1', '.'], hostGoEnv(dir, cache))
  assert.equal(off.exitCode, 0, off.stderr)
  // GOFLAGS from the environment reaches a plain go test: -run=Nothing runs no test.
  const nothing = await hostGoTest(tree, ['-json', '-count=1', '.'], hostGoEnv(dir, cache, { GOFLAGS: '-run=Nothing' }))
  assert.equal(nothing.exitCode, 0, nothing.stderr)
  assert.doesNotMatch(nothing.stdout, /"Action":"run"/)
  assert.match(nothing.stdout, /no tests to run/)

  // The runner, with the steering variables both in the environment it is given and in the
  // supervisor's own process environment.
  const saved = { GOFLAGS: process.env.GOFLAGS, GOWORK: process.env.GOWORK }
  process.env.GOFLAGS = '-run=Nothing'
  process.env.GOWORK = join(tree, 'go.work')
  let r: Awaited<ReturnType<typeof runTests>>
  try {
    r = await runTests({
      runner: 'go', tree, mountPoint: tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: cache,
    })
  } finally {
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v }
  }
  assert.equal(r.fault, undefined, `${JSON.stringify(r.fault)} ${r.stderrTail}`)
  assert.equal(r.goCache?.seededFrom, cache, 'the configured build cache is the one shown')
  assert.deepEqual(r.summary.identities, PASSING_IDS, r.stderrTail)
  assert.equal(r.sandbox?.exit.code, 0)
  assert.doesNotMatch(r.stderrTail, /go\.work/)
  assert.ok(r.sandbox?.env_names.includes('GOWORK') === true && r.sandbox.env_names.includes('GOFLAGS'), 'both are set by the runner')
  assert.deepEqual(leftoverCgroups(), [])
})

test('S7: the preflight refuses a sandbox that would run as uid 0 (SANDBOX_UNAVAILABLE, exit 77) before anything is spawned; the default uid passes with no capability and NoNewPrivs 1', async () => {
  const r = await sandboxPreflight({ uid: 0 })
  assert.equal(r.ok, false)
  assert.match(r.checks.find(c => c.name === 'identity')?.detail ?? '', /drops to uid 0 /)
  const failed = r.checks.filter(c => !c.ok)
  // runSandbox's own guard refuses uid 0 before the probe starts, so the failing check is
  // 'sandbox' and the privileges check (which reads /proc/self/status inside) is not reached.
  assert.deepEqual(failed.map(c => [c.name, c.code]), [['sandbox', 'SANDBOX_UNAVAILABLE']])
  assert.match(failed[0]?.detail ?? '', /the sandbox user may not be root/)
  assert.equal(r.checks.some(c => c.name === 'privileges'), false)
  assert.deepEqual(r.namespaces, [], 'no sandbox was started')
  await assert.rejects(assertSandboxReady({ uid: 0 }), (e: Error & { code?: string, exit?: number }) => {
    assert.equal(e.code, 'SANDBOX_UNAVAILABLE')
    assert.equal(e.exit, 77)
    assert.match(e.message, /sandbox preflight: sandbox: the sandbox user may not be root/)
    return true
  })
  // The runner passes uid 0 through to the same refusal, with nothing placed.
  let placed = false
  await assert.rejects(runSandbox({ command: ['/usr/bin/id', '-u'], cwd: '/', env: {}, mounts: [], limits: TEST_LIMITS, timeoutMs: 10_000, uid: 0, onPlaced: () => { placed = true } }), { code: 'SANDBOX_UNAVAILABLE', message: /may not be root/ })
  assert.equal(placed, false)
  // Group root is refused alike (it reads root:root 0640 files the sandbox user cannot).
  await assert.rejects(runSandbox({ command: ['/usr/bin/id', '-g'], cwd: '/', env: {}, mounts: [], limits: TEST_LIMITS, timeoutMs: 10_000, gid: 0, onPlaced: () => { placed = true } }), { code: 'SANDBOX_UNAVAILABLE', message: /sandbox group may not be root/ })
  assert.equal((await sandboxPreflight({ gid: 0 })).ok, false)
  assert.equal(placed, false)
  assert.deepEqual(leftoverCgroups(), [])

  // Positive control: the default uid passes every check, the privileges check included.
  const ok = await sandboxPreflight({})
  assert.equal(ok.ok, true, JSON.stringify(ok.checks, null, 1))
  const priv = ok.checks.find(c => c.name === 'privileges')
  assert.equal(priv?.ok, true)
  assert.match(priv?.detail ?? '', /Uid 65534\t65534\t65534\t65534, Gid 65534\t65534\t65534\t65534, Groups none, CapEff 0{16}, CapBnd 0{16}, NoNewPrivs 1/)
  assert.deepEqual(leftoverCgroups(), [])
})

// A sandboxed workload that starts one child and then both wait forever; each has the marker
// in its argv ("<marker> child" for the child), so the host can find them by /proc cmdline.
const SLEEPER = `import { spawn } from 'node:child_process'
const [marker, role] = process.argv.slice(2)
if (role !== 'child') spawn(process.execPath, [process.argv[1], marker, 'child'], { stdio: 'ignore' })
setInterval(() => {}, 1000)
`

// The supervisor that gets SIGKILLed: 'supervised' runs the sleeper through runSandbox (and
// prints its cgroup directories once placed); 'raw' launches the same sandbox argv directly,
// and 'raw-no-die' the same without --die-with-parent (the positive control).
// The supervised harness first moves itself into a cgroup of its own beneath the test's, so
// the groups its sandbox leaves behind when it is killed sit below that one: other test
// files, which look for orphaned sandbox groups beside their own, never see them.
const HARNESS = `
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHierarchies, nodeInstall, runSandbox } from ${JSON.stringify(join(ROOT, 'tools/core/src/index.ts'))}
import { TEST_LIMITS, rawProbeArgv, runArgv } from ${JSON.stringify(join(ROOT, 'test/helpers/sandbox.ts'))}
const [mode, tree, marker] = process.argv.slice(2)
if (mode === 'supervised') {
  const found = findHierarchies()
  if (!found.ok) throw new Error(found.why)
  const nest = found.hierarchies.map(h => join(h.ownDir, 'rl-test-s12-' + process.pid))
  for (const d of nest) {
    mkdirSync(d)
    writeFileSync(join(d, 'cgroup.procs'), String(process.pid))
  }
  process.stdout.write(JSON.stringify({ nest }) + '\\n')
  const node = nodeInstall()
  await runSandbox({
    command: [node.execPath, '/src/probe.mjs', marker], cwd: '/src', env: {}, mounts: [{ source: tree, dest: '/src' }],
    systemDirs: [node.prefix], limits: TEST_LIMITS, timeoutMs: 120000,
    onPlaced: p => { process.stdout.write(JSON.stringify({ cgroups: Object.values(p.cgroup.dirs) }) + '\\n') },
  })
} else {
  await runArgv(rawProbeArgv(tree, [marker], mode === 'raw-no-die' ? { drop: ['--die-with-parent'] } : {}), { timeoutMs: 120000 })
}
`

async function until (cond: () => boolean, boundMs: number): Promise<boolean> {
  for (let waited = 0; !cond(); waited += 20) {
    if (waited >= boundMs) return false
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return true
}

test('S12: SIGKILLing the supervisor while the sandbox runs leaves no sandbox process and an empty cgroup (bwrap --die-with-parent); launched without --die-with-parent, the sandbox outlives its supervisor', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'probe.mjs': SLEEPER })
  const harnessFile = join(dir, 'supervisor-harness.mts')
  writeFileSync(harnessFile, HARNESS)
  const markers: string[] = []
  const groups: string[] = []
  t.after(() => {
    for (const m of markers) for (const p of processesWith(m)) try { process.kill(p, 'SIGKILL') } catch {}
    for (const g of groups) try { rmdirSync(g) } catch {}
  })

  const crash = async (mode: 'supervised' | 'raw' | 'raw-no-die'): Promise<{ marker: string, cgroups: string[] }> => {
    const marker = `rl-s12-${randomBytes(6).toString('hex')}`
    markers.push(marker)
    const h = execa(process.execPath, ['--import', 'tsx', harnessFile, mode, tree, marker], { cwd: ROOT, env: { PATH: '/usr/bin:/bin' }, extendEnv: false, reject: false, stdin: 'ignore' })
    let out = ''
    h.stdout?.on('data', (b: Buffer) => { out += b.toString('utf8') })
    // The sandboxed command is running once its child exists (argv ends "<marker> child").
    const running = await until(() => processesWith(`${marker}\0child`).length > 0 || h.exitCode !== null, 60_000)
    assert.ok(running && h.exitCode === null, `${mode}: the sleeper never ran (harness exit ${String(h.exitCode)})`)
    assert.ok(processesWith(marker).length >= 3, `${mode}: bwrap, the sleeper and its child carry the marker`)
    h.kill('SIGKILL')
    const done = await h
    assert.equal(done.signal, 'SIGKILL', `${mode}: ${done.stderr}`)
    const lines = out.trim().split('\n')
    const cgroups = mode === 'supervised' ? (JSON.parse(lines.at(-1) ?? '') as { cgroups: string[] }).cgroups : []
    const nest = mode === 'supervised' ? (JSON.parse(lines[0] ?? '') as { nest: string[] }).nest : []
    // Removed children first: the sandbox's groups, then the harness's own.
    groups.push(...cgroups, ...nest)
    return { marker, cgroups }
  }

  const supervised = await crash('supervised')
  assert.ok(supervised.cgroups.length > 0)
  assert.ok(supervised.cgroups.every(g => /\/rl-test-s12-\d+\/rl-sbx-\d+-[0-9a-f]+$/.test(g)), `the sandbox's groups are beneath the harness's: ${supervised.cgroups.join(', ')}`)
  assert.ok(await until(() => processesWith(supervised.marker).length === 0, 10_000), `supervised: sandbox processes survived: ${processesWith(supervised.marker).join(', ')}`)
  // The dead supervisor's groups are left empty; another supervisor starting meanwhile may
  // already have removed them as stale (it removes only empty ones).
  const gone = (e: unknown): boolean => (e as { code?: string }).code === 'ENOENT'
  // A killed task stays listed in a cgroup v1 group until its zombie is reaped, after it has
  // left /proc's cmdlines, so the group is polled to empty within a bound, as the processes are.
  const procsOf = (g: string): string => {
    try { return readFileSync(join(g, 'cgroup.procs'), 'utf8').trim() } catch (e) { if (gone(e)) return ''; throw e }
  }
  for (const g of supervised.cgroups) {
    await until(() => procsOf(g) === '', 10_000)
    assert.equal(procsOf(g), '', `${g} is empty`)
  }
  for (const g of groups.splice(0)) try { rmdirSync(g) } catch (e) { if (!gone(e)) throw e }

  // The same sandbox argv launched directly dies with its parent too: the flag, not the supervisor's other steps, is what kills it.
  const raw = await crash('raw')
  assert.ok(await until(() => processesWith(raw.marker).length === 0, 10_000), `raw: sandbox processes survived: ${processesWith(raw.marker).join(', ')}`)

  // Positive control: without --die-with-parent the sandbox outlives its SIGKILLed parent.
  const control = await crash('raw-no-die')
  await new Promise(resolve => setTimeout(resolve, KILL_GRACE_MS))
  assert.ok(processesWith(`${control.marker}\0child`).length > 0, 'the control sandbox should have outlived its supervisor')
  for (const p of processesWith(control.marker)) try { process.kill(p, 'SIGKILL') } catch {}
  assert.ok(await until(() => processesWith(control.marker).length === 0, 10_000), 'the control sandbox is cleaned up')
  assert.deepEqual(leftoverCgroups(), [])
})

test('G: no sandboxed test can write a host build-cache file through the private GOCACHE: a world-writable (0666) one is copied up when truncated (the host file stays whole), a 0644 one is refused; the same truncate through a writable bind of the cache itself empties the host file (control)', async t => {
  const dir = sandboxTemp(t)
  const host = makeTree(dir, 'host-cache', { 'aa/open-output': 'host bytes\n', 'bb/private-output': 'host bytes\n' })
  chmodSync(join(host, 'aa', 'open-output'), 0o666)
  const scratch = makeTree(dir, 'scratch', {})
  const truncate = async (source: string, rel: string): Promise<number | null> => {
    const r = await runSandbox({
      command: ['/usr/bin/truncate', '-s', '0', `${GO_CACHE_DEST}/${rel}`], cwd: GO_CACHE_DEST, env: { PATH: '/usr/bin:/bin' },
      mounts: [{ source, dest: GO_CACHE_DEST, writable: true }], limits: TEST_LIMITS, timeoutMs: 60_000, diskPaths: [dir],
    })
    return r.report.exit.code
  }
  const cache = await mountGoCache(join(scratch, 'gocache-00000000'), host, 65534, 65534)
  try {
    assert.equal(cache.method, 'overlay')
    // Through the overlay the write lands in the run's private layer: the truncate succeeds there.
    assert.equal(await truncate(cache.dir, 'aa/open-output'), 0)
    assert.equal(statSync(join(cache.dir, 'aa', 'open-output')).size, 0)
    assert.equal(readFileSync(join(host, 'aa', 'open-output'), 'utf8'), 'host bytes\n')
    // A 0644 file is root's: the sandbox user cannot write it.
    assert.notEqual(await truncate(cache.dir, 'bb/private-output'), 0)
    assert.equal(readFileSync(join(host, 'bb', 'private-output'), 'utf8'), 'host bytes\n')
  } finally {
    assert.equal(await releaseGoCache(cache), undefined)
  }
  assert.deepEqual(readdirSync(scratch), [], 'unmounted and removed')

  // Positive control: the host cache itself bound writable — the same truncate empties the host file.
  assert.equal(await truncate(host, 'aa/open-output'), 0)
  assert.equal(statSync(join(host, 'aa', 'open-output')).size, 0, 'through a writable bind the sandbox wrote the host file')
  assert.deepEqual(leftoverCgroups(), [])
})
