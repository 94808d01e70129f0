// A local HTTPS Responses-compatible server for tests and the demo. It listens on 127.0.0.1
// with a certificate from a throwaway CA (tls.ts), records every request it receives (method,
// path, headers, body), and answers by scenario: the base_url's path selects one, so one
// server serves every test — provider.base_url = https://127.0.0.1:<port>/<scenario> and the
// client POSTs <scenario>/responses.
//
//   ok                        a completed response carrying `server.proposal`
//   proposal/<name>           the same, carrying server.proposals.get(name) (any JSON value)
//   sequence/<name>           the n-th request to it carries server.sequences.get(name)[n] (the
//                             last one again once the list is used up): a repair's answers
//   answer/<name>             server.answers.get(name) verbatim: status, headers, body
//   example/<file>            test/fixtures/responses-api/examples/<file>.json verbatim
//   example-with-proposal/<file>  that example's envelope, its output text replaced by the proposal
//   quirk/<name>              a documented deviation of a compatible server (QUIRKS below)
//   status/<code>             an OpenAI-shaped error body with that status
//   redirect/<301|302|307|308>  a redirect to https://localhost:<port>/target/responses
//   target                    the redirect target (a client that follows shows up here)
//   gzip, gzip-bomb           a gzip-encoded answer; 64 KiB that inflates to 16 MiB
//   trickle/<ms>/<bytes>      headers at once, then one byte every <ms>
//   slow-headers              never answers
//   stall-body                headers and one byte, then nothing
//   reset-before-headers      destroys the connection on arrival
//   reset-mid-body            headers and half the body, then a reset
//   truncated                 a content-length longer than the bytes sent, then a clean close
//   garbage                   bytes that are not HTTP
//   oversized/<cl|chunked|close>/<bytes>  a body of that size, framed that way
//   stall-body[/<bytes>]      declares content-length (default 100), sends one byte, stalls
//   echo-auth/<status>        echoes the Authorization header: raw, base64, hex, URL, reversed,
//                             double base64, in the body and in a response header
//   hang, half-then-hang      emit 'hang' once the request (or half the body) is in, then never
//                             finish: the crash tests kill the client at that moment
//
// Started from a script (the demo), it prints one JSON line {port, ca_file} and serves until
// SIGTERM; with --log FILE it appends one JSON line per request with the Authorization value
// replaced by its sha256 (the token never reaches a file).

import { EventEmitter } from 'node:events'
import { createHash } from 'node:crypto'
import { appendFileSync, readFileSync, realpathSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { makeTls, type CertPair, type TlsMaterial } from './tls.ts'
import { OPENAI_FIXTURES } from './openai.ts'

export interface ReceivedRequest {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export interface Answer {
  status: number
  headers?: Record<string, string>
  body: string | Buffer | object
}

/** A proposal that repairs the go fixture (calc.go: Add subtracts). */
export const GO_FIX_PROPOSAL = {
  summary: { cause: 'Add subtracts its second operand instead of adding it.', change: 'Add returns a plus b.', risk: 'Low: only the operator in Add changes.' },
  edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }],
}

/** A proposal that repairs the node fixture (src/calc.js: add subtracts). */
export const NODE_FIX_PROPOSAL = {
  summary: { cause: 'add subtracts its second operand instead of adding it.', change: 'add returns a plus b.', risk: 'Low: only the operator in add changes.' },
  edits: [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b' }],
}

/** A completed Responses body whose one message holds `text`, shaped like the spec's examples. */
export function completedBody (text: string, o: { model?: string, maxOutputTokens?: number, usage?: object | null, extra?: object } = {}): Record<string, unknown> {
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1767225600,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: o.model ?? 'gpt-5-mini-2025-08-07',
    output: [
      { id: 'rs_test', type: 'reasoning', summary: [] },
      { id: 'msg_test', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] },
    ],
    parallel_tool_calls: true,
    store: false,
    tools: [],
    max_output_tokens: o.maxOutputTokens ?? 4000,
    usage: o.usage === undefined ? { input_tokens: 1874, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 412, output_tokens_details: { reasoning_tokens: 128 }, total_tokens: 2286 } : o.usage,
    metadata: {},
    ...o.extra,
  }
}

