// Adversarial source trees (threat matrix §4, §9.3 group G), each built in code with real git
// and named after the threat. Two layers where they apply: `admit run` (the real bin) refuses
// before anything is consumed — exact code, exit status, no state directory — and
// `extract-tree` on an attempt admitted directly with core functions (admitDirect: admit's
// cheap check bypassed, as if the repository changed after admission) ends `rejected` with
// the same code and writes nothing but outcome.json. Every "blocked" result has a positive
// control showing the attack works without the protection.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  assertClean, attemptDirFor, buildTreeArchive, git as coreGit, isToolError, jsonFileBytes, loadAttempt, maxTreePathBytes, prepareWorkTree, readOutcome, readTreeFile,
  readTreeListing, readTreeManifest, run, treeManifestFor, TREE_MANIFEST, TREE_TAR, unsafePathReason, writeFileAtomic,
} from '@repairline/core'
import { makeFixture, rewriteConfig, type Fixture } from '../helpers/fixture.ts'
import { admitDirect, type DirectAttempt } from '../helpers/admit-direct.ts'
import { BASE_ENV, binPath, errorOf, runBin } from '../helpers/bin.ts'
import { execsUnderGit, straceUnusable } from '../helpers/exec-trace.ts'
import { runInProcess, type InProcessRun } from '../helpers/in-process.ts'
import { snapshot } from '../helpers/snapshot.ts'
import { tempDir } from '../helpers/tmp.ts'
import { commitAll, createRepo, gitT, TEST_GIT_ENV } from '../helpers/git.ts'
import { commitTree, commitWithExtra, filesOf, hashBlob, literalTree, mktree, treeFromPaths, writeLooseObject, type RawEntry } from '../helpers/trees.ts'
import { extractTree } from '../../tools/extract-tree/src/index.ts'

async function fixture (t: TestContext): Promise<Fixture> {
  return await makeFixture(tempDir(t))
}

/** Points the fixture's config at `sha` (a commit that is never checked out, so the checkout stays clean). */
function useCommit (f: Fixture, sha: string): void {
  rewriteConfig(f, c => ({ ...c, source_sha: sha }))
}

async function admit (f: Fixture): Promise<Awaited<ReturnType<typeof runBin>>> {
  return await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
}

/** admit run refuses with `code`/`exit` and writes nothing: the state directory does not exist. */
async function assertAdmitRefuses (f: Fixture, code: string, exit = 65): Promise<void> {
  const r = await admit(f)
  assert.equal(errorOf(r)?.code, code, r.stderr)
  assert.equal(r.exitCode, exit)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
  assert.equal(existsSync(f.stateDir), false, 'admit wrote the state directory')
}

async function extract (dir: string, check = false): Promise<InProcessRun> {
  return await runInProcess('extract-tree', async io => await extractTree({ attempt: dir, check }, io))
}

function listing (dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()
}

/** extract-tree on a directly admitted attempt ends `rejected` with `code`; only outcome.json is added. */
async function assertExtractRejects (f: Fixture, code: string): Promise<DirectAttempt> {
  const a = await admitDirect(f)
  const before = listing(a.dir)
  const r = await extract(a.dir)
  assert.equal(r.exit, 1, r.stderr)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'extract-tree', exit: 1, outcome: 'rejected' })
  assert.equal(r.records.find(x => x.kind === 'error')?.code, code)
  const o = readOutcome(a.dir, a.key)
  assert.deepEqual([o?.outcome, o?.step, o?.reason.code], ['rejected', 'extract-tree', code])
  assert.deepEqual(listing(a.dir), [...before, 'outcome.json'].sort())
  return a
}

async function bothLayers (f: Fixture, code: string): Promise<void> {
  await assertAdmitRefuses(f, code)
  await assertExtractRejects(f, code)
}

/** A loose blob object whose header claims `declared` bytes but holds only three: any read of its body fails. */
async function bogusBlob (repo: string, declared: number): Promise<string> {
  const oid = createHash('sha1').update(`bogus ${declared} ${Math.random()}`).digest('hex')
  writeLooseObject(repo, oid, 'blob', declared, Buffer.from('abc'))
  // Positive control: git reports the declared size, and reading the body yields 3 bytes, not `declared`.
  assert.equal((await gitT(repo, ['cat-file', '-s', oid])).trim(), String(declared))
  assert.equal((await run('/usr/bin/git', ['-C', repo, 'cat-file', 'blob', oid], { env: TEST_GIT_ENV })).stdout.length, 3)
  return oid
}

test('tree-with-symlink: a committed symlink is refused (TREE_SYMLINK)', async t => {
  const f = await fixture(t)
  symlinkSync('/etc/passwd', join(f.repo, 'passwd.go'))
  useCommit(f, await commitAll(f.repo, 'add a symlink'))
  assert.match(await gitT(f.repo, ['ls-tree', 'HEAD', 'passwd.go']), /^120000 /)
  await bothLayers(f, 'TREE_SYMLINK')
})

