// ask-provider: renders and validates the owned texts, appends the untrusted payload, calls
// the provider once, and validates the proposal (DESIGN §5, §6b, §7a).
//
// Order of work, each file written atomically and validated before its rename:
//   refuse a hostile environment (before anything is read); disable core dumps;
//   open the step (existing outcome, lock, deadline, earlier files);
//   dispatch.json already there → never send again: resume from what was recorded;
//   render from retained inputs → job.txt, prompt.txt, validation/job_instructions.json,
//     validation/prompt.json, validation/request_instructions.json (an owned text that fails,
//     or a prompt over max_input_bytes → rejected);
//   request.json (the exact body) → provider.ca_file, every certificate parsed → token from
//     the pinned helper → dispatch.json, durable →
//     the one POST → response.json (redacted) → usage.json → proposal.json (what the answer
//     decides: core's decideAnswer, which readback reruns on response.json) →
//     validation/summary.json (the return contract, before any edit is looked at).
// A failure after admission is a terminal outcome (provider_error, rejected, timed_out);
// exit 0 means a proposal whose summary passed is ready for gate-patch.
//
// --check re-renders job.txt, prompt.txt, the three owned-text records and request.json
// from retained inputs and compares them byte for byte; it never writes and never calls.

import { isUtf8 } from 'node:buffer'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { CheckRecord, ProviderResponse } from '@repairline/schemas'
import {
  EXIT, TREE_MANIFEST, TREE_TAR, checkBaseUrl, decideAnswer, jsonFileBytes, retainedAnswer, endedBefore, outcomeExit, jsonDepth, MAX_JSON_DEPTH, usageRecord, ensureDir, faultPoint, finishAttempt, isToolError, loadAttempt, loadRenderInputs,
  openStep, openTreeReader, parseJsonBytes, printableLine, readCaFile, readFileNoFollow, readJsonFile, redactJson, redactText, renderAttempt, renderedFiles,
  REDACTED, redactTextDeep, hidesSecret, renderSummaryText, resolveAttemptPath, responsesUrl, SANDBOX_LIMITS, sampleDisks, diskBelowFloor, secretPattern, sha256Hex, toolError, validateText, validationPassed, writeFileAtomic, writeJsonAtomic,
  type Attempt, type DecidedOutcome, type Rendered, type RetainedAnswer, type SecretPattern, type ToolIo, type ToolResult,
} from '@repairline/core'
import { computeGateOf } from '@repairline/core/gate/attempt'
import { callResponses, type HttpResponse } from './client.ts'
import { DEFAULT_LIMITS, type ProviderLimits } from './limits.ts'
import { disableCoreDumps } from './rules/core-dumps.ts'
import { errorSummary } from './rules/error-body.ts'
import { assertNoHostileEnvironment } from './rules/hostile-environment.ts'
import { readToken } from './rules/token-helper.ts'

export interface AskOptions {
  attempt?: string
  check?: boolean
}

export interface AskDeps {
  /** This process's pid: core dumps are disabled for it before the token is read. */
  pid?: number
  /** Smaller bounds for tests. */
  limits?: Partial<ProviderLimits>
}

const REQUIRES = [TREE_MANIFEST, TREE_TAR, 'baseline.json'] as const
const KEPT_HEADERS = ['content-type', 'content-encoding', 'content-length', 'location', 'x-request-id', 'retry-after', 'retry-after-ms', 'x-should-retry'] as const

export async function askProvider (o: AskOptions, io: ToolIo, deps: AskDeps = {}): Promise<ToolResult> {
  assertNoHostileEnvironment(io.env)
  const dir = await resolveAttemptPath(o.attempt, io)
  if (o.check === true) return checkAttempt(dir, io)
  if (deps.pid !== undefined) await disableCoreDumps(deps.pid)
  const step = openStep('ask-provider', dir, io, REQUIRES)
  if (step.done) return step.result
  const attempt = step.attempt
  const limits = { ...DEFAULT_LIMITS, ...deps.limits }
  if (existsSync(join(dir, 'dispatch.json'))) return await resume(attempt, io, limits)
  return await ask(attempt, io, limits)
}

