// undici-lean.ts loads two of undici's modules instead of its index. Against the local HTTPS
// server (throwaway CA), the same POST through requestOn and through the package's own
// request() must reach the server identically (method, path with query, every header, body)
// and come back identically (status, headers, body); the options that bound the call (the
// headers timeout, the abort signal) must take effect through it too.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Agent as FullAgent, request as fullRequest } from 'undici'
import { Agent, requestOn } from '../src/undici-lean.ts'
import { startServer } from './helpers.ts'

const HEADERS = { authorization: 'Bearer not-a-secret', 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'repairline-test' }

test('requestOn sends and receives exactly what undici\'s request() does', async t => {
  const server = await startServer(t)
  server.answers.set('same', { status: 201, headers: { 'content-type': 'application/json', 'x-echo': 'yes' }, body: { ok: true, n: 7 } })
  const body = JSON.stringify({ model: 'm', input: 'héllo' })
  // The second URL carries a query (the server answers it 404: still one answer to compare).
  for (const [url, status] of [[`${server.baseUrl('answer/same')}/responses`, 201], [`${server.baseUrl('answer/same')}/responses?api-version=1&x=%20y`, 404]] as const) {
    const results = []
    for (const via of ['lean', 'full'] as const) {
      const agent = via === 'lean' ? new Agent({ connect: { ca: server.tls.caPem, rejectUnauthorized: true } }) : new FullAgent({ connect: { ca: server.tls.caPem, rejectUnauthorized: true } })
      const options = { method: 'POST' as const, headers: HEADERS, body }
      const res = via === 'lean' ? await requestOn(agent, url, options) : await fullRequest(url, { ...options, dispatcher: agent })
      results.push({ status: res.statusCode, headers: { ...res.headers, date: undefined, 'keep-alive': undefined }, body: Buffer.from(await res.body.arrayBuffer()).toString() })
      await agent.close()
    }
    const [lean, full] = results
    assert.deepEqual(lean, full)
    assert.equal(lean?.status, status)
    const seen = server.requests.slice(-2)
    assert.equal(seen.length, 2)
    const [a, b] = seen
    assert.equal(a?.method, 'POST')
    assert.equal(a?.path, new URL(url).pathname + new URL(url).search)
    assert.deepEqual({ ...a, headers: { ...a?.headers } }, { ...b, headers: { ...b?.headers } })
    assert.equal(a?.body.toString(), body)
  }
  assert.equal(server.requests.length, 4)
})

test('requestOn: the headers timeout and the abort signal take effect (positive control: the same agent answers)', async t => {
  const server = await startServer(t)
  const agent = new Agent({ connect: { ca: server.tls.caPem }, headersTimeout: 300 })
  t.after(async () => { await agent.destroy() })
  await assert.rejects(requestOn(agent, `${server.baseUrl('slow-headers')}/responses`, { method: 'POST', body: '{}' }), (e: Error & { code?: string }) => e.code === 'UND_ERR_HEADERS_TIMEOUT')
  const controller = new AbortController()
  setTimeout(() => { controller.abort(new Error('deadline')) }, 100)
  await assert.rejects(requestOn(agent, `${server.baseUrl('slow-headers')}/responses`, { method: 'POST', body: '{}', signal: controller.signal }), /deadline/)
  server.answers.set('fine', { status: 200, body: { ok: true } })
  const res = await requestOn(agent, `${server.baseUrl('answer/fine')}/responses`, { method: 'POST', body: '{}' })
  assert.equal(res.statusCode, 200)
  await res.body.dump()
})
