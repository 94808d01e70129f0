// A stage file of an earlier step replaced by a symlink between steps (a file the state root
// must hold itself): every reader opens it without following links, and the step refuses
// with STATE_UNSAFE (73), never an internal error (a black-box audit met ELOOP as exit 70).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { admitAttempt, extractAttempt } from '../../../test/helpers/attempt.ts'
import { errorOf, runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

test('tree.tar replaced by a symlink to an identical copy: reproduce refuses STATE_UNSAFE (73), writes nothing; the real file back, it runs', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const a = await admitAttempt(f)
  await extractAttempt(a)
  const copy = join(tempDir(t), 'tree.tar')
  copyFileSync(join(a.dir, 'tree.tar'), copy)
  renameSync(join(a.dir, 'tree.tar'), join(tempDir(t), 'kept.tar'))
  symlinkSync(copy, join(a.dir, 'tree.tar'))
  // work/ is the step's unsealed scratch; every other name is a stage file.
  const staged = (): string[] => readdirSync(a.dir).filter(n => n !== 'work').sort()
  const before = staged()
  const r = await runBin('reproduce', ['--attempt', a.dir])
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.doesNotMatch(r.stderr, /INTERNAL/)
  assert.deepEqual(staged(), before, 'no baseline, no outcome')
  // Positive control: the same bytes as a regular file are read, and the case reproduces.
  copyFileSync(copy, join(a.dir, 'tree.tar.real'))
  renameSync(join(a.dir, 'tree.tar.real'), join(a.dir, 'tree.tar'))
  const ok = await runBin('reproduce', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('an earlier stage file replaced by a directory: the next step refuses STATE_UNSAFE (73) before it reads or writes; the file back, it runs', async t => {
  const f = await makeFixture(tempDir(t), { runner: 'node' })
  const a = await admitAttempt(f)
  await extractAttempt(a)
  const registers = join(a.dir, 'inputs', 'registers.json')
  const kept = readFileSync(registers)
  unlinkSync(registers)
  mkdirSync(registers)
  const r = await runBin('reproduce', ['--attempt', a.dir])
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /registers\.json is a directory where a stage file of an earlier step belongs/)
  assert.equal(existsSync(join(a.dir, 'baseline.json')), false)
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false)
  // Positive control: the file back in place, the same step reproduces the case.
  rmdirSync(registers)
  writeFileSync(registers, kept)
  const ok = await runBin('reproduce', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
})