type Quirk = (req: { body: Record<string, unknown> }, proposalText: string) => Answer

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

/** Deviations documented for Responses-compatible servers (research REPORT §4, §6). */
export const QUIRKS: Record<string, Quirk> = {
  // Ollama, older vLLM, omlx: truncated at max_output_tokens but reported completed.
  'ollama-truncated': (req, p) => {
    const max = Number(req.body.max_output_tokens ?? 4000)
    return json(200, completedBody(p.slice(0, Math.floor(p.length / 2)), { model: 'qwen3:8b', usage: { input_tokens: 900, output_tokens: max, total_tokens: 900 + max, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } }))
  },
  // Ollama again, with complete JSON but the budget used up: still a truncation sign.
  'output-at-cap': (req, p) => json(200, completedBody(p, { usage: { input_tokens: 900, output_tokens: Number(req.body.max_output_tokens ?? 4000), total_tokens: 1 } })),
  // vLLM #24184: max_output_tokens hit, status completed, output [], usage all zero.
  'vllm-empty': () => json(200, { ...completedBody(''), output: [], usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, input_tokens_details: { cached_tokens: 0 } }, created_at: 1767225600.25, model: 'openai/gpt-oss-20b' }),
  // LM Studio (rig#1021): no object, tools, annotations, logprobs or token details.
  'lmstudio-minimal': (_r, p) => json(200, { id: 'resp_lms', created_at: 1767225600, status: 'completed', model: 'local-model', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: p }] }], usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } }),
  // Status and usage are optional in the spec.
  'no-status-no-usage': (_r, p) => {
    const b = completedBody(p)
    delete b.status
    delete b.usage
    return json(200, b)
  },
  // vLLM: logprobs null, float created_at, extra usage fields, served model name.
  'vllm-extras': (_r, p) => {
    const b = completedBody(p, { model: 'openai/gpt-oss-20b', usage: { input_tokens: 50, output_tokens: 60, total_tokens: 110, input_tokens_per_turn: [50], output_tokens_details: null } })
    ;((b.output as Array<{ content?: Array<{ logprobs?: unknown }> }>)[1]?.content ?? []).forEach(c => { c.logprobs = null })
    b.created_at = 1767225600.5
    return json(200, b)
  },
  // OpenRouter reports a measured cost in usage.
  'openrouter-cost': (_r, p) => json(200, completedBody(p, { model: 'openai/gpt-5-mini', usage: { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cost: 0.00065, cost_details: { upstream_inference_cost: null } } })),
  // llama.cpp #21922: text.format not passed through, the answer is prose.
  'llamacpp-prose': () => json(200, completedBody('Sure! Change the minus to a plus in calc.go and the test passes.', { model: 'ggml-model' })),
  // Codex-style phases: only the final_answer message counts.
  phases: (_r, p) => {
    const b = completedBody(p)
    const out = b.output as Array<Record<string, unknown>>
    out.splice(1, 0, { id: 'msg_c', type: 'message', status: 'completed', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'Thinking about calc.go ...', annotations: [] }] })
    ;(out[2] as Record<string, unknown>).phase = 'final_answer'
    return json(200, b)
  },
  // The budget went into reasoning: no message, status still completed.
  'reasoning-no-message': () => json(200, { ...completedBody(''), output: [{ id: 'rs', type: 'reasoning', summary: [] }] }),
  // Errors in the shapes compatible servers use.
  'vllm-legacy-400': () => json(400, { object: 'error', message: 'max_output_tokens must be at least 1', type: 'BadRequestError', param: null, code: 400 }),
  'vllm-500-empty': () => json(500, { error: { message: '', type: 'InternalServerError', param: null, code: 500 } }),
  'lmstudio-string-error': () => json(400, { error: "'text.format' is not supported" }),
  'llamacpp-404': () => json(404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }),
  'fastapi-422': () => json(422, { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'value_error.missing' }] }),
  'html-502': () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }),
  // Bodies that must not parse as a usable answer.
  'deep-json': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: `{"output":${'['.repeat(100_000)}${']'.repeat(100_000)}}` }),
  'duplicate-keys': (_r, p) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: `{"output":[],"output":${JSON.stringify(completedBody(p).output)}}` }),
  'not-json': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: 'this is not json' }),
  'text-plain': (_r, p) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: JSON.stringify(completedBody(p)) }),
  'status-queued': (_r, p) => json(200, { ...completedBody(p), status: 'queued' }),
  'output-missing': () => {
    const b = completedBody('')
    delete b.output
    return json(200, b)
  },
  'x-should-retry-false-503': () => json(503, { error: { message: 'overloaded', type: 'server_error', param: null, code: null } }, { 'x-should-retry': 'false' }),
}

