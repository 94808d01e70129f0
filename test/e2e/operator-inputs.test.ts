// Operator inputs at their edges, through the built bins (a black-box robustness audit): every
// mistake ends in one typed `tool: CODE: message` stderr line (plus at most one hint), the
// documented exit status (DESIGN §4), an error record before the result record, never the
// internal-bug status (70), never a hang, and nothing written. The tests marked `todo` assert
// the behaviour DESIGN.md asks for and fail today; each says what happens instead.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo, a fixture primitive
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { caseInputSha256, parseRecordLine } from '@repairline/core'
import { makeFixture, rewriteConfig } from '../helpers/fixture.ts'
import { admitFixture } from '../helpers/attempt.ts'
import { BASE_ENV, errorOf, ROOT, runBin, type BinResult } from '../helpers/bin.ts'
import { snapshot } from '../helpers/snapshot.ts'
import { gitT } from '../helpers/git.ts'
import { tempDir } from '../helpers/tmp.ts'
import { makeTls } from '../helpers/tls.ts'

/** No stack trace, the error in exactly one `tool: CODE: …` line (plus its hint), records end error → result. */
function assertRefusal (r: BinResult, tool: string, exit: number, codes: string[]): void {
  assert.notEqual(r.exitCode, -1, `${tool}: killed after its timeout (a hang): ${r.stderr}`)
  assert.doesNotMatch(r.stderr, /^\s+at /m, `a stack trace: ${r.stderr}`)
  assert.equal(r.exitCode, exit, `${tool}: ${r.stderr}`)
  const code = errorOf(r)?.code ?? ''
  assert.ok(codes.includes(code), `${tool}: code ${code}, want one of ${codes.join(', ')}: ${r.stderr}`)
  const lines = r.stderr.trim().split('\n').filter(l => !l.startsWith(`${tool}: hint: `))
  assert.deepEqual(lines.map(l => l.slice(0, l.indexOf(':', tool.length + 2) + 1)), [`${tool}: ${code}:`], r.stderr)
  assert.deepEqual(r.records.slice(-2).map(x => x.kind), ['error', 'result'])
}

/** A suite report written by hand, with an `id` spliced in as raw JSON text (escapes kept). */
function reportWithRawId (rawId: string): string {
  const c = { kind: 'test_failure', id: 'ID', test: { package: '.', name: 'example.com/calc::TestAdd' }, input_sha256: '0'.repeat(64) }
  return JSON.stringify({ version: 1, cases: [c] }).replace('"ID"', rawId)
}

// --- things that behave: positive regressions of the audit -----------------------------------