test('tree-with-gitlink: a submodule entry is refused (TREE_GITLINK)', async t => {
  const f = await fixture(t)
  const other = createHash('sha1').update('someone else\'s commit').digest('hex')
  useCommit(f, await commitWithExtra(f.repo, new Map([['vendor/lib', { mode: '160000', oid: other }]])))
  await bothLayers(f, 'TREE_GITLINK')
})

test('tree-with-dotgit-and-control-names: .git, .GIT, .., trailing CR and ESC names made with git mktree are refused (TREE_PATH_UNSAFE)', async t => {
  const hostile: Array<[string, string]> = [
    ['.git/config', '[core]\n\tfsmonitor = /tmp/pwned\n'],
    ['.GIT', 'x'],
    ['..', 'x'],
    ['sub/..', 'x'],
    ['hooks.sh\r', 'x'],
    ['\u001b[31mred', 'x'],
    ['.g\u200cit/hooks/post-checkout', '#!/bin/sh\n'],
  ]
  for (const [path, content] of hostile) {
    const f = await fixture(t)
    const sha = await commitWithExtra(f.repo, new Map([[path, { mode: '100644', oid: await hashBlob(f.repo, content) }]]))
    useCommit(f, sha)
    // Positive control: git itself stores and lists the name as given.
    assert.ok((await gitT(f.repo, ['ls-tree', '-r', '-z', '--name-only', sha])).split('\0').includes(path), JSON.stringify(path))
    await bothLayers(f, 'TREE_PATH_UNSAFE')
  }
})

/** The root entries of HEAD, one level, as raw tree entries. */
async function rootEntries (repo: string): Promise<RawEntry[]> {
  const out = await gitT(repo, ['ls-tree', '-z', 'HEAD'])
  return out.split('\0').filter(Boolean).map(rec => {
    const [meta = '', name = ''] = rec.split('\t')
    const [mode = '', , oid = ''] = meta.split(' ')
    return { mode, name, oid }
  })
}

test('tree-with-duplicate-entries: the same name twice, written with hash-object --literally, is refused (TREE_PATH_DUPLICATE)', async t => {
  const f = await fixture(t)
  const entries = await rootEntries(f.repo)
  const evil = await hashBlob(f.repo, 'package calc\n\nfunc Add(a, b int) int { return 0 }\n')
  const i = entries.findIndex(e => e.name === 'calc.go')
  entries.splice(i + 1, 0, { mode: '100644', name: 'calc.go', oid: evil })
  const tree = await literalTree(f.repo, entries)
  useCommit(f, await commitTree(f.repo, tree))
  // Positive control: git lists both entries; which one a checkout writes depends on the tool.
  assert.equal((await gitT(f.repo, ['ls-tree', tree])).split('\n').filter(l => l.endsWith('\tcalc.go')).length, 2)
  await bothLayers(f, 'TREE_PATH_DUPLICATE')
})

test('tree-with-unsorted-entries: a tree out of git\'s canonical order is refused (TREE_MALFORMED)', async t => {
  const f = await fixture(t)
  const entries = (await rootEntries(f.repo)).reverse()
  useCommit(f, await commitTree(f.repo, await literalTree(f.repo, entries)))
  await bothLayers(f, 'TREE_MALFORMED')
})

test('tree-with-case-collision: README and readme (one file on macOS and Windows) are refused (TREE_PATH_DUPLICATE)', async t => {
  const f = await fixture(t)
  const a = await hashBlob(f.repo, 'one\n')
  const b = await hashBlob(f.repo, 'two\n')
  useCommit(f, await commitWithExtra(f.repo, new Map([['README', { mode: '100644', oid: a }], ['readme', { mode: '100644', oid: b }]])))
  await bothLayers(f, 'TREE_PATH_DUPLICATE')
})

test('tree-with-tracked-node-modules: a committed node_modules (the dependency mount point) is refused (TREE_NODE_MODULES)', async t => {
  const f = await fixture(t)
  mkdirSync(join(f.repo, 'node_modules', 'left-pad'), { recursive: true })
  writeFileSync(join(f.repo, 'node_modules', 'left-pad', 'index.js'), 'module.exports = () => { throw new Error("hijacked") }\n')
  useCommit(f, await commitAll(f.repo, 'vendor node_modules'))
  await bothLayers(f, 'TREE_NODE_MODULES')
})

/** A commit of HEAD's files plus `n` entries under many/ pointing at one blob. */
async function commitWithMany (f: Fixture, n: number, oid: string): Promise<string> {
  const many: RawEntry[] = Array.from({ length: n }, (_, i) => ({ mode: '100644', name: `f${String(i).padStart(5, '0')}`, oid }))
  const manyTree = await mktree(f.repo, many)
  const root = [...(await rootEntries(f.repo)), { mode: '40000', name: 'many', oid: manyTree }]
  return await commitTree(f.repo, await mktree(f.repo, root))
}

