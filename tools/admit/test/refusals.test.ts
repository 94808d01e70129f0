// Every refusal of admit run: the exact code and exit status, one stderr line, no stack
// trace, and nothing written (the state dir does not exist afterwards). Each group has a
// positive control: the unchanged fixture is admitted.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { appendFileSync, chmodSync, writeFileSync } from 'node:fs'
import { run } from '@repairline/core'
import { errorOf, runBin } from '../../../test/helpers/bin.ts'
import { join } from 'node:path'
import { rewriteConfig, writeJson, makeCase, MINIMAL_REGISTERS, GO_FILES, NODE_FILES } from '../../../test/helpers/fixture.ts'
import { commitAll, gitT } from '../../../test/helpers/git.ts'
import { admit, assertRefused, fixture } from './helpers.ts'

test('positive control: the go and node fixtures are admitted', async (t) => {
  for (const runner of ['go', 'node'] as const) {
    const f = await fixture(t, { runner })
    const r = await admit(f)
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
  }
})

const schemaBounds: Array<[string, (c: Record<string, unknown>) => void, string]> = [
  ['0 allowed files', c => { c.allowed_files = [] }, '/allowed_files'],
  ['9 allowed files', c => { c.allowed_files = Array.from({ length: 9 }, (_, i) => `f${i}.go`) }, '/allowed_files'],
  ['0 test packages', c => { c.test_packages = [] }, '/test_packages'],
  ['5 test packages', c => { c.test_packages = ['./a', './b', './c', './d', './e'] }, '/test_packages'],
  ['timeout 29', c => { c.timeout_seconds = 29 }, '/timeout_seconds'],
  ['timeout 301', c => { c.timeout_seconds = 301 }, '/timeout_seconds'],
  ['max_patch_bytes 1023', c => { c.max_patch_bytes = 1023 }, '/max_patch_bytes'],
  ['max_patch_bytes 262145', c => { c.max_patch_bytes = 262145 }, '/max_patch_bytes'],
  ['relative source_root', c => { c.source_root = 'repo' }, '/source_root'],
  ['relative state_dir', c => { c.state_dir = 'state' }, '/state_dir'],
  ['relative repair_policy', c => { c.repair_policy = './policy.json' }, '/repair_policy'],
  ['relative token_command', c => { (c.provider as Record<string, unknown>).token_command = 'bin/token' }, '/provider/token_command'],
  ['dot segment in source_root', c => { c.source_root = '/tmp/../etc' }, '/source_root'],
  ['unknown top-level field', c => { c.extra = true }, '/extra'],
  ['unknown provider field', c => { (c.provider as Record<string, unknown>).retries = 3 }, '/provider/retries'],
  ['short source_sha', c => { c.source_sha = 'abc1234' }, '/source_sha'],
  ['version 2', c => { c.version = 2 }, '/version'],
]
for (const [name, change, path] of schemaBounds) {
  test(`config refused (CONFIG_INVALID, 78): ${name}`, async (t) => {
    const f = await fixture(t)
    rewriteConfig(f, c => { change(c as unknown as Record<string, unknown>) })
    assertRefused(await admit(f), 78, 'CONFIG_INVALID', f, path)
  })
}

test('config bounds accepted at their limits: timeout 30 and 300, max_patch_bytes 1024 and 262144', async (t) => {
  for (const [timeout, patch] of [[30, 1024], [300, 262144]] as const) {
    const f = await fixture(t)
    rewriteConfig(f, c => { c.timeout_seconds = timeout; c.max_patch_bytes = patch })
    const r = await admit(f)
    assert.equal(r.exitCode, 0, r.stderr)
  }
})

test('config bounds accepted at their limits: 8 allowed files and 4 test packages', async (t) => {
  const files: Record<string, string> = { ...GO_FILES as Record<string, string> }
  for (let i = 0; i < 8; i++) files[`internal/p${i}/p.go`] = `package p${i}\n`
  for (let i = 0; i < 3; i++) files[`internal/p${i}/p_test.go`] = `package p${i}\n\nimport "testing"\n\nfunc TestP(t *testing.T) {}\n`
  const f = await fixture(t, { files })
  rewriteConfig(f, c => {
    c.runner = { kind: 'go', package_roots: ['internal'] }
    c.allowed_files = Array.from({ length: 8 }, (_, i) => `internal/p${i}/p.go`)
    c.test_packages = ['.', './internal/p0', './internal/p1', './internal/p2']
  })
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
})

