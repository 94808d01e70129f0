// A write that fails halfway (threat-matrix K5: the disk fills mid-write) leaves nothing
// half-written: extract-tree fails with WRITE_FAILED, and the attempt holds no tree.tar, no
// temp file and no outcome, so the same step can simply run again. Two ways: a real full
// filesystem (the attempt directory on a private tmpfs with a few KiB left, in a mount
// namespace of its own: ENOSPC), and a file-size limit smaller than tree.tar (EFBIG; Node
// ignores SIGXFSZ), which fails the write at the same place.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine, sha256Hex } from '@repairline/core'
import { GO_FILES, makeFixture } from '../../../test/helpers/fixture.ts'
import { admitFixture } from '../../../test/helpers/attempt.ts'
import { BASE_ENV, ROOT, binPath, runBin, errorOf } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

const IN_FULL_FS = fileURLToPath(new URL('../../../test/helpers/in-full-fs.mjs', import.meta.url))

/** The records of a run's stdout. */
function recordsOf (stdout: unknown): Array<{ kind: string, code?: string, tar_sha256?: string }> {
  return String(stdout).split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`)) as Array<{ kind: string, code?: string, tar_sha256?: string }>
}

/** Runs extract-tree on `dir` under a file-size limit of `bytes` (prlimit; git inherits it). */
async function extractUnderFileSizeLimit (dir: string, bytes: number): Promise<{ exitCode: number, records: Array<{ kind: string, code?: string }>, stderr: string }> {
  const r = await execa('/usr/bin/prlimit', [`--fsize=${bytes}`, '--', binPath('extract-tree'), '--attempt', dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  return { exitCode: r.exitCode ?? -1, records: recordsOf(r.stdout), stderr: String(r.stderr) }
}

/** Runs extract-tree with the attempt directory on a private tmpfs that has `freeBytes` left. */
async function extractOnFullFs (dir: string, freeBytes: number, scratch: string): Promise<{ exitCode: number, records: Array<{ kind: string, code?: string }>, stderr: string, names: string[] }> {
  const listing = join(scratch, `listing-${freeBytes}.json`)
  const spec = { dir, freeBytes, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath('extract-tree'), '--attempt', dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  return { exitCode: r.exitCode ?? -1, records: recordsOf(r.stdout), stderr: String(r.stderr), names: (JSON.parse(readFileSync(listing, 'utf8')) as { names: string[] }).names }
}

test('K5: tree.tar on a filesystem that fills up (ENOSPC) leaves no partial file, no temp file and no outcome; with room the same step succeeds', { skip: process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root' }, async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const scratch = tempDir(t)
  const full = await extractOnFullFs(a.dir, 4096, scratch)
  assert.equal(full.exitCode, 73, full.stderr)
  assert.equal(full.records.find(x => x.kind === 'error')?.code, 'WRITE_FAILED')
  assert.equal(full.records.at(-1)?.kind, 'result')
  assert.match(full.stderr, /^extract-tree: WRITE_FAILED: cannot write .*tree\.tar: .*ENOSPC/m)
  assert.deepEqual(full.names, before, 'no tree.tar, no temp file, no outcome on the full filesystem')
  // Positive control: the same private tmpfs with room to spare takes both files.
  const roomy = await extractOnFullFs(a.dir, 16 << 20, scratch)
  assert.equal(roomy.exitCode, 0, roomy.stderr)
  assert.deepEqual(roomy.names.filter(n => !before.includes(n)), ['tree-manifest.json', 'tree.tar'])
  // Both ran on their own tmpfs: the attempt directory itself is as admit left it.
  assert.deepEqual(readdirSync(a.dir).sort(), before)
})

test('K5: a filesystem too full for cat-file\'s spool is WRITE_FAILED (73), not the repository\'s fault: no outcome, and with room the step succeeds', { skip: process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root' }, async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const scratch = tempDir(t)
  // No byte left: git's first write into the spool fails, and git exits 128.
  const full = await extractOnFullFs(a.dir, 0, scratch)
  assert.equal(full.exitCode, 73, full.stderr)
  assert.equal(full.records.find(x => x.kind === 'error')?.code, 'WRITE_FAILED')
  assert.match(full.stderr, /^extract-tree: WRITE_FAILED: cannot write git cat-file's output to its spool in .*: 0 bytes free, \d+ more needed \(ENOSPC\)/m)
  assert.deepEqual(full.names, before, 'no outcome: the key is not spent on a full disk')
  // Positive control: with room, the same step on the same private tmpfs succeeds.
  const roomy = await extractOnFullFs(a.dir, 16 << 20, scratch)
  assert.equal(roomy.exitCode, 0, roomy.stderr)
})

test('K5: tree.tar cut off by a failing write leaves no partial file, no temp file and no outcome; the same step then succeeds', async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const r = await extractUnderFileSizeLimit(a.dir, 4096)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(r.records.find(x => x.kind === 'error')?.code, 'WRITE_FAILED')
  assert.equal(r.records.at(-1)?.kind, 'result')
  assert.match(r.stderr, /^extract-tree: WRITE_FAILED: cannot write .*tree\.tar: .*(EFBIG|too large)/m)
  assert.deepEqual(readdirSync(a.dir).sort(), before, 'no tree.tar, no temp file, no outcome')
  // Positive control: the same step without the limit writes both files.
  const ok = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(errorOf(ok), undefined)
  assert.deepEqual(readdirSync(a.dir).filter(n => !before.includes(n)).sort(), ['tree-manifest.json', 'tree.tar'])
})

test('a read-only attempt directory (EROFS, met outside any write loop) is WRITE_FAILED (73), never an internal error; writable again, the step succeeds', { skip: process.geteuid?.() === 0 ? false : 'mounting needs root' }, async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const scratch = tempDir(t)
  const listing = join(scratch, 'listing-ro.json')
  const spec = { dir: a.dir, readOnly: true, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath('extract-tree'), '--attempt', a.dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const records = recordsOf(r.stdout)
  assert.equal(r.exitCode, 73, String(r.stderr))
  assert.equal(records.find(x => x.kind === 'error')?.code, 'WRITE_FAILED')
  assert.match(String(r.stderr), /^extract-tree: WRITE_FAILED: .*EROFS/m)
  assert.doesNotMatch(String(r.stderr), /INTERNAL/)
  assert.deepEqual(readdirSync(a.dir).sort(), before, 'nothing written, no outcome')
  // Positive control: the same step on the writable directory.
  const ok = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('K5: a /dev/shm with no space left is not the repository\'s fault: ls-tree is listed again through a pipe, the request goes to the temp directory, and the step writes the tree a run with room writes', { skip: process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root' }, async t => {
  const f = await makeFixture(tempDir(t))
  const full = await admitFixture(f)
  const scratch = tempDir(t)
  const listing = join(scratch, 'listing-shm.json')
  // Only /dev/shm is full (in a mount namespace of its own): git's first write into a spool
  // there fails with ENOSPC, and git exits 128 as it does for a commit it cannot read.
  const spec = { dir: '/dev/shm', emptyFull: true, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath('extract-tree'), '--attempt', full.dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const records = recordsOf(r.stdout)
  assert.equal(r.exitCode, 0, String(r.stderr))
  assert.equal(records.find(x => x.kind === 'error'), undefined, String(r.stderr))
  assert.ok(!existsSync(join(full.dir, 'outcome.json')), 'no outcome: the attempt goes on')
  assert.deepEqual((JSON.parse(readFileSync(listing, 'utf8')) as { names: string[] }).names, ['fill'], 'nothing was left on the full /dev/shm')
  // Positive control: another attempt on the same commit, /dev/shm as it is, writes the same tree.tar.
  const f2 = await makeFixture(tempDir(t))
  const roomy = await admitFixture(f2)
  const ok = await runBin('extract-tree', ['--attempt', roomy.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.ok(readFileSync(join(full.dir, 'tree.tar')).equals(readFileSync(join(roomy.dir, 'tree.tar'))))
  assert.equal(records.find(x => x.kind === 'tree')?.tar_sha256, sha256Hex(readFileSync(join(roomy.dir, 'tree.tar'))))
})

test('K5: a file-size limit that stops git while it writes cat-file\'s spool (SIGXFSZ) is WRITE_FAILED (73), not a fault of the repository: no outcome; without the limit the step succeeds', async t => {
  // One 3 MiB blob: git's spool passes a 1 MiB limit before the archive holds a finished blob,
  // so git, not this process, meets the limit first.
  const big = Buffer.alloc(3 << 20, 'x').toString('latin1')
  const f = await makeFixture(tempDir(t), { files: { ...GO_FILES, 'data/big.txt': big } })
  const a = await admitFixture(f)
  const before = readdirSync(a.dir).sort()
  const r = await extractUnderFileSizeLimit(a.dir, 1 << 20)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(r.records.find(x => x.kind === 'error')?.code, 'WRITE_FAILED')
  assert.match(r.stderr, /^extract-tree: WRITE_FAILED: cannot write git cat-file's output to its spool in .*: git was stopped by the file size limit \(SIGXFSZ\)$/m)
  assert.deepEqual(readdirSync(a.dir).sort(), before, 'no tree.tar, no temp file, no outcome')
  // Positive control: the same step without the limit.
  const ok = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.deepEqual(readdirSync(a.dir).filter(n => !before.includes(n)).sort(), ['tree-manifest.json', 'tree.tar'])
})
