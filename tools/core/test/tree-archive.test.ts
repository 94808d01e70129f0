// The shared tree API on real repositories: tree.tar read back by two independent readers
// (tar-stream and the system tar), determinism, long and non-ASCII paths, the cat-file
// stream parser fed in every chunking, bounds refused before git is even started, blob
// rehashing, and the readers (readTreeManifest, readTreeFile, materializeTree).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  buildTreeArchive, CatFileBatchParser, GIT_TIMEOUT_MS, gitBlobId, jsonFileBytes, listTree, materializeTree, MAX_TREE_ENTRIES, openTreeReader, parseTarEntry, paxPathRecord, readTreeFile,
  readTreeListing, readTreeManifest, run, streamTreeArchive, tarLayout, toolError, treeManifestFor, writeEntryHeaders, type TreeArchive, type TreeEntry,
} from '@repairline/core'
import type { TreeManifest } from '@repairline/schemas'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { createRepo, gitT, type FileSpec } from '../../../test/helpers/git.ts'
import { commitTree, hashBlob, loosePath, mktree, writeLooseObject } from '../../../test/helpers/trees.ts'
import { readWithTarStream } from './tar-stream.ts'

const KEY = 'ab'.repeat(32)
const deep = (depth: number, width: number, leaf: string): string => `${Array.from({ length: depth }, (_, i) => `${String(i % 10)}${'d'.repeat(width - 1)}`).join('/')}/${leaf}`

const FILES: Record<string, FileSpec> = {
  'README': 'hello\n',
  'bin/run.sh': { content: '#!/bin/sh\necho run\n', mode: 0o755 },
  'empty': '',
  'src/a.go': 'package a\n',
  'src/sub/b.go': 'package sub\n',
  'ünïcödé/файл.txt': 'non-ASCII path\n',
  [`${'n'.repeat(100)}`]: 'a name of exactly 100 bytes\n',
  [`p/${'q'.repeat(120)}`]: 'a path just over the name field\n',
  [deep(19, 200, 'leaf.txt')]: 'a path near 4096 bytes\n',
  'binary.bin': { content: Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]) },
}

interface Built { repo: string, sha: string, listing: Awaited<ReturnType<typeof listTree>>, archive: TreeArchive, manifest: TreeManifest, attemptDir: string }

async function build (t: Parameters<typeof tempDir>[0], files: Record<string, FileSpec> = FILES): Promise<Built> {
  const dir = tempDir(t)
  const repo = join(dir, 'repo')
  const sha = await createRepo(repo, files)
  const listing = await listTree(repo, sha)
  assert.deepEqual(listing.violations, [])
  const archive = await buildTreeArchive(repo, listing)
  const manifest = treeManifestFor(archive, KEY, sha)
  const attemptDir = join(dir, 'state', 'attempts', KEY.slice(0, 16))
  mkdirSync(attemptDir, { recursive: true })
  writeFileSync(join(attemptDir, 'tree.tar'), archive.tar)
  writeFileSync(join(attemptDir, 'tree-manifest.json'), jsonFileBytes(manifest))
  return { repo, sha, listing, archive, manifest, attemptDir }
}

function contentOf (spec: FileSpec): Buffer {
  return Buffer.from(typeof spec === 'string' ? spec : spec.content)
}

test('tree.tar holds every file, sorted by path bytes, with fixed metadata, as tar-stream reads it', async t => {
  const b = await build(t)
  const read = await readWithTarStream(b.archive.tar)
  const want = Object.keys(FILES).sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))
  assert.deepEqual(read.map(e => e.name), want)
  for (const e of read) {
    const spec = FILES[e.name] as FileSpec
    assert.deepEqual(e.content, contentOf(spec), e.name)
    assert.equal(e.type, 'file')
    assert.equal(e.mode, typeof spec === 'object' && spec.mode === 0o755 ? 0o755 : 0o644, e.name)
    assert.deepEqual([e.mtime, e.uid, e.gid, e.uname, e.gname], [0, 0, 0, '', ''])
  }
  // The manifest lists the same files, in the same order, with their blob ids and digests.
  assert.deepEqual(b.manifest.entries.map(e => e.path), want)
  for (const e of b.manifest.entries) {
    const bytes = contentOf(FILES[e.path] as FileSpec)
    assert.equal(e.blob, gitBlobId(bytes))
    assert.equal(e.sha256, createHash('sha256').update(bytes).digest('hex'))
    assert.equal(e.bytes, bytes.length)
  }
  assert.equal(b.manifest.tar_sha256, createHash('sha256').update(b.archive.tar).digest('hex'))
  assert.equal(b.manifest.tar_bytes, b.archive.tar.length)
  assert.equal(b.manifest.total_bytes, Object.values(FILES).reduce((n, s) => n + contentOf(s).length, 0))
})

