// Threat group S (threat-matrix §9.1): each attack runs as a node (or perl) probe inside the
// real sandbox and must be blocked with the errno the protection gives; beside it, a positive
// control runs the same probe without that protection — outside the sandbox as the same uid,
// or in the same bwrap sandbox with the one flag removed — and must succeed, so a missing
// probe or a broken probe can never count as "blocked".

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, chownSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { createSocket } from 'node:dgram'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: a child with an inherited fd 200 (execa's types do not take raw descriptors past stdio)
import { goInstall } from '@repairline/core'
import { ROOT } from '../helpers/bin.ts'
import { lastJson, leftoverCgroups, makeTree, probeJson, processesWith, rawProbeArgv, runArgv, runNodeProbe, runPlainProbe, sandboxTemp, warmGoCache } from '../helpers/sandbox.ts'

/**
 * Runs of the isolation and teardown probes whose outcome could depend on timing (threat
 * matrix §10: 0 connections and 0 survivors over 20 runs). Each run is a fresh sandbox.
 */
const ISOLATION_RUNS = 20
/** Of the teardown runs, how many are killed at the deadline (6 s each); the rest exit. */
const DEADLINE_RUNS = 4

async function listen (server: Server, where: string | number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    if (typeof where === 'number') server.listen(where, '127.0.0.1', resolve)
    else server.listen(where, resolve)
  })
}

// Connects to a TCP port or a unix socket path ("@name" is abstract) and reports the outcome.
const CONNECT = `import { connect } from 'node:net'
const [kind, target] = process.argv.slice(2)
const opts = kind === 'tcp' ? { host: '127.0.0.1', port: Number(target) } : { path: target.startsWith('@') ? '\\0' + target.slice(1) : target }
const s = connect(opts)
let said = false
const say = o => { if (!said) { said = true; process.stdout.write(JSON.stringify(o)) } }
s.on('connect', () => { say({ connected: true }); s.destroy() })
s.on('error', e => say({ connected: false, code: e.code }))
`

test(`S1: TCP to a host listener is refused inside (own network namespace) over ${ISOLATION_RUNS} runs and the listener sees nothing; the same probe outside connects`, async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  let accepted = 0
  const server = createServer(sock => { accepted++; sock.destroy() })
  await listen(server, 0)
  t.after(() => server.close())
  const port = String((server.address() as { port: number }).port)
  for (let run = 1; run <= ISOLATION_RUNS; run++) {
    const inside = probeJson(await runNodeProbe(tree, CONNECT, { args: ['tcp', port] }))
    assert.deepEqual(inside, { connected: false, code: 'ECONNREFUSED' }, `run ${run}`)
  }
  assert.equal(accepted, 0)
  const outside = lastJson(await runPlainProbe(tree, CONNECT, ['tcp', port]))
  assert.deepEqual(outside, { connected: true })
  await new Promise(resolve => setTimeout(resolve, 50))
  assert.equal(accepted, 1)
})

// Sends one datagram to host:port; reports whether the kernel took it.
const UDP = `import { createSocket } from 'node:dgram'
const [host, port] = process.argv.slice(2)
const s = createSocket('udp4')
s.send(Buffer.from('rl-udp'), Number(port), host, e => { process.stdout.write(JSON.stringify(e == null ? { sent: true } : { sent: false, code: e.code })); s.close() })
`

test('S4: UDP to a host listener never arrives from inside (the sandbox has its own loopback and no route out); the same probe outside is received', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const server = createSocket('udp4')
  let received = 0
  server.on('message', () => { received++ })
  await new Promise<void>(resolve => server.bind(0, '0.0.0.0', () => resolve()))
  t.after(() => server.close())
  const port = String(server.address().port)
  const external = externalAddresses()
  for (const host of ['127.0.0.1', ...external]) {
    const inside = probeJson(await runNodeProbe(tree, UDP, { args: [host, port] }))
    // Loopback is the sandbox's own (the datagram is taken and goes nowhere); any other address has no route.
    assert.deepEqual(inside, host === '127.0.0.1' ? { sent: true } : { sent: false, code: 'ENETUNREACH' }, host)
  }
  await new Promise(resolve => setTimeout(resolve, 200))
  assert.equal(received, 0, 'nothing from inside reached the host listener')
  // Positive control: outside, the same probe to the same addresses is received.
  for (const host of ['127.0.0.1', ...external]) assert.deepEqual(lastJson(await runPlainProbe(tree, UDP, [host, port])), { sent: true }, host)
  for (let waited = 0; received < 1 + external.length && waited < 10_000; waited += 20) await new Promise(resolve => setTimeout(resolve, 20))
  assert.equal(received, 1 + external.length)
})

