// Renders everything the one provider call is made of, from retained inputs only, in the
// order DESIGN §6b fixes: the payload (data; its delimiter is needed by the checks), the
// three owned texts and their validation records, then — only when all three pass — the
// input (scaffold + payload), the byte bound, and the request body. ask-provider writes what
// this returns; `ask-provider --check` and readback call it again and compare bytes.

import type { Case, ExecutionConfig, PromptRegister, ProviderRequest, ResolvedRoute, TaskRegister, UnmetItems, ValidationRecord } from '@repairline/schemas'
import { requestMaxOutputTokens } from '../admission.ts'
import { jsonFileBytes } from '../atomic.ts'
import { validateText, validationPassed } from '../text-contracts/validation.ts'
import { renderBrief } from './brief.ts'
import { renderScaffold } from './scaffold.ts'
import { renderInstructions } from './instructions.ts'
import { renderPayload, type Payload, type PayloadFile } from './payload.ts'
import { renderRequestBody, requestBytes } from './request.ts'

export interface RenderInputs {
  config: ExecutionConfig
  case: Case
  /** The route recomputed from inputs/routing-policy.json. */
  route: ResolvedRoute
  task: TaskRegister
  prompt: PromptRegister
  /** The allowed files' bytes from the extracted tree, in allowed_files order. */
  files: readonly PayloadFile[]
  /** baseline.json's failing identities. */
  failing: readonly string[]
  /** A repair case's unmet items (inputs/unmet.json): sent in the payload after the failing identities. */
  unmet?: UnmetItems
}

export interface Rendered {
  brief: string
  scaffold: string
  instructions: string
  payload: Payload
  validations: { job: ValidationRecord, prompt: ValidationRecord, instructions: ValidationRecord }
  maxOutputTokens: number
  /** Set when an owned text failed its check or the prompt is over max_input_bytes. */
  refusal?: { code: 'TEXT_CONTRACT_FAILED' | 'PROMPT_TOO_LARGE', message: string }
  /** UTF-8 bytes of instructions + input; set once the owned texts passed. */
  promptBytes?: number
  /** Set when nothing was refused. */
  request?: { body: ProviderRequest, bytes: Buffer }
}

export function renderAttempt (r: RenderInputs): Rendered {
  const payload = renderPayload(r.files, r.failing, r.unmet)
  const brief = renderBrief({ config: r.config, case: r.case, route: r.route, task: r.task })
  const scaffold = renderScaffold(r.unmet !== undefined)
  const instructions = renderInstructions(brief)
  const tuples = { task: r.task, prompt: r.prompt }
  const o = { delimiter: payload.delimiter }
  const validations = {
    job: validateText('job_instructions_validation', tuples, brief, o),
    prompt: validateText('prompt_validation', tuples, scaffold, o),
    instructions: validateText('request_instructions_validation', tuples, instructions, o),
  }
  const maxOutputTokens = requestMaxOutputTokens(r.config, r.task)
  const base = { brief, scaffold, instructions, payload, validations, maxOutputTokens }
  const failed = Object.values(validations).filter(v => !validationPassed(v))
  if (failed.length > 0) {
    const what = failed.map(v => `${v.stage} (${v.findings.slice(0, 3).map(f => `${f.rule} line ${f.line}`).join(', ')})`).join('; ')
    return { ...base, refusal: { code: 'TEXT_CONTRACT_FAILED', message: `an owned text broke the internal register: ${what}` } }
  }
  const input = scaffold + payload.text
  const promptBytes = Buffer.byteLength(instructions, 'utf8') + Buffer.byteLength(input, 'utf8')
  const max = r.config.provider.max_input_bytes
  if (promptBytes > max) {
    return { ...base, promptBytes, refusal: { code: 'PROMPT_TOO_LARGE', message: `the prompt (instructions and input) is ${promptBytes} bytes; provider.max_input_bytes is ${max}; it is refused, never truncated` } }
  }
  const body = renderRequestBody({ model: r.route.model, instructions, input, maxOutputTokens })
  return { ...base, promptBytes, request: { body, bytes: requestBytes(body) } }
}

/**
 * The attempt files a render determines, with the exact bytes ask-provider writes for each
 * (request.json undefined when the render refused). `ask-provider --check` and readback
 * compare the retained files against these.
 */
export function renderedFiles (r: Rendered): Array<[string, Buffer | undefined]> {
  return [
    ['job.txt', Buffer.from(r.brief)],
    ['prompt.txt', Buffer.from(r.scaffold)],
    ['validation/job_instructions.json', Buffer.from(jsonFileBytes(r.validations.job))],
    ['validation/prompt.json', Buffer.from(jsonFileBytes(r.validations.prompt))],
    ['validation/request_instructions.json', Buffer.from(jsonFileBytes(r.validations.instructions))],
    ['request.json', r.request?.bytes],
  ]
}