test('the system tar lists and extracts tree.tar without a warning', async t => {
  const b = await build(t)
  const tarFile = join(b.attemptDir, 'tree.tar')
  const list = await run('/usr/bin/tar', ['-tvf', tarFile], { env: { PATH: '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' } })
  assert.equal(list.exitCode, 0, list.stderr.toString())
  assert.equal(list.stderr.toString(), '')
  const lines = list.stdout.toString().trim().split('\n')
  assert.equal(lines.length, Object.keys(FILES).length)
  assert.match(lines.find(l => l.endsWith(' bin/run.sh')) ?? '', /^-rwxr-xr-x 0\/0 +19 1970-01-01 00:00 bin\/run\.sh$/)
  const out = join(b.attemptDir, 'x')
  mkdirSync(out)
  const x = await run('/usr/bin/tar', ['-xf', tarFile, '-C', out], { env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } })
  assert.equal(x.exitCode, 0, x.stderr.toString())
  for (const [p, spec] of Object.entries(FILES)) assert.deepEqual(readFileSync(join(out, p)), contentOf(spec), p)
})

test('the same commit gives byte-identical tree.tar and manifest, from another clone too', async t => {
  const a = await build(t)
  const again = await buildTreeArchive(a.repo, await listTree(a.repo, a.sha))
  assert.ok(again.tar.equals(a.archive.tar))
  // cat-file's output through a pipe instead of the spool, and a spool directory that cannot
  // hold an O_TMPFILE (the pipe again): the same bytes.
  const piped = await buildTreeArchive(a.repo, await listTree(a.repo, a.sha), { spool: false })
  assert.ok(piped.tar.equals(a.archive.tar))
  const fallback = await buildTreeArchive(a.repo, await listTree(a.repo, a.sha), { spool: '/nonexistent/spool' })
  assert.ok(fallback.tar.equals(a.archive.tar))
  // The digest taken in flight is the digest of the finished archive, on every path.
  for (const b of [again, piped, fallback]) assert.equal(b.tarSha256, createHash('sha256').update(b.tar).digest('hex'))
  assert.deepEqual(piped.entries, a.archive.entries)
  assert.equal(jsonFileBytes(treeManifestFor(again, KEY, a.sha)), jsonFileBytes(a.manifest))
  const clone = join(tempDir(t), 'clone')
  await gitT(a.repo, ['clone', '-q', '--no-local', a.repo, clone])
  // Work-tree state and file times differ in the clone; the archive does not.
  writeFileSync(join(clone, 'README'), 'changed in the work tree\n')
  const other = await buildTreeArchive(clone, await listTree(clone, a.sha))
  assert.ok(other.tar.equals(a.archive.tar))
})

test('a PAX path record counts its own length at every digit boundary', () => {
  for (const n of [1, 88, 89, 90, 91, 92, 93, 94, 100, 985, 986, 987, 988, 989, 990, 995, 4096]) {
    const rec = paxPathRecord(Buffer.from('x'.repeat(n)))
    const m = /^(\d+) path=/.exec(rec.toString('latin1'))
    assert.ok(m !== null)
    assert.equal(Number(m[1]), rec.length, `path of ${n} bytes`)
    assert.equal(rec.at(-1), 0x0a)
  }
})

test('tarLayout: a path gets a PAX header exactly when its UTF-8 bytes exceed the 100-byte name field, however few code units it has', async () => {
  const paths = [
    'a'.repeat(100), // 100 bytes: fits
    'a'.repeat(101), // 101: PAX
    '€'.repeat(33), // 33 code units, 99 bytes: fits
    '€'.repeat(33) + 'a', // 34 code units, 100 bytes: fits
    '€'.repeat(33) + 'ab', // 35 code units, 101 bytes: PAX
    '€'.repeat(34), // 34 code units, 102 bytes: PAX
    '\u{1F600}'.repeat(25), // 50 code units, 100 bytes: fits
    '\u{1F600}'.repeat(25) + 'a', // 51 code units, 101 bytes: PAX
  ].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  const input = paths.map((path, i) => ({ path, mode: '100644' as const, size: i }))
  const layout = tarLayout(input)
  const tar = Buffer.alloc(layout.size)
  input.forEach((e, i) => {
    tar.fill(0x61 + i, layout.data[i] as number, (layout.data[i] as number) + e.size)
    writeEntryHeaders(tar, layout, i, e)
  })
  for (const [i, path] of paths.entries()) {
    assert.equal(layout.long.has(i), Buffer.byteLength(path) > 100, `${Buffer.byteLength(path)} bytes in ${path.length} code units`)
    const parsed = parseTarEntry(tar, layout.start[i] as number)
    assert.equal(parsed.path, path)
    assert.equal(parsed.data, layout.data[i])
  }
  // Every member, as another reader sees the archive.
  const read = await readWithTarStream(tar)
  assert.deepEqual(read.map(e => [e.name, e.content.length]), paths.map((p, i) => [p, i]))
})

// Real cat-file --batch output for three blobs (one empty), fed to the parser in chunks.
async function batchOutput (t: Parameters<typeof tempDir>[0]): Promise<{ out: Buffer, expected: Array<{ oid: string, size: number, content: Buffer }> }> {
  const repo = join(tempDir(t), 'repo')
  await createRepo(repo, { a: 'first blob\n', b: '', c: 'x'.repeat(3000) })
  const listing = await listTree(repo, 'HEAD')
  const expected = listing.entries.map(e => ({ oid: e.oid, size: e.size, content: Buffer.from(e.path === 'a' ? 'first blob\n' : e.path === 'b' ? '' : 'x'.repeat(3000)) }))
  const r = await run('/usr/bin/git', ['-C', repo, 'cat-file', '--batch'], { env: { PATH: '/usr/bin:/bin' }, input: expected.map(e => e.oid).join('\n') + '\n' })
  return { out: r.stdout, expected }
}

