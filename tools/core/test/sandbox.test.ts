// The sandbox library against the real kernel: the preflight, every limit read back (and
// re-read independently while the sandbox is held), refusals before spawn (a limit that did
// not take, special files in bind sources, an unreachable source, low resources), and the
// launch argv the design fixes; mount points whose paths the kernel escapes.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo/mknod fixtures, argv arrays
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { assertValid, decodeMountinfoField, launchArgv, loaderPaths, parseMountinfo, runSandbox, sandboxPreflight, SANDBOX_LIMITS, toolError, type PlacedSandbox } from '../src/index.ts'
import { TEST_LIMITS, leftoverCgroups, makeTree, probeJson, processesWith, runNodeProbe, sandboxTemp } from '../../../test/helpers/sandbox.ts'

const MiB = 1024 ** 2

test('the preflight proves every primitive on this host and reports how each limit was read back', async () => {
  for (const runner of ['go', 'node'] as const) {
    const r = await sandboxPreflight({ runner })
    assert.equal(r.ok, true, JSON.stringify(r.checks, null, 1))
    assert.deepEqual(r.checks.map(c => c.name), ['programs', 'identity', 'toolchain', 'resources', 'cgroup', 'namespaces', 'rlimits', 'privileges', 'seccomp', 'session keyring', 'nested user namespaces', 'denied call'])
    const byName = new Map(r.limits.map(l => [l.name, l]))
    for (const [name, want] of [['memory', '4294967296'], ['memory+swap', '4294967296'], ['tasks', '128'], ['cpu quota (us per period)', '200000'], ['cpu period (us)', '100000'], ['tmpfs /tmp size', 'size=1048576k'], ['core size', '0']] as const) {
      assert.equal(byName.get(name)?.got, want, name)
    }
    assert.equal(byName.get('address space per process')?.got, runner === 'go' ? String(4 * 1024 ** 3) : 'unlimited')
    assert.deepEqual(r.namespaces.map(n => n.name), ['user', 'mnt', 'pid', 'net', 'ipc', 'uts', 'cgroup'])
    for (const n of r.namespaces) assert.notEqual(n.sandbox, n.host)
    assert.match(r.checks.find(c => c.name === 'privileges')?.detail ?? '', /Uid 65534\t65534\t65534\t65534, Gid 65534\t65534\t65534\t65534, Groups none, CapEff 0000000000000000, CapBnd 0000000000000000, NoNewPrivs 1/)
  }
  assert.deepEqual(leftoverCgroups(), [])
})

