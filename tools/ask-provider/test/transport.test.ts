// threat-matrix group H (HTTPS transport), each row against the local HTTPS server with a
// throwaway CA, each "refused" beside a positive control that shows the hazard is real or
// the protection is what made the difference.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, EnvHttpProxyAgent, fetch, request } from 'undici'
import { checkBaseUrl, isValid } from '@repairline/core'
import { gitT } from '../../../test/helpers/git.ts'
import { callResponses } from '../src/client.ts'
import { DEFAULT_LIMITS } from '../src/limits.ts'
import { ask, askInProcess, assertNoLeak, assertOutcome, attemptFiles, hits, outcomeOf, prepare, readJson, startServer, tls } from './helpers.ts'

const LIMITS = { ...DEFAULT_LIMITS }

async function tcpListener (t: { after: (fn: () => Promise<void>) => void }): Promise<{ port: number, connections: () => number }> {
  let n = 0
  // Answers a proxy's CONNECT with 403 (a client that uses it fails once, without retrying).
  const srv: TcpServer = createTcpServer(sock => {
    n++
    sock.on('error', () => {})
    sock.once('data', () => sock.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'))
  })
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', () => resolve()))
  t.after(async () => { await new Promise<void>(resolve => srv.close(() => resolve())) })
  const addr = srv.address()
  return { port: typeof addr === 'object' && addr !== null ? addr.port : 0, connections: () => n }
}

test('H1: a 301/302/307/308 is refused (PROVIDER_REDIRECT, not retryable) and never followed', async t => {
  const server = await startServer(t)
  for (const code of [301, 302, 307, 308]) {
    const p = await prepare(t, server, `redirect/${code}`)
    const o = assertOutcome(p, await askInProcess(p), 'provider_error', 'PROVIDER_REDIRECT', { retryable: false })
    assert.match(o.reason.message, new RegExp(`HTTP ${code} to https://localhost:\\d+/target/responses \\(never followed\\)`))
    assert.equal(readJson(p, 'response.json').http_status, code)
    assert.equal(hits(p), 1)
  }
  assert.equal(server.requestsTo('target').length, 0, 'the redirect target was never contacted')
  // Positive control: fetch follows the same redirect to the target.
  const agent = new Agent({ connect: { ca: server.tls.caPem } })
  const res = await fetch(server.baseUrl('redirect/302') + '/responses', { method: 'POST', body: '{}', dispatcher: agent })
  await res.arrayBuffer()
  await agent.close()
  assert.equal(server.requestsTo('target').length, 1, 'fetch should have followed the redirect')
})

test('H2: HTTP(S)_PROXY, ALL_PROXY and NO_PROXY are ignored: the proxy listener sees nothing', async t => {
  const server = await startServer(t)
  const proxy = await tcpListener(t)
  const url = `http://127.0.0.1:${proxy.port}`
  const env = { HTTPS_PROXY: url, https_proxy: url, HTTP_PROXY: url, http_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: 'example.invalid', no_proxy: 'example.invalid' }
  const p = await prepare(t, server, 'ok')
  const r = await ask(p, { env })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(hits(p), 1)
  assert.equal(proxy.connections(), 0)
  // Positive control: undici's environment-proxy agent, under the same environment, goes to the listener.
  const saved = { ...process.env }
  Object.assign(process.env, env)
  try {
    const agent = new EnvHttpProxyAgent()
    await request(server.baseUrl('ok') + '/responses', { method: 'POST', body: '{}', dispatcher: agent }).catch(() => undefined)
    await agent.close().catch(() => {})
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k]
  }
  assert.ok(proxy.connections() >= 1, 'the proxy listener should have been used by EnvHttpProxyAgent')
  assertNoLeak(p)
})

test('H3: self-signed, other-CA and wrong-name certificates are refused (PROVIDER_TLS); the right CA is accepted', async t => {
  const material = await tls()
  for (const cert of ['selfSigned', 'otherCa', 'wrongName'] as const) {
    const server = await startServer(t, { cert })
    const p = await prepare(t, server, 'ok')
    const o = assertOutcome(p, await askInProcess(p), 'provider_error', 'PROVIDER_TLS', { retryable: false })
    assert.match(o.reason.message, cert === 'wrongName' ? /ERR_TLS_CERT_ALTNAME_INVALID/ : /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/)
    assert.equal(server.requests.length, 0)
  }
  // Without ca_file, the test CA is not trusted: ca_file is the only extra trust.
  const good = await startServer(t)
  const none = await prepare(t, good, 'ok', { fixture: { caFile: undefined } })
  assertOutcome(none, await askInProcess(none), 'provider_error', 'PROVIDER_TLS', { retryable: false })
  // Positive control: the same server with its CA in ca_file.
  const ok = await prepare(t, good, 'ok', { fixture: { caFile: material.caFile } })
  assert.equal((await askInProcess(ok)).exitCode, 0)
  assert.equal(hits(ok), 1)
})

