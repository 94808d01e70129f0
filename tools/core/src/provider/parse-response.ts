// A 2xx body, parsed leniently and then judged strictly (research REPORT §3–§7).
//
// Lenient: status, usage, object, tools, annotations, logprobs and token details may be
// missing or null, created_at may be a float, unknown fields are ignored. What must hold: a
// JSON media type, nesting within bounds, strict JSON (UTF-8, no BOM, no duplicate keys), an
// object with an `output` array of typed items.
//
// Strict, in this order:
//   status failed (or no status and an error)         → PROVIDER_FAILED (retryable when the
//                                                        error is server_error or rate_limit_exceeded)
//   status incomplete (or no status and incomplete_details) → PROVIDER_INCOMPLETE
//   status cancelled / queued / in_progress           → PROVIDER_RESPONSE_INVALID (not a synchronous answer)
//   a refusal part                                    → PROVIDER_REFUSAL
//   no output_text (reasoning only: the budget went)  → PROVIDER_INCOMPLETE
//   no output_text at all                             → PROVIDER_RESPONSE_INVALID
//   usage.output_tokens >= max_output_tokens          → PROVIDER_INCOMPLETE (servers that report
//                                                        "completed" on truncation: Ollama, vLLM, omlx)
// Messages are found by type, never as output[0], and only the assistant's (a role, when
// given, must be assistant); when any message has a phase, only final_answer messages count.
// A charset other than UTF-8 and a completed status beside an error object are refused. The answer is their output_text parts joined with ''.
// The server-reported model and usage are returned whatever the verdict (usage.json).

import { parseJsonBytes } from '../json.ts'
import { printableLine } from '../printable-line.ts'
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.ts'

export interface ServerReport {
  /** The server-reported model: recorded, never required to equal the requested one. */
  model: string | null
  /** Token counts as reported, or null when usage is missing, malformed, or all zero beside an answer. */
  tokens: { input: number, output: number, total: number | null, reasoning: number | null, cached: number | null } | null
  /** usage.cost, when the server reports a cost (OpenRouter). */
  cost: number | null
}

export type ParsedAnswer =
  | { ok: true, text: string, report: ServerReport }
  | { ok: false, code: 'PROVIDER_RESPONSE_INVALID' | 'PROVIDER_FAILED' | 'PROVIDER_INCOMPLETE' | 'PROVIDER_REFUSAL', retryable: boolean, message: string, report: ServerReport }

const EMPTY: ServerReport = { model: null, tokens: null, cost: null }

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const count = (v: unknown): number | null => (Number.isSafeInteger(v) && (v as number) >= 0 ? v as number : null)

/** Server text for a message: one printable line (see printableLine) of at most n code points. */
function clip (s: string, n = 200): string {
  return printableLine(s.replace(/\s+/g, ' ').trim(), n)
}

function reportOf (body: Obj, hasText: boolean): ServerReport {
  const model = typeof body.model === 'string' && body.model !== '' ? printableLine(body.model, 200) : null
  const u = body.usage
  let tokens: ServerReport['tokens'] = null
  let cost: number | null = null
  if (isObj(u)) {
    const input = count(u.input_tokens)
    const output = count(u.output_tokens)
    if (input !== null && output !== null && !(input === 0 && output === 0 && hasText)) {
      tokens = {
        input,
        output,
        total: count(u.total_tokens),
        reasoning: isObj(u.output_tokens_details) ? count(u.output_tokens_details.reasoning_tokens) : null,
        cached: isObj(u.input_tokens_details) ? count(u.input_tokens_details.cached_tokens) : null,
      }
    }
    if (typeof u.cost === 'number' && Number.isFinite(u.cost) && u.cost >= 0 && u.cost <= 1_000_000) cost = u.cost
  }
  return { model, tokens, cost }
}

export function isJsonMediaType (contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}

