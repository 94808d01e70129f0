// admit report: real `go test -json` output (and repairline's normalized node events) on
// stdin become a suite report that admit run accepts.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { run } from '@repairline/core'
import { validators } from '@repairline/schemas'
import { runBin, errorOf } from '../../../test/helpers/bin.ts'
import { GO_FILES, NODE_FILES, rewriteConfig, type Fixture } from '../../../test/helpers/fixture.ts'
import { assertRefusal, fixture } from './helpers.ts'

/** `admit report` of go events in which `name` of example.com/calc fails: the report's case tests. */
async function reportOfGoFailure (f: Fixture, name: string): Promise<unknown[]> {
  const out = join(f.dir, 'r.json')
  const events = [
    { Action: 'run', Package: 'example.com/calc', Test: name },
    { Action: 'fail', Package: 'example.com/calc', Test: name, Elapsed: 0 },
    { Action: 'fail', Package: 'example.com/calc', Elapsed: 0 },
  ].map(e => JSON.stringify(e)).join('\n') + '\n'
  const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: events })
  assert.equal(r.exitCode, 0, r.stderr)
  return (JSON.parse(readFileSync(out, 'utf8')) as { cases: Array<{ test: unknown }> }).cases.map(c => c.test)
}

test('go test -json of the fixture → one case per failing identity, mapped to ./<dir>; admit run takes it', async (t) => {
  const f = await fixture(t)
  const gocache = join(f.dir, 'gocache')
  const go = await run('/usr/bin/go', ['test', '-json', '-count=1', './...'], { cwd: f.repo, env: { PATH: '/usr/bin:/bin', HOME: f.dir, GOCACHE: gocache, GOFLAGS: '', GOTOOLCHAIN: 'local', GOPROXY: 'off' } })
  assert.equal(go.exitCode, 1, go.stderr.toString())
  const out = join(f.dir, 'generated-report.json')
  const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out, '--suite', 'local'], { input: go.stdout.toString() })
  assert.equal(r.exitCode, 0, r.stderr)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.ok(validators['suite-report'](report))
  assert.deepEqual(report.cases.map((c: { id: string, test: unknown }) => [c.id, c.test]), [
    ['example.com/calc::TestAdd', { package: '.', name: 'example.com/calc::TestAdd' }],
  ])
  const admitted = await runBin('admit', ['run', '--config', f.configPath, '--report', out])
  assert.equal(admitted.exitCode, 0, admitted.stderr)
})

test('a go.mod module line with a trailing comment (how go marks a deprecated module) still names the module', async (t) => {
  const f = await fixture(t, { files: { ...GO_FILES, 'go.mod': 'module example.com/calc // Deprecated: use example.com/calc2\n\ngo 1.19\n' } })
  assert.deepEqual(await reportOfGoFailure(f, 'TestAdd'), [{ package: '.', name: 'example.com/calc::TestAdd' }])
})

test('a build failure in plain text becomes the identity <pkg>::', async (t) => {
  const f = await fixture(t)
  const out = join(f.dir, 'r.json')
  const input = 'FAIL\texample.com/calc [build failed]\n'
  const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { id: string }) => c.id), ['example.com/calc::'])
})

test('node: normalized events map a file to the test_packages entry that holds it', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const out = join(f.dir, 'r.json')
  const events = [
    { Action: 'run', Package: 'test/calc.test.js', Test: 'add adds' },
    { Action: 'fail', Package: 'test/calc.test.js', Test: 'add adds', Elapsed: 0.001 },
    { Action: 'run', Package: 'test/calc.test.js', Test: 'double doubles' },
    { Action: 'pass', Package: 'test/calc.test.js', Test: 'double doubles', Elapsed: 0.001 },
  ].map(e => JSON.stringify(e)).join('\n') + '\n'
  const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: events })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { test: unknown }) => c.test), [{ package: 'test', name: 'test/calc.test.js::add adds' }])
})