test('H4: NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn verification off in the client (and the bin refuses it)', async t => {
  const server = await startServer(t, { cert: 'selfSigned' })
  const url = server.baseUrl('ok') + '/responses'
  const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
  const warn = process.emitWarning
  process.emitWarning = () => {}
  try {
    const r = await callResponses({ url, body: Buffer.from('{}'), token: 't', limits: LIMITS })
    assert.ok(r.kind === 'failed' && r.code === 'PROVIDER_TLS', JSON.stringify(r))
    // Positive control: a default Agent under the same variable accepts the self-signed certificate.
    const agent = new Agent()
    const res = await request(url, { method: 'POST', body: '{}', dispatcher: agent })
    await res.body.text()
    await agent.close()
    assert.equal(res.statusCode, 200)
  } finally {
    process.emitWarning = warn
    if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED; else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved
  }
  const p = await prepare(t, server, 'ok')
  const r = await ask(p, { env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' } })
  assert.equal(r.exitCode, 78)
  assert.equal(server.requests.length, 1, 'only the positive control reached the server')
})

test('H5: slow headers and a stalled body hit their timeouts; a 1-byte trickle hits the total deadline', async t => {
  const server = await startServer(t)
  const call = async (scenario: string, limits: Partial<typeof LIMITS>) => await callResponses({ url: `${server.baseUrl(scenario)}/responses`, body: Buffer.from('{}'), token: 't', caPem: server.tls.caPem, limits: { ...LIMITS, ...limits } })
  const headers = await call('slow-headers', { headersTimeoutMs: 300, totalMs: 20_000 })
  assert.ok(headers.kind === 'failed' && headers.code === 'PROVIDER_TIMEOUT' && headers.retryable && /no response headers/.test(headers.message), JSON.stringify(headers))
  const stalled = await call('stall-body', { bodyTimeoutMs: 300, totalMs: 20_000 })
  assert.ok(stalled.kind === 'failed' && stalled.code === 'PROVIDER_TIMEOUT' && /stalled/.test(stalled.message) && stalled.partial?.status === 200, JSON.stringify(stalled))
  const trickle = await call('trickle/100/1000', { bodyTimeoutMs: 1000, totalMs: 1200 })
  assert.ok(trickle.kind === 'failed' && trickle.code === 'PROVIDER_TIMEOUT' && trickle.deadline && /total deadline/.test(trickle.message), JSON.stringify(trickle))
  // Positive control: the body timeout alone does not stop a trickle (it is an idle timer).
  const agent = new Agent({ connect: { ca: server.tls.caPem }, bodyTimeout: 1000 })
  const res = await request(`${server.baseUrl('trickle/100/15')}/responses`, { method: 'POST', body: '{}', dispatcher: agent })
  assert.equal((await res.body.text()).length, 15)
  await agent.close()
})

test('H5 via the bin: the total deadline is the attempt\'s own; a trickle past it ends the attempt timed_out', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'trickle/200/100000', { admitEnv: { REPAIRLINE_TEST_HOOKS: '1' } })
  const deadline = Date.parse(readJson<{ deadline: string }>(p, 'admission.json').deadline)
  const r = await ask(p, { env: { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(deadline - 1500).toISOString() } })
  const o = outcomeOf(p)
  assert.equal(o?.outcome, 'timed_out', r.stderr)
  assert.equal(o?.reason.code, 'DEADLINE_PASSED')
  assert.equal(r.exitCode, 1)
  assert.equal(hits(p), 1)
  assert.equal(readJson(p, 'response.json').body_complete, false)
  assertNoLeak(p)
})

test('H5: a server that accepts the connection and never answers the TLS handshake is cut at the total deadline, not at the connect timeout', async t => {
  // Accepts and stays silent: the handshake never completes.
  const sockets: Array<{ destroy: () => void }> = []
  const srv: TcpServer = createTcpServer(sock => { sock.on('error', () => {}); sockets.push(sock) })
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', () => resolve()))
  t.after(async () => { for (const s of sockets) s.destroy(); await new Promise<void>(resolve => srv.close(() => resolve())) })
  const addr = srv.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  const started = Date.now()
  const r = await callResponses({ url: `https://127.0.0.1:${port}/v1/responses`, body: Buffer.from('{}'), token: 't', limits: { ...LIMITS, connectTimeoutMs: 120_000, totalMs: 500 } })
  const took = Date.now() - started
  assert.ok(r.kind === 'failed' && r.code === 'PROVIDER_TIMEOUT' && r.deadline && /total deadline of 500 ms/.test(r.message), JSON.stringify(r))
  // Ended by the deadline, long before the two-minute connect timeout could have.
  assert.ok(took < 60_000, `the call took ${took} ms`)
  assert.equal(sockets.length, 1, 'one connection, not retried')
})