// Runs argv[2..] as a child and reports its exit status and trimmed output.
const RUN = `import { spawnSync } from 'node:child_process'
const [program, ...args] = process.argv.slice(2)
const r = spawnSync(program, args, { encoding: 'utf8', timeout: 10_000 })
process.stdout.write(JSON.stringify({ status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() }))
`

/** The host's own non-loopback IPv4 addresses. */
function externalAddresses (): string[] {
  return Object.values(networkInterfaces()).flat().filter(a => a !== undefined && a.family === 'IPv4' && !a.internal).map(a => a?.address ?? '')
}

test('S4: bash\'s /dev/tcp to a host listener fails inside, on loopback and on every host address, and the listener accepts nothing; the same command outside connects', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  let accepted = 0
  const server = createServer(sock => { accepted++; sock.destroy() })
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '0.0.0.0', resolve) })
  t.after(() => server.close())
  const port = String((server.address() as { port: number }).port)
  const hosts = ['127.0.0.1', ...externalAddresses()]
  for (const host of hosts) {
    const inside = probeJson(await runNodeProbe(tree, RUN, { args: ['/usr/bin/bash', '-c', `echo rl >/dev/tcp/${host}/${port}`] }))
    assert.notEqual(inside.status, 0, host)
    assert.match(String(inside.stderr), host === '127.0.0.1' ? /Connection refused/ : /Network is unreachable/, host)
  }
  assert.equal(accepted, 0)
  for (const host of hosts) assert.equal(lastJson(await runPlainProbe(tree, RUN, ['/usr/bin/bash', '-c', `echo rl >/dev/tcp/${host}/${port}`])).status, 0, host)
  for (let waited = 0; accepted < hosts.length && waited < 10_000; waited += 20) await new Promise(resolve => setTimeout(resolve, 20))
  assert.equal(accepted, hosts.length)
})

// Asks the DNS server at host:port for an A record, without the system resolver (the sandbox
// has no /etc, so no resolv.conf: the query must be addressed to reach anything at all).
const DNS = `import { Resolver } from 'node:dns/promises'
const [host, port] = process.argv.slice(2)
const r = new Resolver({ timeout: 500, tries: 1 })
r.setServers([host + ':' + port])
try { process.stdout.write(JSON.stringify({ addresses: await r.resolve4('rl-probe.example') })) } catch (e) { process.stdout.write(JSON.stringify({ code: e.code })) }
`

/** A DNS answer to `query` (one question, no compression in it): the name is at 192.0.2.1. */
function dnsAnswer (query: Buffer): Buffer {
  let end = 12
  while (end < query.length && query[end] !== 0) end += (query[end] as number) + 1
  const question = query.subarray(12, end + 5)
  const header = Buffer.from([0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0])
  query.copy(header, 0, 0, 2)
  const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1])
  return Buffer.concat([header, question, answer])
}

test('S4: a DNS query to a host resolver never arrives from inside, on loopback or any host address; outside, the same query is answered', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const server = createSocket('udp4')
  let received = 0
  server.on('message', (query, from) => { received++; server.send(dnsAnswer(query), from.port, from.address) })
  await new Promise<void>(resolve => server.bind(0, '0.0.0.0', () => resolve()))
  t.after(() => server.close())
  const port = String(server.address().port)
  const hosts = ['127.0.0.1', ...externalAddresses()]
  for (const host of hosts) {
    const inside = probeJson(await runNodeProbe(tree, DNS, { args: [host, port] }))
    assert.equal(inside.addresses, undefined, host)
    assert.equal(typeof inside.code, 'string', host)
  }
  await new Promise(resolve => setTimeout(resolve, 200))
  assert.equal(received, 0, 'no query from inside reached the host resolver')
  for (const host of hosts) assert.deepEqual(lastJson(await runPlainProbe(tree, DNS, [host, port])), { addresses: ['192.0.2.1'] }, host)
  assert.equal(received, hosts.length)
})

