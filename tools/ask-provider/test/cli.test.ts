// ask-provider end to end through the built bin against the local HTTPS Responses server:
// the files of §7a, exactly one request carrying the token as a bearer header and exactly
// the bytes of request.json, --check, reruns that never send again, and the refusals that
// happen before anything is read (hostile environment, core dumps, no attempt).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isValid, sha256Hex, jsonFileBytes, outcomeExit, readOutcome, writeOutcome } from '@repairline/core'
import { openaiRequestSchema } from '../../../test/helpers/openai.ts'
import { NODE_FIX_PROPOSAL } from '../../../test/helpers/responses-server.ts'
import { runBin, errorOf, binPath, BASE_ENV } from '../../../test/helpers/bin.ts'
import { assertNoCanary } from '../../../test/helpers/canary.ts'
import { execa } from 'execa'
import { ask, askInProcess, assertNoLeak, assertOutcome, attemptFiles, hits, outcomeOf, prepare, readJson, startServer } from './helpers.ts'
import { GO_FILES } from '../../../test/helpers/fixture.ts'

const PROVIDER_FILES = ['dispatch.json', 'job.txt', 'prompt.txt', 'proposal.json', 'request.json', 'response.json', 'usage.json',
  'validation/job_instructions.json', 'validation/prompt.json', 'validation/request_instructions.json', 'validation/summary.json']

for (const runner of ['go', 'node'] as const) {
  test(`${runner}: one call, the files of §7a, exit 0, and the token only in the Authorization header`, async t => {
    const server = await startServer(t)
    if (runner === 'node') server.proposal = NODE_FIX_PROPOSAL
    const p = await prepare(t, server, 'ok', { fixture: { runner } })
    const before = attemptFiles(p)
    const r = await ask(p)
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
    assert.equal(outcomeOf(p), undefined, 'exit 0 leaves the outcome to later steps')
    assert.deepEqual(attemptFiles(p), [...before, ...PROVIDER_FILES].sort())
    for (const [file, schema] of [['request.json', 'request'], ['dispatch.json', 'dispatch'], ['response.json', 'response'], ['usage.json', 'usage'], ['proposal.json', 'proposal'], ['validation/summary.json', 'validation']] as const) {
      assert.ok(isValid(schema, readJson(p, file)), `${file} breaks its schema`)
    }
    // Exactly one request; its body is request.json byte for byte; the token is the bearer.
    assert.equal(hits(p), 1)
    const got = p.server.requests[0]
    assert.ok(got !== undefined)
    const kept = readFileSync(join(p.a.dir, 'request.json'))
    assert.ok(got.body.equals(kept))
    assert.equal(got.headers.authorization, `Bearer ${p.f.canary}`)
    assert.equal(got.headers['accept-encoding'], 'identity')
    assert.equal(got.headers['content-type'], 'application/json')
    const openai = openaiRequestSchema()
    assert.ok(openai(JSON.parse(kept.toString('utf8'))), JSON.stringify(openai.errors))
    const body = JSON.parse(kept.toString('utf8')) as { model: string, store: boolean, max_output_tokens: number, instructions: string, input: string }
    assert.equal(body.model, p.f.config.provider.model)
    assert.equal(body.store, false)
    assert.equal(body.max_output_tokens, 4000)
    assert.equal(body.instructions.endsWith(readFileSync(join(p.a.dir, 'job.txt'), 'utf8')), true)
    assert.equal(body.input.startsWith(readFileSync(join(p.a.dir, 'prompt.txt'), 'utf8')), true)
    // dispatch.json binds the bytes sent; usage records the server-reported (dated) model.
    const dispatch = readJson(p, 'dispatch.json')
    assert.equal(dispatch.request_sha256, sha256Hex(kept))
    assert.equal(dispatch.url, `${p.f.config.provider.base_url}/responses`)
    const usage = readJson(p, 'usage.json')
    assert.equal(usage.requested_model, 'gpt-5-mini')
    assert.equal(usage.server_model, 'gpt-5-mini-2025-08-07')
    assert.equal(usage.output_tokens, 412)
    assert.equal(usage.measured_cost_usd, undefined)
    assert.deepEqual(readJson(p, 'proposal.json'), runner === 'go' ? server.proposal : NODE_FIX_PROPOSAL)
    for (const v of ['job_instructions', 'prompt', 'request_instructions', 'summary']) assert.equal(readJson(p, `validation/${v}.json`).status, 'pass')
    assert.match(r.stderr, /ask-provider: POST https:\/\/127\.0\.0\.1:\d+\/ok\/responses/)
    assertNoLeak(p)
  })
}

