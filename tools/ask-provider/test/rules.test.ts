// The pure rules of ask-provider, one by one: status classes, error-body summaries in every
// shape compatible servers use, the nesting bound, media types, the hostile-variable list,
// and the lenient-then-strict answer parser against the pinned lenient schema.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { classifyStatus, isJsonMediaType, jsonDepth, MAX_JSON_DEPTH, parseAnswer } from '@repairline/core'
import { errorSummary } from '../src/rules/error-body.ts'
import { assertNoHostileEnvironment, HOSTILE_VARIABLES } from '../src/rules/hostile-environment.ts'
import { completedBody, GO_FIX_PROPOSAL, QUIRKS } from '../../../test/helpers/responses-server.ts'
import { lenientResponseSchema, openaiExamples } from '../../../test/helpers/openai.ts'

test('classifyStatus: 2xx answer, 3xx redirect, 429 and 5xx retryable, the rest not', () => {
  assert.deepEqual(classifyStatus(200), { kind: 'answer' })
  assert.deepEqual(classifyStatus(204), { kind: 'answer' })
  for (const s of [301, 302, 304, 307, 308]) assert.deepEqual(classifyStatus(s), { kind: 'error', code: 'PROVIDER_REDIRECT', retryable: false })
  assert.deepEqual(classifyStatus(429), { kind: 'error', code: 'PROVIDER_RATE_LIMITED', retryable: true })
  for (const s of [500, 502, 503, 504, 599]) assert.deepEqual(classifyStatus(s), { kind: 'error', code: 'PROVIDER_SERVER_ERROR', retryable: true })
  for (const s of [400, 401, 403, 404, 408, 409, 422, 100]) assert.deepEqual(classifyStatus(s), { kind: 'error', code: 'PROVIDER_HTTP_ERROR', retryable: false }, String(s))
  for (const s of [600, 799, 999, 99]) assert.deepEqual(classifyStatus(s), { kind: 'error', code: 'PROVIDER_RESPONSE_INVALID', retryable: false }, String(s))
})

test('errorSummary reads every documented error shape, and quotes anything else', () => {
  const j = (v: unknown) => Buffer.from(JSON.stringify(v))
  assert.equal(errorSummary(j({ error: { message: 'bad', type: 'invalid_request_error', param: 'text.format.name', code: 'missing_required_parameter' } }), 'application/json'), 'bad; type invalid_request_error; code missing_required_parameter; param text.format.name')
  assert.equal(errorSummary(j({ error: { message: 'nf', type: 'not_found_error', code: 404 } }), 'application/json'), 'nf; type not_found_error; code 404')
  assert.equal(errorSummary(j({ error: 'plain string' }), 'application/json'), 'plain string')
  assert.equal(errorSummary(j({ object: 'error', message: 'legacy', type: 'BadRequestError', code: 400 }), 'application/json'), 'legacy; type BadRequestError; code 400')
  assert.match(errorSummary(j({ detail: [{ msg: 'field required' }] }), 'application/json'), /^detail .*field required/)
  assert.match(errorSummary(Buffer.from('<html>502</html>'), 'text/html'), /^a text\/html body: <html>502/)
  assert.equal(errorSummary(Buffer.alloc(0), undefined), 'an empty body')
  assert.ok(errorSummary(j({ error: { message: 'x'.repeat(1000) } }), 'application/json').length <= 300)
})

test('jsonDepth counts brackets outside strings only and stops past the bound', () => {
  assert.equal(jsonDepth(Buffer.from('{"a":[1,{"b":"[[[[{{{{"}]}')), 3)
  assert.equal(jsonDepth(Buffer.from('"\\"[[["')), 0)
  assert.equal(jsonDepth(Buffer.from('['.repeat(100_000))), MAX_JSON_DEPTH + 1)
})