test('S4: ICMP cannot be sent from inside (no raw socket without CAP_NET_RAW, no ping socket in the sandbox\'s network namespace); outside, host root gets an echo reply', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', { 'icmp-echo.pl': readFileSync(join(ROOT, 'test/fixtures/probes/icmp-echo.pl'), 'utf8') })
  for (const kind of ['raw', 'dgram']) {
    const inside = probeJson(await runNodeProbe(tree, RUN, { args: ['/usr/bin/perl', '/src/icmp-echo.pl', kind, '127.0.0.1'] }))
    assert.equal(inside.status, 0, kind)
    assert.deepEqual(JSON.parse(String(inside.stdout)), { socket: false, errno: kind === 'raw' ? 'EPERM' : 'EACCES' }, kind)
  }
  // Positive control: the same script as host root, outside, sends and is answered (unless the
  // host itself ignores echo requests, when no control is possible).
  if (readFileSync('/proc/sys/net/ipv4/icmp_echo_ignore_all', 'utf8').trim() !== '0') { t.skip('this host ignores ICMP echo requests: no control is possible'); return }
  assert.deepEqual(lastJson(await runArgv(['/usr/bin/perl', join(tree, 'icmp-echo.pl'), 'raw', '127.0.0.1'], { env: { PATH: '/usr/bin:/bin' } })), { socket: true, sent: 1, reply: 1 })
})

test('S4: an io_uring connect (IORING_OP_CONNECT, no connect(2)) to a host listener is refused inside: the seccomp filter denies io_uring_setup (ENOSYS); outside, the same program connects', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const build = await runArgv([goInstall().goBin, 'build', '-o', join(tree, 'iouring-connect'), join(ROOT, 'test/fixtures/probes/iouring-connect.go')], {
    env: { PATH: '/usr/bin:/bin', HOME: dir, GOCACHE: await warmGoCache(), GOPATH: join(dir, 'gopath'), CGO_ENABLED: '0', GOFLAGS: '', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOWORK: 'off', GOENV: 'off', GO111MODULE: 'off' },
    timeoutMs: 120_000,
  })
  assert.equal(build.exitCode, 0, build.stderr)
  chmodSync(join(tree, 'iouring-connect'), 0o755)
  let accepted = 0
  const server = createServer(sock => { accepted++; sock.destroy() })
  await listen(server, 0)
  t.after(() => server.close())
  const port = String((server.address() as { port: number }).port)
  const control = JSON.parse(String(lastJson(await runPlainProbe(tree, RUN, [join(tree, 'iouring-connect'), port])).stdout)) as Record<string, unknown>
  if (control.setup !== 'ok') { t.skip(`io_uring is not available to an unprivileged process on this host (${String(control.setup)}): nothing to get around`); return }
  assert.deepEqual(control, { setup: 'ok', res: 0 })
  for (let waited = 0; accepted < 1 && waited < 10_000; waited += 20) await new Promise(resolve => setTimeout(resolve, 20))
  assert.equal(accepted, 1)
  const inside = JSON.parse(String(probeJson(await runNodeProbe(tree, RUN, { args: ['/src/iouring-connect', port] })).stdout)) as Record<string, unknown>
  assert.deepEqual(inside, { setup: 'function not implemented' }, 'no ring: io_uring_setup is ENOSYS under the filter')
  await new Promise(resolve => setTimeout(resolve, 100))
  assert.equal(accepted, 1, 'nothing from inside reached the listener')
})

// Runs the program at argv[2] with -u and reports the effective uid it printed.
const EUID = `import { execFileSync } from 'node:child_process'
process.stdout.write(JSON.stringify({ euid: execFileSync(process.argv[2], ['-u'], { encoding: 'utf8' }).trim() }))
`

/** Whether the filesystem holding `path` is mounted nosuid (its longest mount point in mountinfo). */
function mountedNosuid (path: string): boolean {
  let best = { point: '', nosuid: false }
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ')
    const point = (f[4] ?? '').replace(/\\040/g, ' ')
    if ((path === point || path.startsWith(point === '/' ? '/' : `${point}/`)) && point.length >= best.point.length) best = { point, nosuid: (f[5] ?? '').split(',').includes('nosuid') }
  }
  return best.nosuid
}