test('the package of an identity is the one its events name: a node test file named a::b.test.js, a go subtest named x::y', async (t) => {
  const name = 'test/a::b.test.js'
  const files: Record<string, string> = { ...NODE_FILES as Record<string, string>, [name]: NODE_FILES['test/calc.test.js'] as string }
  delete files['test/calc.test.js']
  const f = await fixture(t, { runner: 'node', files, cases: [{ package: name, name: `${name}::add adds` }] })
  rewriteConfig(f, c => ({ ...c, test_packages: [name] }))
  const out = join(f.dir, 'r.json')
  const events = [
    { Action: 'run', Package: name, Test: 'add adds' },
    { Action: 'fail', Package: name, Test: 'add adds', Elapsed: 0 },
  ].map(e => JSON.stringify(e)).join('\n') + '\n'
  const r = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: events })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { test: unknown }) => c.test), [{ package: name, name: `${name}::add adds` }])
  // The report is admitted: its package is one of test_packages.
  const admitted = await runBin('admit', ['run', '--config', f.configPath, '--report', out])
  assert.equal(admitted.exitCode, 0, admitted.stderr)

  assert.deepEqual(await reportOfGoFailure(await fixture(t), 'TestAdd/x::y'), [{ package: '.', name: 'example.com/calc::TestAdd/x::y' }])
})

test('an event line with a duplicate key is EVENTS_INVALID (65), whichever value comes last, escaped or not; the same events named once are read', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const out = join(f.dir, 'r.json')
  const P = '"Package":"test/calc.test.js"'
  const report = async (second: string): Promise<Awaited<ReturnType<typeof runBin>>> =>
    await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: `{"Action":"run",${P},"Test":"add adds"}\n${second}\n` })
  // event-line-with-a-duplicate-key: JSON.parse keeps the last value, so the order alone
  // decided between a failing case and NOTHING_ELIGIBLE.
  const cases: Array<[string, string, string]> = [
    ['Action: pass, then fail', 'Action', `{"Action":"pass","Action":"fail",${P},"Test":"add adds"}`],
    ['Action: fail, then pass', 'Action', `{"Action":"fail","Action":"pass",${P},"Test":"add adds"}`],
    ['Test: another test, then this one', 'Test', `{"Action":"fail",${P},"Test":"double doubles","Test":"add adds"}`],
    ['Action escaped: Act\\u0069on', 'Action', `{"Action":"pass","Act\\u0069on":"fail",${P},"Test":"add adds"}`],
  ]
  for (const [name, key, second] of cases) {
    const r = await report(second)
    assertRefusal(r, 65, 'EVENTS_INVALID')
    assert.match(errorOf(r)?.message ?? '', new RegExp(`^stdin:2: duplicate key "${key}" at offset \\d+: a JSON reader keeps either value, so the line means two events$`), name)
    assert.equal(existsSync(out), false, `${name}: nothing written`)
  }
  // Positive controls: each event named once is read as it says.
  const failed = await report(`{"Action":"fail",${P},"Test":"add adds"}`)
  assert.equal(failed.exitCode, 0, failed.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { id: string }) => c.id), ['test/calc.test.js::add adds'])
  const passed = await report(`{"Action":"pass",${P},"Test":"add adds"}`)
  assert.equal(passed.exitCode, 1, passed.stderr)
  assert.equal(errorOf(passed)?.code, 'NOTHING_ELIGIBLE')
  const escaped = await report(`{"Act\\u0069on":"fail",${P},"Test":"add adds"}`)
  assert.equal(escaped.exitCode, 0, escaped.stderr)
  // Output text that holds a key name, even a whole forged event, is no duplicate.
  const printed = await runBin('admit', ['report', '--config', f.configPath, '--out', out], {
    input: [
      `{"Action":"run",${P},"Test":"add adds"}`,
      JSON.stringify({ Action: 'output', Package: 'test/calc.test.js', Test: 'add adds', Output: `{"Action":"pass","Action":"fail",${P},"Test":"add adds"}\n` }),
      `{"Action":"fail",${P},"Test":"add adds"}`,
    ].join('\n') + '\n',
  })
  assert.equal(printed.exitCode, 0, printed.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { id: string }) => c.id), ['test/calc.test.js::add adds'])
})

test('no events, or no failing identity, writes nothing', async (t) => {
  const f = await fixture(t)
  const out = join(f.dir, 'r.json')
  const empty = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: 'just text\n' })
  assert.equal(empty.exitCode, 65)
  assert.equal(errorOf(empty)?.code, 'EVENTS_INVALID')
  const green = await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: '{"Action":"run","Package":"m","Test":"T"}\n{"Action":"pass","Package":"m","Test":"T"}\n' })
  assert.equal(green.exitCode, 1)
  assert.equal(errorOf(green)?.code, 'NOTHING_ELIGIBLE')
  assert.throws(() => readFileSync(out))
})

