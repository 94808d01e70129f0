// admit init on Go and node repositories built here: the three files it writes validate, name
// HEAD, the failing tests' packages and the files beside them, and `admit run` accepts them
// unchanged; each refusal has its exact code and writes nothing, beside its positive control.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { caseInputSha256, isValid, parseDocument, sha256File } from '@repairline/core'
import { errorOf, runBin, type BinResult } from '../../../test/helpers/bin.ts'
import { GO_FILES, MINIMAL_REGISTERS, NODE_FILES } from '../../../test/helpers/fixture.ts'
import { createRepo, gitT, type FileSpec } from '../../../test/helpers/git.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { assertRefusal } from './helpers.ts'

interface Setup { dir: string, repo: string, sha: string, out: string, state: string, token: string }

async function setup (t: TestContext, files: Record<string, FileSpec>): Promise<Setup> {
  const dir = tempDir(t)
  // The sandbox user must traverse to the state dir's work trees (admit run refuses otherwise).
  chmodSync(dir, 0o711)
  const repo = join(dir, 'repo')
  const sha = await createRepo(repo, files)
  const out = join(dir, 'rl')
  mkdirSync(out, { mode: 0o711 })
  const token = join(out, 'token')
  writeFileSync(token, `#!${process.execPath}\nprocess.stdout.write('rl-init-token-0123456789\\n')\n`, { mode: 0o755 })
  return { dir, repo, sha, out, state: join(out, 'state'), token }
}

const PROVIDER = (s: Setup): string[] => ['--provider-url', 'https://127.0.0.1:8443/v1', '--token-command', s.token, '--model', 'my-model']

async function init (s: Setup, extra: string[], o: { provider?: boolean, out?: string } = {}): Promise<BinResult> {
  return await runBin('admit', ['init', '--source-root', s.repo, '--state-dir', s.state, '--out', o.out ?? s.out, ...extra, ...(o.provider === false ? [] : PROVIDER(s))])
}

function readJson (path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'))
}

/** Each file, read as admit reads it: strict JSON, then its schema (a failure throws). */
const readConfig = (s: Setup) => parseDocument('execution', readFileSync(join(s.out, 'execution.json')), 'execution.json')
const readPolicy = (s: Setup) => parseDocument('routing-policy', readFileSync(join(s.out, 'routing-policy.json')), 'routing-policy.json')
const readReport = (s: Setup) => parseDocument('suite-report', readFileSync(join(s.out, 'report.json')), 'report.json')

function assertWrote (r: BinResult): void {
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'result'])
}

const written = (s: Setup): boolean[] => ['execution.json', 'routing-policy.json', 'report.json'].map(f => existsSync(join(s.out, f)))

async function admitRun (s: Setup): Promise<BinResult> {
  return await runBin('admit', ['run', '--config', join(s.out, 'execution.json'), '--report', join(s.out, 'report.json')])
}

const NESTED_GO: Record<string, FileSpec> = {
  'go.mod': 'module example.com/m\n\ngo 1.19\n',
  'internal/calc/calc.go': GO_FILES['calc.go'] as string,
  'internal/calc/zz.go': 'package calc\n\nfunc zz() int { return 1 }\n',
  'internal/calc/calc_test.go': GO_FILES['calc_test.go'] as string,
  'internal/calc/testdata/fixture.go': 'package fixture\n',
  'internal/other/other.go': 'package other\n',
  'README.md': '# m\n',
  '.repairline/registers.json': JSON.stringify(MINIMAL_REGISTERS),
}