const badUrls: Array<[string, string]> = [
  ['http', 'http://api.example.com/v1'],
  ['userinfo', 'https://u:p@api.example.com/v1'],
  ['query', 'https://api.example.com/v1?a=1'],
  ['fragment', 'https://api.example.com/v1#x'],
  ['percent-escape', 'https://api.example.com/v%31'],
  ['dot segment', 'https://api.example.com/x/../v1'],
  ['trailing slash', 'https://api.example.com/v1/'],
  ['port 0', 'https://api.example.com:0/v1'],
  ['port 65536', 'https://api.example.com:65536/v1'],
  ['> 4096 bytes', `https://api.example.com/${'v'.repeat(4080)}`],
  ['uppercase host', 'https://API.EXAMPLE.COM/v1'],
  ['default port written out', 'https://api.example.com:443/v1'],
]
for (const [name, url] of badUrls) {
  test(`base_url refused (BASE_URL_INVALID, 78): ${name}`, async (t) => {
    const f = await fixture(t)
    rewriteConfig(f, c => { c.provider.base_url = url })
    const r = await admit(f)
    // > 4096 bytes is caught by the schema's maxLength before the URL rules run.
    if (name === '> 4096 bytes') assertRefused(r, 78, 'CONFIG_INVALID', f, '/provider/base_url')
    else assertRefused(r, 78, 'BASE_URL_INVALID', f, '/provider/base_url')
  })
}

test('token helper whose digest does not match, or that is a symlink (TOKEN_HELPER_MISMATCH, 78)', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { c.provider.token_command_sha256 = 'f'.repeat(64) })
  assertRefused(await admit(f), 78, 'TOKEN_HELPER_MISMATCH', f, '/provider/token_command_sha256')
  const g = await fixture(t)
  appendFileSync(g.tokenHelper, '// changed after pinning\n')
  assertRefused(await admit(g), 78, 'TOKEN_HELPER_MISMATCH', g, '/provider/token_command_sha256')
})

test('a token helper without execute permission has its own code and a hint (TOKEN_HELPER_NOT_EXECUTABLE, 78); made executable again it is admitted', async (t) => {
  const f = await fixture(t)
  chmodSync(f.tokenHelper, 0o644)
  const r = await admit(f)
  assertRefused(r, 78, 'TOKEN_HELPER_NOT_EXECUTABLE', f, '/provider/token_command')
  assert.match(r.stdout, /chmod \+x/)
  chmodSync(f.tokenHelper, 0o755)
  assert.equal((await admit(f)).exitCode, 0)
})

test('admit run refuses an environment ask-provider would refuse, before anything is consumed (HOSTILE_ENVIRONMENT, 78); without it the same case is admitted', async (t) => {
  const f = await fixture(t)
  const envs: Array<Record<string, string>> = [{ NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' }, { SSLKEYLOGFILE: join(f.dir, 'keylog'), SSL_CERT_DIR: '/etc/ssl/certs' }]
  for (const env of envs) {
    const r = await admit(f, 'run', env)
    assertRefused(r, 78, 'HOSTILE_ENVIRONMENT', f)
    for (const name of Object.keys(env)) assert.match(errorOf(r)?.message ?? '', new RegExp(name))
    assert.match(errorOf(r)?.hint ?? '', /unset .*run admit again/)
  }
  assert.equal((await admit(f)).exitCode, 0)
})

test('a dirty checkout: modified or untracked file (CHECKOUT_DIRTY, 78)', async (t) => {
  const f = await fixture(t)
  appendFileSync(join(f.repo, 'calc.go'), '// local edit\n')
  assertRefused(await admit(f), 78, 'CHECKOUT_DIRTY', f, '/source_root')
  const g = await fixture(t)
  writeFileSync(join(g.repo, 'scratch.txt'), 'untracked\n')
  assertRefused(await admit(g), 78, 'CHECKOUT_DIRTY', g, '/source_root')
})

test('an unknown source_sha, and a tree object instead of a commit (SOURCE_SHA_UNKNOWN, 78)', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { c.source_sha = '0123456789abcdef0123456789abcdef01234567' })
  assertRefused(await admit(f), 78, 'SOURCE_SHA_UNKNOWN', f, '/source_sha')
  const g = await fixture(t)
  const tree = (await gitT(g.repo, ['rev-parse', 'HEAD^{tree}'])).trim()
  rewriteConfig(g, c => { c.source_sha = tree })
  assertRefused(await admit(g), 78, 'SOURCE_SHA_UNKNOWN', g, '/source_sha')
})

