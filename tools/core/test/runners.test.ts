// The go and node runners on real trees in the real sandbox: the fixture's failing test is
// the failing identity, the command and environment are the fixed ones, the GOCACHE copy is
// seeded and private, go_mod_cache and dependency_dir are mounted read-only, and a go.mod
// the local Go cannot read is a fault that names the Go it needs.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, writeFileSync, mkdirSync, chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { join } from 'node:path'
import { assertValid, decideFault, goInstall, isToolError, goModDirective, goModUnreadable, nodeInstall, runTests, NODE_REPORTER_SHA256, SANDBOX_LIMITS } from '../src/index.ts'
import { GO_FILES, NODE_FILES } from '../../../test/helpers/fixture.ts'
import { makeGoModCache } from '../../../test/helpers/gomod.ts'
import { TEST_LIMITS, leftoverCgroups, makeTree, sandboxTemp } from '../../../test/helpers/sandbox.ts'

const strip = (files: Record<string, unknown>): Record<string, string> => Object.fromEntries(Object.entries(files).filter(([, v]) => typeof v === 'string')) as Record<string, string>

test('go: the fixed command finds the fixture failing TestAdd, with the fixed environment and a private GOCACHE over the configured build cache', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', strip(GO_FILES))
  const scratch = makeTree(dir, 'scratch', {})
  const host = makeTree(dir, 'hostcache', { 'README': 'fake\n', '00/00aa-d': 'x', '01/01bb-a': 'y' })
  const go = goInstall()
  const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, goBuildCache: host, limits: TEST_LIMITS })
  assert.equal(r.fault, undefined, JSON.stringify(r.fault))
  assert.deepEqual(r.summary.identities, { 'example.com/calc::TestAdd': { result: 'fail' }, 'example.com/calc::TestDouble': { result: 'pass' } })
  assert.deepEqual(r.summary.failing, ['example.com/calc::TestAdd'])
  assert.equal(r.toolchain, go.version)
  assert.deepEqual(r.command, [go.goBin, 'test', '-json', '-count=1', '-timeout=110s', '.'])
  const run = r.sandbox
  assert.ok(run !== undefined)
  assertValid('sandbox-run', run, 'sandbox run report', 'INTERNAL')
  assert.equal(run.exit.code, 1)
  assert.deepEqual(run.env_names, ['GOCACHE', 'GOENV', 'GOFLAGS', 'GOMODCACHE', 'GOPATH', 'GOPROXY', 'GOROOT', 'GOTOOLCHAIN', 'GOWORK', 'HOME', 'PATH', 'TMPDIR'])
  assert.deepEqual(readdirSync(scratch), [], 'the private GOCACHE is unmounted and its mount point removed')
  const cacheMount = run.mounts[1]?.source ?? ''
  assert.match(cacheMount, /\/gocache-[0-9a-f]{8}$/)
  assert.deepEqual(run.mounts, [{ source: tree, dest: '/src', mode: 'ro' }, { source: cacheMount, dest: '/gocache', mode: 'rw' }])
  assert.equal(run.limits.find(l => l.name === 'address space per process')?.got, String(4 * 1024 ** 3))
  assert.equal(r.goCache?.seededFrom, host)
  assert.equal(r.goCache?.method, 'overlay')
  assert.ok((r.goCache?.files ?? 0) > 0, 'the cold build wrote into the private layer')
  assert.deepEqual(leftoverCgroups(), [])
})

test('node: the fixed command finds the fixture failing "add adds" under the pinned reporter, without an address-space limit', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', strip(NODE_FILES))
  const scratch = makeTree(dir, 'scratch', {})
  const node = nodeInstall()
  const r = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch, timeoutMs: 60_000, limits: { ...TEST_LIMITS, addressSpaceBytes: 1024 ** 3 } })
  assert.equal(r.fault, undefined, JSON.stringify(r.fault))
  assert.deepEqual(r.summary.identities, { 'test/calc.test.js::add adds': { result: 'fail' }, 'test/calc.test.js::double doubles': { result: 'pass' } })
  assert.deepEqual(r.command, [node.execPath, '--test', '--test-concurrency=1', '--test-reporter=/repairline/ndjson-reporter.mjs', 'test'])
  assert.equal(r.reporterSha256, NODE_REPORTER_SHA256)
  assert.equal(r.sandbox?.exit.code, 1)
  assert.deepEqual(r.sandbox?.env_names, ['HOME', 'PATH', 'TMPDIR'])
  assert.equal(r.sandbox?.limits.find(l => l.name === 'address space per process')?.got, 'unlimited')
  assert.ok(r.events.some(e => e.Action === 'output' && e.Test === 'add adds' && /-1 !== 5|Expected values to be strictly equal/.test(e.Output ?? '')), 'the assertion message is kept as output')
  assert.match(readdirSync(scratch).join(), /^ndjson-reporter-[0-9a-f]{8}\.mjs$/)
})