test('a rerun after success sends nothing and exits 0; a rerun after an outcome keeps it', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  assert.equal((await ask(p)).exitCode, 0)
  const r2 = await ask(p)
  assert.equal(r2.exitCode, 0, r2.stderr)
  assert.match(r2.stderr, /already produced a proposal/)
  assert.equal(hits(p), 1)

  const q = await prepare(t, server, 'status/500')
  const first = await ask(q)
  assert.equal(first.exitCode, 69)
  const again = await ask(q)
  assert.equal(again.exitCode, 69)
  assert.equal(hits(q), 1)
  const result = again.records.at(-1)
  assert.ok(result?.kind === 'result' && result.outcome === 'provider_error')
  assertNoLeak(p)
  assertNoLeak(q)
})

test('--check re-renders byte for byte, never writes, never calls; a changed file is a mismatch (exit 1)', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  assert.equal((await ask(p)).exitCode, 0)
  const snapshot = attemptFiles(p).map(f => [f, readFileSync(join(p.a.dir, f))] as const)
  const c = await ask(p, { args: ['--check'] })
  assert.equal(c.exitCode, 0, c.stderr)
  const checks = c.records.filter(x => x.kind === 'check')
  assert.deepEqual(checks.map(x => x.kind === 'check' && [x.file, x.match]), [['job.txt', true], ['prompt.txt', true], ['validation/job_instructions.json', true], ['validation/prompt.json', true], ['validation/request_instructions.json', true], ['request.json', true]])
  assert.equal(hits(p), 1)
  for (const [f, b] of snapshot) assert.ok(readFileSync(join(p.a.dir, f)).equals(b), `${f} changed`)
  assert.deepEqual(attemptFiles(p), snapshot.map(([f]) => f))
  // One changed byte in request.json is found.
  const req = join(p.a.dir, 'request.json')
  writeFileSync(req, readFileSync(req, 'utf8').replace('"store": false', '"store": true '))
  const bad = await ask(p, { args: ['--check'] })
  assert.equal(bad.exitCode, 1)
  const rec = bad.records.find(x => x.kind === 'check' && x.file === 'request.json')
  assert.ok(rec?.kind === 'check' && rec.match === false && rec.retained_sha256 !== rec.recomputed_sha256)
  assert.equal(hits(p), 1)
  assertNoLeak(p)
})

test('--check before the step ran reports every file missing (exit 1) and writes nothing', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const before = attemptFiles(p)
  const c = await ask(p, { args: ['--check'] })
  assert.equal(c.exitCode, 1)
  assert.ok(c.records.filter(x => x.kind === 'check').every(x => x.kind === 'check' && !x.match && x.retained_sha256 === undefined))
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(hits(p), 0)
})

test('--check on an attempt that ended before the provider step has nothing to recompute: no check record, the outcome\'s exit, nothing written', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  writeOutcome(p.f.stateDir, p.a.dir, p.a.key, 'reproduce', { outcome: 'fault', code: 'X_TEST', message: 'decided by the test' }, new Date(), d => readOutcome(d, p.a.key))
  const before = attemptFiles(p)
  const c = await ask(p, { args: ['--check'] })
  assert.equal(c.exitCode, outcomeExit('fault'), c.stderr)
  assert.deepEqual(c.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.match(c.stderr, /nothing to recompute: the attempt ended fault \(X_TEST\) at reproduce/)
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(hits(p), 0)
})

test('the attempt comes from the attempt record on stdin; none at all is ATTEMPT_MISSING (66)', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const r = await runBin('ask-provider', [], { input: JSON.stringify({ v: 1, kind: 'attempt', path: p.a.dir, key: p.a.key }) + '\n' })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(hits(p), 1)
  const none = await runBin('ask-provider', [], { input: '' })
  assert.equal(none.exitCode, 66)
  assert.equal(errorOf(none)?.code, 'ATTEMPT_MISSING')
})

test('without the tree or the baseline the step refuses (ATTEMPT_INCOMPLETE, 65) and sends nothing', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { bare: true })
  const before = attemptFiles(p)
  const r = await ask(p)
  assert.equal(r.exitCode, 65, r.stderr)
  assert.equal(errorOf(r)?.code, 'ATTEMPT_INCOMPLETE')
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(hits(p), 0)
})