function say (io: ToolIo, line: string): void {
  io.stderr.write(`ask-provider: ${line}\n`)
}

/**
 * What a newcomer's server most often gets wrong: the answer's shape. Printed with the
 * outcome (stderr only; the outcome's reason is the contract), since the attempt is used up.
 */
const ANSWER_SHAPE_HINT = 'hint: a Responses answer is a JSON object whose "output" array holds a "message" whose "content" holds an "output_text" part, and that text is the proposal JSON (README: What a provider must answer; pnpm stub-provider --proposal FILE serves one). This attempt is used up: fix the server, then try the case again under a new case id'

function finish (attempt: Attempt, io: ToolIo, d: DecidedOutcome): ToolResult {
  say(io, `${d.outcome}${d.outcome === 'provider_error' ? ` (retryable: ${String(d.retryable === true)})` : ''}: ${d.code}: ${printableLine(d.message, 8000)}`)
  if (d.code === 'PROVIDER_RESPONSE_INVALID' || d.code === 'PROPOSAL_INVALID') say(io, ANSWER_SHAPE_HINT)
  return finishAttempt('ask-provider', attempt, io, d)
}

/** Renders from retained inputs; a file that is not text is a rejection, not a crash. */
function render (attempt: Attempt): Rendered | { notText: string } {
  try {
    return renderAttempt(loadRenderInputs(attempt, openTreeReader(attempt.dir).readFile))
  } catch (e) {
    if (isToolError(e) && e.code === 'PAYLOAD_NOT_TEXT') return { notText: e.message }
    throw e
  }
}