function feed (expected: readonly { oid: string, size: number }[], out: Buffer, chunk: number): Buffer[] {
  const bodies: Buffer[][] = expected.map(() => [])
  const ended: number[] = []
  const p = new CatFileBatchParser(expected, { body: (i, chunk, start, end) => bodies[i]?.push(Buffer.from(chunk.subarray(start, end))), end: i => ended.push(i) })
  for (let off = 0; off < out.length; off += chunk) p.push(out.subarray(off, off + chunk))
  p.finish()
  assert.deepEqual(ended, expected.map((_, i) => i))
  return bodies.map(b => Buffer.concat(b))
}

test('the cat-file parser gives the same bodies fed whole, byte by byte, in 2-byte and odd chunks', async t => {
  const { out, expected } = await batchOutput(t)
  for (const chunk of [out.length, 1, 2, 7, 4096]) {
    assert.deepEqual(feed(expected, out, chunk), expected.map(e => e.content), `chunk ${chunk}`)
  }
})

test('the cat-file parser stops at the first deviation from the listing, with its code', async t => {
  const { out, expected } = await batchOutput(t)
  const code = (exp: Array<{ oid: string, size: number }>, data: Buffer): string => {
    try {
      feed(exp, data, 3)
    } catch (e) {
      return (e as { code: string }).code
    }
    return 'none'
  }
  const [first, second] = expected as [typeof expected[0], typeof expected[0]]
  assert.equal(code(expected, out), 'none')
  assert.equal(code([{ ...first, size: first.size + 1 }, ...expected.slice(1)], out), 'TREE_OBJECT_MISMATCH')
  assert.equal(code([second, first, ...expected.slice(2)], out), 'GIT_FAILED')
  assert.equal(code(expected, Buffer.concat([out, Buffer.from('junk\n')])), 'GIT_FAILED')
  assert.equal(code(expected, out.subarray(0, out.length - 2)), 'GIT_FAILED')
  assert.equal(code(expected.slice(0, 1), Buffer.from(`${first.oid} missing\n`)), 'GIT_FAILED')
  assert.equal(code(expected.slice(0, 1), Buffer.from(`${first.oid} tree ${first.size}\n`)), 'TREE_OBJECT_MISMATCH')
  assert.equal(code(expected.slice(0, 1), Buffer.from(`${first.oid} blob ${first.size}\n${'y'.repeat(first.size)}X`)), 'GIT_FAILED')
})

function fakeEntry (i: number, size: number): TreeEntry {
  return { mode: '100644', type: 'blob', oid: createHash('sha1').update(String(i)).digest('hex'), size, path: `f${String(i).padStart(6, '0')}` }
}

test('bounds are refused from the listing before git is started', async () => {
  // A root that does not exist: starting git there would fail with GIT_FAILED instead.
  const root = '/nonexistent/repairline-no-repo'
  const over = Array.from({ length: 20_001 }, (_, i) => fakeEntry(i, 0))
  await assert.rejects(buildTreeArchive(root, { entries: over, violations: [] }), { code: 'TREE_TOO_MANY_ENTRIES' })
  await assert.rejects(buildTreeArchive(root, { entries: [fakeEntry(0, 16 * 1024 * 1024 + 1)], violations: [] }), { code: 'TREE_TOO_LARGE' })
  await assert.rejects(buildTreeArchive(root, { entries: [{ ...fakeEntry(0, 4), mode: '120000' }], violations: [] }), { code: 'TREE_SYMLINK' })
  // Positive control: a listing within bounds does reach git, which fails on this root.
  await assert.rejects(buildTreeArchive(root, { entries: [fakeEntry(0, 1)], violations: [] }), { code: 'GIT_FAILED' })
})

test('a blob that does not hash to its id is refused while streaming', async t => {
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, { 'a.txt': 'honest!\n', 'b.txt': 'other\n' })
  const listing = await listTree(repo, sha)
  const a = listing.entries.find(e => e.path === 'a.txt')
  assert.ok(a !== undefined)
  writeLooseObject(repo, a.oid, 'blob', 8, Buffer.from('EVIL!!!\n'))
  // Positive control: git itself serves the tampered bytes without complaint.
  assert.equal(await gitT(repo, ['cat-file', 'blob', a.oid]), 'EVIL!!!\n')
  await assert.rejects(buildTreeArchive(repo, listing), { code: 'TREE_OBJECT_MISMATCH', path: 'a.txt' })
  await assert.rejects(buildTreeArchive(repo, listing, { spool: false }), { code: 'TREE_OBJECT_MISMATCH', path: 'a.txt' })
  assert.ok(existsSync(loosePath(repo, a.oid)))
})

