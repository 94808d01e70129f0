// The built extract-tree bin (run `pnpm build` first), spawned like an operator or the
// driver does: from a real `admit run` through a pipe, with --attempt, with bad flags,
// without an attempt, with --check, and killed at its crash point.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { run } from '@repairline/core'
import { BASE_ENV, binPath, errorOf, runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { HOOKED_ADMISSION } from '../../../test/helpers/attempt.ts'

test('admit run | extract-tree: the attempt record on stdin names the attempt', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const admitted = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  const r = await runBin('extract-tree', [], { input: admitted.stdout })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'tree', 'result'])
  const attempt = r.records[1]
  assert.ok(attempt?.kind === 'attempt')
  const tree = r.records[2]
  assert.ok(tree?.kind === 'tree')
  assert.equal(tree.entries, 4)
  assert.ok(existsSync(join(attempt.path, 'tree.tar')))
  assert.match(r.stderr, /^extract-tree: extracted 4 files \(\d+ bytes\) at [0-9a-f]{12} into /)
  // The same attempt by flag, with --check: matches, exit 0.
  const check = await runBin('extract-tree', ['--attempt', attempt.path, '--check'])
  assert.equal(check.exitCode, 0, check.stderr)
  assert.deepEqual(check.records.map(x => x.kind === 'check' ? `${x.file}:${String(x.match)}` : x.kind), ['start', 'attempt', 'tree.tar:true', 'tree-manifest.json:true', 'result'])
})

test('usage errors exit 2, no attempt exits 66, --help prints usage and no records', async () => {
  const bad = await runBin('extract-tree', ['--frobnicate'])
  assert.equal(bad.exitCode, 2)
  assert.equal(errorOf(bad)?.code, 'USAGE')
  assert.match(bad.stderr, /^extract-tree: USAGE: /)
  const none = await runBin('extract-tree', [])
  assert.equal(none.exitCode, 66)
  assert.equal(errorOf(none)?.code, 'ATTEMPT_MISSING')
  const missing = await runBin('extract-tree', ['--attempt', '/nonexistent/attempt'])
  assert.equal(missing.exitCode, 66)
  assert.equal(errorOf(missing)?.code, 'INPUT_MISSING')
  const help = await run(binPath('extract-tree'), ['--help'], { env: BASE_ENV })
  assert.equal(help.exitCode, 0)
  assert.match(help.stdout.toString(), /^Usage: extract-tree \[--attempt DIR\] \[--check\]\n[^{]*--check/)
})

test('killed at the extraction fault point: tree.tar without a manifest, no outcome; a rerun completes with the same bytes', async t => {
  const f = await makeFixture(tempDir(t))
  const admitted = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: HOOKED_ADMISSION })
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  const hooks = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_FAULT_AT: 'extraction' }
  const killed = await runBin('extract-tree', [], { input: admitted.stdout, env: hooks })
  assert.notEqual(killed.exitCode, 0)
  assert.deepEqual(killed.records.map(x => x.kind), ['start', 'attempt'])
  const attempt = killed.records[1]
  assert.ok(attempt?.kind === 'attempt')
  const dir = attempt.path
  assert.ok(existsSync(join(dir, 'tree.tar')))
  assert.equal(existsSync(join(dir, 'tree-manifest.json')), false)
  assert.equal(existsSync(join(dir, 'outcome.json')), false)
  const tar = readFileSync(join(dir, 'tree.tar'))
  // Positive control: without the hook the same run completes.
  const rerun = await runBin('extract-tree', ['--attempt', dir])
  assert.equal(rerun.exitCode, 0, rerun.stderr)
  assert.ok(readFileSync(join(dir, 'tree.tar')).equals(tar))
  assert.ok(existsSync(join(dir, 'tree-manifest.json')))
  assert.deepEqual(readdirSync(dir).filter(n => n.includes('.tmp-')), [])
})
