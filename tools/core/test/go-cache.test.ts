// The go runner's private GOCACHE (runners/go-cache.ts): capped, private, cheap to seed and to
// remove whatever a test leaves in it. Runs as root (it mounts), like the sandbox tests.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GO_CACHE_DEST, mountGoCache, mountsUnder, releaseGoCache, removeScratch, runTests } from '../src/index.ts'
import { GO_FILES } from '../../../test/helpers/fixture.ts'
import { TEST_LIMITS, leftoverCgroups, makeTree, sandboxTemp, warmGoCache } from '../../../test/helpers/sandbox.ts'

const MiB = 1024 ** 2

const PASSING_GO: Record<string, string> = {
  'go.mod': GO_FILES['go.mod'] as string,
  'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n',
}

/** A tree whose one test runs `body` (Go statements; `dir` is $GOCACHE) and then passes. */
function cacheTestTree (parent: string, name: string, imports: string[], body: string): string {
  const test = `package calc\n\nimport (\n${['"os"', '"testing"', ...imports].map(i => `\t${i}\n`).join('')})\n\nfunc TestCache(t *testing.T) {\n\tdir := os.Getenv("GOCACHE")\n\t_ = dir\n${body}\n}\n`
  return makeTree(parent, name, { ...PASSING_GO, 'calc_test.go': test })
}

/** A host build cache of `files` files in go's 256 `XX/` shards (content irrelevant). */
function fakeCache (parent: string, name: string, files: number): string {
  const dir = join(parent, name)
  mkdirSync(dir, { mode: 0o755 })
  for (let s = 0; s < 256; s++) mkdirSync(join(dir, s.toString(16).padStart(2, '0')), { mode: 0o755 })
  for (let i = 0; i < files; i++) {
    const shard = (i % 256).toString(16).padStart(2, '0')
    writeFileSync(join(dir, shard, `${shard}${i.toString(16).padStart(62, '0')}-d`), 'x', { mode: 0o644 })
  }
  return dir
}

test('seeding does not walk the cache: after seeding a 1,000-file and a 100,000-file cache, the private layer holds the same entries (the root\'s shard directories, no file) and the same bytes', async t => {
  const dir = sandboxTemp(t)
  const scratch = makeTree(dir, 'scratch', {})
  const seen: Array<{ files: number, entries: number, bytes: number, shardsOwned: number }> = []
  for (const files of [1_000, 100_000]) {
    const host = fakeCache(dir, `cache-${files}`, files)
    const m = await mountGoCache(join(scratch, `gocache-${files}`), host, 65534, 65534)
    try {
      assert.equal(m.method, 'overlay')
      const s = statfsSync(m.dir)
      const shards = readdirSync(m.dir)
      seen.push({ files, entries: s.files - s.ffree, bytes: (s.blocks - s.bfree) * s.bsize, shardsOwned: shards.filter(n => statSync(join(m.dir, n)).uid === 65534).length })
      // Every host file is visible through the overlay, none of them was copied.
      assert.equal(readdirSync(join(m.dir, 'ff')).length, Math.floor(files / 256))
      assert.equal(statSync(join(m.dir, '00', readdirSync(join(m.dir, '00'))[0] ?? '')).uid, 0, 'files stay the cache\'s own')
    } finally {
      assert.equal(await releaseGoCache(m), undefined)
    }
  }
  assert.equal(seen[0]?.shardsOwned, 256)
  assert.equal(seen[1]?.shardsOwned, 256)
  assert.equal(seen[0]?.entries, seen[1]?.entries, JSON.stringify(seen))
  assert.equal(seen[0]?.bytes, seen[1]?.bytes, JSON.stringify(seen))
  assert.deepEqual(readdirSync(scratch), [])
  assert.deepEqual(mountsUnder(scratch), [])
})