test('go, package at the root: the files validate, name HEAD and the test package, and admit run accepts them unchanged', async t => {
  const s = await setup(t, GO_FILES)
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'])
  assertWrote(r)
  const config = readConfig(s)
  const policy = readPolicy(s)
  const report = readReport(s)
  assert.equal(config.source_sha, s.sha)
  assert.deepEqual(config.runner, { kind: 'go', package_roots: ['.'] })
  assert.deepEqual(config.allowed_files, ['calc.go'])
  assert.deepEqual(config.test_packages, ['.'])
  assert.equal(config.provider.token_command_sha256, sha256File(s.token).sha256)
  assert.equal(config.repair_policy, join(s.out, 'routing-policy.json'))
  assert.equal(policy.routes[0]?.task_label, 'repair')
  assert.equal(policy.routes[0]?.model, 'my-model')
  const c = report.cases[0]
  assert.ok(c !== undefined && report.cases.length === 1)
  assert.deepEqual({ id: c.id, test: c.test }, { id: 'example.com/calc::TestAdd', test: { package: '.', name: 'example.com/calc::TestAdd' } })
  assert.equal(c.input_sha256, caseInputSha256(c))
  const run = await admitRun(s)
  assert.equal(run.exitCode, 0, run.stderr)
  assert.equal(run.records[1]?.kind, 'attempt')
})

test('go, nested package: ./<dir> from the module path, the directory\'s non-test .go files, package_roots that directory', async t => {
  const s = await setup(t, NESTED_GO)
  assertWrote(await init(s, ['--test', 'example.com/m/internal/calc::TestAdd', '--test', 'example.com/m/internal/calc::TestDouble']))
  const config = readConfig(s)
  assert.deepEqual(config.test_packages, ['./internal/calc'])
  assert.deepEqual(config.allowed_files, ['internal/calc/calc.go', 'internal/calc/zz.go'])
  assert.deepEqual(config.runner.package_roots, ['internal/calc'])
  const report = readReport(s)
  assert.deepEqual(report.cases.map(c => c.test.package), ['./internal/calc', './internal/calc'])
  const run = await admitRun(s)
  assert.equal(run.exitCode, 0, run.stderr)
})

test('node: the test file is the test package, the files it imports relatively are the allowed files, and admit run accepts them', async t => {
  const s = await setup(t, NODE_FILES)
  assertWrote(await init(s, ['--test', 'test/calc.test.js::add adds']))
  const config = readConfig(s)
  assert.deepEqual(config.runner, { kind: 'node', package_roots: ['src'] })
  assert.deepEqual(config.test_packages, ['test/calc.test.js'])
  assert.deepEqual(config.allowed_files, ['src/calc.js'])
  const report = readReport(s)
  assert.equal(report.cases[0]?.test.package, 'test/calc.test.js')
  const run = await admitRun(s)
  assert.equal(run.exitCode, 0, run.stderr)
})

test('node: a test file without relative imports proposes the src/ and lib/ source files', async t => {
  const s = await setup(t, {
    ...NODE_FILES,
    'test/calc.test.js': "import { test } from 'node:test'\nimport { add } from 'calc'\ntest('add adds', () => { add(1, 2) })\n",
    'lib/util.cjs': 'module.exports = 1\n',
    'src/calc.test.js': 'x\n',
  })
  assertWrote(await init(s, ['--test', 'test/calc.test.js::add adds']))
  const config = readConfig(s)
  assert.deepEqual(config.allowed_files, ['lib/util.cjs', 'src/calc.js'])
  assert.deepEqual(config.runner.package_roots, ['lib', 'src'])
})

test('the routing policy takes the task label of the manifest\'s one tasks row, and admit run accepts it', async t => {
  const manifest = { version: 1, tasks: { fix: { register: 'internal' } }, surfaces: MINIMAL_REGISTERS.surfaces }
  const s = await setup(t, { ...GO_FILES, '.repairline/registers.json': JSON.stringify(manifest) })
  assertWrote(await init(s, ['--test', 'example.com/calc::TestAdd']))
  const policy = readPolicy(s)
  assert.equal(policy.routes[0]?.task_label, 'fix')
  assert.equal((await admitRun(s)).exitCode, 0)
})

