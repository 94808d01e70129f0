// A supervisor started in a login-like session keyring (`keyctl session - node this-file`):
// it links its user keyring (root's) into that session keyring and keeps a secret there, as
// pam_keyinit sessions and `keyctl new_session; keyctl link @u @s` do, then tries to reach the
// secret as the sandbox user three ways and prints one JSON object:
//   outside:   the probe run with setpriv as uid 65534 in this session keyring (the positive
//              control: possession through the linked user keyring gives it the secret);
//   chainStep: the same behind `keyctl session -` only (the launch chain's keyring step alone);
//   inside:    the probe in the real sandbox (keyring step and seccomp filter).
// The secret is invalidated before this process ends. argv: probe (absolute path of the
// compiled kernel-probe), secret.
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test helper: keyctl and setpriv, argv arrays
import { dirname } from 'node:path'
import { KEYCTL, SETPRIV, runSandbox } from '@repairline/core'
import { TEST_LIMITS } from './sandbox.ts'

const [probe = '', secret = ''] = process.argv.slice(2)
const name = `rl-operator-token-${process.pid}`
const keyctl = (...args: string[]): string => execFileSync(KEYCTL, args, { encoding: 'utf8' }).trim()
const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups', '--']

keyctl('link', '@u', '@s')
const id = keyctl('add', 'user', name, secret, '@u')
try {
  const probes = [`read=${id}`, `search=${name}`, 'describe-session', 'add=session']
  const outside = execFileSync(SETPRIV, [...asNobody, probe, ...probes], { encoding: 'utf8' })
  const chainStep = execFileSync(SETPRIV, [...asNobody, KEYCTL, 'session', '-', probe, ...probes], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  const r = await runSandbox({
    command: ['/probe/kernel-probe', ...probes],
    cwd: '/',
    env: {},
    mounts: [{ source: dirname(probe), dest: '/probe' }],
    limits: TEST_LIMITS,
    timeoutMs: 30_000,
  })
  process.stdout.write(JSON.stringify({ id, session: keyctl('rdescribe', '@s'), outside, chainStep, inside: r.stdout.toString('utf8'), insideExit: r.report.exit, insideStderr: r.stderr.toString('utf8') }) + '\n')
} finally {
  keyctl('invalidate', id)
}