async function ask (attempt: Attempt, io: ToolIo, limits: ProviderLimits): Promise<ToolResult> {
  const { dir, stateRoot, config, admission } = attempt
  const w = { stateRoot }
  const r = render(attempt)
  if ('notText' in r) return finish(attempt, io, { outcome: 'rejected', code: 'PAYLOAD_NOT_TEXT', message: r.notText })

  writeFileAtomic(join(dir, 'job.txt'), r.brief, w)
  writeFileAtomic(join(dir, 'prompt.txt'), r.scaffold, w)
  ensureDir(stateRoot, join(dir, 'validation'), 0o711)
  writeJsonAtomic('validation', join(dir, 'validation', 'job_instructions.json'), r.validations.job, w)
  writeJsonAtomic('validation', join(dir, 'validation', 'prompt.json'), r.validations.prompt, w)
  writeJsonAtomic('validation', join(dir, 'validation', 'request_instructions.json'), r.validations.instructions, w)
  if (r.refusal !== undefined || r.request === undefined) {
    return finish(attempt, io, { outcome: 'rejected', code: r.refusal?.code ?? 'INTERNAL', message: r.refusal?.message ?? 'no request was rendered' })
  }
  const { body, bytes } = r.request
  writeJsonAtomic('request', join(dir, 'request.json'), body, w)

  const base = checkBaseUrl(config.provider.base_url)
  if (!base.ok) throw toolError('BASE_URL_INVALID', `provider.base_url: ${base.rule}`, { path: '/provider/base_url' })
  const url = responsesUrl(config.provider.base_url)

  // A call is paid for once sent: none is sent whose answer this filesystem could not keep.
  // Below the chain's disk floor this run ends before the token is read, nothing sent and
  // nothing decided, and runs again once there is room.
  const low = diskBelowFloor(sampleDisks([dir]), SANDBOX_LIMITS.minFreeDiskBytes)
  if (low !== undefined) throw toolError('RESOURCES_LOW', `refusing to send the provider call: ${low}, and its answer could not be kept; nothing was sent`, { path: dir, hint: 'free disk on the state filesystem, then run ask-provider again' })

  // The CA before the token: an unusable CA ends the attempt without reading the secret.
  let caPem: string | undefined
  if (config.provider.ca_file !== undefined) {
    const ca = readCaFile(config.provider.ca_file)
    if (!ca.ok) return finish(attempt, io, { outcome: 'provider_error', retryable: false, code: 'PROVIDER_CA_INVALID', message: ca.message })
    caPem = ca.pem
  }
  let token: string
  try {
    token = await readToken(config, limits)
  } catch (e) {
    if (isToolError(e) && (e.code === 'TOKEN_HELPER_MISMATCH' || e.code === 'TOKEN_HELPER_NOT_EXECUTABLE' || e.code === 'TOKEN_HELPER_FAILED')) {
      return finish(attempt, io, { outcome: 'provider_error', retryable: false, code: e.code, message: e.message })
    }
    throw e
  }

  // From here every message is also redacted decoded: the server's text reaches outcome.json
  // and stderr through JSON and the answer's parts, where no byte form of the token shows.
  const pattern = secretPattern(token)
  const end = (d: DecidedOutcome): ToolResult => finish(attempt, io, { ...d, message: keptMessage(d.message, pattern) })

  // The call is spent once dispatch.json is written: not while nobody can read our records.
  await io.out.settle()
  const now = io.now()
  const remaining = Date.parse(admission.deadline) - now.getTime()
  // The helper may run up to its own limit: a deadline that passed meanwhile sends nothing.
  if (remaining <= 0) {
    return end({ outcome: 'timed_out', code: 'DEADLINE_PASSED', message: `the attempt's deadline ${admission.deadline} passed before the call was sent (while the token helper ran); nothing was sent` })
  }
  const deadlineBound = remaining <= limits.totalMs
  const totalMs = Math.max(1, Math.min(limits.totalMs, remaining))
  const wrote = writeJsonAtomic('dispatch', join(dir, 'dispatch.json'), {
    v: 1,
    attempt_key: attempt.key,
    dispatched_at: now.toISOString(),
    url,
    request_sha256: sha256Hex(bytes),
    request_bytes: bytes.length,
    model: body.model,
    max_output_tokens: body.max_output_tokens,
    token_command_sha256: config.provider.token_command_sha256,
  }, { ...w, exclusive: true })
  // Lost a race with another ask-provider on this attempt: it dispatched; this run sends nothing
  // and decides nothing (a later run resumes from whatever that one records).
  if (!wrote) throw toolError('LOCK_HELD', `another ask-provider dispatched this attempt while this one was rendering; nothing was sent by this run`, { hint: 'run ask-provider again once the other run has ended' })
  faultPoint(io.env, 'dispatch')
  say(io, `POST ${url} (${bytes.length} bytes, model ${body.model}, max_output_tokens ${body.max_output_tokens}); dispatch.json is durable, so this call is never repeated`)

  const result = await callResponses({
    url,
    body: bytes,
    token,
    ...(caPem === undefined ? {} : { caPem }),
    limits: { ...limits, totalMs, headersTimeoutMs: Math.min(limits.headersTimeoutMs, totalMs) },
  })
  const keep = (res: HttpResponse, complete: boolean): { body: Buffer, redactions: number, utf8: boolean } => {
    const kept = redactResponse(res, pattern)
    writeJsonAtomic('response', join(dir, 'response.json'), { v: 1, attempt_key: attempt.key, received_at: io.now().toISOString(), ...kept.fields, body_complete: complete }, w)
    faultPoint(io.env, 'provider-response')
    return { body: kept.body, redactions: kept.fields.redactions, utf8: kept.fields.body_utf8 }
  }

  if (result.kind === 'failed') {
    if (result.partial !== undefined) keep(result.partial, false)
    if (result.deadline && deadlineBound) {
      return end({ outcome: 'timed_out', code: 'DEADLINE_PASSED', message: `the provider call was still running at the attempt's deadline ${admission.deadline}` })
    }
    return end({ outcome: 'provider_error', retryable: result.retryable, code: result.code, message: printableLine(result.message, 600) })
  }

  const res = result.response
  const { body: redactedBody, redactions, utf8 } = keep(res, true)
  return await settleAnswer(attempt, io, { status: res.status, contentType: res.headers['content-type'], body: redactedBody, utf8, redactions }, res.headers.location, body, pattern, end)
}