test('REGISTER_MANIFEST_INVALID: two tasks rows cannot both be in a one-route vocabulary; nothing is written', async t => {
  const manifest = { version: 1, tasks: { fix: { register: 'internal' }, repair: { register: 'internal' } }, surfaces: MINIMAL_REGISTERS.surfaces }
  const s = await setup(t, { ...GO_FILES, '.repairline/registers.json': JSON.stringify(manifest) })
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'])
  assertRefusal(r, 65, 'REGISTER_MANIFEST_INVALID', '/tasks')
  assert.deepEqual(written(s), [false, false, false])
})

test('REGISTER_MANIFEST_MISSING: the one-line file to commit is the hint, nothing is written and the checkout is untouched; committed, init passes', async t => {
  const files = { ...GO_FILES }
  delete files['.repairline/registers.json']
  const s = await setup(t, files)
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'])
  assertRefusal(r, 65, 'REGISTER_MANIFEST_MISSING', '.repairline/registers.json')
  const hint = errorOf(r)?.hint ?? ''
  const manifest = hint.slice(hint.lastIndexOf(': ') + 2)
  assert.ok(isValid('register-manifest', JSON.parse(manifest)), hint)
  assert.match(r.stderr, /admit: hint: commit this one line as \.repairline\/registers\.json/)
  assert.deepEqual(written(s), [false, false, false])
  assert.equal(existsSync(join(s.repo, '.repairline')), false)
  assert.equal(await gitT(s.repo, ['status', '--porcelain']), '')
  // Control: committing exactly that line is enough.
  mkdirSync(join(s.repo, '.repairline'))
  writeFileSync(join(s.repo, '.repairline', 'registers.json'), manifest)
  await gitT(s.repo, ['add', '-A'])
  await gitT(s.repo, ['commit', '-q', '-m', 'registers'])
  assertWrote(await init(s, ['--test', 'example.com/calc::TestAdd']))
  assert.equal((await admitRun(s)).exitCode, 0)
})

test('RUNNER_UNDETECTED: go.mod and package.json both at the top; --runner decides', async t => {
  const s = await setup(t, { ...GO_FILES, 'package.json': '{}\n' })
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'])
  assertRefusal(r, 2, 'RUNNER_UNDETECTED')
  assert.match(errorOf(r)?.hint ?? '', /--runner go/)
  assert.deepEqual(written(s), [false, false, false])
  assertWrote(await init(s, ['--runner', 'go', '--test', 'example.com/calc::TestAdd']))
})

test('RUNNER_UNDETECTED: neither go.mod nor package.json', async t => {
  const s = await setup(t, { 'calc.js': 'x\n', '.repairline/registers.json': JSON.stringify(MINIMAL_REGISTERS) })
  assertRefusal(await init(s, ['--test', 'x::y']), 2, 'RUNNER_UNDETECTED')
})

test('TEST_IDENTITY_INVALID: a go identity outside the module, or of a package without tests; a node identity whose file is no test at HEAD', async t => {
  const go = await setup(t, NESTED_GO)
  for (const id of ['other.com/x::TestAdd', 'example.com/m/internal/other::TestAdd', 'example.com/m/internal/calc', 'example.com/m/internal/calc::']) {
    const r = await init(go, ['--test', id])
    assertRefusal(r, 2, 'TEST_IDENTITY_INVALID')
  }
  assert.deepEqual(written(go), [false, false, false])
  const node = await setup(t, NODE_FILES)
  for (const id of ['test/nope.test.js::add adds', 'src/calc.js::add adds', 'test/calc.test.js::']) {
    assertRefusal(await init(node, ['--test', id]), 2, 'TEST_IDENTITY_INVALID')
  }
  assert.deepEqual(written(node), [false, false, false])
})

