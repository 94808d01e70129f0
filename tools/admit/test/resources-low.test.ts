// admit run's disk floor (DESIGN §11) where the state_dir is not made yet: admit samples the
// filesystem it will make the state_dir on (its nearest existing ancestor), so a state_dir
// whose parent lies on a filesystem below the floor is RESOURCES_LOW (75) before anything is
// written or consumed. An audit found it skipped: the path did not exist, so nothing was
// sampled, admit consumed the key, and reproduce then met the floor (75) with the key spent.
// The parent is put on a private tmpfs with a few MiB left, in a mount namespace of its own.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine } from '@repairline/core'
import { makeFixture, writeJson } from '../../../test/helpers/fixture.ts'
import { BASE_ENV, ROOT, binPath, runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

const IN_FULL_FS = fileURLToPath(new URL('../../../test/helpers/in-full-fs.mjs', import.meta.url))
const SKIP = process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root'

/** Runs a bin with directory `dir` on a private tmpfs that has `freeBytes` left; `names` lists `dir` after the run. */
async function onSmallFs (dir: string, freeBytes: number, scratch: string, bin: string, args: string[]): Promise<{ exitCode: number, code: string | undefined, kinds: string[], stderr: string, names: string[] }> {
  const listing = join(scratch, `listing-${bin}.json`)
  const spec = { dir, freeBytes, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath(bin), ...args], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const records = String(r.stdout).split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))
  const error = records.find(x => x.kind === 'error')
  const { names } = JSON.parse(readFileSync(listing, 'utf8')) as { names: string[] }
  return { exitCode: r.exitCode ?? -1, code: error?.kind === 'error' ? error.code : undefined, kinds: records.map(x => x.kind), stderr: String(r.stderr), names }
}

test('admit with a state_dir not made yet, whose parent is on a filesystem below the disk floor, is RESOURCES_LOW (75): no state_dir made, the key not consumed; with room it admits', { skip: SKIP }, async t => {
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