test('tree-with-20001-blobs: refused from ls-tree sizes before any blob body is read (TREE_TOO_MANY_ENTRIES)', async t => {
  const f = await fixture(t)
  const base = (await filesOf(f.repo, 'HEAD')).size
  // Every extra entry names a blob whose body cannot be read: reading any of them would fail.
  const bogus = await bogusBlob(f.repo, 10)
  useCommit(f, await commitWithMany(f, 20_001 - base, bogus))
  await bothLayers(f, 'TREE_TOO_MANY_ENTRIES')
  // Positive control: at exactly 20,000 blobs the bound passes and extraction reads the
  // bodies — and fails on the unreadable one (a fault, not a rejection).
  const g = await fixture(t)
  const bogus2 = await bogusBlob(g.repo, 10)
  useCommit(g, await commitWithMany(g, 20_000 - base, bogus2))
  const a = await admitDirect(g)
  const r = await extract(a.dir)
  assert.deepEqual([r.exit, readOutcome(a.dir, a.key)?.outcome, readOutcome(a.dir, a.key)?.reason.code], [1, 'fault', 'GIT_FAILED'])
})

test('tree-bomb: one tree of 1,000 entries named 1,100 times (1.1M entries, ~300 MB of ls-tree output from a small repository) is TREE_TOO_MANY_ENTRIES at both layers, not a git failure', async t => {
  const f = await fixture(t)
  const blob = (await gitT(f.repo, ['hash-object', '-w', '--stdin'], 'x\n')).trim()
  const leaf = await mktree(f.repo, Array.from({ length: 1000 }, (_, i) => ({ mode: '100644', name: `f${String(i).padStart(5, '0')}`.padEnd(200, 'a'), oid: blob })))
  const dirs: RawEntry[] = Array.from({ length: 1100 }, (_, i) => ({ mode: '40000', name: `d${String(i).padStart(5, '0')}`, oid: leaf }))
  useCommit(f, await commitTree(f.repo, await mktree(f.repo, [...(await rootEntries(f.repo)), ...dirs])))
  await bothLayers(f, 'TREE_TOO_MANY_ENTRIES')
})

/** Summed blob sizes of a commit, as ls-tree -l reports them. */
async function blobBytes (repo: string, rev: string): Promise<number> {
  return (await gitT(repo, ['ls-tree', '-r', '-l', rev])).split('\n').filter(Boolean).reduce((n, l) => n + Number(l.split(/\s+/)[3]), 0)
}

test('tree-over-16mib: 16 MiB + 1 blob bytes are refused from sizes before any body is read (TREE_TOO_LARGE)', async t => {
  const f = await fixture(t)
  const baseBytes = await blobBytes(f.repo, 'HEAD')
  const big = await bogusBlob(f.repo, 16 * 1024 * 1024 + 1 - baseBytes)
  const sha = await commitWithExtra(f.repo, new Map([['big.bin', { mode: '100644', oid: big }]]))
  useCommit(f, sha)
  assert.equal(await blobBytes(f.repo, sha), 16 * 1024 * 1024 + 1)
  await bothLayers(f, 'TREE_TOO_LARGE')
  // Positive control: at exactly 16 MiB the bound passes, the body is read, and the short blob is caught.
  const g = await fixture(t)
  const fits = await bogusBlob(g.repo, 16 * 1024 * 1024 - baseBytes)
  useCommit(g, await commitWithExtra(g.repo, new Map([['big.bin', { mode: '100644', oid: fits }]])))
  const a = await admitDirect(g)
  const r = await extract(a.dir)
  assert.deepEqual([r.exit, readOutcome(a.dir, a.key)?.outcome, readOutcome(a.dir, a.key)?.reason.code], [1, 'fault', 'GIT_FAILED'])
})

/** A tree path of exactly `bytes` bytes (at least 7): `deep/`, components of 250 bytes, then a file name of 1–251 bytes. */
function pathOfBytes (bytes: number): string {
  const full = Math.floor((bytes - 'deep/'.length - 1) / 251)
  return 'deep/' + `${'d'.repeat(250)}/`.repeat(full) + 'f'.repeat(bytes - 'deep/'.length - 251 * full)
}

/** Points the fixture at a commit that adds one file at `path`; returns the commit. */
async function withPath (f: Fixture, path: string): Promise<string> {
  const sha = await commitWithExtra(f.repo, new Map([[path, { mode: '100644', oid: await hashBlob(f.repo, 'hello\n') }]]))
  useCommit(f, sha)
  return sha
}