test('node: a plain assertion script under test/ is the file-level identity test/x.js::test/x.js; zero files is a fault', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'package.json': '{"type":"module"}\n', 'test/x.js': "import assert from 'node:assert'\nassert.equal(1 + 1, 3)\n", 'test/ok.js': 'export {}\n' })
  const scratch = makeTree(dir, 'scratch', {})
  const r = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.deepEqual(r.summary.identities, { 'test/ok.js::test/ok.js': { result: 'pass' }, 'test/x.js::test/x.js': { result: 'fail' } })
  assert.equal(r.fault, undefined)
  const empty = makeTree(dir, 'empty', { 'package.json': '{}\n' })
  const z = await runTests({ runner: 'node', tree: empty, testPackages: ['.'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.equal(z.sandbox?.exit.code, 0)
  assert.deepEqual(z.summary.identities, {})
  assert.equal(z.fault?.code, 'TESTS_NOT_RUN')
})

test('node: dependency_dir is mounted read-only on the tree\'s empty node_modules/', async t => {
  const dir = sandboxTemp(t)
  const deps = makeTree(dir, 'deps', { 'dep/package.json': '{"name":"dep","type":"module","main":"index.js"}\n', 'dep/index.js': 'export const three = 3\n' })
  const tree = makeTree(dir, 'tree', {
    'package.json': '{"type":"module"}\n',
    'test/dep.test.js': "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { writeFileSync } from 'node:fs'\nimport { three } from 'dep'\ntest('dep is there', () => assert.equal(three, 3))\ntest('node_modules is read-only', () => assert.throws(() => writeFileSync(new URL('../node_modules/x', import.meta.url), 'x'), { code: 'EROFS' }))\n",
  })
  mkdirSync(join(tree, 'node_modules'), { mode: 0o755 })
  chmodSync(join(tree, 'node_modules'), 0o755)
  const scratch = makeTree(dir, 'scratch', {})
  const r = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS, dependencyDir: deps })
  assert.deepEqual(r.summary.identities, { 'test/dep.test.js::dep is there': { result: 'pass' }, 'test/dep.test.js::node_modules is read-only': { result: 'pass' } })
  assert.equal(r.sandbox?.limits.find(l => l.name === 'mount /src/node_modules')?.got, 'ro')
  // Positive control: without the mount the import fails.
  const without = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.equal(without.summary.identities['test/dep.test.js::test/dep.test.js']?.result, 'fail')
})

test('go: go_mod_cache is mounted read-only as GOMODCACHE and the build uses it with GOPROXY=off', async t => {
  const dir = sandboxTemp(t)
  const mod = await makeGoModCache(join(dir))
  const tree = makeTree(dir, 'tree', mod.files)
  const scratch = makeTree(dir, 'scratch', {})
  const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS, goModCache: mod.cache })
  assert.deepEqual(r.summary.identities, { 'example.com/app::TestNine': { result: 'fail' } }, r.stderrTail)
  assert.deepEqual(r.sandbox?.mounts.at(-1), { source: mod.cache, dest: mod.cache, mode: 'ro' })
  assert.equal(r.goCache?.note, 'cold: no runner.go_build_cache configured')
  // Positive control: without the module cache the build cannot find example.com/dep.
  const without = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 120_000, limits: TEST_LIMITS })
  assert.equal(without.fault?.code, 'TESTS_NOT_RUN')
  assert.match(without.stderrTail, /downloading example\.com\/dep v1\.0\.0\n.*module lookup disabled by GOPROXY=off/)
})