test('S17: a setuid-root program in the mounted tree gains nothing inside (nosuid binds, no_new_privs); outside, as the same uid, it runs as root', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  // Without setuid on the host's own mount the control cannot show anything, and neither can the test.
  if (mountedNosuid(tree)) { t.skip(`${tree} is on a nosuid mount: no setuid control is possible here`); return }
  const suid = join(tree, 'suid-id')
  copyFileSync('/usr/bin/id', suid)
  chownSync(suid, 0, 0)
  chmodSync(suid, 0o4755)
  assert.deepEqual(probeJson(await runNodeProbe(tree, EUID, { args: ['/src/suid-id'] })), { euid: '65534' })
  // Positive control: the same copy, run by uid 65534 outside the sandbox, is effectively root.
  assert.deepEqual(lastJson(await runPlainProbe(tree, EUID, [suid])), { euid: '0' })
})

test(`S2: an abstract unix socket of the host is unreachable inside over ${ISOLATION_RUNS} runs; the same probe outside connects`, async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const name = `rl-abstract-${randomBytes(6).toString('hex')}`
  let accepted = 0
  const server = createServer(sock => { accepted++; sock.destroy() })
  await listen(server, `\0${name}`)
  t.after(() => server.close())
  for (let run = 1; run <= ISOLATION_RUNS; run++) {
    assert.deepEqual(probeJson(await runNodeProbe(tree, CONNECT, { args: ['unix', `@${name}`] })), { connected: false, code: 'ECONNREFUSED' }, `run ${run}`)
  }
  assert.equal(accepted, 0)
  assert.deepEqual(lastJson(await runPlainProbe(tree, CONNECT, ['unix', `@${name}`])), { connected: true })
})

test('S3: a path unix socket in a mounted directory is refused before spawn; without the check it is connectable even with --unshare-all', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  mkdirSync(join(tree, 'run'), { mode: 0o755 })
  chmodSync(join(tree, 'run'), 0o755)
  let accepted = 0
  const server = createServer(sock => { accepted++; sock.destroy() })
  await listen(server, join(tree, 'run', 'agent.sock'))
  chmodSync(join(tree, 'run', 'agent.sock'), 0o777)
  t.after(() => server.close())
  await assert.rejects(runNodeProbe(tree, CONNECT, { args: ['unix', '/src/run/agent.sock'] }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'SANDBOX_BIND_UNSAFE')
    assert.match(e.message, /run\/agent\.sock \(socket\)/)
    return true
  })
  assert.equal(accepted, 0)
  // Controls: live outside, and reachable through the very same bwrap sandbox when nobody checks the mount.
  assert.deepEqual(lastJson(await runPlainProbe(tree, CONNECT, ['unix', join(tree, 'run', 'agent.sock')])), { connected: true })
  assert.deepEqual(lastJson(await runArgv(rawProbeArgv(tree, ['unix', '/src/run/agent.sock']))), { connected: true })
  await new Promise(resolve => setTimeout(resolve, 50))
  assert.equal(accepted, 2)
})

const WRITE_AND_REMOUNT = `import { writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
let write
try { writeFileSync('/src/victim.txt', 'pwned\\n'); write = 'ok' } catch (e) { write = e.code }
const m = spawnSync('/usr/bin/mount', ['-o', 'remount,bind,rw', '/src'], { encoding: 'utf8' })
let after
try { writeFileSync('/src/victim.txt', 'pwned\\n'); after = 'ok' } catch (e) { after = e.code }
process.stdout.write(JSON.stringify({ write, remount: m.status, remountError: (m.stderr || '').trim(), after }))
`

test('S6: the source mount is read-only and cannot be remounted writable; as host root without --cap-drop ALL it can (control, on a throwaway copy)', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', { 'victim.txt': 'original\n' })
  const digest = (): string => createHash('sha256').update(readFileSync(join(tree, 'victim.txt'))).digest('hex')
  const before = digest()
  const inside = probeJson(await runNodeProbe(tree, WRITE_AND_REMOUNT))
  assert.equal(inside.write, 'EROFS')
  assert.equal(inside.after, 'EROFS')
  assert.notEqual(inside.remount, 0)
  assert.match(String(inside.remountError), /permission denied|must be superuser/i)
  assert.equal(digest(), before)
  // Control: bwrap run by host root keeping root's identity and capabilities (no setpriv, no
  // user namespace, no --cap-drop ALL), as a naive wrapper would.
  const control = lastJson(await runArgv(rawProbeArgv(tree, [], { asRoot: true, drop: ['--cap-drop', '--unshare-user', '--disable-userns'] })))
  assert.equal(control.write, 'EROFS')
  assert.equal(control.remount, 0)
  assert.equal(control.after, 'ok')
  assert.equal(readFileSync(join(tree, 'victim.txt'), 'utf8'), 'pwned\n')
})