test('tree-with-path-past-path-max: a path under 4096 bytes that cannot be written under the attempt\'s work/candidate/ within PATH_MAX is refused (TREE_PATH_UNSAFE) and its attempt seals; a path at the bound extracts and is written', async t => {
  const f = await fixture(t)
  // Every attempt directory of a state root has the same length, whatever its key.
  const limit = maxTreePathBytes(attemptDirFor(f.stateDir, '0'.repeat(64)))
  const over = pathOfBytes(4090)
  assert.equal(Buffer.byteLength(over), 4090)
  assert.ok(limit < 4090, `the work root leaves ${limit} bytes`)
  // The tree's own bounds (4096 bytes, 255 per component) let it through.
  assert.equal(unsafePathReason(over), undefined)
  await withPath(f, over)
  await assertAdmitRefuses(f, 'TREE_PATH_UNSAFE')
  const a = await assertExtractRejects(f, 'TREE_PATH_UNSAFE')
  assert.match(readOutcome(a.dir, a.key)?.reason.message ?? '', /the most that fits within PATH_MAX \(4096\) under the attempt's work\/candidate\//)
  // The rejection ends sealed, and the lock is released at once (not at deadline + 30 s).
  const seal = await runBin('receipt', ['seal', '--attempt', a.dir])
  assert.equal(seal.exitCode, 1, seal.stderr)
  assert.ok(existsSync(join(a.dir, 'receipt.json')))
  assert.equal(existsSync(join(f.stateDir, 'lock')), false)

  // Positive control: without the bound, the same path reaches the work tree and cannot be written there.
  const g = await fixture(t)
  const overSha = await withPath(g, over)
  const b = await admitDirect(g)
  const archive = await buildTreeArchive(g.repo, await readTreeListing(g.repo, overSha), { spool: b.dir })
  writeFileAtomic(join(b.dir, TREE_TAR), archive.tar, { stateRoot: b.stateRoot })
  writeFileAtomic(join(b.dir, TREE_MANIFEST), jsonFileBytes(treeManifestFor(archive, b.key, overSha)), { stateRoot: b.stateRoot })
  assert.throws(() => prepareWorkTree(loadAttempt(b.dir), 'candidate'), e => isToolError(e) && e.code === 'WRITE_FAILED' && /ENAMETOOLONG/.test(e.message))

  // Positive control: a path of exactly the bound is admitted, extracted, and written under work/candidate/.
  const h = await fixture(t)
  const fits = pathOfBytes(maxTreePathBytes(attemptDirFor(h.stateDir, '0'.repeat(64))))
  await withPath(h, fits)
  const ok = await admit(h)
  assert.equal(ok.exitCode, 0, ok.stderr)
  const rec = ok.records.find(x => x.kind === 'attempt')
  assert.ok(rec?.kind === 'attempt')
  const x = await extract(rec.path)
  assert.equal(x.exit, 0, x.stderr)
  const tree = prepareWorkTree(loadAttempt(rec.path), 'candidate')
  assert.equal(readFileSync(join(tree.dir, fits), 'utf8'), 'hello\n')
  assert.equal(Buffer.byteLength(join(tree.dir, fits)), 4095)
})

test('replace-ref: git replace of a blob and of the commit changes nothing extracted; the original bytes are in tree.tar', async t => {
  const f = await fixture(t)
  const original = readFileSync(join(f.repo, 'calc.go'))
  const blob = (await gitT(f.repo, ['rev-parse', 'HEAD:calc.go'])).trim()
  const evil = await hashBlob(f.repo, 'package calc\n\nfunc Add(a, b int) int { return a + b } // replaced\n')
  await gitT(f.repo, ['replace', blob, evil])
  const files = await filesOf(f.repo, 'HEAD')
  files.set('pwned.go', { mode: '100644', oid: evil })
  const otherCommit = await commitTree(f.repo, await treeFromPaths(f.repo, files))
  await gitT(f.repo, ['replace', '-f', f.sha, otherCommit])
  // Positive control: without GIT_NO_REPLACE_OBJECTS git serves the replacements.
  assert.match(await gitT(f.repo, ['cat-file', 'blob', blob]), /replaced/)
  assert.match(await gitT(f.repo, ['ls-tree', '-r', '--name-only', f.sha]), /pwned\.go/)
  const admitted = await admit(f)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  const r = await runBin('extract-tree', [], { input: admitted.stdout })
  assert.equal(r.exitCode, 0, r.stderr)
  const attempt = r.records.find(x => x.kind === 'attempt')
  assert.ok(attempt?.kind === 'attempt')
  assert.deepEqual(readTreeFile(attempt.path, 'calc.go'), original)
  assert.deepEqual(readTreeManifest(attempt.path).entries.map(e => e.path), ['.repairline/registers.json', 'calc.go', 'calc_test.go', 'go.mod'])
})

test('tampered-loose-object: a blob rewritten in the object store is refused on rehash (TREE_OBJECT_MISMATCH)', async t => {
  const f = await fixture(t)
  const blob = (await gitT(f.repo, ['rev-parse', 'HEAD:calc.go'])).trim()
  const size = statSync(join(f.repo, 'calc.go')).size
  const evil = Buffer.from('package calc\n\nfunc Add(a, b int) int { return a + b } // EVIL'.padEnd(size - 1, ' ') + '\n')
  assert.equal(evil.length, size)
  writeLooseObject(f.repo, blob, 'blob', size, evil)
  // Positive control: git serves the tampered bytes under the original id, exit 0.
  assert.deepEqual(Buffer.from(await gitT(f.repo, ['cat-file', 'blob', blob])), evil)
  // admit's cheap check reads sizes only (same size here), so admission succeeds; extraction refuses.
  await assertExtractRejects(f, 'TREE_OBJECT_MISMATCH')
  // The one blob admit does read, the register manifest, is rehashed there too.
  const g = await fixture(t)
  const reg = (await gitT(g.repo, ['rev-parse', 'HEAD:.repairline/registers.json'])).trim()
  const regBytes = readFileSync(join(g.repo, '.repairline', 'registers.json'))
  writeLooseObject(g.repo, reg, 'blob', regBytes.length, Buffer.from(regBytes.toString().replace('internal', 'docs\u0020\u0020\u0020\u0020')))
  await assertAdmitRefuses(g, 'TREE_OBJECT_MISMATCH')
})

test('register manifest listed as a blob that is a tree object: admit refuses it as extract-tree would (TREE_OBJECT_MISMATCH, 65), not as a broken repository', async t => {
  const f = await fixture(t)
  const roots = await rootEntries(f.repo)
  const repairline = roots.find(e => e.name === '.repairline')
  assert.ok(repairline !== undefined)
  // .repairline/registers.json as mode 100644 naming a tree (the root tree of HEAD).
  const headTree = (await gitT(f.repo, ['rev-parse', 'HEAD^{tree}'])).trim()
  // mktree refuses the lie, so the tree object is written by hand: `<mode> <name>\0<20-byte id>`.
  const raw = Buffer.concat([Buffer.from('100644 registers.json\0'), Buffer.from(headTree, 'hex')])
  const dir = (await gitT(f.repo, ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], raw)).trim()
  useCommit(f, await commitTree(f.repo, await mktree(f.repo, roots.map(e => e.name === '.repairline' ? { ...e, oid: dir } : e))))
  // Positive control: git lists it as a blob, and cannot read it as one.
  assert.match(await gitT(f.repo, ['ls-tree', '-r', readFileSync(f.configPath, 'utf8').match(/"source_sha": "([0-9a-f]{40})"/)?.[1] ?? '', '.repairline']), /^100644 blob [0-9a-f]{40}\t\.repairline\/registers\.json$/m)
  await assertAdmitRefuses(f, 'TREE_OBJECT_MISMATCH')
})