test('source_root that is not the top of a git checkout (SOURCE_NOT_GIT, 78)', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { c.source_root = f.dir })
  assertRefused(await admit(f), 78, 'SOURCE_NOT_GIT', f)
})

const badAllowed: Array<[string, string, 'go' | 'node']> = [
  ['a test file', 'calc_test.go', 'go'],
  // node --test runs src/test.js by its own default pattern (**/test.{cjs,mjs,js}).
  ['a file node runs as a test (test.js)', 'src/test.js', 'node'],
  ['a config file', 'go.mod', 'go'],
  ['an instructions file', 'README.md', 'go'],
  ['outside the package roots', 'test/calc.test.js', 'node'],
  ['a source file outside src/ and lib/', 'index.js', 'node'],
  ['a wrong extension', 'src/calc.ts', 'node'],
  ['a file that does not exist at source_sha', 'src/missing.js', 'node'],
]
for (const [name, file, runner] of badAllowed) {
  test(`allowed file refused (ALLOWED_FILE_INVALID, 78): ${name}`, async (t) => {
    const f = await fixture(t, { runner })
    rewriteConfig(f, c => { c.allowed_files = [file] })
    assertRefused(await admit(f), 78, 'ALLOWED_FILE_INVALID', f, '/allowed_files/0')
  })
}

// A target read as an option would change the fixed command (DESIGN §9): a directory named
// --test-name-pattern=add made node run only the tests matching "add", found where node looks by default.
test('a test package that starts with "-" is refused (TEST_PACKAGE_INVALID, 78) even when the tree holds it; an ordinary one is admitted', async (t) => {
  const pkg = '--test-name-pattern=add'
  const files = { ...NODE_FILES, [`${pkg}/never.test.js`]: "import { test } from 'node:test'\ntest('never runs as a file', () => { throw new Error('x') })\n" }
  const f = await fixture(t, { runner: 'node', files, cases: [{ package: pkg, name: 'test/calc.test.js::add adds' }] })
  rewriteConfig(f, c => { c.test_packages = [pkg] })
  const r = await admit(f)
  assertRefused(r, 78, 'TEST_PACKAGE_INVALID', f, '/test_packages/0')
  assert.match(r.stderr, /starts with "-", so the test command would read it as an option/)
  rewriteConfig(f, c => { c.test_packages = ['test', pkg] })
  assertRefused(await admit(f), 78, 'TEST_PACKAGE_INVALID', f, '/test_packages/1')
  // go: an option-like target is refused as well (go test reads -run=… as a flag).
  const g = await fixture(t, { runner: 'go' })
  rewriteConfig(g, c => { c.test_packages = ['-run=TestAdd'] })
  assertRefused(await admit(g), 78, 'TEST_PACKAGE_INVALID', g, '/test_packages/0')
  // A case naming that package cannot be admitted under an ordinary config either: it is not one of test_packages.
  rewriteConfig(f, c => { c.test_packages = ['test'] })
  const n = await admit(f)
  assert.equal(errorOf(n)?.code, 'NOTHING_ELIGIBLE', n.stderr)
  assert.match(n.stderr, /CASE_PACKAGE_NOT_ALLOWED/)
  // Positive control: the same tree with the ordinary target and its case is admitted.
  const ok = await fixture(t, { runner: 'node', files })
  const a = await admit(ok)
  assert.equal(a.exitCode, 0, a.stderr)
})