test('go: a go.mod the local Go cannot read is a fault that names the Go it needs, and nothing runs', async t => {
  const dir = sandboxTemp(t)
  const scratch = makeTree(dir, 'scratch', {})
  for (const [name, gomod, want] of [
    ['three-part', 'module example.com/calc\n\ngo 1.21.0\n', /go\.mod says go 1\.21\.0: the local go1\.\d+\.\d+ cannot read it; it needs Go 1\.21\.0 or newer/],
    ['toolchain', 'module example.com/calc\n\ngo 1.21\n\ntoolchain go1.22.1\n', /go\.mod says toolchain go1\.22\.1: .* it needs Go 1\.21 or newer/],
    ['nested', 'module example.com/calc\n\ngo 1.19\n', /internal\/x\/go\.mod says go 1\.22\.3: .* it needs Go 1\.22\.3 or newer/],
  ] as const) {
    const files = { ...strip(GO_FILES), 'go.mod': gomod, ...(name === 'nested' ? { 'internal/x/go.mod': 'module example.com/x\n\ngo 1.22.3\n', 'internal/x/x_test.go': 'package x\n' } : {}) }
    const tree = makeTree(dir, name, files)
    const r = await runTests({ runner: 'go', tree, testPackages: name === 'nested' ? ['./internal/x'] : ['.'], scratch, timeoutMs: 60_000, limits: SANDBOX_LIMITS })
    assert.equal(r.fault?.code, 'TOOLCHAIN_UNSUPPORTED', name)
    assert.match(r.fault?.message ?? '', want)
    assert.equal(r.sandbox, undefined, 'nothing ran')
  }
  // Positive control: `go 1.22` (two parts) is readable by Go 1.19 and runs.
  const tree = makeTree(dir, 'two-part', { ...strip(GO_FILES), 'go.mod': 'module example.com/calc\n\ngo 1.22\n' })
  const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.equal(r.fault, undefined, JSON.stringify(r.fault))
  assert.deepEqual(r.summary.failing, ['example.com/calc::TestAdd'])
  writeFileSync(join(dir, 'done'), '')
})

test('go: a go.mod replace with a directory outside the tree is a fault that says so, and nothing runs; one inside the tree runs', async t => {
  const dir = sandboxTemp(t)
  const scratch = makeTree(dir, 'scratch', {})
  const lib = { 'lib/go.mod': 'module example.com/lib\n\ngo 1.19\n', 'lib/lib.go': 'package lib\n\nfunc One() int { return 1 }\n' }
  for (const [name, replace] of [
    ['parent', 'replace example.com/lib => ../lib // beside the checkout'],
    ['absolute', 'replace example.com/lib v0.0.0 => /srv/lib'],
    ['block', 'replace (\n\texample.com/other => ./other\n\t"example.com/lib" => "./lib/../../lib"\n)'],
  ] as const) {
    const tree = makeTree(dir, name, { ...strip(GO_FILES), 'go.mod': `module example.com/calc\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n\n${replace}\n` })
    const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 60_000, limits: SANDBOX_LIMITS })
    assert.equal(r.fault?.code, 'GO_REPLACE_OUTSIDE_TREE', name)
    assert.match(r.fault?.message ?? '', /^go\.mod replaces example\.com\/lib with \S+, a directory outside the tree: the sandbox shows only the tree/, name)
    assert.equal(r.sandbox, undefined, 'nothing ran')
  }
  // Positive control: the same module replaced by a directory inside the tree runs.
  const tree = makeTree(dir, 'inside', { ...strip(GO_FILES), ...lib, 'go.mod': 'module example.com/calc\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n' })
  const r = await runTests({ runner: 'go', tree, testPackages: ['.'], scratch, timeoutMs: 60_000, limits: TEST_LIMITS })
  assert.equal(r.fault, undefined, JSON.stringify(r.fault))
  assert.deepEqual(r.summary.failing, ['example.com/calc::TestAdd'])
  writeFileSync(join(dir, 'done'), '')
})