test('H6: an oversized body (content-length, chunked, or until close) is refused at the cap', async t => {
  const server = await startServer(t)
  for (const mode of ['cl', 'chunked', 'close']) {
    const p = await prepare(t, server, `oversized/${mode}/200000`)
    const o = assertOutcome(p, await askInProcess(p, { limits: { maxResponseBytes: 65536 } }), 'provider_error', 'PROVIDER_RESPONSE_TOO_LARGE', { retryable: false })
    assert.match(o.reason.message, /over 65536 bytes/)
    const kept = readJson(p, 'response.json')
    assert.equal(kept.body_complete, false)
    assert.ok((kept.body_bytes as number) <= 65536)
    // Positive control: under a cap above the size the same body is read whole (and is not an answer).
    const q = await prepare(t, server, `oversized/${mode}/200000`)
    assertOutcome(q, await askInProcess(q, { limits: { maxResponseBytes: 300_000 } }), 'provider_error', 'PROVIDER_RESPONSE_INVALID', { retryable: false })
    assert.equal(readJson(q, 'response.json').body_bytes, 200000)
  }
  // A declared length over the cap is refused when the headers arrive, not when a body that may
  // never come times out; control: a declared length under the cap waits for the body.
  const declared = await prepare(t, server, 'stall-body/1000000000000')
  const d = assertOutcome(declared, await askInProcess(declared, { limits: { maxResponseBytes: 65536, totalMs: 5000 } }), 'provider_error', 'PROVIDER_RESPONSE_TOO_LARGE', { retryable: false })
  assert.match(d.reason.message, /declares a body of 1000000000000 bytes, over 65536 bytes/)
  assert.equal(readJson(declared, 'response.json').body_bytes, 0)
  const small = await prepare(t, server, 'stall-body/60000')
  assertOutcome(small, await askInProcess(small, { limits: { maxResponseBytes: 65536, totalMs: 1500 } }), 'provider_error', 'PROVIDER_TIMEOUT', { retryable: true })
  // The bin's own cap (4 MiB).
  const big = await prepare(t, server, 'oversized/chunked/5000000')
  assertOutcome(big, await ask(big), 'provider_error', 'PROVIDER_RESPONSE_TOO_LARGE', { retryable: false })
})

test('H7: a compressed body is refused unread; nothing is ever decoded past the cap', async t => {
  const server = await startServer(t)
  for (const scenario of ['gzip', 'gzip-bomb']) {
    const p = await prepare(t, server, scenario)
    const o = assertOutcome(p, await askInProcess(p), 'provider_error', 'PROVIDER_ENCODING_REFUSED', { retryable: false })
    assert.match(o.reason.message, /gzip-encoded/)
    const kept = readJson(p, 'response.json')
    assert.equal(kept.body_bytes, 0)
    assert.equal((kept.headers as Record<string, string>)['content-encoding'], 'gzip')
  }
  assert.ok(server.requestsTo('gzip').every(r => r.headers['accept-encoding'] === 'identity'))
  // Positive control: fetch decodes the bomb far past a 1 MiB maxResponseSize.
  const agent = new Agent({ connect: { ca: server.tls.caPem }, maxResponseSize: 1 << 20 })
  const res = await fetch(`${server.baseUrl('gzip-bomb')}/responses`, { method: 'POST', body: '{}', dispatcher: agent })
  const decoded = (await res.arrayBuffer()).byteLength
  await agent.close()
  assert.ok(decoded > 4 << 20, `fetch decoded only ${decoded} bytes`)
})

test('H8: base_url rows are refused before any socket (userinfo, query, fragment, escapes, slash, http, ports, length, IDN, case, dot segments)', () => {
  const refused = [
    'https://user:pw@127.0.0.1:8443/v1', 'https://127.0.0.1:8443/v1?x=1', 'https://127.0.0.1:8443/v1#frag', 'https://127.0.0.1:8443/v%31',
    'https://127.0.0.1:8443/v1/', 'http://127.0.0.1:8443/v1', 'https://127.0.0.1:0/v1', 'https://127.0.0.1:65536/v1', `https://a.example/${'x'.repeat(4100)}`,
    'https://bücher.example/v1', 'HTTPS://api.example/v1', 'https://API.example/v1', 'https://api.example:443/v1', 'https://api.example/./v1',
    'https://api.example/a/../v1', 'https://api.example//v1', 'https://api.example:08443/v1', 'https://api example/v1',
  ]
  for (const u of refused) assert.equal(checkBaseUrl(u).ok, false, u)
  for (const u of ['https://api.openai.com/v1', 'https://127.0.0.1:8443/v1', 'https://[::1]:8443/v1', 'https://xn--bcher-kva.example/v1', 'https://llm.internal']) {
    assert.equal(checkBaseUrl(u).ok, true, u)
  }
})