function exampleFile (name: string): { http_status: number, response_headers: Record<string, string>, body: unknown } {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`bad example name ${name}`)
  return JSON.parse(readFileSync(join(OPENAI_FIXTURES, 'examples', `${name}.json`), 'utf8')) as never
}

/** The body the echo route sends: the Authorization header in every encoding a leak takes. */
function echoBody (auth: string): Record<string, string> {
  const b64 = Buffer.from(auth).toString('base64')
  return {
    raw: auth,
    base64: b64,
    base64url: Buffer.from(auth).toString('base64url'),
    hex: Buffer.from(auth).toString('hex'),
    url: encodeURIComponent(auth),
    reversed: [...auth].reverse().join(''),
    double_base64: Buffer.from(b64).toString('base64'),
  }
}

export interface ServerOptions {
  tls: TlsMaterial
  /** Which certificate to present (default: good). */
  cert?: 'good' | 'selfSigned' | 'otherCa' | 'wrongName'
  port?: number
  /** Append one JSON line per request here, with the Authorization value hashed. */
  log?: string
}

export class ResponsesServer extends EventEmitter {
  readonly requests: ReceivedRequest[] = []
  proposal: unknown = GO_FIX_PROPOSAL
  readonly proposals = new Map<string, unknown>()
  readonly sequences = new Map<string, unknown[]>()
  readonly answers = new Map<string, Answer>()
  /** Every body this server sent, for positive controls (the echo really carried the token). */
  readonly sent: Buffer[] = []
  private readonly sockets = new Set<Socket>()
  private readonly timers = new Set<NodeJS.Timeout>()
  /** The TCP sockets under the TLS ones, by remote address and port. */
  private readonly raw = new Map<string, Socket>()

  private constructor (private readonly server: Server, readonly port: number, readonly tls: TlsMaterial, private readonly log?: string) {
    super()
  }