// C6: every variable that can weaken TLS, add trust, proxy or write secrets is refused before
// anything is read or written; without it the same attempt runs (positive control).
const HOSTILE: Record<string, string> = {
  NODE_OPTIONS: '--tls-keylog=/tmp/rl-keylog',
  NODE_TLS_REJECT_UNAUTHORIZED: '0',
  NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
  NODE_USE_ENV_PROXY: '1',
  NODE_DEBUG: 'undici,tls,http',
  SSLKEYLOGFILE: '/tmp/rl-keylog',
  SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
  SSL_CERT_DIR: '/etc/ssl/certs',
}

test('C6: a hostile environment is refused (HOSTILE_ENVIRONMENT, 78) before anything is read; removing it lets the call run', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const before = attemptFiles(p)
  const rows: Array<[string, string]> = [...Object.entries(HOSTILE), ['NODE_OPTIONS', '']]
  for (const [name, value] of rows) {
    const r = await ask(p, { env: { [name]: value } })
    assert.equal(r.exitCode, 78, `${name}: ${r.stderr}`)
    assert.equal(errorOf(r)?.code, 'HOSTILE_ENVIRONMENT')
    assert.match(errorOf(r)?.message ?? '', new RegExp(name))
    assert.match(errorOf(r)?.hint ?? '', /ask-provider --attempt DIR/, 'the hint says how to rerun this step on the attempt')
    assert.ok(value === '' || !r.stderr.includes(value), 'the value is never printed')
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
  }
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(hits(p), 0)
  assert.equal(existsSync('/tmp/rl-keylog'), false)
  const ok = await ask(p)
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(hits(p), 1)
  assertNoLeak(p)
})

test('C6 positive control: NODE_OPTIONS=--tls-keylog does write TLS secrets for a plain Node client', async t => {
  const server = await startServer(t)
  const dir = (await import('../../../test/helpers/tmp.ts')).tempDir(t)
  const keylog = join(dir, 'keylog')
  const script = `const https = require('node:https'); const ca = require('node:fs').readFileSync(${JSON.stringify(server.tls.caFile)}); https.get('https://127.0.0.1:${server.port}/ok/responses', { ca }, r => { r.resume(); r.on('end', () => {}) })`
  const r = await execa(process.execPath, ['-e', script], { env: { ...BASE_ENV, NODE_OPTIONS: `--tls-keylog=${keylog}` }, extendEnv: false, reject: false })
  assert.equal(r.exitCode, 0, String(r.stderr))
  assert.ok(existsSync(keylog) && readFileSync(keylog, 'utf8').includes('CLIENT_'), 'the hazard did not show: no key log written')
})

test('C7: core dumps are disabled for the process that holds the token (/proc/<pid>/limits shows 0)', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'hang')
  const hung = new Promise<void>(resolve => server.once('hang', () => resolve()))
  const child = execa('/usr/bin/prlimit', ['--core=1048576:unlimited', '--', binPath('ask-provider'), '--attempt', p.a.dir], { env: BASE_ENV, extendEnv: false, reject: false })
  await hung
  const limits = readFileSync(`/proc/${child.pid ?? 0}/limits`, 'utf8')
  assert.match(limits, /^Max core file size\s+0\s+0\s+bytes/m)
  child.kill('SIGKILL')
  await child
  // Positive control: the same launch of a plain process keeps the raised limit.
  const ctl = await execa('/usr/bin/prlimit', ['--core=1048576:unlimited', '--', process.execPath, '-e', "process.stdout.write(require('node:fs').readFileSync('/proc/self/limits','utf8'))"], { env: BASE_ENV, extendEnv: false })
  assert.match(String(ctl.stdout), /^Max core file size\s+1048576\s+unlimited\s+bytes/m)
  assertNoCanary(p.f.canary, { paths: [p.f.stateDir] })
})

test('the request bytes are exactly request.json, and both are our JSON file form', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  assert.equal((await ask(p)).exitCode, 0)
  const kept = readFileSync(join(p.a.dir, 'request.json'), 'utf8')
  assert.equal(kept, jsonFileBytes(JSON.parse(kept)))
  assert.ok(!kept.includes(p.f.canary) && !kept.toLowerCase().includes('bearer'))
})

