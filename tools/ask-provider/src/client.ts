// The one HTTPS call (DESIGN §5, threat-matrix §8): undici request() (through
// undici-lean.ts) — never fetch, which follows redirects and decompresses past any size cap — on a dedicated Agent that no
// environment variable configures: no redirect interceptor (a 3xx comes back as a status),
// no proxy agent, `rejectUnauthorized: true` set explicitly (NODE_TLS_REJECT_UNAUTHORIZED
// cannot turn it off), Node's bundled roots plus the optional ca_file as the only extra
// trust, HTTP/1.1 only. It sends `accept-encoding: identity` and refuses any other
// content-encoding without reading the body; it counts body bytes itself against the cap
// (and undici's maxResponseSize backs that up), and it bounds the call three ways: headers
// timeout, body idle timeout, and a total deadline (AbortSignal) that a trickle cannot
// stretch. It never retries. The token is one header; no error message here can hold it.

import { rootCertificates } from 'node:tls'
import { Agent, requestOn } from './undici-lean.ts'
import type { ProviderLimits } from './limits.ts'

export type ProviderFailureCode =
  | 'PROVIDER_TIMEOUT' | 'PROVIDER_TRANSPORT' | 'PROVIDER_TLS' | 'PROVIDER_RESPONSE_TOO_LARGE' | 'PROVIDER_ENCODING_REFUSED'

export interface HttpResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
}

export type CallResult =
  | { kind: 'response', response: HttpResponse }
  | {
    kind: 'failed'
    code: ProviderFailureCode
    message: string
    retryable: boolean
    /** The total deadline fired. */
    deadline: boolean
    /** What had arrived when it failed: status, headers and the body bytes so far. */
    partial?: HttpResponse
  }

export interface CallInput {
  url: string
  body: Buffer
  token: string
  caPem?: string
  limits: Pick<ProviderLimits, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'totalMs' | 'maxResponseBytes'>
}

export const USER_AGENT = 'repairline-ask-provider/1'

function headerMap (raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  return out
}

const CERT_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH/
const HANDSHAKE_CODE = /^ERR_SSL_|^ERR_TLS_|^EPROTO$/

/** Classifies what undici threw: every failure is typed, nothing is unknown. */
function classify (e: unknown, deadlineFired: boolean, limits: CallInput['limits']): { code: ProviderFailureCode, message: string, retryable: boolean } {
  const err = e as { code?: string, name?: string, message?: string, cause?: { code?: string, message?: string } }
  const code = err.code ?? err.cause?.code ?? ''
  const msg = err.message ?? String(e)
  if (deadlineFired || err.name === 'TimeoutError' || err.name === 'AbortError' || code === 'UND_ERR_ABORTED') {
    return { code: 'PROVIDER_TIMEOUT', message: `the call did not finish within its total deadline of ${limits.totalMs} ms`, retryable: true }
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { code: 'PROVIDER_TIMEOUT', message: `no response headers within ${limits.headersTimeoutMs} ms`, retryable: true }
  if (code === 'UND_ERR_BODY_TIMEOUT') return { code: 'PROVIDER_TIMEOUT', message: `the body stalled for ${limits.bodyTimeoutMs} ms`, retryable: true }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { code: 'PROVIDER_TIMEOUT', message: `no connection within ${limits.connectTimeoutMs} ms`, retryable: true }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { code: 'PROVIDER_RESPONSE_TOO_LARGE', message: `the response body is over ${limits.maxResponseBytes} bytes`, retryable: false }
  if (CERT_CODE.test(code)) return { code: 'PROVIDER_TLS', message: `the server certificate did not verify: ${code}: ${msg.trim()}`, retryable: false }
  if (HANDSHAKE_CODE.test(code)) return { code: 'PROVIDER_TLS', message: `the TLS handshake failed (is it an https endpoint?): ${code}: ${msg.trim()}`, retryable: false }
  return { code: 'PROVIDER_TRANSPORT', message: `transport failure${code === '' ? '' : ` ${code}`}: ${msg}; the server may or may not have generated an answer`, retryable: true }
}

/** Makes the one POST. Never throws for a network or protocol failure: it returns it, typed. */
export async function callResponses (c: CallInput): Promise<CallResult> {
  const agent = new Agent({
    connect: {
      rejectUnauthorized: true,
      ...(c.caPem === undefined ? {} : { ca: [...rootCertificates, c.caPem] }),
      timeout: c.limits.connectTimeoutMs,
      ALPNProtocols: ['http/1.1'],
    },
    headersTimeout: c.limits.headersTimeoutMs,
    bodyTimeout: c.limits.bodyTimeoutMs,
    maxResponseSize: c.limits.maxResponseBytes,
    connections: 1,
    pipelining: 1,
    allowH2: false,
  })
  const controller = new AbortController()
  let deadlineFired = false
  // The signal does not reach a connection still being made (TCP or TLS): at the deadline the
  // agent is destroyed too, or a silent server held the call until the connect timeout.
  const timer = setTimeout(() => {
    deadlineFired = true
    controller.abort(new Error('total deadline'))
    agent.destroy(new Error('total deadline')).catch(() => {})
  }, c.limits.totalMs)
  let partial: HttpResponse | undefined
  const chunks: Buffer[] = []
  try {
    const res = await requestOn(agent, c.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${c.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'accept-encoding': 'identity',
        'user-agent': USER_AGENT,
      },
      body: c.body,
      signal: controller.signal,
    })
    // Destroying the body to stop reading makes it emit an abort error: nobody is listening then.
    res.body.on('error', () => {})
    const headers = headerMap(res.headers)
    partial = { status: res.statusCode, headers, body: Buffer.alloc(0) }
    const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase()
    if (encoding !== 'identity' && encoding !== '') {
      res.body.destroy()
      return { kind: 'failed', code: 'PROVIDER_ENCODING_REFUSED', message: `the response is ${encoding}-encoded; only identity was accepted and nothing is decoded`, retryable: false, deadline: false, partial }
    }
    // A declared length over the cap is refused before a byte is read: the body might never come.
    const declared = Number(headers['content-length'] ?? '0')
    if (declared > c.limits.maxResponseBytes) {
      res.body.destroy()
      return { kind: 'failed', code: 'PROVIDER_RESPONSE_TOO_LARGE', message: `the response declares a body of ${headers['content-length'] ?? ''} bytes, over ${c.limits.maxResponseBytes} bytes; none of it was read`, retryable: false, deadline: false, partial }
    }
    let n = 0
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      n += chunk.length
      if (n > c.limits.maxResponseBytes) {
        res.body.destroy()
        partial.body = Buffer.concat(chunks)
        return { kind: 'failed', code: 'PROVIDER_RESPONSE_TOO_LARGE', message: `the response body is over ${c.limits.maxResponseBytes} bytes`, retryable: false, deadline: false, partial }
      }
      chunks.push(chunk)
    }
    return { kind: 'response', response: { status: res.statusCode, headers, body: Buffer.concat(chunks) } }
  } catch (e) {
    if (partial !== undefined) partial.body = Buffer.concat(chunks)
    return { kind: 'failed', ...classify(e, deadlineFired, c.limits), deadline: deadlineFired, ...(partial === undefined ? {} : { partial }) }
  } finally {
    clearTimeout(timer)
    await agent.destroy().catch(() => {})
  }
}