test('every cgroup limit and rlimit is read back, and re-reads the same from the kernel while the sandbox is held', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'a.txt': 'a\n' })
  const limits = { ...TEST_LIMITS, memoryBytes: 300 * MiB, tasks: 40, cpuPercent: 150, cpuSeconds: 77, fileSizeBytes: 5 * MiB, openFiles: 99, tmpfsBytes: 12 * MiB }
  let seen: Record<string, string> = {}
  const r = await runNodeProbe(tree, 'process.stdout.write(JSON.stringify({ ok: true }))', {
    limits,
    extra: {
      onPlaced: (p: PlacedSandbox) => {
        const read = (dir: string, f: string): string => readFileSync(join(dir, f), 'utf8').trim()
        const lim = readFileSync(`/proc/${p.childPid}/limits`, 'utf8')
        const row = (name: string): string => new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(lim)?.slice(1).join('/') ?? 'absent'
        seen = {
          memory: read(p.cgroup.dirs.memory, 'memory.limit_in_bytes'),
          memsw: read(p.cgroup.dirs.memory, 'memory.memsw.limit_in_bytes'),
          tasks: read(p.cgroup.dirs.pids, 'pids.max'),
          quota: read(p.cgroup.dirs.cpu, 'cpu.cfs_quota_us'),
          period: read(p.cgroup.dirs.cpu, 'cpu.cfs_period_us'),
          cpu: row('Max cpu time'),
          fsize: row('Max file size'),
          nofile: row('Max open files'),
          core: row('Max core file size'),
          as: row('Max address space'),
          procs: readFileSync(join(p.cgroup.dirs.pids, 'cgroup.procs'), 'utf8').trim().split('\n').sort().join(','),
          pids: [p.bwrapPid, p.childPid].map(String).sort().join(','),
        }
      },
    },
  })
  assert.equal(r.report.exit.code, 0, r.stderr.toString())
  assert.deepEqual(seen, {
    memory: String(300 * MiB), memsw: String(300 * MiB), tasks: '40', quota: '150000', period: '100000',
    cpu: '77/77', fsize: `${5 * MiB}/${5 * MiB}`, nofile: '99/99', core: '0/0', as: 'unlimited/unlimited',
    procs: seen.pids, pids: seen.pids,
  })
  const got = Object.fromEntries(r.report.limits.map(l => [l.name, l]))
  for (const l of r.report.limits) assert.equal(l.got, l.want, l.name)
  assert.equal(got.memory?.mechanism, 'cgroup-v1')
  assert.match(got.memory?.source ?? '', /^\/sys\/fs\/cgroup\/memory\/.*rl-sbx-\d+-[0-9a-f]+\/memory\.limit_in_bytes$/)
  assert.equal(got['tmpfs /tmp size']?.got, 'size=12288k')
  assert.equal(got['mount /src']?.got, 'ro')
  assert.equal(got['mount /']?.got, 'ro')
  assert.equal(got['open files per process']?.source, `/proc/${seen.pids?.split(',').map(Number).sort((a, b) => b - a)[0] ?? 0}/limits`)
  assertValid('sandbox-run', r.report, 'sandbox run report', 'INTERNAL')
  assert.equal(r.report.survivors, 0)
  assert.deepEqual(leftoverCgroups(), [])
})

test('whileStarting runs once bwrap is started and before the command: a file it adds to a mounted directory is seen inside; what it throws ends the run, nothing left behind', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const steps: string[] = []
  const probe = "import { readFileSync } from 'node:fs'; process.stdout.write(JSON.stringify({ seen: readFileSync('/src/added.txt', 'utf8') }))"
  // A file added after the bind check and bwrap's start, before the command runs: the mount shows it.
  const ok = await runNodeProbe(tree, probe, {
    extra: {
      whileStarting: () => { steps.push('whileStarting'); writeFileSync(join(tree, 'added.txt'), 'added while bwrap started\n', { mode: 0o644 }) },
      onPlaced: () => { steps.push('onPlaced') },
    },
  })
  assert.equal(ok.report.exit.code, 0, ok.stderr.toString())
  assert.deepEqual(probeJson(ok), { seen: 'added while bwrap started\n' })
  assert.deepEqual(steps, ['whileStarting', 'onPlaced'])
  // What it throws is the run's error: the command never starts, bwrap and its child are gone.
  let placed = false
  await assert.rejects(runNodeProbe(tree, probe, { extra: { whileStarting: () => { throw toolError('SANDBOX_BIND_UNSAFE', 'a special file was seeded') }, onPlaced: () => { placed = true } } }), { code: 'SANDBOX_BIND_UNSAFE', message: 'a special file was seeded' })
  assert.equal(placed, false)
  // The rejection is the event: runSandbox settles only once its cgroups are empty and removed
  // (every process of the run was started in them) and its launcher is reaped.
  assert.deepEqual(leftoverCgroups(), [])
  assert.deepEqual(processesWith(tree), [])
})