test('a store that contradicts the listing is reported alike through the spool (read in place) and the pipe (parsed)', async t => {
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, { 'a.txt': 'first\n', 'b.txt': 'x'.repeat(512), 'd/c.txt': 'third\n', 'e.txt': '' })
  const listing = await listTree(repo, sha)
  const entries = listing.entries
  const tree = (await gitT(repo, ['rev-parse', `${sha}:d`])).trim()
  const error = async (list: TreeEntry[], spool: string | false): Promise<{ code: string, message: string }> => {
    try {
      await buildTreeArchive(repo, { entries: list, violations: [] }, { spool })
    } catch (e) {
      return { code: (e as { code: string }).code, message: (e as Error).message }
    }
    return { code: 'none', message: '' }
  }
  const change = (i: number, c: Partial<TreeEntry>): TreeEntry[] => entries.map((e, j) => j === i ? { ...e, ...c } : e)
  const cases: Array<[string, TreeEntry[], string, RegExp]> = [
    ['a size the store does not have', change(1, { size: 511 }), 'TREE_OBJECT_MISMATCH', /listed with 511 bytes but has 512/],
    ['an object the store does not hold', change(2, { oid: 'f'.repeat(40) }), 'GIT_FAILED', /f{40} is missing from the repository/],
    ['a tree listed as a blob', change(0, { oid: tree }), 'TREE_OBJECT_MISMATCH', /is listed as a blob but is a tree/],
  ]
  for (const [what, list, code, message] of cases) {
    for (const spool of [tempDir(t), false] as const) {
      const got = await error(list, spool)
      assert.equal(got.code, code, `${what} (spool ${String(spool)}): ${got.message}`)
      assert.match(got.message, message, what)
    }
  }
  // Positive control: the unchanged listing builds the same archive both ways, and a
  // 512-byte blob (its newline lands on the next header) and an empty one are read whole.
  const viaSpool = await buildTreeArchive(repo, listing, { spool: tempDir(t) })
  const viaPipe = await buildTreeArchive(repo, listing, { spool: false })
  assert.ok(viaSpool.tar.equals(viaPipe.tar))
  assert.deepEqual((await readWithTarStream(viaSpool.tar)).map(e => [e.name, e.content.length]), [['a.txt', 6], ['b.txt', 512], ['d/c.txt', 6], ['e.txt', 0]])
  // The spool's request (the ids) from an unnamed file in a directory of choice, and piped
  // when no directory takes it: the same archive, and no file is left behind.
  const requestDir = tempDir(t)
  const stdin: string[] = []
  const fromFile = await buildTreeArchive(repo, listing, { spool: tempDir(t), requestDirs: ['/nonexistent', requestDir] })
  const piped = await buildTreeArchive(repo, listing, { spool: tempDir(t), requestDirs: ['/nonexistent'], whileGitRuns: () => { stdin.push(childGitStdin()) } })
  assert.ok(fromFile.tar.equals(viaPipe.tar))
  assert.ok(piped.tar.equals(viaPipe.tar))
  // (git waits for a piped request while this process is busy: it is still there to look at.)
  assert.match(stdin[0] ?? '', /^(pipe|socket):/, 'no directory took the request: git read it through a pipe (Node makes a socket pair)')
  assert.deepEqual(readdirSync(requestDir), [])
})

test('a git that blocks on a FIFO among the objects is killed at GIT_TIMEOUT_MS: GIT_FAILED through the spool and the pipe alike, where the pipe hung', async t => {
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, { 'a.txt': 'first\n', 'b.txt': 'second\n' })
  // The listing is read first (ls-tree opens every blob for its size, so it would block too).
  const listing = await listTree(repo, sha)
  const blob = listing.entries[1]?.oid ?? ''
  rmSync(loosePath(repo, blob))
  assert.equal((await run('/usr/bin/mkfifo', [loosePath(repo, blob)], { env: {} })).exitCode, 0)
  // Positive control: a plain cat-file of that blob blocks (killed here at 2 s).
  assert.equal((await run('/usr/bin/git', ['-C', repo, 'cat-file', 'blob', blob], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 2000 })).timedOut, true)
  const outcome = async (spool: string | false): Promise<{ code: string, message: string }> => {
    try {
      await buildTreeArchive(repo, listing, { spool })
    } catch (e) {
      return { code: (e as { code: string }).code, message: (e as Error).message }
    }
    return { code: 'none', message: '' }
  }
  // Both at once: one timeout's wait for the two.
  const [viaSpool, viaPipe] = await Promise.all([outcome(tempDir(t)), outcome(false)])
  for (const got of [viaSpool, viaPipe]) {
    assert.equal(got.code, 'GIT_FAILED', got.message)
    assert.match(got.message, new RegExp(`cat-file --batch failed: it did not finish within ${GIT_TIMEOUT_MS / 1000} s and was killed`))
  }
})

/** Where the stdin of this process's running child `git` points (readlink of its fd 0). */
function childGitStdin (): string {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (stat.includes('(git)') && Number(fields[1]) === process.pid) return readlinkSync(`/proc/${pid}/fd/0`)
    } catch {}
  }
  return 'no child git'
}

/** Blocks until no child `git` of this process is running (exited or a zombie); returns how many polls saw one. */
function waitForChildGitToExit (): number {
  const running = (): boolean => readdirSync('/proc').some(pid => {
    if (!/^\d+$/.test(pid)) return false
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return stat.includes('(git)') && fields[0] !== 'Z' && Number(fields[1]) === process.pid
    } catch {
      return false
    }
  })
  const pause = new Int32Array(new SharedArrayBuffer(4))
  let polls = 0
  for (const deadline = Date.now() + 30_000; running() && Date.now() < deadline; polls++) Atomics.wait(pause, 0, 0, 5)
  return polls
}