test('config and report paths that are a FIFO, /dev/zero, a directory (66) or a 2 GB sparse file (over their bound: 78, 65) are refused at once, never read', async t => {
  const f = await makeFixture(tempDir(t))
  const fifo = join(f.dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  const sparse = join(f.dir, 'sparse')
  execFileSync('truncate', ['-s', '2G', sparse])
  const before = snapshot(f.dir)
  for (const p of [fifo, '/dev/zero', '/dev/urandom', f.dir]) {
    const asConfig = await runBin('admit', ['run', '--config', p, '--report', f.reportPath], { timeoutMs: 20_000 })
    assertRefusal(asConfig, 'admit', 66, ['INPUT_MISSING'])
    const asReport = await runBin('admit', ['run', '--config', f.configPath, '--report', p], { timeoutMs: 20_000 })
    assertRefusal(asReport, 'admit', 66, ['INPUT_MISSING'])
  }
  assertRefusal(await runBin('admit', ['run', '--config', sparse, '--report', f.reportPath], { timeoutMs: 20_000 }), 'admit', 78, ['CONFIG_INVALID'])
  assertRefusal(await runBin('admit', ['run', '--config', f.configPath, '--report', sparse], { timeoutMs: 20_000 }), 'admit', 65, ['REPORT_INVALID'])
  assert.deepEqual(snapshot(f.dir), before)
})

test('a config with a BOM, trailing garbage, a duplicate key or 400,000 nested arrays is CONFIG_INVALID (78); CRLF line endings are fine', async t => {
  const f = await makeFixture(tempDir(t))
  const text = JSON.stringify(f.config)
  for (const bad of ['\ufeff' + text, text + ' x', text.slice(0, -1) + ',"version":1}', text.slice(0, -1) + ',"x":' + '['.repeat(400_000) + ']'.repeat(400_000) + '}']) {
    writeFileSync(f.configPath, bad)
    assertRefusal(await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath]), 'admit', 78, ['CONFIG_INVALID'])
  }
  assert.equal(existsSync(f.stateDir), false)
  writeFileSync(f.configPath, JSON.stringify(f.config, null, 2).replace(/\n/g, '\r\n'))
  const ok = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('stdin that never ends in a newline, or holds only newlines, is RECORD_INVALID (65) at once, in bounded memory', async t => {
  const f = await makeFixture(tempDir(t))
  const r1 = await runBin('extract-tree', ['--check'], { input: 'a'.repeat(20 << 20) })
  assertRefusal(r1, 'extract-tree', 65, ['RECORD_INVALID'])
  const r2 = await runBin('receipt', ['seal'], { input: '\n'.repeat(1 << 20) })
  assertRefusal(r2, 'receipt', 65, ['RECORD_INVALID'])
  assert.equal(existsSync(f.stateDir), false)
})

// --- defects -------------------------------------------------------------------------------

test('a case id with an escaped lone surrogate ("a\\ud800") is REPORT_INVALID (65), not an internal error', async t => {
  const f = await makeFixture(tempDir(t))
  writeFileSync(f.reportPath, reportWithRawId('"a\\ud800"'))
  for (const cmd of ['status', 'run']) {
    assertRefusal(await runBin('admit', [cmd, '--config', f.configPath, '--report', f.reportPath]), 'admit', 65, ['REPORT_INVALID'])
  }
  assert.equal(existsSync(f.stateDir), false)
})

test('a state_dir with an escaped lone surrogate is refused as config (78), not an internal error', async t => {
  const f = await makeFixture(tempDir(t))
  writeFileSync(f.configPath, JSON.stringify({ ...f.config, state_dir: 'SD' }).replace('"SD"', JSON.stringify(f.config.state_dir).slice(0, -1) + '\\udc80"'))
  for (const cmd of ['status', 'run']) {
    const r = await runBin('admit', [cmd, '--config', f.configPath, '--report', f.reportPath])
    assertRefusal(r, 'admit', 78, ['CONFIG_INVALID', 'STATE_DIR_INVALID'])
  }
  assert.deepEqual(readdirSync(f.dir).sort(), ['execution.json', 'repo', 'report.json', 'routing-policy.json', 'token-helper'])
})

test('--attempt that is a regular file, or leads through one (ENOTDIR) or a symlink loop (ELOOP), is a missing input (66), in every step and in readback; a symlink to the attempt is STATE_UNSAFE (73) in all of them', async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const junk = tempDir(t)
  symlinkSync(join(junk, 'b'), join(junk, 'a'))
  symlinkSync(join(junk, 'a'), join(junk, 'b'))
  const before = snapshot(f.dir)
  const link = join(junk, 'attempt-link')
  symlinkSync(a.dir, link)
  const steps = [['extract-tree', []], ['reproduce', []], ['ask-provider', []], ['gate-patch', ['--check']], ['verify', []], ['receipt', ['seal']], ['receipt', ['readback']]] as const
  for (const bad of [join(a.dir, 'admission.json'), join(a.dir, 'admission.json', 'x'), join(junk, 'a', 'x')]) {
    for (const [tool, args] of steps) {
      const r = await runBin(tool, [...args, '--attempt', bad])
      assertRefusal(r, tool, 66, ['INPUT_MISSING'])
    }
  }
  for (const [tool, args] of steps) assertRefusal(await runBin(tool, [...args, '--attempt', link]), tool, 73, ['STATE_UNSAFE'])
  assert.deepEqual(snapshot(f.dir), before)
  // Positive control: the attempt directory itself is taken (extract-tree --check: nothing retained yet, 1).
  assert.equal((await runBin('extract-tree', ['--check', '--attempt', a.dir])).exitCode, 1)
})

test('receipt readback --attempt of a path that is not an attempt directory is INPUT_MISSING (66), as --state-dir is; a damaged attempt under attempts/ still reads back invalid', async t => {
  const dir = tempDir(t)
  const file = join(dir, 'file')
  writeFileSync(file, '{}')
  for (const p of [join(dir, 'nope'), dir, file, '/', join(file, 'x')]) {
    const r = await runBin('receipt', ['readback', '--attempt', p])
    assertRefusal(r, 'receipt', 66, ['INPUT_MISSING'])
  }
  // Control: an attempt directory whose admission.json is gone is an invalid attempt (exit 1), not a missing input.
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  rmSync(join(a.dir, 'admission.json'))
  const damaged = await runBin('receipt', ['readback', '--attempt', a.dir])
  assert.equal(damaged.exitCode, 1, damaged.stderr)
  assert.equal(damaged.records.find(x => x.kind === 'readback')?.kind, 'readback')
})