test('whileStarting spends none of the command\'s budget; the command\'s own time does', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const pause = new Int32Array(new SharedArrayBuffer(4))
  const sleeper = (ms: number): string => `await new Promise(resolve => setTimeout(resolve, ${ms})); process.stdout.write(JSON.stringify({ done: true }))`
  // 2 s in the hook and 1.5 s in the command, against a 3 s budget: the command finishes.
  const r = await runNodeProbe(tree, sleeper(1500), { timeoutMs: 3000, extra: { whileStarting: () => { Atomics.wait(pause, 0, 0, 2000) } } })
  assert.equal(r.report.stop, undefined, JSON.stringify(r.report.stop))
  assert.equal(r.report.exit.code, 0, r.stderr.toString())
  assert.deepEqual(probeJson(r), { done: true })
  assert.ok(r.report.timing.setup_ms >= 2000, `setup_ms ${r.report.timing.setup_ms} includes the hook`)
  // Control: the same 3.5 s spent by the command itself is stopped at the deadline.
  const killed = await runNodeProbe(tree, sleeper(3500), { timeoutMs: 3000 })
  assert.equal(killed.report.stop?.reason, 'deadline')
  assert.deepEqual(leftoverCgroups(), [])
})

test('a limit the kernel does not take as written is a refusal before anything runs', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  let placed = false
  // memory.limit_in_bytes rounds down to a page: 64 MiB + 1 reads back as 64 MiB.
  await assert.rejects(runNodeProbe(tree, 'process.stdout.write("{}")', { limits: { memoryBytes: 64 * MiB + 1 }, extra: { onPlaced: () => { placed = true } } }), (e: Error & { code?: string, exit?: number }) => {
    assert.equal(e.code, 'SANDBOX_UNAVAILABLE')
    assert.equal(e.exit, 77)
    assert.match(e.message, /memory did not take: wrote 67108865 to .*memory\.limit_in_bytes, read back 67108864/)
    return true
  })
  assert.equal(placed, false)
  assert.deepEqual(leftoverCgroups(), [])
  // Positive control: the page-aligned value takes.
  const ok = await runNodeProbe(tree, 'process.stdout.write("{}")', { limits: { memoryBytes: 64 * MiB } })
  assert.equal(ok.report.exit.code, 0, ok.stderr.toString())
})

test('a bind source holding a socket, FIFO or device, or unreachable by the sandbox user, is refused before spawn', async t => {
  const dir = sandboxTemp(t)
  const cases: Array<[string, (tree: string) => Promise<() => void>, RegExp]> = [
    ['socket', async tree => {
      const server = createServer()
      await new Promise<void>(resolve => server.listen(join(tree, 'sub', 'probe.sock'), resolve))
      return () => server.close()
    }, /probe\.sock \(socket\)/],
    ['fifo', async tree => { execFileSync('/usr/bin/mkfifo', [join(tree, 'sub', 'pipe')]); return () => {} }, /pipe \(fifo\)/],
    ['device', async tree => { execFileSync('/usr/bin/mknod', [join(tree, 'sub', 'null'), 'c', '1', '3']); return () => {} }, /null \(char device\)/],
    ['unreachable', async tree => { chmodSync(join(tree, 'sub'), 0o700); chmodSync(tree, 0o700); return () => {} }, /is not readable by uid 65534/],
  ]
  for (const [name, plant, message] of cases) {
    const tree = makeTree(dir, name, { 'sub/ok.txt': 'ok\n' })
    // Positive control: the same tree runs before the plant.
    const before = await runNodeProbe(tree, 'process.stdout.write("{}")')
    assert.equal(before.report.exit.code, 0, `${name}: ${before.stderr.toString()}`)
    const undo = await plant(tree)
    let placed = false
    try {
      await assert.rejects(runNodeProbe(tree, 'process.stdout.write("{}")', { extra: { onPlaced: () => { placed = true } } }), (e: Error & { code?: string, exit?: number }) => {
        assert.equal(e.code, 'SANDBOX_BIND_UNSAFE', name)
        assert.equal(e.exit, 77)
        assert.match(e.message, message)
        return true
      })
    } finally { undo() }
    assert.equal(placed, false, `${name}: nothing may be spawned`)
  }
  assert.deepEqual(leftoverCgroups(), [])
})