const badPackages: Array<[string, string, 'go' | 'node']> = [
  ['a ... pattern', './...', 'go'],
  ['a wildcard', 'test/*.test.js', 'node'],
  ['a path with ..', './../x', 'go'],
  ['a go target without ./', 'calc', 'go'],
  ['a directory without tests', './missing', 'go'],
  ['a node path that is not a test', 'src', 'node'],
]
for (const [name, pkg, runner] of badPackages) {
  test(`test package refused (TEST_PACKAGE_INVALID, 78): ${name}`, async (t) => {
    const f = await fixture(t, { runner })
    rewriteConfig(f, c => { c.test_packages = [pkg] })
    assertRefused(await admit(f), 78, 'TEST_PACKAGE_INVALID', f, '/test_packages/0')
  })
}

test('runner options of the other runner (CONFIG_INVALID, 78)', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  rewriteConfig(f, c => { c.runner = { kind: 'node', go_mod_cache: '/usr' } })
  assertRefused(await admit(f), 78, 'CONFIG_INVALID', f, '/runner/go_mod_cache')
})

test('a route whose model differs from provider.model (ROUTE_MODEL_MISMATCH, 78)', async (t) => {
  const f = await fixture(t)
  writeJson(f.policyPath, { ...f.policy, routes: [{ ...f.policy.routes[0], model: 'gpt-5' }] })
  assertRefused(await admit(f), 78, 'ROUTE_MODEL_MISMATCH', f, '/routes/0/model')
})

test('a routing policy with an unknown field (ROUTING_POLICY_INVALID, 78)', async (t) => {
  const f = await fixture(t)
  writeJson(f.policyPath, { ...f.policy, fallback_model: 'x' })
  assertRefused(await admit(f), 78, 'ROUTING_POLICY_INVALID', f, '/fallback_model')
})