test('receipt readback --state-dir= (empty) is USAGE (2), like --attempt=', async () => {
  assertRefusal(await runBin('receipt', ['readback', '--state-dir=']), 'receipt', 2, ['USAGE'])
  assertRefusal(await runBin('receipt', ['readback', '--attempt=']), 'receipt', 2, ['USAGE'])
})

test('admit report: events it cannot turn into a valid suite report are EVENTS_INVALID (65), never INTERNAL', async t => {
  const f = await makeFixture(tempDir(t))
  const ev = (o: unknown): string => JSON.stringify(o) + '\n'
  const fail = (name: string): string => ev({ Action: 'run', Package: 'example.com/calc', Test: name }) + ev({ Action: 'fail', Package: 'example.com/calc', Test: name, Elapsed: 0 })
  const inputs = [
    fail('Test\nAdd') + ev({ Action: 'fail', Package: 'example.com/calc', Elapsed: 0 }),
    fail('TestAdd').replace(/TestAdd/g, 'Test\\ud800') + ev({ Action: 'fail', Package: 'example.com/calc', Elapsed: 0 }),
    Array.from({ length: 1001 }, (_, i) => fail(`Test${i}`)).join('') + ev({ Action: 'fail', Package: 'example.com/calc', Elapsed: 0 }),
  ]
  for (const [i, input] of inputs.entries()) {
    const out = join(f.dir, `out-${i}.json`)
    const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input })
    assertRefusal(r, 'admit', 65, ['EVENTS_INVALID'])
    assert.equal(existsSync(out), false)
  }
})

test('admit report: a --suite the report cannot hold is USAGE (2); an --out under a regular file is refused (73), never INTERNAL', async t => {
  const f = await makeFixture(tempDir(t))
  const input = JSON.stringify({ Action: 'run', Package: 'example.com/calc', Test: 'TestAdd' }) + '\n' + JSON.stringify({ Action: 'fail', Package: 'example.com/calc', Test: 'TestAdd', Elapsed: 0 }) + '\n'
  const long = await runBin('admit', ['report', '--config', f.configPath, '--out', join(f.dir, 'out.json'), '--suite', 's'.repeat(300)], { input })
  assertRefusal(long, 'admit', 2, ['USAGE'])
  const under = await runBin('admit', ['report', '--config', f.configPath, '--out', join(f.configPath, 'x.json')], { input })
  assertRefusal(under, 'admit', 73, ['OUTPUT_UNSAFE', 'WRITE_FAILED'])
})