/**
 * What a complete answer decides, from the answer as kept (redacted): usage.json,
 * proposal.json and validation/summary.json, or the outcome. Used with the live answer, and
 * by a rerun that finds a complete answer retained and nothing decided from it. Every file
 * is written whole or not at all, and the same answer writes the same bytes, so a rerun may
 * write again what a killed run already wrote.
 */
async function settleAnswer (attempt: Attempt, io: ToolIo, answer: RetainedAnswer, location: string | undefined, request: { model: string, max_output_tokens: number }, pattern: SecretPattern, end: (d: DecidedOutcome) => ToolResult): Promise<ToolResult> {
  const { dir, stateRoot, admission } = attempt
  const w = { stateRoot }
  // The decision readback makes again from response.json; only the token checks are ours alone.
  const decision = decideAnswer(answer, request.max_output_tokens, {
    inText: text => redactTextDeep(text, pattern).count > 0,
    inValue: value => redactJson(value, pattern).count > 0,
  })
  if (decision.kind === 'status') {
    const where = decision.code === 'PROVIDER_REDIRECT' ? ` to ${printableLine(redactTextDeep(location ?? '(no location)', pattern).value, 300)} (never followed)` : ''
    const what = decision.code === 'PROVIDER_RESPONSE_INVALID' ? ' is not an HTTP status' : ''
    return end({ outcome: 'provider_error', retryable: decision.retryable, code: decision.code, message: `HTTP ${answer.status}${what}${where}: ${errorSummary(answer.body, answer.contentType)}` })
  }
  writeJsonAtomic('usage', join(dir, 'usage.json'), usageRecord(attempt.key, request.model, request.max_output_tokens, admission.route.estimated_cost_usd, decision.report), w)
  if (decision.kind === 'refused') return end({ outcome: 'provider_error', retryable: decision.retryable, code: decision.code, message: decision.message })
  const { proposal, report } = decision
  // Edits can put the token together where no one of them holds it (half in each, or in
  // pieces the gate's findings join as tokens): what gate-patch would write from this
  // proposal is looked at with the token first, and such a proposal is never kept.
  const gate = await computeGateOf(attempt, proposal, Buffer.from(jsonFileBytes(proposal)))
  const assembled = [gate.gateBytes, gate.patchBytes].some(b => b !== undefined && redactTextDeep(b.toString('utf8'), pattern).count > 0)
  if (assembled) return end({ outcome: 'provider_error', retryable: false, code: 'PROVIDER_ECHOED_TOKEN', message: 'the proposal\'s edits, applied, put the provider token together (in the candidate or in the gate\'s findings); the proposal is not kept' })
  writeJsonAtomic('proposal', join(dir, 'proposal.json'), proposal, w)

  const summary = validateText('summary_validation', { task: admission.task_register, prompt: admission.prompt_register }, renderSummaryText(proposal.summary))
  writeJsonAtomic('validation', join(dir, 'validation', 'summary.json'), summary, w)
  if (!validationPassed(summary)) {
    return end({ outcome: 'rejected', code: 'SUMMARY_CONTRACT_FAILED', message: `proposal.summary broke the return contract: ${summary.findings.slice(0, 3).map(f => `${f.rule} line ${f.line}: ${f.detail}`).join('; ')}` })
  }
  say(io, `HTTP ${answer.status} from model ${report.model ?? '(unreported)'}: a proposal with ${proposal.edits.length} edit${proposal.edits.length === 1 ? '' : 's'}; its summary passes ${summary.checker.name} v${summary.checker.version}${summary.status === 'not_applicable' ? ' (not applicable)' : ''}`)
  return { exit: EXIT.OK }
}

/** Every string held under a `text` key of a JSON value, in document order. */
function textsOf (value: unknown): string[] {
  const out: string[] = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'text' && typeof x === 'string') out.push(x)
        else walk(x)
      }
    }
  }
  walk(value)
  return out
}

/**
 * `test` of the text as JSON.parse reads it (duplicate keys, any depth), or false when it
 * does not parse, or nests too deep to walk: no reader then sees its text parts.
 */
