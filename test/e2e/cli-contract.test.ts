// Operator mistakes and a hostile environment through the built bins: each ends with a typed
// error, one stderr line and the tool's records in order (never a stack trace, never the
// internal-bug status for something the operator did), and nothing is written.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { spawn } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: the child's stdout must be /dev/full itself
import { execa } from 'execa'
import { makeFixture } from '../helpers/fixture.ts'
import { admitFixture } from '../helpers/attempt.ts'
import { BASE_ENV, binPath, errorOf, ROOT, runBin, type BinResult } from '../helpers/bin.ts'
import { tempDir } from '../helpers/tmp.ts'

/** No line of a V8 stack trace, and the error in exactly one `tool: CODE: …` line (plus its hint). */
function assertOneLineError (r: BinResult | { stderr: string }, tool: string, code: string): void {
  assert.doesNotMatch(r.stderr, /^\s+at /m, `a stack trace: ${r.stderr}`)
  const lines = r.stderr.trim().split('\n').filter(l => !l.startsWith(`${tool}: hint: `))
  assert.deepEqual(lines.map(l => l.slice(0, l.indexOf(':', tool.length + 2) + 1)), [`${tool}: ${code}:`], r.stderr)
}

test('a path longer than the system allows is a usage error (2) with its records, in every tool and option that takes one', async () => {
  const long = '/a'.repeat(3000)
  const longName = `/tmp/${'n'.repeat(256)}/x.json`
  const cases: Array<[string, string[]]> = [
    ['extract-tree', ['--attempt', long]], ['reproduce', ['--attempt', long]], ['verify', ['--attempt', longName]],
    ['receipt', ['seal', '--attempt', long]], ['receipt', ['readback', '--attempt', long]], ['receipt', ['readback', '--state-dir', long]], ['receipt', ['readback', '--state-dir', longName]],
    ['admit', ['run', '--config', long, '--report', '/x']], ['admit', ['run', '--config', '/x', '--report', longName]], ['admit', ['status', '--config', long, '--report', '/x']],
    ['admit', ['report', '--config', '/x', '--out', long]],
  ]
  for (const [tool, args] of cases) {
    const r = await runBin(tool, args)
    const what = `${tool} ${args.join(' ').slice(0, 60)}`
    assert.equal(r.exitCode, 2, `${what}: ${r.stderr}`)
    const last = r.records.at(-1)
    assert.equal(last?.kind, 'result', `${what}: records end with the result`)
    assert.equal(last?.kind === 'result' ? last.exit : undefined, 2)
    assert.equal(errorOf(r)?.code, 'USAGE', `${what}: ${r.stderr}`)
    assertOneLineError(r, tool, 'USAGE')
  }
  // Positive control: a path that fits is read, and found missing.
  const fits = await runBin('admit', ['status', '--config', `/tmp/${'n'.repeat(255)}`, '--report', '/x'])
  assert.equal(errorOf(fits)?.code, 'INPUT_MISSING', fits.stderr)
})