test('a spool of more records than one readv takes is read whole, at every size around a tar block', async t => {
  // 2,600 blobs: three scattering reads of up to 1,024 records, sizes on both sides of 512
  // and 1,024 (a newline that lands on the next entry's header block), some long paths (PAX).
  const sizes = [0, 1, 100, 511, 512, 513, 1023, 1024, 1025]
  const contents = new Map<string, Buffer>()
  for (let i = 0; i < 2600; i++) {
    const size = sizes[i % sizes.length] ?? 0
    const name = i % 97 === 0 ? `long/${'l'.repeat(110)}-${String(i)}` : `d${String(i % 13)}/f${String(i).padStart(4, '0')}`
    contents.set(name, Buffer.alloc(size, `${String(i)}:`))
  }
  const files: Record<string, FileSpec> = Object.fromEntries([...contents].map(([name, content]) => [name, { content }]))
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, files)
  const listing = await listTree(repo, sha)
  // The rules hook holds the build until git has written everything, so the reads start on
  // a complete spool and take the full 1,024 records at a time.
  // git reads its request (107 KB of ids, more than a pipe holds) from an unnamed file, so
  // it finishes while this process is blocked; piped, it would wait for the rest.
  let waited = 0
  let stdin = ''
  const viaSpool = await buildTreeArchive(repo, listing, { spool: tempDir(t), whileGitRuns: () => { stdin = childGitStdin(); waited = waitForChildGitToExit() } })
  assert.ok(waited > 0, 'cat-file ran while the rules did')
  assert.match(stdin, new RegExp(`^(/dev/shm|${tmpdir()})/#\\d+ \\(deleted\\)$`), 'the request came from an unnamed file')
  const viaPipe = await buildTreeArchive(repo, listing, { spool: false })
  assert.ok(viaSpool.tar.equals(viaPipe.tar), 'the spool and the pipe give the same archive')
  for (const b of [viaSpool, viaPipe]) assert.equal(b.tarSha256, createHash('sha256').update(b.tar).digest('hex'), 'the in-flight digest, across readv batches and block boundaries')
  assert.deepEqual(viaSpool.entries, viaPipe.entries)
  const read = await readWithTarStream(viaSpool.tar)
  assert.equal(read.length, 2600)
  for (const e of read) assert.ok(contents.get(e.name)?.equals(e.content), e.name)
  // Streamed through windows far smaller than the archive (the smallest grows to the largest
  // entry), by the spool and the pipe: the window moves at every kind of boundary above, and
  // the bytes that come out are the archive's.
  for (const windowBytes of [1, 4096, 65_536]) {
    for (const spool of [tempDir(t), false] as const) {
      const chunks: Buffer[] = []
      const streamed = await streamTreeArchive(repo, listing, b => { chunks.push(Buffer.from(b)) }, { spool, windowBytes })
      assert.ok(Buffer.concat(chunks).equals(viaPipe.tar), `window ${windowBytes}, spool ${String(spool)}`)
      assert.equal(streamed.tarSha256, viaPipe.tarSha256)
      assert.deepEqual(streamed.entries, viaPipe.entries)
    }
  }
})

test('a streamed archive: an entry larger than the window widens it, an empty tree is its end blocks, and a tampered blob past the first window is refused', async t => {
  const big = Buffer.alloc(300_000, 'big\n')
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, { 'a.txt': 'first\n', 'big.bin': { content: big }, 'z/after.txt': 'after\n' })
  const listing = await listTree(repo, sha)
  const whole = await buildTreeArchive(repo, listing)
  const chunks: Buffer[] = []
  await streamTreeArchive(repo, listing, b => { chunks.push(Buffer.from(b)) }, { windowBytes: 4096 })
  assert.ok(Buffer.concat(chunks).equals(whole.tar), 'a 300 KB entry through a 4 KiB window')
  // No file at all: the archive is its two end blocks, streamed as built, through any window.
  for (const windowBytes of [undefined, 1, 1023]) {
    const empty: Buffer[] = []
    const none = await streamTreeArchive(repo, { entries: [], violations: [] }, b => { empty.push(Buffer.from(b)) }, windowBytes === undefined ? {} : { windowBytes })
    assert.ok(Buffer.concat(empty).equals(Buffer.alloc(1024)), `window ${String(windowBytes)}`)
    assert.equal(none.tarBytes, 1024)
    assert.equal(none.tarSha256, createHash('sha256').update(Buffer.alloc(1024)).digest('hex'))
  }
  // A window that is no size is a bug of the caller, refused before git starts.
  await assert.rejects(streamTreeArchive(repo, listing, () => {}, { windowBytes: Number.NaN }), { code: 'INTERNAL' })
  // A blob that no longer hashes to its id, after the window has moved past the first ones.
  const after = listing.entries.find(e => e.path === 'z/after.txt')
  assert.ok(after !== undefined)
  writeLooseObject(repo, after.oid, 'blob', 6, Buffer.from('EVIL!\n'))
  for (const spool of [tempDir(t), false] as const) {
    const seen: Buffer[] = []
    await assert.rejects(streamTreeArchive(repo, listing, b => { seen.push(Buffer.from(b)) }, { spool, windowBytes: 4096 }), { code: 'TREE_OBJECT_MISMATCH', path: 'z/after.txt' })
    assert.ok(seen.length > 0 && Buffer.concat(seen).length < whole.tar.length, 'the bytes before the tampered blob had gone out; the rest never did')
  }
})