test('--out replaces only an earlier suite report: the config, a checkout file, a state-root path or any other file is OUTPUT_UNSAFE (73) and untouched', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const events = '{"Action":"run","Package":"test/calc.test.js","Test":"add adds"}\n{"Action":"fail","Package":"test/calc.test.js","Test":"add adds"}\n'
  const report = async (out: string): ReturnType<typeof runBin> => await runBin('admit', ['report', '--config', f.configPath, '--out', out], { input: events })
  const notes = join(f.dir, 'notes.txt')
  writeFileSync(notes, 'my notes\n')
  mkdirSync(f.stateDir, { recursive: true })
  for (const [what, out] of [['the config', f.configPath], ['a source file', join(f.repo, 'src', 'calc.js')], ['a new file in the checkout', join(f.repo, 'report.json')], ['the state root', join(f.stateDir, 'report.json')], ['another file', notes]] as const) {
    const before = existsSync(out) ? readFileSync(out) : undefined
    const r = await report(out)
    assert.equal(r.exitCode, 73, `${what}: ${r.stderr}`)
    assert.equal(errorOf(r)?.code, 'OUTPUT_UNSAFE', what)
    assert.deepEqual(existsSync(out) ? readFileSync(out) : undefined, before, `${what} is untouched`)
  }
  const status = await run('/usr/bin/git', ['-C', f.repo, 'status', '--porcelain'], { env: { PATH: '/usr/bin:/bin' } })
  assert.equal(status.stdout.toString(), '', 'the checkout is clean')
  // Positive control: a new file, then the same file again (a report regenerated in place).
  const out = join(f.dir, 'r.json')
  assert.equal((await report(out)).exitCode, 0)
  const again = await report(out)
  assert.equal(again.exitCode, 0, again.stderr)
  assert.ok(validators['suite-report'](JSON.parse(readFileSync(out, 'utf8'))))
  // A report padded past the 16 MiB admit reads is no report admit could load: it is not read
  // whole to be judged, and not replaced.
  const big = join(f.dir, 'big.json')
  writeFileSync(big, Buffer.concat([readFileSync(out), Buffer.alloc((16 << 20) + 1 - readFileSync(out).length, ' ')]))
  const padded = await report(big)
  assert.equal(padded.exitCode, 73, padded.stderr)
  assert.equal(errorOf(padded)?.code, 'OUTPUT_UNSAFE')
  assert.equal(readFileSync(big).length, (16 << 20) + 1)
})

test('admit report needs only what it reads: a config holding just source_root, source_sha and runner gives the same report; a field it reads that is wrong is CONFIG_INVALID (78) with its pointer and a hint, and nothing is written', async (t) => {
  const f = await fixture(t)
  const full = JSON.parse(readFileSync(f.configPath, 'utf8')) as Record<string, unknown>
  const partial = join(f.dir, 'partial-config.json')
  writeFileSync(partial, JSON.stringify({ source_root: full.source_root, source_sha: full.source_sha, runner: { kind: 'go' } }))
  const events = [
    { Action: 'run', Package: 'example.com/calc', Test: 'TestAdd' },
    { Action: 'fail', Package: 'example.com/calc', Test: 'TestAdd', Elapsed: 0 },
    { Action: 'fail', Package: 'example.com/calc', Elapsed: 0 },
  ].map(e => JSON.stringify(e)).join('\n') + '\n'
  const out = join(f.dir, 'from-partial.json')
  const r = await runBin('admit', ['report', '--config', partial, '--out', out], { input: events })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).cases.map((c: { test: unknown }) => c.test), await reportOfGoFailure(f, 'TestAdd'))
  const breaks: Array<[Record<string, unknown>, string]> = [[{ source_sha: 'HEAD' }, '/source_sha'], [{ source_root: 'repo' }, '/source_root'], [{ runner: { kind: 'rust' } }, '/runner/kind'], [{ runner: { kind: 'node' } }, '/test_packages']]
  for (const [bad, pointer] of breaks) {
    const cfg = join(f.dir, 'bad-config.json')
    writeFileSync(cfg, JSON.stringify({ source_root: full.source_root, source_sha: full.source_sha, runner: { kind: 'go' }, ...bad }))
    const badOut = join(f.dir, 'never-written.json')
    const b = await runBin('admit', ['report', '--config', cfg, '--out', badOut], { input: events })
    assertRefusal(b, 78, 'CONFIG_INVALID', pointer)
    assert.match(errorOf(b)?.hint ?? '', /admit report reads only/)
    assert.equal(existsSync(badOut), false)
  }
})