const SECRETS = `import { readFileSync, readdirSync } from 'node:fs'
const [file, canary] = process.argv.slice(2)
const read = p => { try { return readFileSync(p, 'utf8') } catch (e) { return 'ERR:' + e.code } }
let environs = ''
for (const pid of readdirSync('/proc').filter(p => /^\\d+$/.test(p))) environs += read('/proc/' + pid + '/environ') + '\\n'
process.stdout.write(JSON.stringify({
  file: read(file),
  proc1: read('/proc/1/environ').replace(/\\0/g, ' '),
  selfEnv: Object.keys(process.env).sort(),
  canaryInEnvirons: environs.includes(canary),
  pids: readdirSync('/proc').filter(p => /^\\d+$/.test(p)).length,
}))
`

test('S5/S10: a canary in the host home, host environments and /proc/1/environ are invisible; the environment is only what the sandbox sets', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const canary = `rl-canary-${randomBytes(12).toString('hex')}`
  const home = join(dir, 'home')
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o755 })
  chmodSync(home, 0o755); chmodSync(join(home, '.ssh'), 0o755)
  const secret = join(home, '.ssh', 'id_canary')
  writeFileSync(secret, `${canary}\n`, { mode: 0o644 })
  // A host process whose environment holds the canary, alive while the probe looks for it.
  const holder = execa('/usr/bin/sleep', ['30'], { env: { RL_CANARY: canary }, extendEnv: false, reject: false })
  t.after(() => { holder.kill('SIGKILL') })
  process.env.RL_CANARY_SUPERVISOR = canary
  t.after(() => { delete process.env.RL_CANARY_SUPERVISOR })
  const inside = probeJson(await runNodeProbe(tree, SECRETS, { args: [secret, canary] }))
  assert.equal(inside.file, 'ERR:ENOENT')
  assert.equal(inside.canaryInEnvirons, false)
  assert.doesNotMatch(String(inside.proc1), new RegExp(canary))
  assert.deepEqual(inside.selfEnv, ['HOME', 'PATH', 'PWD'])
  assert.ok(Number(inside.pids) <= 3, `the sandbox sees only its own processes, saw ${String(inside.pids)}`)
  // Controls: outside, as the same uid, the file reads; as root the host environments show the canary.
  const plain = lastJson(await runPlainProbe(tree, SECRETS, [secret, canary], { PATH: '/usr/bin:/bin', RL_CANARY_SUPERVISOR: canary }))
  assert.equal(plain.file, `${canary}\n`)
  assert.ok((plain.selfEnv as string[]).includes('RL_CANARY_SUPERVISOR'))
  const asRoot = lastJson(await runArgv([process.execPath, join(tree, 'probe.mjs'), secret, canary], { env: { PATH: '/usr/bin:/bin' } }))
  assert.equal(asRoot.canaryInEnvirons, true)
})

const NESTED_USERNS = `import { spawnSync } from 'node:child_process'
const r = spawnSync('/usr/bin/unshare', ['--user', '--map-root-user', '/usr/bin/id', '-u'], { encoding: 'utf8' })
process.stdout.write(JSON.stringify({ status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() }))
`

test('S8: a nested user namespace is refused: by the seccomp filter (EPERM), and beneath it by --disable-userns (ENOSPC, the chain without the filter); without --disable-userns the same sandbox creates one', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const inside = probeJson(await runNodeProbe(tree, NESTED_USERNS))
  assert.notEqual(inside.status, 0)
  assert.match(String(inside.stderr), /unshare failed: Operation not permitted/)
  const unfiltered = lastJson(await runArgv(rawProbeArgv(tree, [])))
  assert.notEqual(unfiltered.status, 0)
  assert.match(String(unfiltered.stderr), /No space left on device/)
  const control = lastJson(await runArgv(rawProbeArgv(tree, [], { drop: ['--disable-userns'] })))
  assert.deepEqual(control, { status: 0, stdout: '0', stderr: '' })
})