test('resources below the floors refuse the run before anything is spawned', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  for (const [limits, message] of [
    [{ minAvailableMemoryBytes: 2 ** 50 }, /available memory .* GiB is below the floor/],
    [{ minFreeDiskBytes: 2 ** 50 }, /free disk on .* is below the floor/],
  ] as const) {
    let placed = false
    await assert.rejects(runNodeProbe(tree, '', { limits, extra: { onPlaced: () => { placed = true } } }), (e: Error & { code?: string, exit?: number }) => {
      assert.equal(e.code, 'RESOURCES_LOW')
      assert.equal(e.exit, 75)
      assert.match(e.message, message)
      return true
    })
    assert.equal(placed, false)
  }
  assert.deepEqual(leftoverCgroups(), [])
})

test('the launch argv is the one the design fixes', () => {
  const argv = launchArgv({
    command: ['/usr/bin/true'], cwd: '/src', env: { B: '2', A: '1' }, mounts: [{ source: '/w/tree', dest: '/src' }, { source: '/w/cache', dest: '/gocache', writable: true }],
    systemDirs: ['/usr/lib/go-1.19', '/opt/node'], limits: { ...SANDBOX_LIMITS, addressSpaceBytes: 4 * 1024 ** 3 }, uid: 65534, gid: 65534, dropPrivileges: true,
    loader: [{ path: '/lib', kind: 'symlink', target: 'usr/lib' }],
  })
  assert.deepEqual(argv, [
    '/usr/bin/prlimit', '--cpu=600:600', `--fsize=${256 * MiB}:${256 * MiB}`, '--nofile=1024:1024', '--core=0:0', `--as=${4 * 1024 ** 3}:${4 * 1024 ** 3}`, '--',
    '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--no-new-privs', '--bounding-set=-all', '--inh-caps=-all', '--',
    '/usr/bin/keyctl', 'session', '-',
    '/usr/bin/bwrap', '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv', '--cap-drop', 'ALL',
    '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--ro-bind', '/opt/node', '/opt/node',
    '--proc', '/proc', '--dev', '/dev', '--ro-bind', '/dev/null', '/proc/keys', '--ro-bind', '/dev/null', '/proc/key-users',
    '--size', String(1024 ** 3), '--tmpfs', '/tmp',
    '--ro-bind', '/w/tree', '/src', '--bind', '/w/cache', '/gocache', '--remount-ro', '/', '--remount-ro', '/dev',
    '--chdir', '/src', '--setenv', 'A', '1', '--setenv', 'B', '2', '--json-status-fd', '3', '--block-fd', '4', '--seccomp', '5', '--', '/usr/bin/true',
  ])
  // This host is merged-/usr: every loader path is a symlink into /usr, nothing else is bound.
  for (const l of loaderPaths()) assert.equal(l.kind, 'symlink', l.path)
  // Without an address-space limit (node) it is set unlimited, not left as the caller's.
  const node = launchArgv({ command: ['/usr/bin/true'], cwd: '/src', env: {}, mounts: [], systemDirs: [], limits: SANDBOX_LIMITS, uid: 65534, gid: 65534, dropPrivileges: true, loader: [] })
  assert.deepEqual(node.slice(0, node.indexOf('--')), ['/usr/bin/prlimit', '--cpu=600:600', `--fsize=${256 * MiB}:${256 * MiB}`, '--nofile=1024:1024', '--core=0:0', '--as=unlimited:unlimited'])
})

test('the sandbox runs a command as the unprivileged user and reports an exit code and output digests', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  mkdirSync(join(tree, 'd'), { mode: 0o755 })
  const r = await runSandbox({ command: ['/usr/bin/id', '-u'], cwd: '/', env: {}, mounts: [], limits: TEST_LIMITS, timeoutMs: 10_000 })
  assert.equal(r.stdout.toString(), '65534\n')
  assert.equal(r.report.exit.code, 0)
  assert.equal(r.report.output.stdout_bytes, 6)
  assert.equal(r.report.uid, 65534)
  const fail = await runSandbox({ command: ['/usr/bin/false'], cwd: '/', env: {}, mounts: [], limits: TEST_LIMITS, timeoutMs: 10_000 })
  assert.equal(fail.report.exit.code, 1)
})