test('go.mod directives are read with a trailing // comment, as go reads them; a go 1.21.0 or toolchain line behind one is still found', t => {
  assert.equal(goModDirective('module example.com/calc // Deprecated: use example.com/calc2\n\ngo 1.19\n', 'module'), 'example.com/calc')
  assert.equal(goModDirective('module "example.com/calc"\t// quoted\r\ngo 1.19\r\n', 'module'), 'example.com/calc')
  assert.equal(goModDirective('module example.com/calc\n\ngo 1.21.0 // needs 1.21\n', 'go'), '1.21.0')
  assert.equal(goModDirective('go 1.19\ntoolchain go1.22.0 // pinned\n', 'toolchain'), 'go1.22.0')
  assert.equal(goModDirective('go 1.19\n', 'toolchain'), undefined)
  // Not a directive: commented out, or indented inside a block.
  assert.equal(goModDirective('// module example.com/old\n', 'module'), undefined)
  assert.equal(goModDirective('require (\n\tgo 1.2\n)\n', 'go'), undefined)
  const dir = sandboxTemp(t)
  for (const [name, gomod, want] of [
    ['go line', 'module example.com/calc\n\ngo 1.21.0 // needs 1.21\n', /^go\.mod says go 1\.21\.0: the local go1\.19\.8 cannot read it; it needs Go 1\.21\.0 or newer$/],
    ['toolchain line', 'module example.com/calc\n\ngo 1.19\n\ntoolchain go1.22.0 // pinned\n', /^go\.mod says toolchain go1\.22\.0: the local go1\.19\.8 cannot read it; it needs Go 1\.21 or newer$/],
  ] as const) {
    const tree = makeTree(dir, name.replace(' ', '-'), { 'go.mod': gomod })
    assert.match(goModUnreadable(tree, ['.'], 'go1.19.8') ?? 'readable', want, name)
  }
  // Positive control: a commented two-part go line is readable by Go 1.19.
  assert.equal(goModUnreadable(makeTree(dir, 'two-part', { 'go.mod': 'module example.com/calc // c\n\ngo 1.19 // c\n' }), ['.'], 'go1.19.8'), undefined)
})

// A run the sandbox stopped or limited says nothing about the code: it is a fault with the
// limit's own code, never a failed (or passed) test. Each case runs the same tree under a
// limit that holds it and, as the control, under one that does not.
const HUNGRY = `import { test } from 'node:test'
test('holds 300 MB', () => {
  const held = []
  for (let i = 0; i < 30; i++) held.push(Buffer.alloc(10 * 1024 * 1024, 1))
  if (held.length !== 30) throw new Error('lost')
})
`
const LOUD = `import { test } from 'node:test'
test('prints 4 MiB', () => {
  for (let i = 0; i < 4096; i++) console.log('x'.repeat(1023))
})
`

test('node: a run killed by the memory limit is RESOURCE_LIMIT_HIT and one cut for its output is OUTPUT_LIMIT, not a test result; with room, the same tests pass', async t => {
  const dir = sandboxTemp(t)
  const scratch = makeTree(dir, 'scratch', {})
  const hungry = makeTree(dir, 'hungry', { 'package.json': '{"type":"module"}\n', 'test/hungry.test.js': HUNGRY })
  const loud = makeTree(dir, 'loud', { 'package.json': '{"type":"module"}\n', 'test/loud.test.js': LOUD })
  const run = async (tree: string, limits: Partial<typeof TEST_LIMITS>): Promise<Awaited<ReturnType<typeof runTests>>> =>
    await runTests({ runner: 'node', tree, testPackages: ['test'], scratch, timeoutMs: 60_000, limits: { ...TEST_LIMITS, ...limits } })

  const oom = await run(hungry, { memoryBytes: 192 * 1024 * 1024 })
  assert.ok((oom.sandbox?.usage.oom_kills ?? 0) > 0, JSON.stringify(oom.sandbox?.usage))
  assert.equal(oom.fault?.code, 'RESOURCE_LIMIT_HIT', JSON.stringify(oom.fault))
  const roomy = await run(hungry, { memoryBytes: 1024 * 1024 * 1024 })
  assert.equal(roomy.fault, undefined, JSON.stringify(roomy.fault))
  assert.deepEqual(roomy.summary.identities, { 'test/hungry.test.js::holds 300 MB': { result: 'pass' } })

  const cut = await run(loud, { stdoutBytes: 1024 * 1024 })
  assert.equal(cut.sandbox?.stop?.reason, 'output_limit')
  assert.equal(cut.fault?.code, 'OUTPUT_LIMIT', JSON.stringify(cut.fault))
  const heard = await run(loud, { stdoutBytes: 64 * 1024 * 1024 })
  assert.equal(heard.fault, undefined, JSON.stringify(heard.fault))
  assert.deepEqual(heard.summary.identities, { 'test/loud.test.js::prints 4 MiB': { result: 'pass' } })
  assert.deepEqual(leftoverCgroups(), [])
})