test('a shard directory others may not list stays root\'s (the sandbox user is not shown what uid 65534 could not see); a bad lower falls back to a cold capped tmpfs that says why', async t => {
  const dir = sandboxTemp(t)
  const scratch = makeTree(dir, 'scratch', {})
  const host = makeTree(dir, 'cache', { 'aa/x-d': 'x', 'bb/y-d': 'y' })
  const { chmodSync } = await import('node:fs')
  chmodSync(join(host, 'bb'), 0o700)
  const m = await mountGoCache(join(scratch, 'gocache-1'), host, 65534, 65534)
  try {
    assert.equal(statSync(join(m.dir, 'aa')).uid, 65534)
    assert.equal(statSync(join(m.dir, 'bb')).uid, 0)
    assert.equal(statSync(m.dir).uid, 65534)
    assert.equal(statSync(m.dir).mode & 0o777, 0o700)
  } finally {
    await releaseGoCache(m)
  }
  // Overlay refuses a lower that is a file: the run still gets its capped private tmpfs, cold.
  const cold = await mountGoCache(join(scratch, 'gocache-2'), join(host, 'aa', 'x-d'), 65534, 65534, { bytes: 4 * MiB, entries: 100 })
  try {
    assert.equal(cold.method, undefined)
    assert.match(cold.note ?? '', /^cold: the overlay over .* could not be mounted: /)
    assert.deepEqual(readdirSync(cold.dir), [])
    assert.equal(statSync(cold.dir).uid, 65534)
    assert.equal(statfsSync(cold.dir).blocks * statfsSync(cold.dir).bsize, 4 * MiB)
  } finally {
    await releaseGoCache(cold)
  }
  assert.deepEqual(readdirSync(scratch), [])
})

test('a test that fills $GOCACHE past its caps (bytes, then entries) fails with ENOSPC, a typed test outcome; the state filesystem gains nothing and nothing is left behind; under the caps the same test passes', async t => {
  const dir = sandboxTemp(t)
  const caps = { bytes: 48 * MiB, entries: 4000 }
  const fillBytes = cacheTestTree(dir, 'fill-bytes', ['"path/filepath"', '"bytes"'], [
    '\tf, err := os.Create(filepath.Join(dir, "fill"))',
    '\tif err != nil { t.Fatal(err) }',
    '\tchunk := bytes.Repeat([]byte("x"), 1<<20)',
    '\tfor i := 0; i < 4096; i++ {',
    '\t\tif _, err := f.Write(chunk); err != nil { t.Fatalf("write %d MiB: %v", i, err) }',
    '\t}',
  ].join('\n'))
  const fillEntries = cacheTestTree(dir, 'fill-entries', ['"path/filepath"', '"fmt"'], [
    '\tif err := os.Mkdir(filepath.Join(dir, "many"), 0o755); err != nil { t.Fatal(err) }',
    '\tfor i := 0; i < 1000000; i++ {',
    '\t\tif err := os.WriteFile(filepath.Join(dir, "many", fmt.Sprint(i)), nil, 0o644); err != nil { t.Fatalf("entry %d: %v", i, err) }',
    '\t}',
  ].join('\n'))
  const scratch = makeTree(dir, 'scratch', {})
  const free = (): number => { const s = statfsSync(dir); return s.bavail * s.bsize }
  for (const [tree, pattern] of [[fillBytes, /write \d+ MiB: .*no space left on device/], [fillEntries, /entry \d+: .*no space left on device/]] as const) {
    const before = free()
    const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: await warmGoCache(), goCacheCaps: caps })
    assert.equal(r.fault, undefined, `${JSON.stringify(r.fault)} ${r.stderrTail}`)
    assert.deepEqual(r.summary.identities, { 'example.com/calc::TestCache': { result: 'fail' } }, r.stderrTail)
    assert.match(r.events.map(e => e.Output ?? '').join(''), pattern)
    assert.ok(free() > before - 16 * MiB, `the state filesystem lost ${before - free()} bytes`)
    assert.equal(r.cleanupNote, undefined)
    assert.deepEqual(readdirSync(scratch), [], 'nothing is left behind')
    assert.deepEqual(mountsUnder(scratch), [])
  }
  // Control: a test that writes a little passes.
  const small = cacheTestTree(dir, 'small', ['"path/filepath"'], '\tif err := os.WriteFile(filepath.Join(dir, "small"), []byte("x"), 0o644); err != nil { t.Fatal(err) }')
  const ok = await runTests({ runner: 'go', tree: small, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: await warmGoCache(), goCacheCaps: caps })
  assert.deepEqual(ok.summary.identities, { 'example.com/calc::TestCache': { result: 'pass' } }, ok.stderrTail)
  assert.deepEqual(leftoverCgroups(), [])
})

