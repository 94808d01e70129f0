// Free disk below the 2 GiB floor (DESIGN §11) is a passing condition, never an outcome: admit
// samples the state filesystem in its preflight and refuses (RESOURCES_LOW, 75) before a key
// is consumed; a step that meets it after admission exits 75 with no outcome and runs again
// once there is room (a black-box audit found the key spent as `fault` on a full disk, in
// verify after the provider had answered). The state dir is put on a private tmpfs with a few
// MiB left, in a mount namespace of its own.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { admitAttempt, extractAttempt } from '../../../test/helpers/attempt.ts'
import { runBin, errorOf } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { onSmallFs, SMALL_FS_SKIP } from '../../../test/helpers/small-fs.ts'

test('admit on a state filesystem below the disk floor is RESOURCES_LOW (75) before anything is written; with room it admits', { skip: SMALL_FS_SKIP }, async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  mkdirSync(f.stateDir, { recursive: true, mode: 0o711 })
  const r = await onSmallFs(f.stateDir, 32 << 20, tempDir(t), 'admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(r.exitCode, 75, r.stderr)
  assert.equal(r.code, 'RESOURCES_LOW')
  assert.match(r.stderr, new RegExp(`free disk on ${f.stateDir} .* is below the floor`))
  assert.deepEqual(r.names.filter(n => n === 'attempts'), [], 'no attempt directory on the small filesystem')
  // Positive control: the same admit on the state dir's own (large) filesystem.
  const ok = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('reproduce on a state filesystem that fell below the disk floor after admission exits RESOURCES_LOW (75): no outcome, the key not spent; with room it reproduces', { skip: SMALL_FS_SKIP }, async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const a = await admitAttempt(f)
  await extractAttempt(a)
  const staged = (): string[] => readdirSync(a.dir).filter(n => n !== 'work').sort()
  const before = staged()
  const r = await onSmallFs(f.stateDir, 32 << 20, tempDir(t), 'reproduce', ['--attempt', a.dir])
  assert.equal(r.exitCode, 75, r.stderr)
  assert.equal(r.code, 'RESOURCES_LOW')
  assert.deepEqual(staged(), before)
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false, 'no outcome: the step can run again')
  // Positive control: with room, the same step on the same attempt reproduces the case.
  const ok = await runBin('reproduce', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(errorOf(ok), undefined)
})
