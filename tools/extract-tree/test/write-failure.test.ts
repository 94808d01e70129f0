// A write that fails halfway (threat-matrix K5: the disk fills mid-write) leaves nothing
// half-written: extract-tree run under a file-size limit smaller than tree.tar fails with
// WRITE_FAILED, and the attempt holds no tree.tar, no temp file and no outcome, so the same
// step can simply run again. RLIMIT_FSIZE stands in for the full disk: a write past it fails
// (EFBIG; Node ignores SIGXFSZ) exactly where a full filesystem's ENOSPC would.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { execa } from 'execa'
import { parseRecordLine } from '@repairline/core'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { admitFixture } from '../../../test/helpers/attempt.ts'
import { BASE_ENV, ROOT, binPath, runBin, errorOf } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

test('K5: tree.tar cut off by a failing write leaves no partial file, no temp file and no outcome; the same step then succeeds', async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const r = await execa('/usr/bin/prlimit', ['--fsize=4096', '--', binPath('extract-tree'), '--attempt', a.dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const records = String(r.stdout).split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))
  assert.equal(r.exitCode, 73, String(r.stderr))
  assert.equal((records.find(x => x.kind === 'error') as { code?: string } | undefined)?.code, 'WRITE_FAILED')
  assert.equal(records.at(-1)?.kind, 'result')
  assert.match(String(r.stderr), /^extract-tree: WRITE_FAILED: cannot write .*tree\.tar: .*(EFBIG|too large)/m)
  assert.deepEqual(readdirSync(a.dir).sort(), before, 'no tree.tar, no temp file, no outcome')
  // Positive control: the same step without the limit writes both files.
  const ok = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(errorOf(ok), undefined)
  assert.deepEqual(readdirSync(a.dir).filter(n => !before.includes(n)).sort(), ['tree-manifest.json', 'tree.tar'])
})