test('a missing register manifest (REGISTER_MANIFEST_MISSING, 65) with a hint showing the minimal file', async (t) => {
  const files = { ...GO_FILES }
  delete files['.repairline/registers.json']
  const f = await fixture(t, { files })
  const r = await admit(f)
  assertRefused(r, 65, 'REGISTER_MANIFEST_MISSING', f)
  assert.match(r.stderr, /hint: commit a minimal one: \{"version":1/)
})

test('the manifest is read from the blob at source_sha, never from the checkout', async (t) => {
  const files = { ...GO_FILES }
  delete files['.repairline/registers.json']
  const f = await fixture(t, { files })
  // A manifest present only in a later commit does not count for source_sha.
  writeFileSync(join(f.repo, '.repairline-later.json'), JSON.stringify(MINIMAL_REGISTERS))
  await commitAll(f.repo, 'later')
  assertRefused(await admit(f), 65, 'REGISTER_MANIFEST_MISSING', f)
})

test('a manifest row outside the routing vocabulary, or without register (REGISTER_MANIFEST_INVALID, 65)', async (t) => {
  const bad = { ...MINIMAL_REGISTERS, tasks: { ...MINIMAL_REGISTERS.tasks, triage: { register: 'internal' } } }
  const f = await fixture(t, { files: { ...GO_FILES, '.repairline/registers.json': JSON.stringify(bad) } })
  assertRefused(await admit(f), 65, 'REGISTER_MANIFEST_INVALID', f, '/tasks/triage')
  const noRegister = { ...MINIMAL_REGISTERS, surfaces: { agent: {}, prompts: { register: 'internal' } } }
  const g = await fixture(t, { files: { ...NODE_FILES, '.repairline/registers.json': JSON.stringify(noRegister) }, runner: 'node' })
  assertRefused(await admit(g), 65, 'REGISTER_MANIFEST_INVALID', g, '/surfaces/agent/register')
})

test('a forged input_sha256 (CASE_INPUT_MISMATCH, 65)', async (t) => {
  const f = await fixture(t)
  const c = { ...f.report.cases[0], input_sha256: 'e'.repeat(64) }
  writeJson(f.reportPath, { ...f.report, cases: [c] })
  assertRefused(await admit(f), 65, 'CASE_INPUT_MISMATCH', f, '/cases/0/input_sha256')
})

test('a report with an unknown field or a duplicate case id (REPORT_INVALID, 65)', async (t) => {
  const f = await fixture(t)
  writeJson(f.reportPath, { ...f.report, owner: 'x' })
  assertRefused(await admit(f), 65, 'REPORT_INVALID', f, '/owner')
  const g = await fixture(t)
  writeJson(g.reportPath, { ...g.report, cases: [g.report.cases[0], g.report.cases[0]] })
  assertRefused(await admit(g), 65, 'REPORT_INVALID', g, '/cases/1/id')
})

test('a case package outside test_packages is ineligible: NOTHING_ELIGIBLE (1) and status says why', async (t) => {
  const f = await fixture(t)
  writeJson(f.reportPath, { ...f.report, cases: [makeCase('other', './other', 'example.com/calc/other::TestX')] })
  const r = await admit(f)
  assertRefused(r, 1, 'NOTHING_ELIGIBLE', f)
  assert.match(errorOf(r)?.hint ?? '', /new id in the suite report/, 'NOTHING_ELIGIBLE says how to try a case again')
  assert.match(r.stderr, /CASE_PACKAGE_NOT_ALLOWED/)
  const s = await admit(f, 'status')
  assert.equal(s.exitCode, 0)
  const status = s.records.find(x => x.kind === 'case-status')
  assert.equal(status?.kind === 'case-status' ? status.status : '', 'ineligible')
  assert.equal(status?.kind === 'case-status' ? status.reason?.code : '', 'CASE_PACKAGE_NOT_ALLOWED')
})

test('a case over the cost ceiling is ineligible (COST_OVER_CEILING)', async (t) => {
  const f = await fixture(t)
  writeJson(f.policyPath, { ...f.policy, cost_ceiling_usd: 0.001 })
  const r = await admit(f)
  assertRefused(r, 1, 'NOTHING_ELIGIBLE', f)
  assert.match(r.stderr, /COST_OVER_CEILING/)
})

test("a report whose transcript_path is a FIFO is admitted without ever opening it", async (t) => {
  const f = await fixture(t)
  const fifo = join(f.dir, 'transcript.fifo')
  const made = await run('/usr/bin/mkfifo', [fifo], { env: { PATH: '/usr/bin:/bin' } })
  assert.equal(made.exitCode, 0)
  writeJson(f.reportPath, { ...f.report, cases: [{ ...f.report.cases[0], transcript_path: fifo, plan: 'rm -rf /' }] })
  // Opening a FIFO for reading blocks until a writer appears: a run that returns at all
  // never opened it.
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
})

test('the config, report and policy must be regular files: a FIFO config is refused without blocking (INPUT_MISSING, 66)', async (t) => {
  const f = await fixture(t)
  const fifo = join(f.dir, 'config.fifo')
  await run('/usr/bin/mkfifo', [fifo], { env: { PATH: '/usr/bin:/bin' } })
  const r = await runBin('admit', ['run', '--config', fifo, '--report', f.reportPath])
  assertRefused(r, 66, 'INPUT_MISSING', f)
})

test('relative --config is a usage error (2)', async (t) => {
  const f = await fixture(t)
  const r = await runBin('admit', ['run', '--config', 'execution.json', '--report', f.reportPath], { cwd: f.dir })
  assertRefused(r, 2, 'USAGE', f)
})

test('a state_dir the sandbox user cannot traverse to (STATE_DIR_INVALID, 78) with a hint', async (t) => {
  const f = await fixture(t)

  chmodSync(f.dir, 0o700)
  const r = await admit(f)
  assertRefused(r, 78, 'STATE_DIR_INVALID', f, '/state_dir')
  assert.match(r.stderr, /hint: chmod o\+x /)
  chmodSync(f.dir, 0o711) // positive control
  assert.equal((await admit(f)).exitCode, 0)
})