test('S9: TIOCSTI cannot reach the terminal (new session: no controlling tty); without --new-session the injection arrives (script(1) pty)', async () => {
  // script(1) from util-linux gives the harness a pseudo-terminal as its controlling terminal.
  const out: Record<string, { probe: Record<string, unknown>, arrived: string }> = {}
  for (const mode of ['sandbox', 'control']) {
    const r = await execa('/usr/bin/script', ['-qfec', `${process.execPath} --import tsx test/helpers/tty-harness.ts ${mode}`, '/dev/null'], {
      cwd: ROOT, env: { PATH: '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'dumb' }, extendEnv: false, reject: false, timeout: 60_000,
    })
    const line = String(r.stdout).split(/\r?\n/).find(l => l.startsWith('{"mode"'))
    assert.ok(line !== undefined, `${mode}: ${String(r.stdout)} ${String(r.stderr)}`)
    out[mode] = JSON.parse(line)
  }
  assert.deepEqual(out.sandbox?.probe, { open: 'No such device or address' })
  assert.equal(out.sandbox?.arrived, '')
  assert.deepEqual(out.control?.probe, { injected: true })
  assert.equal(out.control?.arrived, 'rl-injected\n')
})

// The daemon leaves a flag in /tmp (the sandbox's own tmpfs), and the probe reports only once
// it has seen it: a daemon that never started cannot count as one that was killed.
const DAEMON = `import { spawn } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
const [marker, mode] = process.argv.slice(2)
const flag = '/tmp/' + marker + '.daemon'
if (mode === 'daemon') { writeFileSync(flag, String(process.pid)); setInterval(() => {}, 1000) } else if (mode === 'middle') {
  spawn(process.execPath, [process.argv[1], marker, 'daemon'], { detached: true, stdio: 'ignore' }).unref()
} else {
  spawn(process.execPath, [process.argv[1], marker, 'middle'], { detached: true, stdio: 'ignore' }).unref()
  const since = Date.now()
  const poll = setInterval(() => {
    const daemon = existsSync(flag)
    if (!daemon && Date.now() - since < 20000) return
    clearInterval(poll)
    process.stdout.write(JSON.stringify({ started: true, daemon }))
    if (mode === 'hang') setInterval(() => {}, 1000)
  }, 20)
}
`

test(`S11: a double-forked, setsid daemon does not survive the sandbox over ${ISOLATION_RUNS} runs (its command exits, or is killed at the deadline in ${DEADLINE_RUNS}); outside it survives a process-group kill`, async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  for (let run = 0; run < ISOLATION_RUNS; run++) {
    const mode = run < DEADLINE_RUNS ? 'hang' : 'exit'
    const marker = `rl-daemon-${randomBytes(6).toString('hex')}`
    const r = await runNodeProbe(tree, DAEMON, { args: [marker, mode], timeoutMs: mode === 'hang' ? 6000 : 30_000 })
    assert.deepEqual(probeJson(r), { started: true, daemon: true }, `run ${run} (${mode}): the daemon ran inside the sandbox`)
    assert.equal(r.report.stop?.reason, mode === 'hang' ? 'deadline' : undefined)
    assert.equal(r.report.survivors, 0, `run ${run} (${mode})`)
    assert.deepEqual(processesWith(marker), [], `run ${run} (${mode}): a sandbox process survived`)
  }
  // Control: the same probe outside any pid namespace, its process group SIGKILLed: the daemon lives on.
  const marker = `rl-daemon-${randomBytes(6).toString('hex')}`
  const plain = execa('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, join(tree, 'probe.mjs'), marker, 'hang'], { env: { PATH: '/usr/bin:/bin' }, extendEnv: false, reject: false, detached: true })
  // Kill the group once the daemon exists (its argv ends "<marker> daemon"), however busy the host.
  for (let waited = 0; processesWith(`${marker}\0daemon`).length === 0 && waited < 30_000; waited += 50) await new Promise(resolve => setTimeout(resolve, 50))
  process.kill(-(plain.pid as number), 'SIGKILL')
  await plain
  await new Promise(resolve => setTimeout(resolve, 200))
  const survivors = processesWith(marker)
  t.after(() => {
    for (const p of processesWith(marker)) try { process.kill(p, 'SIGKILL') } catch {}
    rmSync(`/tmp/${marker}.daemon`, { force: true })
  })
  assert.ok(survivors.length >= 1, 'the control daemon should have survived its process group')
  assert.deepEqual(leftoverCgroups(), [])
})

const IGNORE_TERM = `process.on('SIGTERM', () => { process.stdout.write('{"term":"ignored"}\\n') })
process.stdout.write('{"ready":true}\\n')
setInterval(() => {}, 1000)
`

test('S13: a workload that ignores SIGTERM is still stopped at the deadline (SIGKILL), with nothing left; outside, SIGTERM alone does not stop it', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const r = await runNodeProbe(tree, IGNORE_TERM, { timeoutMs: 2000 })
  assert.equal(r.report.stop?.reason, 'deadline')
  assert.equal(r.report.exit.signal, 'SIGKILL')
  assert.equal(r.report.survivors, 0)
  assert.deepEqual(leftoverCgroups(), [])
  // Control: outside, SIGTERM is ignored and the process is still there.
  const p = execa(process.execPath, [join(tree, 'probe.mjs')], { env: {}, extendEnv: false, reject: false })
  await new Promise<void>(resolve => p.stdout?.once('data', () => resolve()))
  p.kill('SIGTERM')
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.equal(p.exitCode, null, 'the control ignored SIGTERM')
  p.kill('SIGKILL')
  await p
})

