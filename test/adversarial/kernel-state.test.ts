// Kernel state bubblewrap does not namespace (issue 35; docs/security-seccomp.md): the kernel
// keyrings, io_uring, ptrace, AF_VSOCK. Each attack runs a compiled probe
// (test/helpers/kernel-probe.c) inside the real sandbox, and, as its positive control, outside
// it as the same unprivileged user, where every one of them works.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: gcc, keyctl and setpriv, argv arrays
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { KEYCTL, SETPRIV, runSandbox } from '@repairline/core'
import { ROOT } from '../helpers/bin.ts'
import { sandboxTemp, TEST_LIMITS } from '../helpers/sandbox.ts'

const PROBE_SOURCE = join(ROOT, 'test', 'helpers', 'kernel-probe.c')
const KEYRING_SUPERVISOR = join(ROOT, 'test', 'helpers', 'keyring-supervisor.ts')
const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups', '--']

/** Compiles the probe into a directory the sandbox user can read; returns its path. */
function compileProbe (t: TestContext): string {
  const dir = sandboxTemp(t, 'rl-kprobe-')
  const probe = join(dir, 'kernel-probe')
  execFileSync('gcc', ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', '-o', probe, PROBE_SOURCE])
  return probe
}

/** The probe's lines as probe name → "ok …" / "err ERRNO". */
function parse (out: string): Map<string, string> {
  const m = new Map<string, string>()
  for (const line of out.split('\n')) {
    const at = line.indexOf(' ')
    if (at > 0) m.set(line.slice(0, at), line.slice(at + 1))
  }
  return m
}

async function inside (probe: string, probes: string[]): Promise<Map<string, string>> {
  const r = await runSandbox({ command: ['/probe/kernel-probe', ...probes], cwd: '/', env: {}, mounts: [{ source: join(probe, '..'), dest: '/probe' }], limits: TEST_LIMITS, timeoutMs: 30_000 })
  assert.equal(r.report.exit.code, 0, `the probe inside: ${JSON.stringify(r.report.exit)} ${r.stderr.toString('utf8')}`)
  return parse(r.stdout.toString('utf8'))
}

function outside (probe: string, probes: string[]): Map<string, string> {
  return parse(execFileSync(SETPRIV, [...AS_NOBODY, probe, ...probes], { encoding: 'utf8' }))
}

test('operator-session-keyring-with-user-keyring-linked: the secret the supervisor\'s session reaches is neither readable nor found inside, and nothing can be added; outside, as the same user, it is', async t => {
  const probe = compileProbe(t)
  const secret = `rl-canary-${randomBytes(12).toString('hex')}`
  const out = execFileSync(KEYCTL, ['session', '-', process.execPath, '--import', 'tsx', KEYRING_SUPERVISOR, probe, secret], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const r = JSON.parse(out) as { id: string, session: string, outside: string, chainStep: string, inside: string, insideExit: unknown, insideStderr: string }
  // The set-up is the issue's: an anonymous session keyring holding root's user keyring.
  assert.match(r.session, /^keyring;0;0;[0-9a-f]+;_ses$/)
  const o = parse(r.outside)
  assert.equal(o.get('read'), `ok ${secret}`, 'control: possession through the linked user keyring reads the secret')
  assert.equal(o.get('search'), `ok ${r.id}`)
  assert.match(o.get('describe-session') ?? '', /^ok keyring;0;0;/)
  assert.match(o.get('add') ?? '', /^ok \d+$/)
  // The launch chain's keyring step alone (no filter): a new, empty session keyring.
  const c = parse(r.chainStep)
  assert.match(c.get('read') ?? '', /^err E(ACCES|NOKEY)$/, 'keyctl session - leaves the operator\'s keyring unpossessed')
  assert.equal(c.get('search'), 'err ENOKEY')
  assert.match(c.get('describe-session') ?? '', /^ok keyring;65534;65534;[0-9a-f]+;_ses$/)
  // The sandbox: the keyring calls are denied outright.
  const i = parse(r.inside)
  assert.deepEqual(Object.fromEntries(i), { read: 'err EPERM', search: 'err EPERM', 'describe-session': 'err EPERM', add: 'err EPERM' }, `${r.inside} ${r.insideStderr}`)
  assert.ok(!r.inside.includes(secret) && !r.insideStderr.includes(secret))
})

test('nobody-user-keyring-and-proc-keys: uid 65534\'s user keyring cannot be read or added to from inside, and /proc/keys lists nothing; outside, as that user, both work', async t => {
  const probe = compileProbe(t)
  const kept = outside(probe, ['add-keep=user']).get('add-keep') ?? ''
  assert.match(kept, /^ok \d+$/, 'control: uid 65534 adds a key to its user keyring')
  const id = kept.slice(3)
  t.after(() => { execFileSync(SETPRIV, [...AS_NOBODY, KEYCTL, 'invalidate', id]) })
  const o = outside(probe, [`read=${id}`, 'add=user', 'proc-keys'])
  assert.equal(o.get('read'), 'ok planted', 'control: the owner reads it')
  assert.match(o.get('add') ?? '', /^ok \d+$/)
  assert.match(o.get('proc-keys') ?? '', /^ok [1-9]\d*$/, 'control: /proc/keys lists the key')
  const i = await inside(probe, [`read=${id}`, 'add=user', 'add=session', 'proc-keys'])
  assert.equal(i.get('read'), 'err EPERM')
  assert.equal(i.get('add'), 'err EPERM')
  assert.equal(i.get('proc-keys'), 'err EACCES', '/proc/keys is covered by an unopenable /dev/null')
})

test('kernel-surface-probes: io_uring, keyctl, ptrace of the runner and an AF_VSOCK socket are refused inside, and the filter\'s fd is closed; AF_INET and AF_UNIX sockets still work; outside all of them work', async t => {
  const probe = compileProbe(t)
  const probes = ['io_uring', 'describe-session', 'ptrace-parent', 'vsock', 'inet', 'unix']
  const o = outside(probe, probes)
  for (const p of probes) assert.match(o.get(p) ?? '', /^ok /, `control: ${p} works outside: ${o.get(p) ?? 'absent'}`)
  // The filter's descriptor is not left open for the command (bwrap closes it once read);
  // control: the probe sees a descriptor 5 it was given.
  const given = parse(execFileSync(SETPRIV, [...AS_NOBODY, probe, 'fd=5'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'pipe'] }))
  assert.match(given.get('fd') ?? '', /^ok /)
  const i = await inside(probe, ['fd=5', ...probes])
  assert.deepEqual(Object.fromEntries(i), {
    fd: 'err EBADF',
    io_uring: 'err ENOSYS',
    'describe-session': 'err EPERM',
    'ptrace-parent': 'err EPERM',
    vsock: 'err EAFNOSUPPORT',
    inet: 'ok 3',
    unix: 'ok 0',
  })
})