export function parseAnswer (body: Buffer, contentType: string | undefined, maxOutputTokens: number): ParsedAnswer {
  const invalid = (message: string, report = EMPTY): ParsedAnswer => ({ ok: false, code: 'PROVIDER_RESPONSE_INVALID', retryable: false, message, report })
  if (!isJsonMediaType(contentType)) return invalid(`the answer's media type is ${JSON.stringify(contentType ?? '')}, not JSON`)
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase()
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return invalid(`the answer's charset is ${JSON.stringify(charset)}; only UTF-8 is read`)
  const depth = jsonDepth(body)
  if (depth > MAX_JSON_DEPTH) return invalid(`the answer nests deeper than ${MAX_JSON_DEPTH} levels`)
  const parsed = parseJsonBytes(body)
  if (!parsed.ok) return invalid(`the answer is not strict JSON: ${clip(parsed.message)}`)
  if (!isObj(parsed.value)) return invalid('the answer is not a JSON object')
  const b = parsed.value
  if (!Array.isArray(b.output)) return invalid('the answer has no output array', reportOf(b, false))
  const items = b.output
  if (!items.every(i => isObj(i) && typeof i.type === 'string')) return invalid('an output item is not an object with a type', reportOf(b, false))
  // Only the assistant speaks in an answer: a message with another role is not part of it.
  let messages = (items as Obj[]).filter(i => i.type === 'message' && (i.role === undefined || i.role === 'assistant'))
  if (messages.some(m => typeof m.phase === 'string')) messages = messages.filter(m => m.phase === 'final_answer')
  const parts: Obj[] = []
  for (const m of messages) {
    if (!Array.isArray(m.content) || !m.content.every(isObj)) return invalid('a message has no content array', reportOf(b, false))
    parts.push(...(m.content as Obj[]))
  }
  const texts = parts.filter(p => p.type === 'output_text')
  if (texts.some(p => typeof p.text !== 'string')) return invalid('an output_text part has no text', reportOf(b, false))
  const text = texts.map(p => p.text as string).join('')
  const report = reportOf(b, text !== '')

  const status = b.status
  if (status !== undefined && status !== null && (typeof status !== 'string' || !['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete'].includes(status))) {
    return invalid(`unknown status ${JSON.stringify(status)}`, report)
  }
  const error = isObj(b.error) ? b.error : undefined
  if (status === 'failed' || ((status === undefined || status === null) && error !== undefined)) {
    const code = typeof error?.code === 'string' ? error.code : null
    const message = typeof error?.message === 'string' ? error.message : ''
    return { ok: false, code: 'PROVIDER_FAILED', retryable: code === 'server_error' || code === 'rate_limit_exceeded', message: `the response failed${code === null ? '' : ` (${clip(code, 60)})`}${message === '' ? '' : `: ${clip(message)}`}`, report }
  }
  const details = isObj(b.incomplete_details) ? b.incomplete_details : undefined
  if (status === 'incomplete' || ((status === undefined || status === null) && details !== undefined)) {
    const reason = typeof details?.reason === 'string' ? details.reason : 'unknown'
    return { ok: false, code: 'PROVIDER_INCOMPLETE', retryable: false, message: `the response is incomplete (reason ${clip(reason, 60)}); a truncated answer is never used`, report }
  }
  if (status === 'cancelled' || status === 'queued' || status === 'in_progress') return invalid(`status ${status} is not an answer to a synchronous call`, report)
  if (error !== undefined) return invalid(`status ${String(status)} beside an error object: the body contradicts itself`, report)
  const refusal = parts.find(p => p.type === 'refusal')
  if (refusal !== undefined) {
    return { ok: false, code: 'PROVIDER_REFUSAL', retryable: false, message: `the model refused${typeof refusal.refusal === 'string' ? `: ${clip(refusal.refusal)}` : ''}`, report }
  }
  if (texts.length === 0 || text === '') {
    if ((items as Obj[]).some(i => i.type === 'reasoning')) {
      return { ok: false, code: 'PROVIDER_INCOMPLETE', retryable: false, message: 'the response holds reasoning but no answer (the output budget went into reasoning)', report }
    }
    return invalid('the response holds no output_text', report)
  }
  if (report.tokens !== null && report.tokens.output >= maxOutputTokens) {
    return { ok: false, code: 'PROVIDER_INCOMPLETE', retryable: false, message: `usage.output_tokens ${report.tokens.output} reached max_output_tokens ${maxOutputTokens}: the answer may be truncated, whatever the status says`, report }
  }
  return { ok: true, text, report }
}