function leniently (text: string, test: (value: unknown) => boolean): boolean {
  try {
    return test(JSON.parse(text))
  } catch {
    return false
  }
}

/** An outcome's message, redacted; one that hides the token behind escapes (it quotes the server) is not kept. */
function keptMessage (message: string, pattern: SecretPattern): string {
  const r = redactText(message, pattern).value
  return hidesSecret(r, pattern) ? 'the message quoted text from the server that hides the provider token behind escapes; it is not kept' : r
}

/**
 * The fields of response.json for what arrived, redacted, and the redacted body. A body that
 * is strict JSON within the nesting bound is also redacted decoded (a server may escape any character of the token,
 * and no byte form shows it then): when that finds the token, what is kept and parsed is the
 * redacted value re-serialized, not the bytes received (body_bytes still counts those).
 */
function redactResponse (res: HttpResponse, pattern: SecretPattern): { fields: Omit<ProviderResponse, 'v' | 'attempt_key' | 'received_at' | 'body_complete'>, body: Buffer } {
  let redactions = 0
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) {
    const v = res.headers[name]
    if (v === undefined) continue
    const r = redactTextDeep(v, pattern)
    redactions += r.count
    headers[name] = r.value.slice(0, 1024)
  }
  const utf8 = isUtf8(res.body)
  // Redact the decoded text (what is kept) and, separately, the raw bytes (what is parsed).
  const text = redactText(res.body.toString('utf8'), pattern)
  const raw = redactText(res.body.toString('latin1'), pattern)
  redactions += text.count
  let kept = text.value
  let body = Buffer.from(raw.value, 'latin1')
  // A body nested past the bound is refused unread by the answer's parser; never walked here.
  const json = jsonDepth(body) <= MAX_JSON_DEPTH ? parseJsonBytes(body) : undefined
  let hiddenAcross = false
  if (json?.ok === true) {
    const decoded = redactJson(json.value, pattern)
    if (decoded.count > 0) {
      kept = JSON.stringify(decoded.value)
      body = Buffer.from(kept)
      redactions += decoded.count
    }
    // A reader joins an answer's text parts (`output_text` and the like: every `text`, in
    // order): the token cut across two of them is in no one string.
    hiddenAcross = redactTextDeep(textsOf(decoded.value).join(''), pattern).count > 0
  }
  // What a forgiving reader still decodes into the token (a body that is not strict JSON, so
  // never decoded above, or the token cut across two text parts; a strict body's strings
  // were each decoded further above): nothing of it is kept. A body refused as not strict
  // JSON (a duplicate key) or nested past the bound is still read as JSON.parse reads it,
  // and its text parts joined, since a forgiving reader joins them as well.
  if (json?.ok !== true) hiddenAcross = leniently(kept, value => redactTextDeep(textsOf(value).join(''), pattern).count > 0)
  if (hiddenAcross || (json?.ok !== true && hidesSecret(kept, pattern))) {
    kept = REDACTED
    body = Buffer.from(kept)
    redactions++
  }
  return {
    fields: { http_status: res.status, headers, body_bytes: res.body.length, body_utf8: utf8, body: res.body.length === 0 ? null : kept, redactions },
    body,
  }
}

/**
 * dispatch.json exists: the call may have reached the provider, so it is never sent again.
 * A finished run (its summary record written) keeps its verdict. A complete answer retained
 * in response.json with nothing decided from it (the step was killed, or a write failed,
 * after the answer was kept) is decided now, as readback decides it, with the two token
 * checks made with a fresh read of the token. Anything else is DISPATCH_INTERRUPTED
 * (retryable: a new attempt could help; this one is spent).
 */