test('H8: a base_url changed in the retained config is refused before any socket (binding), nothing sent', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const path = join(p.a.dir, 'inputs', 'execution.json')
  const cfg = JSON.parse(readFileSync(path, 'utf8')) as { provider: { base_url: string } }
  cfg.provider.base_url = 'https://user@127.0.0.1:1/v1'
  const { writeFileSync } = await import('node:fs')
  writeFileSync(path, JSON.stringify(cfg, null, 2) + '\n')
  const before = attemptFiles(p)
  const r = await askInProcess(p)
  assert.equal(r.exitCode, 65)
  assert.equal(r.records.find(x => x.kind === 'error')?.code, 'ATTEMPT_BINDING_MISMATCH', r.stderr)
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(server.requests.length, 0)
})

test('H9: the returned model may differ and is recorded; malformed and deep JSON are refused; the source is untouched', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'quirk/vllm-extras')
  const head = await gitT(p.f.repo, ['rev-parse', 'HEAD'])
  assert.equal((await askInProcess(p)).exitCode, 0)
  assert.equal(readJson(p, 'usage.json').server_model, 'openai/gpt-oss-20b')
  assert.equal(readJson(p, 'usage.json').requested_model, 'gpt-5-mini')
  for (const q of ['deep-json', 'not-json']) {
    const x = await prepare(t, server, `quirk/${q}`)
    assertOutcome(x, await askInProcess(x), 'provider_error', 'PROVIDER_RESPONSE_INVALID', { retryable: false })
  }
  assert.equal(await gitT(p.f.repo, ['rev-parse', 'HEAD']), head)
  assert.equal(await gitT(p.f.repo, ['status', '--porcelain']), '')
})

test('H10: resets, truncated bodies and non-HTTP answers are retryable transport errors; the attempt is consumed', async t => {
  const server = await startServer(t)
  for (const scenario of ['reset-before-headers', 'reset-mid-body', 'truncated', 'garbage']) {
    const p = await prepare(t, server, scenario)
    const r = await askInProcess(p)
    const o = assertOutcome(p, r, 'provider_error', 'PROVIDER_TRANSPORT', { retryable: true })
    assert.match(o.reason.message, /may or may not have generated/)
    assert.equal(hits(p), 1)
    if (scenario === 'reset-mid-body' || scenario === 'truncated') {
      const kept = readJson(p, 'response.json')
      assert.equal(kept.body_complete, false)
      assert.ok(isValid('response', kept))
    }
  }
  // A closed port (connection refused): the same class.
  const gone = createTcpServer()
  await new Promise<void>(resolve => gone.listen(0, '127.0.0.1', () => resolve()))
  const addr = gone.address()
  await new Promise<void>(resolve => gone.close(() => resolve()))
  const url = `https://127.0.0.1:${typeof addr === 'object' && addr !== null ? addr.port : 1}/v1/responses`
  const r = await callResponses({ url, body: Buffer.from('{}'), token: 't', limits: LIMITS })
  assert.ok(r.kind === 'failed' && r.code === 'PROVIDER_TRANSPORT' && r.retryable && /ECONNREFUSED/.test(r.message), JSON.stringify(r))
  // A plain-HTTP listener on the https port is a TLS handshake failure, not retryable.
  const plain = await tcpListener(t)
  const h = await callResponses({ url: `https://127.0.0.1:${plain.port}/v1/responses`, body: Buffer.from('{}'), token: 't', limits: LIMITS })
  assert.ok(h.kind === 'failed' && h.code === 'PROVIDER_TLS' && !h.retryable && /handshake/.test(h.message), JSON.stringify(h))
  // And through the bin: exit 69.
  const p = await prepare(t, server, 'reset-mid-body')
  assertOutcome(p, await ask(p), 'provider_error', 'PROVIDER_TRANSPORT', { retryable: true })
})

test('statuses: 429 and 5xx are retryable (69), other 4xx are not (1); nothing is retried', async t => {
  const server = await startServer(t)
  for (const [status, code, retryable] of [[429, 'PROVIDER_RATE_LIMITED', true], [500, 'PROVIDER_SERVER_ERROR', true], [503, 'PROVIDER_SERVER_ERROR', true], [400, 'PROVIDER_HTTP_ERROR', false], [403, 'PROVIDER_HTTP_ERROR', false], [404, 'PROVIDER_HTTP_ERROR', false]] as const) {
    const p = await prepare(t, server, `status/${status}`)
    assertOutcome(p, await askInProcess(p), 'provider_error', code, { retryable })
    assert.equal(hits(p), 1, `status ${status} was retried`)
  }
})
