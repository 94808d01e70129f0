// Threat-matrix row G10: source_sha (the execution config's commit; DESIGN §5: a full 40-hex
// commit that exists in source_root) naming anything but a commit by its full lowercase id.
// Every git object that is not a commit — an annotated tag, a blob — and a 40-hex tag name
// that is no object are refused by admit run as SOURCE_SHA_UNKNOWN (78); an abbreviated id,
// an ambiguous short id, uppercase hex and a ref name are refused by the schema's pattern as
// CONFIG_INVALID (78). Each refusal has exit 78, the pointer /source_sha, its three records,
// and leaves every file under the fixture as it was; the case is not consumed: the same
// fixture pointed at the commit's own id is admitted (the positive control). Each name has
// its own control too: plain git resolves it to the commit, or to its tree. (A tree's id and
// an unknown 40-hex id are refusals.test.ts's.) Behind admit, extract-tree given an admission
// for an annotated tag (admit bypassed) ends `fault` SOURCE_SHA_UNKNOWN and writes no tree,
// where git would peel the tag and list the commit's files. A sha256 repository, where any
// 40-hex id is an abbreviation git expands, is refused as SOURCE_NOT_GIT at /source_root.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { readOutcome } from '@repairline/core'
import { GO_FILES, rewriteConfig, type Fixture } from '../../../test/helpers/fixture.ts'
import { admitDirect } from '../../../test/helpers/admit-direct.ts'
import { runBin } from '../../../test/helpers/bin.ts'
import { commitAll, gitT, writeFiles } from '../../../test/helpers/git.ts'
import { snapshot } from '../../../test/helpers/snapshot.ts'
import { admit, assertRefused, fixture } from './helpers.ts'

/** Points the config at `sha`; admit run refuses with `code` (78, /source_sha) and nothing under the fixture changes. */
async function assertShaRefused (f: Fixture, sha: string, code: 'SOURCE_SHA_UNKNOWN' | 'CONFIG_INVALID', message?: RegExp): Promise<void> {
  rewriteConfig(f, c => ({ ...c, source_sha: sha }))
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefused(r, 78, code, f, '/source_sha')
  if (message !== undefined) assert.match(r.stderr, message)
  assert.deepEqual(snapshot(f.dir), before, `admit wrote something for source_sha ${JSON.stringify(sha)}`)
}

/** The positive control: the commit's own id is admitted on the same fixture, so no refusal consumed the case. */
async function assertCommitAdmitted (f: Fixture): Promise<void> {
  rewriteConfig(f, c => ({ ...c, source_sha: f.sha }))
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
}

/** `git rev-parse --verify <name>`, or undefined when git cannot resolve it. */
async function resolve (repo: string, name: string): Promise<string | undefined> {
  try { return (await gitT(repo, ['rev-parse', '--verify', '--quiet', name])).trim() } catch { return undefined }
}

/** A blob whose id starts with `prefix` (found by hashing candidates the way git does), written into `repo`. */
async function blobWithPrefix (repo: string, prefix: string): Promise<string> {
  for (let i = 0; ; i++) {
    const content = `ambiguous ${i}\n`
    const id = createHash('sha1').update(`blob ${Buffer.byteLength(content)}\0${content}`).digest('hex')
    if (id.startsWith(prefix)) {
      assert.equal((await gitT(repo, ['hash-object', '-w', '--stdin'], content)).trim(), id)
      return id
    }
  }
}

test('an annotated tag object, a blob and a 40-hex tag name that is no object: SOURCE_SHA_UNKNOWN (78), nothing written, the case not consumed', async (t) => {
  const f = await fixture(t)
  // annotated-tag: a tag object pointing at the commit.
  await gitT(f.repo, ['tag', '-a', 'v1.0.0', '-m', 'release'])
  const tag = (await gitT(f.repo, ['rev-parse', 'refs/tags/v1.0.0'])).trim()
  assert.notEqual(tag, f.sha)
  // Positive control: git knows the object as a tag, peels it to the commit, and lists the commit's files from it.
  assert.equal((await gitT(f.repo, ['cat-file', '-t', tag])).trim(), 'tag')
  assert.equal(await resolve(f.repo, `${tag}^{commit}`), f.sha)
  assert.match(await gitT(f.repo, ['ls-tree', '-r', '--name-only', tag]), /^calc\.go$/m)
  await assertShaRefused(f, tag, 'SOURCE_SHA_UNKNOWN', /is a tag, not a commit/)

  const blob = (await gitT(f.repo, ['rev-parse', 'HEAD:calc.go'])).trim()
  assert.equal((await gitT(f.repo, ['cat-file', '-t', blob])).trim(), 'blob')
  await assertShaRefused(f, blob, 'SOURCE_SHA_UNKNOWN', /is a blob, not a commit/)

  // hex-named-tag: a lightweight tag whose name is 40 hex digits, pointing at the commit.
  const hexName = createHash('sha1').update('a ref name, not an object').digest('hex')
  await gitT(f.repo, ['tag', hexName, f.sha])
  assert.equal(await resolve(f.repo, `refs/tags/${hexName}`), f.sha, 'the ref names the commit')
  await assertShaRefused(f, hexName, 'SOURCE_SHA_UNKNOWN', /is not an object/)

  await assertCommitAdmitted(f)
})