  static async start (o: ServerOptions): Promise<ResponsesServer> {
    const pair: CertPair = o.tls[o.cert ?? 'good']
    const server = createServer({ key: pair.key, cert: pair.cert })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(o.port ?? 0, '127.0.0.1', () => resolve())
    })
    const addr = server.address()
    if (addr === null || typeof addr === 'string') throw new Error('no port')
    const s = new ResponsesServer(server, addr.port, o.tls, o.log)
    server.on('connection', (sock: Socket) => {
      const key = `${sock.remoteAddress ?? ''}:${sock.remotePort ?? 0}`
      s.raw.set(key, sock)
      sock.on('close', () => s.raw.delete(key))
      sock.on('error', () => {})
    })
    server.on('secureConnection', (sock: Socket) => {
      s.sockets.add(sock)
      sock.on('close', () => s.sockets.delete(sock))
    })
    server.on('tlsClientError', () => {})
    server.on('request', (req: IncomingMessage, res: ServerResponse) => { s.handle(req, res) })
    return s
  }

  /** The base_url for a scenario. */
  baseUrl (scenario: string): string {
    return `https://127.0.0.1:${this.port}/${scenario}`
  }

  /** Requests whose path starts with `/<prefix>`. */
  requestsTo (prefix: string): ReceivedRequest[] {
    return this.requests.filter(r => r.path.startsWith(`/${prefix}`))
  }

  /** A TCP reset (RST) under the TLS connection, as a crashed peer or middlebox sends. */
  private reset (sock: Socket): void {
    const raw = this.raw.get(`${sock.remoteAddress ?? ''}:${sock.remotePort ?? 0}`)
    if (raw !== undefined && !raw.destroyed) raw.resetAndDestroy()
    else sock.destroy()
  }

  private later (ms: number, fn: () => void): void {
    const t = setTimeout(() => { this.timers.delete(t); fn() }, ms)
    this.timers.add(t)
  }

  private proposalText (name?: string): string {
    const p = name === undefined ? this.proposal : this.proposals.get(name)
    return typeof p === 'string' ? p : JSON.stringify(p)
  }

  private handle (req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const rec: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(chunks) }
      this.requests.push(rec)
      if (this.log !== undefined) {
        const auth = req.headers.authorization
        appendFileSync(this.log, JSON.stringify({ method: rec.method, path: rec.path, bytes: rec.body.length, authorization_sha256: auth === undefined ? null : createHash('sha256').update(auth).digest('hex') }) + '\n')
      }
      this.emit('request', rec)
      try {
        this.answer(rec, req, res)
      } catch (e) {
        this.send(res, json(500, { error: { message: `test server: ${(e as Error).message}`, type: 'server_error', param: null, code: null } }))
      }
    })
  }

  private send (res: ServerResponse, a: Answer, raw = false): void {
    const body = Buffer.isBuffer(a.body) ? a.body : Buffer.from(typeof a.body === 'string' ? a.body : JSON.stringify(a.body))
    this.sent.push(body)
    res.writeHead(a.status, { ...(raw ? {} : { 'content-length': String(body.length) }), ...a.headers })
    res.end(body)
  }

  private answer (rec: ReceivedRequest, req: IncomingMessage, res: ServerResponse): void {
    const m = /^\/(.+)\/responses$/.exec(rec.path)
    if (m === null) { this.send(res, json(404, { error: { message: `no route ${rec.path}`, type: 'not_found', param: null, code: null } })); return }
    const parts = (m[1] ?? '').split('/')
    const [head = '', a1 = '', a2 = ''] = parts
    let reqBody: Record<string, unknown> = {}
    try { reqBody = JSON.parse(rec.body.toString('utf8')) as Record<string, unknown> } catch {}
    const model = typeof reqBody.model === 'string' ? `${reqBody.model}-2025-08-07` : 'unknown'
    const ok = (text: string): Answer => json(200, completedBody(text, { model, maxOutputTokens: Number(reqBody.max_output_tokens ?? 4000) }))
    const sock = req.socket
    switch (head) {
      case 'ok': case 'target': this.send(res, ok(this.proposalText())); return
      case 'proposal': this.send(res, ok(this.proposalText(a1))); return
      case 'sequence': {
        const list = this.sequences.get(a1) ?? []
        const n = this.requests.filter(r => r.path === rec.path).length - 1
        const p = list[Math.min(n, list.length - 1)]
        if (p === undefined) throw new Error(`no sequence ${a1}`)
        this.send(res, ok(typeof p === 'string' ? p : JSON.stringify(p)))
        return
      }
      case 'answer': {
        const a = this.answers.get(a1)
        if (a === undefined) throw new Error(`no answer ${a1}`)
        this.send(res, a)
        return
      }
      case 'example': case 'example-with-proposal': {
        const ex = exampleFile(a1)
        let body = ex.body as Record<string, unknown>
        if (head === 'example-with-proposal') {
          body = structuredClone(body)
          for (const item of body.output as Array<{ type: string, content?: Array<{ type: string, text?: string }> }>) {
            for (const c of item.content ?? []) if (c.type === 'output_text') c.text = this.proposalText()
          }
        }
        this.send(res, { status: ex.http_status, headers: ex.response_headers, body: JSON.stringify(body) })
        return
      }
      case 'quirk': {
        const q = QUIRKS[a1]
        if (q === undefined) throw new Error(`no quirk ${a1}`)
        this.send(res, q({ body: reqBody }, this.proposalText()))
        return
      }
      case 'status': this.send(res, json(Number(a1), { error: { message: `status ${a1} from the test server`, type: 'server_error', param: null, code: null } })); return
      case 'redirect':
        this.send(res, { status: Number(a1), headers: { location: `https://localhost:${this.port}/target/responses`, 'content-type': 'application/json' }, body: '{}' })
        return
      case 'gzip': case 'gzip-bomb': {
        const plain = head === 'gzip' ? Buffer.from(JSON.stringify(completedBody(this.proposalText(), { model }))) : Buffer.alloc(16 << 20, 0x20)
        this.send(res, { status: 200, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(plain) })
        return
      }
      case 'trickle': {
        const every = Number(a1)
        let left = Number(a2)
        res.writeHead(200, { 'content-type': 'application/json' })
        const tick = (): void => {
          if (res.destroyed || left <= 0) { res.end(); return }
          res.write(' ')
          left--
          this.later(every, tick)
        }
        tick()
        return
      }
      case 'slow-headers': return
      case 'stall-body': res.writeHead(200, { 'content-type': 'application/json', 'content-length': a1 === '' ? '100' : a1 }); res.write('{'); return
      case 'reset-before-headers': this.reset(sock); return
      case 'reset-mid-body': case 'truncated': case 'half-then-hang': {
        const body = Buffer.from(JSON.stringify(completedBody(this.proposalText())))
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) })
        res.write(body.subarray(0, body.length >> 1), () => {
          if (head === 'reset-mid-body') this.reset(sock)
          else if (head === 'truncated') sock.destroy()
          else this.emit('hang', rec)
        })
        return
      }
      case 'garbage': sock.end('HTTP/1.1 2OO NOT-A-STATUS\r\nthis is: not http\r\n\r\n'); return
      case 'oversized': {
        const size = Number(a2)
        const body = Buffer.alloc(size, 0x20)
        if (a1 === 'cl') { this.send(res, { status: 200, headers: { 'content-type': 'application/json' }, body }); return }
        if (a1 === 'close') {
          res.useChunkedEncodingByDefault = false
          res.shouldKeepAlive = false
        }
        res.writeHead(200, { 'content-type': 'application/json', ...(a1 === 'close' ? { connection: 'close' } : {}) })
        for (let off = 0; off < size; off += 65536) res.write(body.subarray(off, Math.min(size, off + 65536)))
        res.end()
        return
      }
      case 'echo-auth': {
        const auth = String(req.headers.authorization ?? '')
        const status = Number(a1)
        const echo = echoBody(auth)
        const body = status === 200
          ? { ...completedBody(this.proposalText(), { model }), echo }
          : { error: { message: `Incorrect API key provided: ${auth}. Encoded: ${Object.values(echo).join(' ')}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' }, echo }
        this.send(res, { status, headers: { 'content-type': 'application/json', 'x-echo-authorization': auth, 'x-request-id': echo.base64 ?? '' }, body: JSON.stringify(body) })
        return
      }
      case 'hang': this.emit('hang', rec); return
      default: this.send(res, json(404, { error: { message: `unknown scenario ${head}`, type: 'not_found', param: null, code: null } }))
    }
  }

  async close (): Promise<void> {
    for (const t of this.timers) clearTimeout(t)
    for (const s of this.sockets) s.destroy()
    this.server.closeAllConnections()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }
}

// Run as a script: node --import tsx test/helpers/responses-server.ts --dir DIR [--port N] [--log FILE]
const self = fileURLToPath(import.meta.url)
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(self)) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`)
    return i === -1 ? undefined : process.argv[i + 1]
  }
  const dir = arg('dir')
  if (dir === undefined) throw new Error('usage: responses-server.ts --dir DIR [--port N] [--log FILE]')
  const tls = await makeTls(join(dir, 'tls'))
  const port = arg('port')
  const log = arg('log')
  const server = await ResponsesServer.start({ tls, ...(port === undefined ? {} : { port: Number(port) }), ...(log === undefined ? {} : { log }) })
  process.stdout.write(JSON.stringify({ port: server.port, ca_file: tls.caFile }) + '\n')
  const stop = (): void => { void server.close() }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