test('a directory chain deeper than PATH_MAX built in $GOCACHE goes with the run: the verdict stands (the test passed) and nothing is left', async t => {
  const dir = sandboxTemp(t)
  const tree = cacheTestTree(dir, 'deep', ['"strings"'], [
    '\tif err := os.Chdir(dir); err != nil { t.Fatal(err) }',
    '\tname := strings.Repeat("d", 200)',
    '\tfor i := 0; i < 40; i++ {',
    '\t\tif err := os.Mkdir(name, 0o755); err != nil { t.Fatal(err) }',
    '\t\tif err := os.Chdir(name); err != nil { t.Fatal(err) }',
    '\t}',
    '\tif err := os.WriteFile("leaf", []byte("x"), 0o644); err != nil { t.Fatal(err) }',
    '\tif _, err := os.Stat(dir + "/" + strings.Repeat(name+"/", 40) + "leaf"); err == nil { t.Fatal("the chain is not deeper than PATH_MAX") }',
  ].join('\n'))
  const scratch = makeTree(dir, 'scratch', {})
  const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goBuildCache: await warmGoCache() })
  assert.equal(r.fault, undefined, `${JSON.stringify(r.fault)} ${r.stderrTail}`)
  assert.deepEqual(r.summary.identities, { 'example.com/calc::TestCache': { result: 'pass' } }, r.stderrTail)
  assert.equal(r.sandbox?.mounts.find(m => m.dest === GO_CACHE_DEST)?.mode, 'rw')
  assert.equal(r.cleanupNote, undefined)
  assert.deepEqual(readdirSync(scratch), [])
  assert.deepEqual(mountsUnder(scratch), [])
})

test('removeScratch removes a chain deeper than PATH_MAX on disk, where rmSync fails with ENAMETOOLONG (control), and detaches a GOCACHE a killed run left mounted', async t => {
  const dir = sandboxTemp(t)
  const build = (root: string): void => {
    const name = 'd'.repeat(200)
    const cwd = process.cwd()
    mkdirSync(root)
    process.chdir(root)
    try {
      for (let i = 0; i < 40; i++) { mkdirSync(name); process.chdir(name) }
      writeFileSync('leaf', 'x')
    } finally {
      process.chdir(cwd)
    }
  }
  const control = join(dir, 'control')
  build(control)
  assert.throws(() => rmSync(control, { recursive: true, force: true }), { code: 'ENAMETOOLONG' })
  assert.equal(await removeScratch(control), undefined)
  const deep = join(dir, 'deep')
  build(deep)
  assert.equal(await removeScratch(deep), undefined)
  assert.deepEqual(readdirSync(dir), [])

  // A scratch whose run was killed before its cleanup: the GOCACHE is still mounted there.
  const scratch = makeTree(dir, 'scratch', {})
  const host = makeTree(dir, 'cache', { 'aa/x-d': 'x' })
  await mountGoCache(join(scratch, 'gocache-00000000'), host, 65534, 65534)
  assert.equal(mountsUnder(scratch).length, 2)
  assert.equal(await removeScratch(scratch), undefined)
  assert.deepEqual(mountsUnder(scratch), [])
  assert.deepEqual(readdirSync(dir).sort(), ['cache'])
  assert.deepEqual(readdirSync(join(host, 'aa')), ['x-d'], 'the host cache is untouched')
})