test('alternates, grafts and shallow: shared object metadata is refused (TREE_SHARED_METADATA)', async t => {
  const f = await fixture(t)
  const elsewhere = join(tempDir(t), 'elsewhere')
  await createRepo(elsewhere, { 'only-there.txt': 'an object that lives in another repository\n' })
  const foreign = (await gitT(elsewhere, ['rev-parse', 'HEAD:only-there.txt'])).trim()
  // Positive control: before, the object is unknown; through alternates, git reads it.
  assert.notEqual((await run('/usr/bin/git', ['-C', f.repo, 'cat-file', '-e', foreign], { env: TEST_GIT_ENV })).exitCode, 0)
  const alternates = join(f.repo, '.git', 'objects', 'info', 'alternates')
  mkdirSync(join(f.repo, '.git', 'objects', 'info'), { recursive: true })
  writeFileSync(alternates, `${join(elsewhere, '.git', 'objects')}\n`)
  assert.equal((await run('/usr/bin/git', ['-C', f.repo, 'cat-file', '-e', foreign], { env: TEST_GIT_ENV })).exitCode, 0)
  await assertAdmitRefuses(f, 'TREE_SHARED_METADATA')
  await assertExtractRejects(f, 'TREE_SHARED_METADATA')
  for (const rel of ['info/grafts', 'shallow']) {
    const g = await fixture(t)
    writeFileSync(join(g.repo, '.git', rel), `${g.sha}\n`)
    await assertAdmitRefuses(g, 'TREE_SHARED_METADATA')
  }
})

/** The objects at `sha` a repository lacks (`rev-list --missing=print`). */
async function missingAt (repo: string, sha: string): Promise<string[]> {
  return (await gitT(repo, ['rev-list', '--objects', '--missing=print', sha])).split('\n').filter(l => l.startsWith('?')).map(l => l.slice(1))
}