// Writes `n` bytes (byte i is i * 7 % 251) in writes of irregular sizes, each waited for.
const PATTERN = `const n = Number(process.argv[2])
const all = Buffer.alloc(n)
for (let i = 0; i < n; i++) all[i] = i * 7 % 251
let at = 0
let k = 0
const next = () => {
  if (at >= n) return
  const size = Math.min(n - at, [1, 4093, 65536, 70001, 333][k++ % 5])
  process.stdout.write(all.subarray(at, at + size), next)
  at += size
}
next()
`

test('kept output is the exact bytes printed, across the sink\'s first 1 MiB and at a cap below it; its digest is of those bytes', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const pattern = (n: number): Buffer => { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) b[i] = i * 7 % 251; return b }
  for (const [n, cap] of [[MiB - 1, 8 * MiB], [MiB, 8 * MiB], [MiB + 1, 8 * MiB], [3 * MiB + 12_345, 8 * MiB], [2 * MiB, 512 * 1024]] as const) {
    const r = await runNodeProbe(tree, PATTERN, { args: [String(n)], limits: { stdoutBytes: cap } })
    const want = pattern(Math.min(n, cap))
    assert.ok(r.stdout.equals(want), `${n} bytes under a cap of ${cap}: kept ${r.stdout.length} bytes, not the ones printed`)
    assert.equal(r.report.output.stdout_kept, want.length)
    assert.equal(r.report.output.stdout_sha256, createHash('sha256').update(want).digest('hex'))
    assert.equal(r.report.stop?.reason, n > cap ? 'output_limit' : undefined)
  }
})

test('mountinfo path fields are decoded from the kernel\'s octal escapes (space, tab, newline, backslash); other text is kept', () => {
  assert.equal(decodeMountinfoField('/tmp/re\\040po'), '/tmp/re po')
  assert.equal(decodeMountinfoField('/a\\011b\\012c\\134d'), '/a\tb\nc\\d')
  assert.equal(decodeMountinfoField('/ü\\040é'), '/ü é')
  // Not an escape: fewer than three octal digits, or a digit 8 or 9.
  assert.equal(decodeMountinfoField('/x\\04'), '/x\\04')
  assert.equal(decodeMountinfoField('/x\\089'), '/x\\089')
  assert.equal(decodeMountinfoField('/plain'), '/plain')
  const rows = parseMountinfo([
    '36 35 98:0 /mnt\\040one /tmp/re\\040po\\134x ro,nosuid master:1 - ext4 /dev/root rw,errors=continue',
    '40 35 0:5 / /tmp rw - tmpfs tmpfs rw,size=65536k',
    '',
  ].join('\n'))
  assert.deepEqual(rows, [
    { root: '/mnt one', mountPoint: '/tmp/re po\\x', options: ['ro', 'nosuid'], fstype: 'ext4', superOptions: ['rw', 'errors=continue'] },
    { root: '/', mountPoint: '/tmp', options: ['rw'], fstype: 'tmpfs', superOptions: ['rw', 'size=65536k'] },
  ])
})

test('a bind source and mount point whose path holds a space, a tab and a backslash runs, and its read-only mount is read back', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  // The source_root of an operator's checkout may hold any of these: reproduce mounts it at its own path.
  const weird = makeTree(dir, 're po\tx\\y', { 'seen.txt': 'inside\n' })
  const r = await runNodeProbe(tree, "import { readFileSync } from 'node:fs'\nprocess.stdout.write(JSON.stringify({ text: readFileSync(process.argv[2] + '/seen.txt', 'utf8') }))\n", {
    args: [weird],
    extra: { mounts: [{ source: tree, dest: '/src' }, { source: weird, dest: weird }] },
  })
  assert.equal(r.report.exit.code, 0, r.stderr.toString())
  assert.equal(r.stdout.toString(), JSON.stringify({ text: 'inside\n' }))
  const reading = r.report.limits.find(l => l.name === `mount ${weird}`)
  assert.deepEqual({ want: reading?.want, got: reading?.got }, { want: 'ro', got: 'ro' })
})