test('records stdout cannot take (a full disk) end the run OUTPUT_FAILED (73) in one stderr line; to a pipe the same run prints them', async () => {
  const run = async (stdout: 'pipe' | number): Promise<{ exitCode: number, stderr: string }> => {
    const child = spawn(binPath('verify'), ['--no-such-flag'], { env: BASE_ENV, cwd: ROOT, stdio: ['ignore', stdout, 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (b: Buffer) => { stderr += b.toString() })
    child.stdout?.resume()
    const exitCode = await new Promise<number>(resolve => child.once('close', code => resolve(code ?? -1)))
    return { exitCode, stderr }
  }
  // The child's stdout is /dev/full itself, not a pipe the test drains.
  const devFull = openSync('/dev/full', 'w')
  const full = await run(devFull).finally(() => closeSync(devFull))
  assert.equal(full.exitCode, 73, full.stderr)
  assert.doesNotMatch(full.stderr, /^\s+at /m, full.stderr)
  assert.match(full.stderr, /^verify: OUTPUT_FAILED: cannot write records to stdout: .*ENOSPC/m)
  // Positive control: the same mistake with a working stdout is the usage error it is.
  const piped = await run('pipe')
  assert.equal(piped.exitCode, 2, piped.stderr)
  assertOneLineError(piped, 'verify', 'USAGE')
})

test('a state root whose lock is a directory is STATE_UNSAFE (73), not an internal error; readback of a directory that is not a state root is INPUT_MISSING (66)', async t => {
  const f = await makeFixture(tempDir(t))
  mkdirSync(join(f.stateDir, 'lock'), { recursive: true })
  const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assertOneLineError(r, 'admit', 'STATE_UNSAFE')
  const attempts = join(f.stateDir, 'attempts')
  assert.deepEqual(existsSync(attempts) ? readdirSync(attempts) : [], [], 'no attempt admitted')
  assert.deepEqual(readdirSync(join(f.stateDir, 'lock')), [])

  for (const notState of [f.dir, f.configPath, join(f.stateDir, 'lock')]) {
    const rb = await runBin('receipt', ['readback', '--state-dir', notState])
    assert.equal(rb.exitCode, 66, `${notState}: ${rb.stderr}`)
    assert.equal(errorOf(rb)?.code, 'INPUT_MISSING')
  }
  // Positive control: the real state root of an admitted attempt reads back (its one attempt, not sealed yet).
  const g = await makeFixture(tempDir(t))
  await admitFixture(g)
  const ok = await runBin('receipt', ['readback', '--state-dir', g.stateDir])
  assert.equal(ok.records.filter(x => x.kind === 'readback').length, 1, ok.stderr)
})

test('an attempt record on stdin whose key is not its directory\'s is RECORD_INVALID (65); with the right key the same record is used', async t => {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f)
  const record = (key: string): string => JSON.stringify({ v: 1, kind: 'attempt', path: a.dir, key }) + '\n'
  const before = readdirSync(a.dir).sort()
  const forged = await runBin('extract-tree', ['--check'], { input: record('f'.repeat(64)) })
  assert.equal(forged.exitCode, 65, forged.stderr)
  assert.equal(errorOf(forged)?.code, 'RECORD_INVALID')
  assertOneLineError(forged, 'extract-tree', 'RECORD_INVALID')
  // Positive control: the attempt's own key (nothing retained yet, so --check answers "missing": 1).
  const own = await runBin('extract-tree', ['--check'], { input: record(a.key) })
  assert.equal(own.exitCode, 1, own.stderr)
  assert.equal(errorOf(own), undefined)
  assert.deepEqual(readdirSync(a.dir).sort(), before)
})

test('the driver: --help prints its usage (0); an unknown argument is USAGE (2) in one line; a relative --config too', async () => {
  const driver = async (...args: string[]): Promise<{ exitCode: number, stdout: string, stderr: string }> => {
    const r = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), ...args], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT })
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) }
  }
  const help = await driver('--help')
  assert.equal(help.exitCode, 0, help.stderr)
  assert.match(help.stdout, /^usage: node dist\/attempt\.mjs --config ABS --report ABS/)
  assert.equal(help.stderr, '')
  // A line break in an argument cannot forge a second (summary) line.
  for (const args of [['--bogus'], ['--bogus\nrepairline: scoped_test_verified — forged'], ['--config', 'relative.json', '--report', '/r.json']]) {
    const r = await driver(...args)
    assert.equal(r.exitCode, 2, r.stderr)
    assertOneLineError(r, 'attempt', 'USAGE')
    assert.equal(r.stdout, '')
  }
  // An option without its value says so, not "unknown argument".
  const bare = await driver('--config', '/c.json', '--report', '/r.json', '--until')
  assert.equal(bare.exitCode, 2, bare.stderr)
  assert.match(bare.stderr, /--until needs a value/)
})
