// admit run's disk floor (DESIGN §11) where the state_dir is not made yet: admit samples the
// filesystem it will make the state_dir on (its nearest existing ancestor), so a state_dir
// whose parent lies on a filesystem below the floor is RESOURCES_LOW (75) before anything is
// written or consumed. An audit found it skipped: the path did not exist, so nothing was
// sampled, admit consumed the key, and reproduce then met the floor (75) with the key spent.
// The parent is put on a private tmpfs with a few MiB left, in a mount namespace of its own.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { makeFixture, writeJson } from '../../../test/helpers/fixture.ts'
import { runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { onSmallFs, SMALL_FS_SKIP } from '../../../test/helpers/small-fs.ts'

test('admit with a state_dir not made yet, whose parent is on a filesystem below the disk floor, is RESOURCES_LOW (75): no state_dir made, the key not consumed; with room it admits', { skip: SMALL_FS_SKIP }, async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  // state-dir-on-small-parent: the state_dir itself does not exist, so only its parent's
  // filesystem says whether admit may write there.
  const small = join(f.dir, 'small')
  mkdirSync(small, { mode: 0o711 })
  const stateDir = join(small, 'state')
  writeJson(f.configPath, { ...f.config, state_dir: stateDir })
  const args = ['run', '--config', f.configPath, '--report', f.reportPath]
  const r = await onSmallFs(small, 8 << 20, tempDir(t), 'admit', args)
  assert.equal(r.exitCode, 75, r.stderr)
  assert.equal(r.code, 'RESOURCES_LOW')
  assert.deepEqual(r.kinds, ['start', 'error', 'result'], 'no attempt record')
  assert.match(r.stderr, new RegExp(`^admit: RESOURCES_LOW: .*free disk on ${small} .* is below the floor`, 'm'))
  assert.deepEqual(r.names, [], 'nothing written on the small filesystem: no state_dir, lock, attempt or started.json')
  assert.equal(existsSync(stateDir), false)
  // Not consumed: status shows the case eligible.
  const s = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(s.exitCode, 0, s.stderr)
  assert.deepEqual(s.records.filter(x => x.kind === 'case-status').map(x => x.kind === 'case-status' ? x.status : ''), ['eligible'])
  // Positive control: the same admit, the same missing state_dir, on its parent's own (large)
  // filesystem: admitted, and admit makes the state_dir.
  const ok = await runBin('admit', args)
  assert.equal(ok.exitCode, 0, ok.stderr)
  const attempt = ok.records.find(x => x.kind === 'attempt')
  assert.ok(attempt?.kind === 'attempt' && existsSync(join(attempt.path, 'started.json')), 'admitted: started.json written')
  assert.ok(attempt.path.startsWith(`${stateDir}/`))
})