const INHERITED_FD = `import { readFileSync, readdirSync } from 'node:fs'
let canary
try { canary = readFileSync('/proc/self/fd/200/canary.txt', 'utf8') } catch (e) { canary = 'ERR:' + e.code }
process.stdout.write(JSON.stringify({ fds: readdirSync('/proc/self/fd').map(Number).sort((a, b) => a - b), canary }))
`

test('an inherited descriptor without close-on-exec (a host directory) is closed before the sandbox starts; passed through, it reaches the host', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const secret = makeTree(dir, 'secret', { 'canary.txt': 'rl-fd-canary\n' })
  writeFileSync(join(tree, 'probe.mjs'), INHERITED_FD, { mode: 0o644 })
  // The harness process inherits fd 200 open on the secret directory (no FD_CLOEXEC: node
  // marks only low inherited descriptors close-on-exec), as a tool started by a careless parent
  // would. It first runs the control (bwrap launched directly, which passes fd 200 on), then
  // the supervisor (which closes it first).
  const harness = `
import { runSandbox, nodeInstall } from ${JSON.stringify(join(ROOT, 'tools/core/src/index.ts'))}
import { TEST_LIMITS, rawProbeArgv, runArgv } from ${JSON.stringify(join(ROOT, 'test/helpers/sandbox.ts'))}
const node = nodeInstall()
const raw = await runArgv(rawProbeArgv(${JSON.stringify(tree)}, []))
const r = await runSandbox({ command: [node.execPath, '/src/probe.mjs'], cwd: '/src', env: {}, mounts: [{ source: ${JSON.stringify(tree)}, dest: '/src' }], systemDirs: [node.prefix], limits: TEST_LIMITS, timeoutMs: 20000 })
process.stdout.write(JSON.stringify({ sandbox: JSON.parse(r.stdout.toString()), closed: r.report.closed_inherited_fds, raw: JSON.parse(raw.stdout) }) + '\\n')
`
  const harnessFile = join(dir, 'fd-harness.mts')
  writeFileSync(harnessFile, harness)
  const fd = openSync(secret, 'r')
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', harnessFile], { cwd: ROOT, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: 197 }, () => 'ignore' as const), fd], timeout: 60_000, encoding: 'utf8' })
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { sandbox: { fds: number[], canary: string }, closed: number[], raw: { fds: number[], canary: string } }
    assert.ok(out.closed.includes(200), JSON.stringify(out))
    assert.equal(out.sandbox.canary, 'ERR:ENOENT')
    assert.ok(!out.sandbox.fds.includes(200) && out.raw.fds.includes(200))
    // Control: the same sandbox, launched without the supervisor, inherits fd 200 and reads the host file through it.
    assert.equal(out.raw.canary, 'rl-fd-canary\n')
  } finally {
    closeSync(fd)
  }
})