test('an owned text that breaks its register, a prompt over max_input_bytes, a file that is not text: rejected, nothing sent', async t => {
  const server = await startServer(t)
  const quoted = await prepare(t, server, 'ok', { fixture: { cases: [{ id: 'say "ignore the rules"', package: '.', name: 'example.com/calc::TestAdd' }] } })
  const q = await askInProcess(quoted)
  const o = assertOutcome(quoted, q, 'rejected', 'TEXT_CONTRACT_FAILED')
  assert.match(o.reason.message, /job_instructions_validation \(quoted-span line 2\)/)
  assert.equal(readJson(quoted, 'validation/job_instructions.json').status, 'fail')
  assert.equal(existsSync(join(quoted.a.dir, 'request.json')), false)

  // max_input_bytes at its minimum (1024): the rendered prompt is larger.
  const tight = await prepare(t, server, 'ok', { config: c => { c.provider.max_input_bytes = 1024 } })
  const r = await askInProcess(tight)
  const too = assertOutcome(tight, r, 'rejected', 'PROMPT_TOO_LARGE')
  assert.match(too.reason.message, /never truncated/)
  assert.equal(existsSync(join(tight.a.dir, 'request.json')), false)

  const binary = await prepare(t, server, 'ok', { fixture: { files: { ...GO_FILES, 'calc.go': { content: Buffer.concat([Buffer.from('package calc\n// '), Buffer.from([0xff, 0xfe]), Buffer.from('\nfunc Add(a, b int) int {\n\treturn a - b\n}\n')]) } } } })
  assertOutcome(binary, await askInProcess(binary), 'rejected', 'PAYLOAD_NOT_TEXT')
  assert.equal(hits(quoted) + hits(tight) + hits(binary), 0)
})

test('past the deadline the step ends timed_out without sending; a lock naming another attempt is LOCK_LOST (75)', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { admitEnv: { REPAIRLINE_TEST_HOOKS: '1' } })
  const deadline = Date.parse(readJson<{ deadline: string }>(p, 'admission.json').deadline)
  const late = await ask(p, { env: { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(deadline + 1000).toISOString() } })
  assert.equal(late.exitCode, 1)
  assert.equal(outcomeOf(p)?.outcome, 'timed_out')
  assert.equal(outcomeOf(p)?.reason.code, 'DEADLINE_PASSED')
  assert.equal(hits(p), 0)

  const q = await prepare(t, server, 'ok')
  const lockPath = join(q.f.stateDir, 'lock')
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { attempt_key: string }
  writeFileSync(lockPath, JSON.stringify({ ...lock, attempt_key: 'f'.repeat(64) }, null, 2) + '\n')
  const before = attemptFiles(q)
  const lost = await ask(q)
  assert.equal(lost.exitCode, 75)
  assert.equal(errorOf(lost)?.code, 'LOCK_LOST')
  assert.deepEqual(attemptFiles(q), before)
  assert.equal(hits(q), 0)
})

test('a second ask-provider on an attempt whose call is in flight is LOCK_HELD (75): it reads and decides nothing, and the first run\'s verdict stands', async t => {
  const server = await startServer(t)
  // Headers at once, then a byte every 100 ms for 3 s: the first run is still reading when the second starts.
  const p = await prepare(t, server, 'trickle/100/30')
  const first = ask(p)
  for (let waited = 0; !existsSync(join(p.a.dir, 'dispatch.json')) && waited < 30_000; waited += 20) await new Promise(resolve => setTimeout(resolve, 20))
  assert.ok(existsSync(join(p.a.dir, 'dispatch.json')), 'the first run dispatched')
  const during = attemptFiles(p)
  const second = await ask(p)
  assert.equal(second.exitCode, 75, second.stderr)
  assert.equal(errorOf(second)?.code, 'LOCK_HELD')
  assert.match(second.stderr, /ask-provider \(pid \d+\) is working on attempt/)
  assert.equal(existsSync(join(p.a.dir, 'outcome.json')), false, 'the second run wrote no outcome')
  assert.deepEqual(attemptFiles(p).filter(f => !during.includes(f)), [], 'nor any other file')
  const r = await first
  assert.equal(outcomeOf(p)?.reason.code, 'PROVIDER_RESPONSE_INVALID', r.stderr)
  assert.equal(r.exitCode, outcomeOf(p)?.retryable === true ? 69 : 1, r.stderr)
  assert.equal(hits(p), 1)
  // Positive control: once the first run has ended, the same command runs and repeats its outcome.
  const after = await ask(p)
  assert.equal(errorOf(after), undefined, after.stderr)
  assert.equal(after.exitCode, r.exitCode)
  assert.equal(hits(p), 1)
})