test('rules run while git works: what they throw ends the build, and the spool is closed', async t => {
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, { 'a.txt': 'first\n', 'b.txt': 'second\n' })
  const listing = await listTree(repo, sha)
  const fds = (): number => readdirSync('/proc/self/fd').length
  const before = fds()
  let ran = 0
  await assert.rejects(buildTreeArchive(repo, listing, { spool: tempDir(t), whileGitRuns: () => { ran++; throw toolError('TREE_PATH_UNSAFE', 'refused by the rules') } }), { code: 'TREE_PATH_UNSAFE', message: 'refused by the rules' })
  assert.equal(ran, 1)
  assert.equal(fds(), before, 'the spool descriptor was closed')
  // Positive control: rules that pass let the same build finish.
  const ok = await buildTreeArchive(repo, listing, { spool: tempDir(t), whileGitRuns: () => { ran++ } })
  assert.equal(ran, 2)
  assert.deepEqual(ok.entries.map(e => e.path), ['a.txt', 'b.txt'])
})

test('git is asked for the regular files only; an entry of another kind is refused once the rules ran, git\'s output unread', async t => {
  const repo = join(tempDir(t), 'repo')
  await createRepo(repo, { 'a.txt': 'first\n', 'c.txt': 'third\n' })
  const a = await hashBlob(repo, 'first\n')
  const c = await hashBlob(repo, 'third\n')
  const target = await hashBlob(repo, 'a.txt')
  const withLink = await commitTree(repo, await mktree(repo, [{ mode: '100644', oid: a, name: 'a.txt' }, { mode: '120000', oid: target, name: 'b-link' }, { mode: '100644', oid: c, name: 'c.txt' }]))
  // The listing without the rules (as extract-tree leaves them to whileGitRuns).
  const listing = await readTreeListing(repo, withLink)
  assert.deepEqual(listing.entries.map(e => e.mode), ['100644', '120000', '100644'])
  // What git was asked, read from the unnamed request file while this process still holds it
  // (git itself may have read it and exited already).
  const requestDir = tempDir(t)
  let request = ''
  const asked = (): void => {
    request = 'no request file'
    for (const fd of readdirSync('/proc/self/fd')) {
      let link: string
      try { link = readlinkSync(`/proc/self/fd/${fd}`) } catch { continue }
      if (link.startsWith(`${requestDir}/`)) request = readFileSync(`/proc/self/fd/${fd}`, 'latin1')
    }
  }
  const fds = (): number => readdirSync('/proc/self/fd').length
  const before = fds()
  await assert.rejects(buildTreeArchive(repo, listing, { spool: tempDir(t), requestDirs: [requestDir], whileGitRuns: asked }), { code: 'TREE_SYMLINK', path: 'b-link' })
  assert.equal(request, `${a}\n${c}\n`, 'the symlink\'s blob was never asked for')
  assert.equal(fds(), before, 'the spool and the request were closed')
  // Positive control: the same files without the link are built from the same request.
  const plain = await commitTree(repo, await mktree(repo, [{ mode: '100644', oid: a, name: 'a.txt' }, { mode: '100644', oid: c, name: 'c.txt' }]))
  const ok = await buildTreeArchive(repo, await readTreeListing(repo, plain), { spool: tempDir(t), requestDirs: [requestDir], whileGitRuns: asked })
  assert.equal(request, `${a}\n${c}\n`)
  assert.deepEqual(ok.entries.map(e => e.path), ['a.txt', 'c.txt'])
})

test('the sink takes the archive in order, in stretches, while it is built; what it throws ends the build with git finished and the spool closed', async t => {
  // 600 files of 1,000 bytes: a 1.2 MB archive, several of the sink's 256 KiB stretches.
  const files: Record<string, FileSpec> = {}
  for (let i = 0; i < 600; i++) files[`f/${String(i).padStart(3, '0')}.txt`] = `${String(i)}:`.padEnd(1000, 'x')
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, files)
  const listing = await listTree(repo, sha)
  const chunks: Buffer[] = []
  const streamed = await streamTreeArchive(repo, listing, b => { chunks.push(Buffer.from(b)) }, { spool: tempDir(t) })
  const built = await buildTreeArchive(repo, listing, { spool: tempDir(t) })
  assert.ok(chunks.length >= 4, `the archive came in stretches (${chunks.length})`)
  assert.ok(Buffer.concat(chunks).equals(built.tar), 'the stretches, in order, are the archive')
  assert.deepEqual(streamed, { entries: built.entries, totalBytes: built.totalBytes, tarBytes: built.tar.length, tarSha256: built.tarSha256 })
  const fds = (): number => readdirSync('/proc/self/fd').length
  const before = fds()
  let calls = 0
  const full = (): void => { if (++calls === 2) throw toolError('WRITE_FAILED', 'the sink is full') }
  await assert.rejects(streamTreeArchive(repo, listing, full, { spool: tempDir(t) }), { code: 'WRITE_FAILED', message: 'the sink is full' })
  assert.equal(calls, 2, 'nothing was given to the sink after it failed')
  assert.equal(waitForChildGitToExit(), 0, 'git had finished when the build failed')
  assert.equal(fds(), before, 'the spool and the request file were closed')
  // Through the pipe, the same.
  calls = 0
  await assert.rejects(streamTreeArchive(repo, listing, full, { spool: false }), { code: 'WRITE_FAILED' })
  assert.equal(waitForChildGitToExit(), 0)
})