test('a FIFO in place of the state lock, or of the attempt\'s step lock, is STATE_UNSAFE (73) at once, in admit run and in the steps, never a hang', async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const lock = join(f.stateDir, 'lock')
  renameSync(lock, join(f.dir, 'lock.saved'))
  execFileSync('mkfifo', [lock])
  const before = snapshot(f.dir)
  for (const [tool, args] of [['admit', ['run', '--config', f.configPath, '--report', f.reportPath]], ['extract-tree', ['--attempt', a.dir]], ['reproduce', ['--attempt', a.dir]]] as const) {
    const r = await runBin(tool, [...args], { timeoutMs: 15_000 })
    assertRefusal(r, tool, 73, ['STATE_UNSAFE'])
  }
  assert.deepEqual(snapshot(f.dir), before)
  // The state lock back, a FIFO where the step lock goes: the step refuses at once too.
  rmSync(lock)
  renameSync(join(f.dir, 'lock.saved'), lock)
  mkdirSync(join(f.stateDir, 'steps'), { recursive: true })
  execFileSync('mkfifo', [join(f.stateDir, 'steps', `${a.key}.lock`)])
  const beforeStep = snapshot(f.dir)
  const step = await runBin('extract-tree', ['--attempt', a.dir], { timeoutMs: 15_000 })
  assertRefusal(step, 'extract-tree', 73, ['STATE_UNSAFE'])
  assert.deepEqual(snapshot(f.dir), beforeStep)
  // Positive control: with a regular lock file state the same step runs.
  rmSync(join(f.stateDir, 'steps', `${a.key}.lock`))
  const ok = await runBin('extract-tree', ['--attempt', a.dir])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('a state_dir inside source_root, or holding it, is refused before anything is written (the checkout is never changed)', async t => {
  const f = await makeFixture(tempDir(t))
  const linkToRepo = join(f.dir, 'repo-link')
  symlinkSync(f.repo, linkToRepo)
  // Inside (also through a symlinked parent), the checkout itself, and a directory above it.
  for (const state of [join(f.repo, 'state'), join(linkToRepo, 'state'), join(f.repo, 'sub', '..', 'state2'), f.repo, f.dir]) {
    rewriteConfig(f, c => { c.state_dir = state })
    const before = snapshot(f.dir)
    const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
    assertRefusal(r, 'admit', 78, ['STATE_DIR_INVALID', 'CONFIG_INVALID'])
    assert.deepEqual(snapshot(f.dir), before, state)
    assert.equal((await gitT(f.repo, ['status', '--porcelain', '--ignored'])).trim(), '')
  }
  // Positive control: beside the checkout, the same fixture is admitted.
  rewriteConfig(f, c => { c.state_dir = join(f.dir, 'state') })
  const ok = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('a linked worktree as source_root: a state_dir inside the repository\'s git directory (outside the checkout) is refused before anything is written', async t => {
  const f = await makeFixture(tempDir(t))
  const wt = join(f.dir, 'wt')
  await gitT(f.repo, ['worktree', 'add', '-q', '--detach', wt, f.sha])
  for (const state of [join(f.repo, '.git', 'rl-state'), join(f.repo, '.git', 'worktrees', 'rl-state')]) {
    rewriteConfig(f, c => { c.source_root = wt; c.state_dir = state })
    const before = snapshot(f.dir)
    const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
    assertRefusal(r, 'admit', 78, ['STATE_DIR_INVALID'])
    assert.match(r.stderr, /inside the repository's git directory/)
    assert.deepEqual(snapshot(f.dir), before, state)
  }
  // Positive control: the worktree with a state_dir beside it is admitted.
  rewriteConfig(f, c => { c.source_root = wt; c.state_dir = join(f.dir, 'state') })
  const ok = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('a provider.ca_file that ask-provider will refuse (not PEM, PEM markers only, a symlink) is refused by admit (78) before the key is consumed', async t => {
  const f = await makeFixture(tempDir(t))
  const tls = await makeTls(tempDir(t, 'rl-tls-'))
  const notPem = join(f.dir, 'ca.txt')
  writeFileSync(notPem, 'not a certificate\n')
  const markers = join(f.dir, 'markers.pem')
  writeFileSync(markers, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
  // A symlink to a good CA: ask-provider never reads through one, so admit may not accept it.
  const link = join(f.dir, 'ca-link.pem')
  symlinkSync(tls.caFile, link)
  for (const ca of [notPem, markers, link]) {
    rewriteConfig(f, c => { c.provider.ca_file = ca })
    const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
    assertRefusal(r, 'admit', 78, ['CONFIG_INVALID'])
    assert.equal(existsSync(join(f.stateDir, 'attempts')) ? readdirSync(join(f.stateDir, 'attempts')).length : 0, 0)
  }
  // Positive control: the CA itself is admitted.
  rewriteConfig(f, c => { c.provider.ca_file = tls.caFile })
  const ok = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('an execution config over its 1 MiB bound is CONFIG_INVALID (78) and a report over 16 MiB is REPORT_INVALID (65): too large is not missing', async t => {
  const f = await makeFixture(tempDir(t))
  const big = join(f.dir, 'big.json')
  writeFileSync(big, JSON.stringify(f.config) + ' '.repeat(1 << 20))
  assertRefusal(await runBin('admit', ['status', '--config', big, '--report', f.reportPath]), 'admit', 78, ['CONFIG_INVALID'])
  const c = { kind: 'test_failure' as const, id: 'a', test: { package: '.', name: 'example.com/calc::TestAdd' } }
  writeFileSync(big, JSON.stringify({ version: 1, cases: [{ ...c, input_sha256: caseInputSha256(c) }] }) + ' '.repeat(16 << 20))
  assertRefusal(await runBin('admit', ['status', '--config', f.configPath, '--report', big]), 'admit', 65, ['REPORT_INVALID'])
})

test('the driver refuses a repeated --config as USAGE (2), as every tool does', async t => {
  const f = await makeFixture(tempDir(t))
  mkdirSync(join(f.dir, 'other'))
  const r = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', f.configPath, '--config', join(f.dir, 'other', 'x.json'), '--report', f.reportPath], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, timeout: 60_000 })
  assert.equal(r.exitCode, 2, String(r.stderr))
  assert.equal(existsSync(f.stateDir), false)
})

test('a source_root or state_dir holding a newline or another control character is CONFIG_INVALID (78), not a misleading SOURCE_NOT_GIT', async t => {
  const f = await makeFixture(tempDir(t))
  const odd = join(f.dir, 'my\nrepo')
  await gitT(f.dir, ['clone', '-q', f.repo, odd])
  for (const change of [{ source_root: odd }, { state_dir: join(f.dir, 'state\tx') }]) {
    rewriteConfig(f, c => ({ ...c, ...change }))
    const before = snapshot(f.dir)
    const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
    assertRefusal(r, 'admit', 78, ['CONFIG_INVALID'])
    assert.match(r.stderr, /holds a control character/)
    assert.deepEqual(snapshot(f.dir), before)
  }
})

test('a tool started in a directory that was removed under it is USAGE (2) saying so, not a raw uv_cwd error; from a directory that exists the same command goes on', async t => {
  const gone = join(tempDir(t), 'gone')
  mkdirSync(gone)
  // The child inherits a working directory removed after the parent entered it, as a shell's
  // does (the tool's own bin, not the package manager's sh shim, which complains first).
  const launch = `const { spawnSync } = require('node:child_process'); const { rmdirSync } = require('node:fs')
process.chdir(process.argv[1]); if (process.argv[2] === 'remove') rmdirSync(process.argv[1])
const r = spawnSync(process.execPath, [process.argv[3], '--attempt', '/nonexistent/attempt'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } })
process.stdout.write(JSON.stringify({ status: r.status, stderr: r.stderr, stdout: r.stdout }))`
  const run = async (mode: string): Promise<{ status: number, stderr: string, stdout: string }> => {
    const r = await execa(process.execPath, ['-e', launch, gone, mode, join(ROOT, 'tools', 'verify', 'bin', 'verify.js')], { env: BASE_ENV, extendEnv: false, reject: false, timeout: 60_000 })
    return JSON.parse(String(r.stdout)) as { status: number, stderr: string, stdout: string }
  }
  const removed = await run('remove')
  assert.equal(removed.status, 2, removed.stderr)
  assert.equal(removed.stderr, 'verify: USAGE: the current directory no longer exists; cd to one that does\n')
  // The records every run prints: start, the error, the result.
  const records = removed.stdout.split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))
  assert.deepEqual(records.map(r => r.kind === 'error' ? `error ${r.code}` : r.kind === 'result' ? `result ${r.exit}` : r.kind), ['start', 'error USAGE', 'result 2'])
  mkdirSync(gone)
  // Positive control: the same command from an existing directory reaches the attempt (66).
  const kept = await run('keep')
  assert.equal(kept.status, 66, kept.stderr)
})

test('a state root whose attempts/ is a symlink is STATE_UNSAFE (73) to admit status, admit run and readback alike; the real directory in place, all three go on', async t => {
  const f = await makeFixture(tempDir(t))
  const first = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(first.exitCode, 0, first.stderr)
  renameSync(join(f.stateDir, 'attempts'), join(f.stateDir, 'attempts.real'))
  symlinkSync('attempts.real', join(f.stateDir, 'attempts'))
  for (const [tool, args] of [['admit', ['status', '--config', f.configPath, '--report', f.reportPath]], ['admit', ['run', '--config', f.configPath, '--report', f.reportPath]], ['receipt', ['readback', '--state-dir', f.stateDir]]] as const) {
    const r = await runBin(tool, [...args])
    assert.equal(r.exitCode, 73, `${tool} ${args[0]}: ${r.stderr}`)
    assert.equal(errorOf(r)?.code, 'STATE_UNSAFE', `${tool} ${args[0]}`)
    assert.match(r.stderr, /attempts is a symlink/)
  }
  // Positive control: the directory itself back in place.
  unlinkSync(join(f.stateDir, 'attempts'))
  renameSync(join(f.stateDir, 'attempts.real'), join(f.stateDir, 'attempts'))
  const status = await runBin('admit', ['status', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(status.exitCode, 0, status.stderr)
})