test('decideFault: every way the sandbox stops or limits a run maps to its own fault code', async t => {
  // One real, clean report, then each stop and limit written into a copy of it.
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'package.json': '{"type":"module"}\n', 'test/ok.test.js': "import { test } from 'node:test'\ntest('ok', () => {})\n" })
  const clean = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch: makeTree(dir, 'scratch', {}), timeoutMs: 60_000, limits: TEST_LIMITS })
  const report = clean.sandbox
  assert.ok(report !== undefined)
  assert.equal(decideFault(report, clean.summary), undefined, 'positive control: the clean run has no fault')
  const stopped = (reason: 'deadline' | 'output_limit' | 'resource_low' | 'aborted'): string | undefined => decideFault({ ...report, stop: { reason, detail: 'x' } }, clean.summary)?.code
  assert.equal(stopped('deadline'), 'RUN_INCOMPLETE')
  assert.equal(stopped('output_limit'), 'OUTPUT_LIMIT')
  assert.equal(stopped('resource_low'), 'RESOURCES_LOW')
  assert.equal(stopped('aborted'), 'RUN_INCOMPLETE')
  assert.equal(decideFault({ ...report, usage: { ...report.usage, oom_kills: 1 } }, clean.summary)?.code, 'RESOURCE_LIMIT_HIT')
  assert.equal(decideFault({ ...report, usage: { ...report.usage, tasks_limit_hits: 3 } }, clean.summary)?.code, 'RESOURCE_LIMIT_HIT')
  assert.equal(decideFault({ ...report, survivors: 1 }, clean.summary)?.code, 'RUN_INCOMPLETE')
})

const MiB = 1024 ** 2

test('node: a disk that falls below the floor while the tests run stops the run, and runTests throws RESOURCES_LOW (nothing decided); with the disk left alone, the same run finishes', { skip: statfsSync('/dev/shm', { bigint: false }).type === 0x01021994 ? false : '/dev/shm is not a tmpfs' }, async t => {
  const dir = sandboxTemp(t)
  // A test that runs long enough for several samples, then passes.
  const tree = makeTree(dir, 'tree', { 'package.json': '{"type":"module"}\n', 'test/slow.test.js': "import { test } from 'node:test'\ntest('slow', async () => { await new Promise(resolve => setTimeout(resolve, 1500)) })\n" })
  // The sampled filesystem is a tmpfs (memory, not disk): the floor is set 128 MiB under what
  // it has free now, and a file of 256 MiB written once the sandbox is placed crosses it.
  const shm = mkdtempSync(join('/dev/shm', 'rl-floor-'))
  t.after(() => { rmSync(shm, { recursive: true, force: true }) })
  const run = async (fill: boolean): Promise<Awaited<ReturnType<typeof runTests>>> => {
    const scratch = makeTree(dir, `scratch-${String(fill)}`, {})
    const free = statfsSync(shm).bavail * statfsSync(shm).bsize
    return await runTests({
      runner: 'node',
      tree,
      testPackages: ['test'],
      scratch,
      timeoutMs: 60_000,
      diskPaths: [shm],
      limits: { ...TEST_LIMITS, addressSpaceBytes: 1024 ** 3, minAvailableMemoryBytes: 0, minFreeDiskBytes: free - 128 * MiB, sampleIntervalMs: 100 },
      onPlaced: () => { if (fill) writeFileSync(join(shm, 'fill'), Buffer.alloc(256 * MiB, 1)) },
    })
  }
  const control = await run(false)
  assert.equal(control.fault, undefined, JSON.stringify(control.fault))
  assert.deepEqual(control.summary.identities, { 'test/slow.test.js::slow': { result: 'pass' } })
  assert.ok((control.sandbox?.samples.length ?? 0) > 1, 'the control was sampled while it ran')
  await assert.rejects(run(true), (e: unknown) => {
    assert.ok(isToolError(e), String(e))
    assert.equal(e.code, 'RESOURCES_LOW')
    assert.match(e.message, /^the sandbox was stopped: free disk on .*rl-floor-.* is below the floor .*; nothing was decided$/)
    return true
  })
  assert.deepEqual(leftoverCgroups(), [])
})