test('readTreeManifest validates the index; readTreeFile returns verified bytes', async t => {
  const b = await build(t)
  assert.deepEqual(readTreeManifest(b.attemptDir), b.manifest)
  assert.deepEqual(readTreeFile(b.attemptDir, 'bin/run.sh'), Buffer.from('#!/bin/sh\necho run\n'))
  const longPath = deep(19, 200, 'leaf.txt')
  assert.deepEqual(readTreeFile(b.attemptDir, longPath), Buffer.from('a path near 4096 bytes\n'))
  assert.deepEqual(readTreeFile(b.attemptDir, 'empty'), Buffer.alloc(0))
  assert.throws(() => readTreeFile(b.attemptDir, 'nope.go'), { code: 'TREE_FILE_MISSING' })
  assert.throws(() => readTreeFile(b.attemptDir, 'src'), { code: 'TREE_FILE_MISSING' })
  // A reader opened once serves many reads, each verified.
  const reader = openTreeReader(b.attemptDir)
  assert.deepEqual(reader.manifest, b.manifest)
  for (const [p, spec] of Object.entries(FILES)) assert.deepEqual(reader.readFile(p), contentOf(spec), p)
  assert.throws(() => reader.readFile('nope.go'), { code: 'TREE_FILE_MISSING' })
  // One flipped byte inside a file's content.
  const tar = Buffer.from(b.archive.tar)
  const at = tar.indexOf('echo run')
  tar[at] = 0x45
  writeFileSync(join(b.attemptDir, 'tree.tar'), tar)
  assert.throws(() => readTreeFile(b.attemptDir, 'bin/run.sh'), { code: 'TREE_ARCHIVE_MISMATCH' })
  assert.deepEqual(readTreeFile(b.attemptDir, 'README'), Buffer.from('hello\n'))
})

test('readTreeManifest refuses an inconsistent or unsafe manifest', async t => {
  const b = await build(t)
  const p = join(b.attemptDir, 'tree-manifest.json')
  const write = (m: unknown): void => writeFileSync(p, jsonFileBytes(m))
  const bad = [
    { ...b.manifest, entry_count: b.manifest.entry_count + 1 },
    { ...b.manifest, total_bytes: b.manifest.total_bytes + 1 },
    { ...b.manifest, tar_bytes: b.manifest.tar_bytes + 512 },
    { ...b.manifest, entries: [...b.manifest.entries].reverse() },
    { ...b.manifest, entries: b.manifest.entries.map((e, i) => i === 0 ? { ...e, path: '.git/config' } : e) },
  ]
  for (const m of bad) {
    write(m)
    assert.throws(() => readTreeManifest(b.attemptDir), { code: 'FILE_INVALID' })
  }
  write(b.manifest)
  assert.deepEqual(readTreeManifest(b.attemptDir), b.manifest)
})

function walk (dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap(d => {
    const p = rel === '' ? d.name : `${rel}/${d.name}`
    return d.isDirectory() ? [`${p}/`, ...walk(dir, p)] : [p]
  })
}