test('partial clone: a real --filter=blob:none clone is refused (TREE_SHARED_METADATA) and nothing is fetched into its .git; a plain git fetches the missing blob', async t => {
  const f = await fixture(t)
  const old = f.sha
  writeFileSync(join(f.repo, 'calc.go'), readFileSync(join(f.repo, 'calc.go'), 'utf8').replace('a - b', 'a + b'))
  await commitAll(f.repo, 'newer')
  await gitT(f.repo, ['config', 'uploadpack.allowFilter', 'true'])
  const partial = join(f.dir, 'partial')
  await gitT(f.dir, ['clone', '-q', '--filter=blob:none', `file://${f.repo}`, partial])
  // The clone's own config allows its transport: that outranked the old `-c protocol.allow=never`.
  await gitT(partial, ['config', 'protocol.file.allow', 'always'])
  const missing = await missingAt(partial, old)
  assert.equal(missing.length, 1, 'the old calc.go should be a promised, missing blob')
  const before = snapshot(join(partial, '.git'))
  rewriteConfig(f, c => ({ ...c, source_root: partial, source_sha: old }))
  await assertAdmitRefuses(f, 'TREE_SHARED_METADATA')
  // extract-tree's attempt is admitted directly while source_root is a full clone; the partial
  // clone then takes its place (as if the checkout were replaced after admission).
  const clone = join(f.dir, 'clone')
  await gitT(f.dir, ['clone', '-q', `file://${f.repo}`, clone])
  rewriteConfig(f, c => ({ ...c, source_root: clone }))
  const a = await admitDirect(f)
  rmSync(clone, { recursive: true })
  renameSync(partial, clone)
  const gitDir = join(clone, '.git')
  const attemptBefore = listing(a.dir)
  const r = await extract(a.dir)
  assert.equal(r.exit, 1, r.stderr)
  assert.equal(r.records.find(x => x.kind === 'error')?.code, 'TREE_SHARED_METADATA')
  assert.deepEqual([readOutcome(a.dir, a.key)?.outcome, readOutcome(a.dir, a.key)?.reason.code], ['rejected', 'TREE_SHARED_METADATA'])
  assert.deepEqual(listing(a.dir), [...attemptBefore, 'outcome.json'].sort())
  // The hermetic git on its own (no refusal) fetches nothing either: every transport is denied
  // on the command line, which outranks the clone's protocol.file.allow.
  const hermetic = await coreGit(clone, ['cat-file', '-p', missing[0] ?? ''])
  assert.notEqual(hermetic.exitCode, 0)
  assert.deepEqual(snapshot(gitDir), before, 'the partial clone\'s .git changed')
  assert.deepEqual(await missingAt(clone, old), missing)
  // Positive control: a plain git, even given the old `-c protocol.allow=never`, fetches the blob.
  const plain = await run('/usr/bin/git', ['-c', 'protocol.allow=never', '-C', clone, 'cat-file', '-p', missing[0] ?? ''], { env: TEST_GIT_ENV })
  assert.equal(plain.exitCode, 0, plain.stderr.toString())
  assert.match(plain.stdout.toString(), /a - b/)
  assert.deepEqual(await missingAt(clone, old), [])
  assert.notDeepEqual(snapshot(gitDir), before)
})

test('partial clone by config alone (extensions.partialClone, a promisor remote; no promisor pack): refused (TREE_SHARED_METADATA) with nothing written', async t => {
  for (const key of ['extensions.partialClone', 'remote.origin.promisor'] as const) {
    const f = await fixture(t)
    await gitT(f.repo, ['config', 'core.repositoryformatversion', '1'])
    await gitT(f.repo, ['config', 'remote.origin.url', join(f.dir, 'nowhere')])
    await gitT(f.repo, ['config', key, key === 'extensions.partialClone' ? 'origin' : 'true'])
    const before = snapshot(join(f.repo, '.git'))
    await assertAdmitRefuses(f, 'TREE_SHARED_METADATA')
    assert.deepEqual(snapshot(join(f.repo, '.git')), before)
  }
  // A promisor remote turned off is no partial clone.
  const g = await fixture(t)
  await gitT(g.repo, ['config', 'remote.origin.promisor', 'false'])
  const admitted = await admit(g)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
})

test('hostile core.fsmonitor in the repository config: no process is spawned by admit or extract-tree', async t => {
  const f = await fixture(t)
  const marker = join(f.dir, 'fsmonitor-ran')
  const hook = join(f.dir, 'fsmonitor-hook')
  writeFileSync(hook, `#!/bin/sh\necho "$@" >> ${marker}\nexit 1\n`)
  chmodSync(hook, 0o755)
  await gitT(f.repo, ['config', 'core.fsmonitor', hook])
  // Positive control: a plain `git status` in this checkout runs the hook.
  await run('/usr/bin/git', ['-C', f.repo, 'status', '--porcelain'], { env: TEST_GIT_ENV })
  assert.ok(existsSync(marker), 'the positive control did not run the hook')
  rmSync(marker)
  const admitted = await admit(f)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  const r = await runBin('extract-tree', [], { input: admitted.stdout })
  assert.equal(r.exitCode, 0, r.stderr)
  const check = await runBin('extract-tree', ['--check'], { input: admitted.stdout })
  assert.equal(check.exitCode, 0, check.stderr)
  assert.equal(existsSync(marker), false, 'admit or extract-tree ran the fsmonitor hook')
})