test('an abbreviated id, an ambiguous short id, uppercase hex and ref names: CONFIG_INVALID (78) at /source_sha, nothing written, the case not consumed', async (t) => {
  const f = await fixture(t)
  await gitT(f.repo, ['tag', '-a', 'v1.0.0', '-m', 'release'])
  // ambiguous-short-id: a blob whose id shares the commit's first four hex digits.
  const prefix = f.sha.slice(0, 4)
  const twin = await blobWithPrefix(f.repo, prefix)
  assert.notEqual(twin, f.sha)
  // Positive controls: git resolves each of these names to the commit; the ambiguous prefix
  // alone is refused by git, and resolved to the commit once a commit is asked for.
  assert.equal(await resolve(f.repo, prefix), undefined, 'git calls the 4-digit prefix ambiguous')
  const names: Array<[string, string]> = [
    ['ambiguous 4-digit prefix, disambiguated by ^{commit}', `${prefix}^{commit}`],
    ['7-digit abbreviation', f.sha.slice(0, 7)],
    ['39-digit abbreviation', f.sha.slice(0, 39)],
    ['uppercase hex', f.sha.toUpperCase()],
    ['branch name', 'main'],
    ['HEAD', 'HEAD'],
    ['annotated tag name', 'v1.0.0'],
  ]
  for (const [what, name] of names) assert.equal(await resolve(f.repo, `${name}^{commit}`), f.sha, `${what}: git resolves ${name}`)
  for (const sha of [prefix, ...names.map(([, name]) => name), `${f.sha}\n`, ` ${f.sha}`, `${f.sha}^{commit}`]) {
    await assertShaRefused(f, sha, 'CONFIG_INVALID')
  }
  await assertCommitAdmitted(f)
})

test('extract-tree on an admission naming an annotated tag (admit bypassed) ends fault SOURCE_SHA_UNKNOWN and writes no tree; git would have peeled it', async (t) => {
  const f = await fixture(t)
  await gitT(f.repo, ['tag', '-a', 'v1.0.0', '-m', 'release'])
  const tag = (await gitT(f.repo, ['rev-parse', 'refs/tags/v1.0.0'])).trim()
  rewriteConfig(f, c => ({ ...c, source_sha: tag }))
  const a = await admitDirect(f)
  const before = readdirSync(a.dir).sort()
  const r = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(r.exitCode, 1, r.stderr)
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'extract-tree', exit: 1, outcome: 'fault' })
  const o = readOutcome(a.dir, a.key)
  assert.deepEqual([o?.outcome, o?.step, o?.reason.code], ['fault', 'extract-tree', 'SOURCE_SHA_UNKNOWN'])
  assert.match(o?.reason.message ?? '', /is a tag, not a commit/)
  assert.deepEqual(readdirSync(a.dir).sort(), [...before, 'outcome.json'].sort())
  assert.equal(existsSync(join(a.dir, 'tree.tar')), false)
  // Positive control: admitDirect's own listing went through the tag to the commit's files,
  // as any git plumbing that takes a tree-ish does.
  assert.match(await gitT(f.repo, ['ls-tree', '-r', '--name-only', tag]), /^\.repairline\/registers\.json$/m)
})

test('a sha256 repository: its commit named by a 40-hex prefix (which git expands) is refused as SOURCE_NOT_GIT (78) at /source_root, nothing written', async (t) => {
  const f = await fixture(t)
  const repo = join(f.dir, 'repo256')
  await gitT(f.dir, ['init', '-q', '--object-format=sha256', '-b', 'main', repo])
  writeFiles(repo, GO_FILES)
  const sha = await commitAll(repo, 'fixture')
  assert.equal(sha.length, 64)
  const prefix = sha.slice(0, 40)
  // Positive control: git resolves the 40-hex prefix to the commit.
  assert.equal((await gitT(repo, ['cat-file', '-t', prefix])).trim(), 'commit')
  assert.equal(await resolve(repo, prefix), sha)
  rewriteConfig(f, c => ({ ...c, source_root: repo, source_sha: prefix }))
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefused(r, 78, 'SOURCE_NOT_GIT', f, '/source_root')
  assert.match(r.stderr, /uses the sha256 object format: expected sha1/)
  assert.deepEqual(snapshot(f.dir), before)
  // The full 64-hex id is no 40-hex id: the schema refuses it.
  await assertShaRefused(f, sha, 'CONFIG_INVALID')
  rewriteConfig(f, c => ({ ...c, source_root: f.repo }))
  await assertCommitAdmitted(f)
})
