// admit run's sandbox preflight: a host that cannot run the sandbox is refused with 77 before
// anything is written or consumed. The primitive is taken away for real, for one run, in a
// private mount namespace (a bwrap that fails like an AppArmor-restricted one; the cgroup
// hierarchies hidden under an empty tmpfs); the same fixture admits without the mask.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { runBin, errorOf } from '../../../test/helpers/bin.ts'
import { fakeBwrap, runBinMasked, type Masks } from '../../../test/helpers/mount-ns.ts'
import { sandboxTemp } from '../../../test/helpers/sandbox.ts'

test('admit run refuses with 77 SANDBOX_UNAVAILABLE before anything is written when a sandbox primitive is missing', async t => {
  const f = await makeFixture(sandboxTemp(t))
  const cases: Array<[string, Masks, RegExp]> = [
    ['bwrap refused', { binds: [[fakeBwrap(sandboxTemp(t)), '/usr/bin/bwrap']] }, /sandbox preflight: sandbox: bwrap did not start its sandbox \(exit 1\): bwrap: setting up uid map: Permission denied/],
    ['no cgroups', { tmpfs: ['/sys/fs/cgroup'] }, /sandbox preflight: sandbox: cgroup: our memory group .* is not there/],
  ]
  for (const [name, masks, message] of cases) {
    const r = await runBinMasked('admit', ['run', '--config', f.configPath, '--report', f.reportPath], masks)
    assert.equal(r.exitCode, 77, `${name}: ${r.stderr}`)
    const err = errorOf(r)
    assert.equal(err?.code, 'SANDBOX_UNAVAILABLE', name)
    assert.match(err?.message ?? '', message)
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
    assert.match(r.stderr, /^admit: SANDBOX_UNAVAILABLE: /)
    assert.equal(existsSync(f.stateDir), false, `${name}: nothing may be written`)
  }
  // Not consumed: status shows the case eligible; positive control: without the mask it admits.
  const s = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath])
  assert.deepEqual(s.records.filter(x => x.kind === 'case-status').map(x => x.kind === 'case-status' ? x.status : ''), ['eligible'])
  const ok = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.match(ok.stderr, /admit: sandbox preflight passed: \d+ limits read back/)
})