/** A program that logs each start to `marker` and passes its input through, as a clean filter does. */
function loggingFilter (dir: string, marker: string): string {
  const evil = join(dir, 'evil-filter')
  writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec cat\n`)
  chmodSync(evil, 0o755)
  return evil
}

/** Makes `file`'s index entry stat-dirty (same bytes, a later mtime): git must re-hash it, through its clean filter. */
function touchLater (file: string, seconds: number): void {
  const later = new Date(Date.now() + seconds * 1000)
  utimesSync(file, later, later)
}

/**
 * admit run under strace: exit 0, no process git forked ran anything but git, no marker.
 * (Skips the strace half where strace cannot trace; the marker still proves the filter did not run.)
 */
async function assertAdmitStartsOnlyGit (f: Fixture, marker: string): Promise<void> {
  const traced = (await straceUnusable()) === false
  if (traced) {
    const r = await execsUnderGit(f.dir, binPath('admit'), ['run', '--config', f.configPath, '--report', f.reportPath], BASE_ENV)
    assert.equal(r.exitCode, 0, r.stderr)
    assert.ok(r.gitRuns > 0, 'the trace saw no git at all')
    assert.deepEqual(r.foreign, [], 'git started another program')
  } else {
    const r = await admit(f)
    assert.equal(r.exitCode, 0, r.stderr)
  }
  assert.equal(existsSync(marker), false, 'admit ran the clean filter')
}

test('a clean filter in the repository config (direct, required, through include.path, in a checked-out submodule): admit and the clean check start no process; a plain git status runs it', async t => {
  for (const variant of ['clean', 'required', 'include', 'process', 'submodule'] as const) {
    const f = await fixture(t)
    const marker = join(f.dir, 'filter-ran')
    const evil = loggingFilter(f.dir, marker)
    let touched = join(f.repo, 'calc.go')
    if (variant === 'submodule') {
      // HEAD has a checked-out submodule whose own config names the filter; source_sha (the
      // first commit) has no gitlink, so the tree rules pass.
      const sub = join(f.dir, 'sub-origin')
      await createRepo(sub, { 'lib.txt': 'hello\n', '.gitattributes': '* filter=evil\n' })
      await gitT(f.repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub'])
      await commitAll(f.repo, 'add a submodule')
      await gitT(join(f.repo, 'sub'), ['config', 'filter.evil.clean', evil])
      touched = join(f.repo, 'sub', 'lib.txt')
    } else {
      writeFileSync(join(f.repo, '.gitattributes'), '* filter=evil\n')
      useCommit(f, await commitAll(f.repo, 'every file through the evil filter'))
      if (variant === 'include') {
        writeFileSync(join(f.dir, 'included.gitconfig'), `[filter "evil"]\n\tclean = ${evil}\n`)
        await gitT(f.repo, ['config', 'include.path', join(f.dir, 'included.gitconfig')])
      } else {
        await gitT(f.repo, ['config', `filter.evil.${variant === 'process' ? 'process' : 'clean'}`, evil])
      }
      if (variant === 'required') await gitT(f.repo, ['config', 'filter.evil.required', 'true'])
    }
    // Positive control: a plain git status re-hashes the touched file through the filter.
    touchLater(touched, 5)
    await run('/usr/bin/git', ['-C', f.repo, 'status', '--porcelain'], { env: TEST_GIT_ENV })
    assert.ok(existsSync(marker), `${variant}: the positive control did not run the filter`)
    rmSync(marker)
    // That status refreshed the index: touch again so admit's status must re-hash too.
    touchLater(touched, 10)
    await assertAdmitStartsOnlyGit(f, marker)
    // The clean check receipt seal runs (clean_after) is the same call.
    touchLater(touched, 15)
    await assertClean(f.repo)
    assert.equal(existsSync(marker), false, `${variant}: assertClean ran the clean filter`)
  }
})

test('a clean filter cannot make a modified file look clean: git compares raw bytes (CHECKOUT_DIRTY); a filter line with no driver configured still passes a clean checkout', async t => {
  const f = await fixture(t)
  writeFileSync(join(f.repo, '.gitattributes'), 'calc.go filter=liar\n')
  useCommit(f, await commitAll(f.repo, 'calc.go through the liar filter'))
  // No driver is configured: an untouched and a touched checkout are clean, an edit is not.
  touchLater(join(f.repo, 'calc.go'), 5)
  const admitted = await admit(f)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  const g = await fixture(t)
  writeFileSync(join(g.repo, '.gitattributes'), 'calc.go filter=liar\n')
  useCommit(g, await commitAll(g.repo, 'calc.go through the liar filter'))
  const committed = join(g.dir, 'calc.go.committed')
  writeFileSync(committed, readFileSync(join(g.repo, 'calc.go')))
  // An edit of the same size (the repair itself), so git must re-hash the file to see it.
  writeFileSync(join(g.repo, 'calc.go'), readFileSync(committed, 'utf8').replace('a - b', 'a + b'))
  await assertAdmitRefuses(g, 'CHECKOUT_DIRTY', 78)
  // The liar answers the committed bytes whatever it is given.
  const liar = join(g.dir, 'liar')
  writeFileSync(liar, `#!/bin/sh\ncat >/dev/null\nexec cat ${committed}\n`)
  chmodSync(liar, 0o755)
  await gitT(g.repo, ['config', 'filter.liar.clean', liar])
  // Positive control: to a plain git status the edited checkout is clean (--no-optional-locks:
  // it must not write the refreshed stat data into the index, which every status then trusts).
  assert.equal((await run('/usr/bin/git', ['--no-optional-locks', '-C', g.repo, 'status', '--porcelain'], { env: TEST_GIT_ENV })).stdout.toString(), '')
  await assertAdmitRefuses(g, 'CHECKOUT_DIRTY', 78)
  await assert.rejects(assertClean(g.repo), (e: Error & { code?: string }) => e.code === 'CHECKOUT_DIRTY')
})