test('USAGE: without --test nothing is written and the hint says how to list the failing identities', async t => {
  const s = await setup(t, GO_FILES)
  const r = await init(s, [])
  assertRefusal(r, 2, 'USAGE')
  const hint = errorOf(r)?.hint ?? ''
  assert.match(hint, /go test -json \.\/\.\.\.` into `node_modules\/\.bin\/admit report --config C --out F`/)
  assert.ok(hint.includes(`"source_sha":"${s.sha}"`), hint)
  assert.deepEqual(written(s), [false, false, false])
  const node = await setup(t, NODE_FILES)
  assert.match(errorOf(await init(node, []))?.hint ?? '', /node --test/)
})

test('USAGE: without the provider flags nothing is written; the hint names the stub provider; one alone is refused too', async t => {
  const s = await setup(t, GO_FILES)
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'], { provider: false })
  assertRefusal(r, 2, 'USAGE')
  assert.match(errorOf(r)?.hint ?? '', /pnpm stub-provider/)
  assertRefusal(await init(s, ['--test', 'example.com/calc::TestAdd', '--model', 'm'], { provider: false }), 2, 'USAGE')
  assert.deepEqual(written(s), [false, false, false])
})

test('OUTPUT_UNSAFE: --out inside the checkout or inside the state root; nothing is written there', async t => {
  const s = await setup(t, GO_FILES)
  const inRepo = join(s.repo, 'rl')
  mkdirSync(inRepo)
  const r = await init(s, ['--test', 'example.com/calc::TestAdd'], { out: inRepo })
  assertRefusal(r, 73, 'OUTPUT_UNSAFE', inRepo)
  assert.equal(existsSync(join(inRepo, 'execution.json')), false)
  mkdirSync(s.state, { mode: 0o711 })
  const inState = join(s.state, 'x')
  mkdirSync(inState)
  assertRefusal(await init(s, ['--test', 'example.com/calc::TestAdd'], { out: inState }), 73, 'OUTPUT_UNSAFE', inState)
  assert.equal(existsSync(join(inState, 'execution.json')), false)
})

test('INIT_FILE_EDITED: a rerun keeps identical files, refuses an edited one by name (nothing written), and --force replaces it', async t => {
  const s = await setup(t, GO_FILES)
  const args = ['--test', 'example.com/calc::TestAdd']
  assertWrote(await init(s, args))
  const reportBefore = readFileSync(join(s.out, 'report.json'), 'utf8')
  const again = await init(s, args)
  assertWrote(again)
  assert.match(again.stderr, /unchanged .*execution\.json/)
  assert.equal(readFileSync(join(s.out, 'report.json'), 'utf8'), reportBefore, 'report.json kept (it differs only in generated_at)')
  const configPath = join(s.out, 'execution.json')
  const edited = readFileSync(configPath, 'utf8').replace('"timeout_seconds": 300', '"timeout_seconds": 120')
  writeFileSync(configPath, edited)
  writeFileSync(join(s.out, 'report.json'), '{}\n')
  const r = await init(s, args)
  assertRefusal(r, 73, 'INIT_FILE_EDITED', configPath)
  assert.equal(readFileSync(configPath, 'utf8'), edited)
  assert.equal(readFileSync(join(s.out, 'report.json'), 'utf8'), '{}\n', 'no file is written when one is refused')
  assertWrote(await init(s, [...args, '--force']))
  assert.match(readFileSync(configPath, 'utf8'), /"timeout_seconds": 300/)
  assert.ok(isValid('suite-report', readJson(join(s.out, 'report.json'))))
})

test('a token helper without execute permission is refused as admit run would (TOKEN_HELPER_NOT_EXECUTABLE), before anything is written', async t => {
  const s = await setup(t, GO_FILES)
  chmodSync(s.token, 0o644)
  assertRefusal(await init(s, ['--test', 'example.com/calc::TestAdd']), 78, 'TOKEN_HELPER_NOT_EXECUTABLE', '/provider/token_command')
  assert.deepEqual(written(s), [false, false, false])
})