test('isJsonMediaType: application/json and +json, with parameters', () => {
  for (const t of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/problem+json']) assert.ok(isJsonMediaType(t), t)
  for (const t of [undefined, '', 'text/plain', 'text/json', 'application/jsonx', 'text/html; application/json']) assert.ok(!isJsonMediaType(t), String(t))
})

test('the hostile variables are exactly the ones DESIGN §5 lists, refused even when empty', () => {
  assert.deepEqual([...HOSTILE_VARIABLES].sort(), ['NODE_DEBUG', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'NODE_USE_ENV_PROXY', 'SSLKEYLOGFILE', 'SSL_CERT_DIR', 'SSL_CERT_FILE'])
  assert.doesNotThrow(() => assertNoHostileEnvironment({ PATH: '/usr/bin', HTTPS_PROXY: 'http://x' }))
  assert.throws(() => assertNoHostileEnvironment({ NODE_OPTIONS: '' }), (e: { code?: string }) => e.code === 'HOSTILE_ENVIRONMENT')
})

test('parseAnswer accepts what the lenient schema accepts among usable answers, and judges the rest strictly', () => {
  const lenient = lenientResponseSchema()
  const text = JSON.stringify(GO_FIX_PROPOSAL)
  const usable = [completedBody(text), completedBody(text, { usage: null }), { output: [{ type: 'message', content: [{ type: 'output_text', text }] }] }]
  for (const b of usable) {
    assert.ok(lenient(b), JSON.stringify(lenient.errors))
    const r = parseAnswer(Buffer.from(JSON.stringify(b)), 'application/json', 4000)
    assert.ok(r.ok, JSON.stringify(r))
    assert.equal(r.ok && r.text, text)
  }
  // Every 200 example passes the lenient schema, and none of them is a usable proposal answer except the completed one.
  for (const ex of openaiExamples().filter(e => e.http_status === 200)) {
    assert.ok(lenient(ex.body), ex.name)
    const r = parseAnswer(Buffer.from(JSON.stringify(ex.body)), 'application/json', 4096)
    assert.equal(r.ok, ex.name === '200-completed-json_schema', `${ex.name}: ${JSON.stringify(r)}`)
  }
  // The lenient schema refuses a body without output; so does parseAnswer.
  const q = QUIRKS['output-missing']?.({ body: {} }, text)
  assert.ok(q !== undefined && typeof q.body === 'string')
  assert.equal(lenient(JSON.parse(q.body)), false)
  assert.equal(parseAnswer(Buffer.from(q.body), 'application/json', 4000).ok, false)
  // Output tokens at the cap are a truncation whatever the status says; one below is fine.
  const at = completedBody(text, { usage: { input_tokens: 1, output_tokens: 4000 } })
  assert.equal(parseAnswer(Buffer.from(JSON.stringify(at)), 'application/json', 4000).ok, false)
  assert.equal(parseAnswer(Buffer.from(JSON.stringify(at)), 'application/json', 4001).ok, true)
  // Usage all zero beside an answer is "not reported", never 0.
  const zero = parseAnswer(Buffer.from(JSON.stringify(completedBody(text, { usage: { input_tokens: 0, output_tokens: 0 } }))), 'application/json', 4000)
  assert.ok(zero.ok && zero.report.tokens === null)
})

test('parseAnswer reads the assistant only, UTF-8 only, and refuses a completed body beside an error', () => {
  const text = JSON.stringify(GO_FIX_PROPOSAL)
  const body = (b: object): Buffer => Buffer.from(JSON.stringify(b))
  const ok = completedBody(text)
  // Controls: the same body passes, with or without an explicit UTF-8 charset.
  for (const ct of ['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) assert.ok(parseAnswer(body(ok), ct, 4000).ok, ct)
  const charset = parseAnswer(body(ok), 'application/json; charset=utf-16', 4000)
  assert.ok(!charset.ok && charset.code === 'PROVIDER_RESPONSE_INVALID' && /charset/.test(charset.message))
  const user = { output: [{ type: 'message', role: 'user', content: [{ type: 'output_text', text }] }] }
  const u = parseAnswer(body(user), 'application/json', 4000)
  assert.ok(!u.ok && u.code === 'PROVIDER_RESPONSE_INVALID', JSON.stringify(u))
  const withError = { ...ok, error: { code: 'server_error', message: 'boom' } }
  const e = parseAnswer(body(withError), 'application/json', 4000)
  assert.ok(!e.ok && e.code === 'PROVIDER_RESPONSE_INVALID' && /contradicts/.test(e.message), JSON.stringify(e))
})