async function resume (attempt: Attempt, io: ToolIo, limits: ProviderLimits): Promise<ToolResult> {
  const dispatch = readJsonFile('dispatch', join(attempt.dir, 'dispatch.json'))
  const summaryPath = join(attempt.dir, 'validation', 'summary.json')
  if (existsSync(summaryPath)) {
    const summary = readJsonFile('validation', summaryPath)
    readJsonFile('proposal', join(attempt.dir, 'proposal.json'))
    if (validationPassed(summary)) {
      say(io, `the call dispatched at ${dispatch.dispatched_at} already produced a proposal whose summary passed; nothing is sent`)
      return { exit: EXIT.OK }
    }
    return finish(attempt, io, { outcome: 'rejected', code: 'SUMMARY_CONTRACT_FAILED', message: 'proposal.summary broke the return contract (recorded before an interruption)' })
  }
  const interrupted = (why: string): ToolResult => finish(attempt, io, { outcome: 'provider_error', retryable: true, code: 'DISPATCH_INTERRUPTED', message: why })
  const responsePath = join(attempt.dir, 'response.json')
  if (!existsSync(responsePath)) {
    return interrupted(`the call was dispatched at ${dispatch.dispatched_at} but no result was recorded (the step was killed, crashed, or could not write it); it may have reached the provider and is never sent twice`)
  }
  const response = readJsonFile('response', responsePath)
  if (response.attempt_key !== attempt.key) throw toolError('ATTEMPT_BINDING_MISMATCH', `${responsePath} names another attempt (${response.attempt_key})`, { path: responsePath })
  if (!response.body_complete) {
    return interrupted(`the call dispatched at ${dispatch.dispatched_at} failed mid-answer (response.json keeps a partial body), and the step stopped before it recorded why; the call is never sent twice`)
  }
  let token: string
  try {
    token = await readToken(attempt.config, limits)
  } catch (e) {
    if (isToolError(e) && (e.code === 'TOKEN_HELPER_MISMATCH' || e.code === 'TOKEN_HELPER_NOT_EXECUTABLE' || e.code === 'TOKEN_HELPER_FAILED')) {
      return interrupted(`the call dispatched at ${dispatch.dispatched_at} was answered (response.json is retained), but the answer cannot be checked for the token now: ${e.code}: ${printableLine(e.message, 300)}; the call is never sent twice`)
    }
    throw e
  }
  const pattern = secretPattern(token)
  const end = (d: DecidedOutcome): ToolResult => finish(attempt, io, { ...d, message: keptMessage(d.message, pattern) })
  say(io, `the call dispatched at ${dispatch.dispatched_at} was answered at ${response.received_at} and nothing was decided from it (the step stopped); deciding from response.json, nothing is sent`)
  return await settleAnswer(attempt, io, retainedAnswer(response), response.headers.location, dispatch, pattern, end)
}

/** --check: re-render and compare byte for byte. Never writes, never calls the provider. */
function checkAttempt (dir: string, io: ToolIo): ToolResult {
  const attempt = loadAttempt(dir)
  io.out.write({ v: 1, kind: 'attempt', path: attempt.dir, key: attempt.key })
  const ended = endedBefore(attempt, 'ask-provider')
  if (ended !== undefined) {
    say(io, `check: nothing to recompute: the attempt ended ${ended.outcome} (${ended.reason.code}) at ${ended.step}, before the provider step`)
    return { exit: outcomeExit(ended.outcome, ended.retryable), outcome: ended.outcome }
  }
  const r = renderAttempt(loadRenderInputs(attempt, openTreeReader(dir).readFile))
  const expected = renderedFiles(r)
  let all = true
  for (const [file, now] of expected) {
    const path = join(dir, file)
    const kept = existsSync(path) ? readFileNoFollow(path) : undefined
    const record: CheckRecord = {
      v: 1,
      kind: 'check',
      file,
      match: kept === undefined ? now === undefined : now !== undefined && kept.equals(now),
      ...(kept === undefined ? {} : { retained_sha256: sha256Hex(kept) }),
      ...(now === undefined ? {} : { recomputed_sha256: sha256Hex(now) }),
    }
    all &&= record.match
    io.out.write(record)
    say(io, `check: ${file} ${record.match ? (kept === undefined ? 'is absent, as the inputs render no request' : 'matches') : kept === undefined ? 'is missing' : now === undefined ? 'exists, but the inputs no longer render a request' : 'differs'}`)
  }
  return { exit: all ? EXIT.OK : EXIT.NO }
}
