// What the one answer decides (DESIGN §5, §7a), from what response.json keeps: its status,
// content type, body (redacted) and redaction count. ask-provider decides with it as the
// answer arrives, and readback decides again from the retained response.json, so usage.json,
// proposal.json and the outcome can be checked against the answer they came from.
//
//   a status that is not 2xx                          → provider_error (classifyStatus), no usage
//   a body that is not UTF-8                          → PROVIDER_RESPONSE_INVALID
//   what parseAnswer refuses                          → its code
//   the token found in the body (redactions > 0)      → PROVIDER_ECHOED_TOKEN
//   the token in the joined output_text               → PROVIDER_ECHOED_TOKEN  (with the token only)
//   JSON nested deeper than MAX_JSON_DEPTH            → PROPOSAL_INVALID
//   an answer that is not strict JSON                 → PROPOSAL_INVALID
//   the token in a string of the proposal             → PROVIDER_ECHOED_TOKEN  (with the token only)
//   a proposal that breaks its schema                 → PROPOSAL_INVALID
//   otherwise                                         → the proposal
// Every 2xx answer yields a server report (model, tokens, cost) for usage.json. The two
// checks that need the token are the caller's (`tokenIn`): readback, which never holds the
// token, cannot repeat them, and says so.

import type { Proposal, ProviderUsage } from '@repairline/schemas'
import { schemaErrors } from '../contracts.ts'
import { parseJsonText } from '../json.ts'
import { printableLine } from '../printable-line.ts'
import { REDACTED } from '../redact.ts'
import { classifyStatus, type StatusErrorCode } from './classify-status.ts'
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.ts'
import { parseAnswer, type ServerReport } from './parse-response.ts'

export type AnswerRefusalCode = 'PROVIDER_RESPONSE_INVALID' | 'PROVIDER_FAILED' | 'PROVIDER_INCOMPLETE' | 'PROVIDER_REFUSAL' | 'PROVIDER_ECHOED_TOKEN' | 'PROPOSAL_INVALID'

export type AnswerDecision =
  /** Not an answer: the status decides (no usage.json). */
  | { kind: 'status', code: StatusErrorCode, retryable: boolean }
  /** An answer that is never used. */
  | { kind: 'refused', report: ServerReport, code: AnswerRefusalCode, retryable: boolean, message: string }
  /** A proposal that holds its schema (its summary is checked next). */
  | { kind: 'proposal', report: ServerReport, proposal: Proposal }

export interface RetainedAnswer {
  status: number
  contentType: string | undefined
  /** The body as kept (redacted). */
  body: Buffer
  /** Whether the body as received was UTF-8. */
  utf8: boolean
  /** Forms of the token redacted from the response. */
  redactions: number
}

/** The token checks only the holder of the token can make. */
export interface TokenChecks {
  inText: (text: string) => boolean
  inValue: (value: unknown) => boolean
}

const EMPTY: ServerReport = { model: null, tokens: null, cost: null }

export function decideAnswer (a: RetainedAnswer, maxOutputTokens: number, token?: TokenChecks): AnswerDecision {
  const cls = classifyStatus(a.status)
  if (cls.kind === 'error') return { kind: 'status', code: cls.code, retryable: cls.retryable }
  if (!a.utf8) return { kind: 'refused', report: EMPTY, code: 'PROVIDER_RESPONSE_INVALID', retryable: false, message: 'the answer is not UTF-8' }
  const parsed = parseAnswer(a.body, a.contentType, maxOutputTokens)
  const report = parsed.report
  // An answer that echoed the token anywhere is never used, redacted or not: in the body
  // (redacted when kept), across two output_text parts, or behind the answer's own JSON
  // escapes. A body kept as nothing but the marker (no part of it could be redacted alone)
  // parses no more: the echo decides.
  const echoed = (where: string): AnswerDecision => ({ kind: 'refused', report, code: 'PROVIDER_ECHOED_TOKEN', retryable: false, message: `the answer echoed the provider token (${where}); it is never used` })
  const redactedForms = `${a.redactions} encoded form${a.redactions === 1 ? '' : 's'}, redacted in response.json`
  if (a.redactions > 0 && a.body.toString('latin1') === REDACTED) return echoed(redactedForms)
  if (!parsed.ok) return { kind: 'refused', report, code: parsed.code, retryable: parsed.retryable, message: parsed.message }
  if (a.redactions > 0) return echoed(redactedForms)
  if (token?.inText(parsed.text) === true) return echoed('in the joined output_text')
  // The answer's own JSON is bounded like the body: every later reader of it (the token
  // check, the schema) walks it, and a few hundred KB of brackets exhaust a recursive walk.
  if (jsonDepth(Buffer.from(parsed.text, 'utf8')) > MAX_JSON_DEPTH) return { kind: 'refused', report, code: 'PROPOSAL_INVALID', retryable: false, message: `the answer's JSON nests deeper than ${MAX_JSON_DEPTH} levels` }
  const json = parseJsonText(parsed.text)
  if (!json.ok) return { kind: 'refused', report, code: 'PROPOSAL_INVALID', retryable: false, message: `the answer is not strict JSON (truncated, or prose from a server that ignored text.format): ${printableLine(json.message, 200)}` }
  if (token?.inValue(json.value) === true) return echoed('in a string of the proposal')
  const errs = schemaErrors('proposal', json.value)
  if (errs.length > 0) return { kind: 'refused', report, code: 'PROPOSAL_INVALID', retryable: false, message: `the answer breaks the proposal schema: ${printableLine(errs.slice(0, 5).join('; '), 600)}` }
  return { kind: 'proposal', report, proposal: json.value as Proposal }
}

/** The answer as response.json keeps it. */
export function retainedAnswer (response: { http_status: number, headers: Record<string, string>, body: string | null, body_utf8: boolean, redactions: number }): RetainedAnswer {
  return {
    status: response.http_status,
    contentType: response.headers['content-type'],
    body: Buffer.from(response.body ?? '', 'utf8'),
    utf8: response.body_utf8,
    redactions: response.redactions,
  }
}

/** usage.json for a server report. */
export function usageRecord (attemptKey: string, requestedModel: string, maxOutputTokens: number, estimatedCostUsd: number, report: ServerReport): ProviderUsage {
  const t = report.tokens
  return {
    v: 1,
    attempt_key: attemptKey,
    requested_model: requestedModel,
    server_model: report.model,
    max_output_tokens: maxOutputTokens,
    tokens_reported: t !== null,
    input_tokens: t?.input ?? null,
    output_tokens: t?.output ?? null,
    total_tokens: t?.total ?? null,
    reasoning_tokens: t?.reasoning ?? null,
    cached_tokens: t?.cached ?? null,
    estimated_cost_usd: estimatedCostUsd,
    ...(report.cost === null ? {} : { measured_cost_usd: report.cost }),
  }
}