test('a submodule checked out at another commit than its gitlink is still a dirty checkout (CHECKOUT_DIRTY)', async t => {
  const f = await fixture(t)
  const sub = join(f.dir, 'sub-origin')
  await createRepo(sub, { 'lib.txt': 'hello\n' })
  await gitT(f.repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub'])
  await commitAll(f.repo, 'add a submodule')
  const admitted = await admit(f)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  rmSync(f.stateDir, { recursive: true })
  writeFileSync(join(f.repo, 'sub', 'lib.txt'), 'moved\n')
  await commitAll(join(f.repo, 'sub'), 'move the submodule')
  await assertAdmitRefuses(f, 'CHECKOUT_DIRTY', 78)
})

test('dirty and untracked files: admit refuses a dirty checkout; files changed after admission never reach tree.tar', async t => {
  const f = await fixture(t)
  const committed = readFileSync(join(f.repo, 'calc.go'))
  writeFileSync(join(f.repo, 'calc.go'), 'package calc\n// edited, not committed\n')
  await assertAdmitRefuses(f, 'CHECKOUT_DIRTY', 78)
  writeFileSync(join(f.repo, 'calc.go'), committed)
  writeFileSync(join(f.repo, 'untracked.go'), 'package calc\n')
  await assertAdmitRefuses(f, 'CHECKOUT_DIRTY', 78)
  rmSync(join(f.repo, 'untracked.go'))
  const admitted = await admit(f)
  assert.equal(admitted.exitCode, 0, admitted.stderr)
  // After admission: an edit, an untracked file, and export attributes in .git/info.
  writeFileSync(join(f.repo, 'calc.go'), 'package calc\n// edited after admission\n')
  writeFileSync(join(f.repo, 'untracked.go'), 'package calc\n')
  writeFileSync(join(f.repo, '.git', 'info', 'attributes'), 'calc.go export-ignore\ngo.mod export-subst\n')
  const r = await runBin('extract-tree', [], { input: admitted.stdout })
  assert.equal(r.exitCode, 0, r.stderr)
  const attempt = r.records.find(x => x.kind === 'attempt')
  assert.ok(attempt?.kind === 'attempt')
  assert.deepEqual(readTreeFile(attempt.path, 'calc.go'), committed)
  assert.deepEqual(readTreeManifest(attempt.path).entries.map(e => e.path), ['.repairline/registers.json', 'calc.go', 'calc_test.go', 'go.mod'])
  // Positive control: git archive of the same commit obeys the local attributes and drops calc.go.
  const archived = await run('/usr/bin/git', ['-C', f.repo, 'archive', '--format=tar', f.sha], { env: TEST_GIT_ENV })
  assert.equal(archived.exitCode, 0)
  assert.equal(archived.stdout.includes('calc.go'), false)
  assert.ok(archived.stdout.includes('calc_test.go'))
})

test('index bits that hide an edit from git status (assume-unchanged, skip-worktree): CHECKOUT_DIRTY (78) naming the file and the bit, nothing written; a plain git status calls the edited checkout clean', async t => {
  for (const [flag, bit] of [['--assume-unchanged', 'assume-unchanged'], ['--skip-worktree', 'skip-worktree']] as const) {
    const f = await fixture(t)
    const committed = readFileSync(join(f.repo, 'calc.go'))
    await gitT(f.repo, ['update-index', flag, 'calc.go'])
    // Marked but unedited: still refused (nothing says the file is what the index claims).
    const before = snapshot(f.dir)
    const r = await admit(f)
    assert.equal(errorOf(r)?.code, 'CHECKOUT_DIRTY', r.stderr)
    assert.equal(r.exitCode, 78)
    assert.match(errorOf(r)?.message ?? '', new RegExp(`calc\\.go is marked ${bit}`))
    assert.deepEqual(snapshot(f.dir), before, 'admit wrote something')
    writeFileSync(join(f.repo, 'calc.go'), 'package calc\n// edited, not committed\n')
    // Positive control: git status does not see the edit.
    assert.equal(await gitT(f.repo, ['status', '--porcelain', '--untracked-files=all']), '')
    await assertAdmitRefuses(f, 'CHECKOUT_DIRTY', 78)
    await assert.rejects(assertClean(f.repo), (e: Error & { code?: string }) => e.code === 'CHECKOUT_DIRTY' && e.message.includes(`calc.go is marked ${bit}`))
    // The bit cleared and the edit undone, the same checkout is admitted.
    await gitT(f.repo, ['update-index', flag.replace('--', '--no-'), 'calc.go'])
    writeFileSync(join(f.repo, 'calc.go'), committed)
    const admitted = await admit(f)
    assert.equal(admitted.exitCode, 0, admitted.stderr)
  }
})

test('extract-tree --check on a hostile tree reports the rule, writes nothing', async t => {
  const f = await fixture(t)
  symlinkSync('../../etc/shadow', join(f.repo, 'shadow.go'))
  useCommit(f, await commitAll(f.repo, 'add a symlink'))
  const a = await admitDirect(f)
  const before = listing(a.dir)
  const r = await extract(a.dir, true)
  assert.equal(r.exit, 65)
  assert.equal(r.records.find(x => x.kind === 'error')?.code, 'TREE_SYMLINK')
  assert.deepEqual(listing(a.dir), before)
})