test('materializeTree writes a verified work tree the sandbox user can read', async t => {
  const b = await build(t)
  const dest = join(b.attemptDir, 'work', 'baseline')
  const m = materializeTree(b.attemptDir, dest)
  assert.deepEqual([m.files, m.bytes, m.overridden], [Object.keys(FILES).length, b.manifest.total_bytes, []])
  for (const [p, spec] of Object.entries(FILES)) {
    assert.deepEqual(readFileSync(join(dest, p)), contentOf(spec), p)
    assert.equal(statSync(join(dest, p)).mode & 0o7777, typeof spec === 'object' && spec.mode === 0o755 ? 0o755 : 0o644, p)
  }
  const entries = walk(dest)
  for (const d of entries.filter(e => e.endsWith('/'))) assert.equal(statSync(join(dest, d)).mode & 0o7777, 0o755, d)
  assert.equal(statSync(dest).mode & 0o7777, 0o755)
  assert.equal(statSync(join(b.attemptDir, 'work')).mode & 0o7777, 0o755)
  assert.deepEqual(readdirSync(join(dest, 'node_modules')), [])
  assert.equal(entries.filter(e => !e.endsWith('/')).length, Object.keys(FILES).length)
  if (process.geteuid?.() === 0) {
    // Read as the unprivileged sandbox user (65534), as the sandbox will.
    chmodSync(join(b.attemptDir, '..', '..', '..'), 0o711)
    for (const d of [join(b.attemptDir, '..', '..'), join(b.attemptDir, '..'), b.attemptDir]) chmodSync(d, 0o711)
    const r = await run('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '/bin/cat', join(dest, 'src', 'sub', 'b.go')], { env: { PATH: '/usr/bin:/bin' } })
    assert.equal(r.exitCode, 0, r.stderr.toString())
    assert.equal(r.stdout.toString(), 'package sub\n')
    // Positive control: a 0600 file is refused to that user.
    chmodSync(join(dest, 'src', 'sub', 'b.go'), 0o600)
    const denied = await run('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '/bin/cat', join(dest, 'src', 'sub', 'b.go')], { env: { PATH: '/usr/bin:/bin' } })
    assert.notEqual(denied.exitCode, 0)
  }
})

test('materializeTree applies overrides to existing files only and keeps their modes', async t => {
  const b = await build(t)
  const dest = join(b.attemptDir, 'work', 'candidate')
  const patched = Buffer.from('#!/bin/sh\necho patched\n')
  const m = materializeTree(b.attemptDir, dest, new Map([['bin/run.sh', patched]]))
  assert.deepEqual(readFileSync(join(dest, 'bin/run.sh')), patched)
  assert.equal(statSync(join(dest, 'bin/run.sh')).mode & 0o7777, 0o755)
  assert.deepEqual(m.overridden, [{ path: 'bin/run.sh', sha256: createHash('sha256').update(patched).digest('hex'), bytes: patched.length }])
  assert.deepEqual(readFileSync(join(dest, 'src/a.go')), Buffer.from('package a\n'))
  // A new file is not an override: refused before anything is written.
  const other = join(b.attemptDir, 'work', 'other')
  assert.throws(() => materializeTree(b.attemptDir, other, new Map([['src/new.go', Buffer.from('x')]])), { code: 'TREE_FILE_MISSING' })
  assert.equal(existsSync(other), false)
})

test('materializeTree refuses a tampered archive, an existing or misplaced destination, and leaves nothing', async t => {
  const b = await build(t)
  const dest = join(b.attemptDir, 'work', 'w')
  mkdirSync(dest, { recursive: true })
  assert.throws(() => materializeTree(b.attemptDir, dest), { code: 'WRITE_FAILED' })
  assert.throws(() => materializeTree(b.attemptDir, join(b.attemptDir, 'elsewhere')), { code: 'INTERNAL' })
  assert.throws(() => materializeTree(b.attemptDir, join(b.attemptDir, 'work', 'a', 'b')), { code: 'INTERNAL' })
  const tar = Buffer.from(b.archive.tar)
  tar[tar.indexOf('package sub')] = 0x50
  writeFileSync(join(b.attemptDir, 'tree.tar'), tar)
  const fresh = join(b.attemptDir, 'work', 'fresh')
  assert.throws(() => materializeTree(b.attemptDir, fresh), { code: 'TREE_ARCHIVE_MISMATCH' })
  assert.equal(existsSync(fresh), false)
})

test('readTreeListing: ls-tree spooled to an unnamed file and read while git writes gives what the pipe gives; a tree past the bound, an unknown commit and a spool directory that takes no file alike', async t => {
  const repo = join(tempDir(t), 'repo')
  const sha = await createRepo(repo, FILES)
  const spool = tempDir(t)
  const viaPipe = await readTreeListing(repo, sha, { spoolDirs: [] })
  assert.equal(viaPipe.entries.length, Object.keys(FILES).length)
  assert.deepEqual(await readTreeListing(repo, sha, { spoolDirs: [spool] }), viaPipe)
  // Where no unnamed file can be made, the pipe.
  assert.deepEqual(await readTreeListing(repo, sha, { spoolDirs: [join(spool, 'missing')] }), viaPipe)
  // 15,000 records with long names (~2.3 MB): read and parsed in several pieces, a record cut
  // between two of them.
  const blob = await hashBlob(repo, 'x\n')
  const leaf = await mktree(repo, Array.from({ length: 1000 }, (_, i) => ({ mode: '100644', name: `f${String(i).padStart(4, '0')}`.padEnd(90, 'n'), oid: blob })))
  const wide = await commitTree(repo, await mktree(repo, Array.from({ length: 15 }, (_, i) => ({ mode: '40000', name: `d${String(i).padStart(2, '0')}`, oid: leaf }))), null)
  const widePiped = await readTreeListing(repo, wide, { spoolDirs: [] })
  assert.equal(widePiped.entries.length, 15_000)
  assert.deepEqual(await readTreeListing(repo, wide, { spoolDirs: [spool] }), widePiped)
  // One tree named 30 times: 30,000 entries, over the bound, refused through both (git stopped).
  const bomb = await commitTree(repo, await mktree(repo, Array.from({ length: 30 }, (_, i) => ({ mode: '40000', name: `d${String(i).padStart(2, '0')}`, oid: leaf }))), null)
  for (const spoolDirs of [[spool], []]) {
    const r = await readTreeListing(repo, bomb, { spoolDirs })
    assert.deepEqual([r.entries.length, r.violations.map(v => v.code)], [0, ['TREE_TOO_MANY_ENTRIES']], `spoolDirs ${JSON.stringify(spoolDirs)}`)
    assert.match(r.violations[0]?.message ?? '', new RegExp(`more than ${MAX_TREE_ENTRIES} entries`))
    await assert.rejects(readTreeListing(repo, 'f'.repeat(40), { spoolDirs }), { code: 'SOURCE_SHA_UNKNOWN' })
  }
})
