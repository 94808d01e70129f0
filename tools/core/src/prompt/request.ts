// The request body of the one provider call (POST {base_url}/responses), rendered
// deterministically: model (the recomputed route's model, which must equal
// provider.model), the owned instructions, the input (the owned scaffold, then the untrusted
// payload), max_output_tokens = min(provider.max_output_tokens, job budget), store: false,
// and text.format = a strict json_schema derived from schemas/proposal.schema.json.
//
// Strict structured output accepts a subset of JSON Schema: every object lists all of its
// properties in `required` and sets additionalProperties: false (ours already do), and
// string length bounds are not part of the subset, so minLength/maxLength, $schema, $id and
// title are dropped from what is sent. proposal.json is still validated against the full
// schema. Any other keyword fails the derivation, so a schema change cannot silently send
// something strict mode would refuse.
//
// The bytes sent are exactly the bytes kept in request.json (two-space JSON and a final
// newline, as every JSON file of ours); the token is a header and never part of them.

import type { ProviderRequest } from '@repairline/schemas'
import proposalSchema from '@repairline/schemas/proposal.schema.json' with { type: 'json' }
import { jsonFileBytes } from '../atomic.ts'
import { toolError } from '../errors.ts'

/** The json_schema format's name ([A-Za-z0-9_-]{1,64}). */
export const PROPOSAL_FORMAT_NAME = 'proposal'

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

const KEEP = new Set(['type', 'description', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'enum', 'const'])
const DROP = new Set(['$schema', '$id', 'title', 'minLength', 'maxLength'])

function strictNode (node: Json, at: string): Json {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw toolError('INTERNAL', `proposal schema at ${at} is not a schema object`)
  const out: { [k: string]: Json } = {}
  for (const [k, v] of Object.entries(node)) {
    if (DROP.has(k)) continue
    if (!KEEP.has(k)) throw toolError('INTERNAL', `proposal schema at ${at} uses ${k}, which strict structured output does not accept`)
    if (k === 'properties') {
      const props: { [k: string]: Json } = {}
      for (const [name, sub] of Object.entries(v as { [k: string]: Json })) props[name] = strictNode(sub, `${at}/properties/${name}`)
      out[k] = props
    } else if (k === 'items') {
      out[k] = strictNode(v, `${at}/items`)
    } else {
      out[k] = v
    }
  }
  if (out.type === 'object') {
    const names = Object.keys((out.properties ?? {}) as object)
    const required = (out.required ?? []) as string[]
    if (out.additionalProperties !== false || names.length !== required.length || names.some(n => !required.includes(n))) {
      throw toolError('INTERNAL', `proposal schema at ${at}: strict mode needs every property required and additionalProperties false`)
    }
  }
  return out
}

/** The strict json_schema sent as text.format.schema, derived from proposal.schema.json. */
export function strictProposalSchema (): { [k: string]: unknown } {
  return strictNode(proposalSchema as Json, '') as { [k: string]: unknown }
}

export interface RequestParts {
  model: string
  instructions: string
  input: string
  maxOutputTokens: number
}

/** The request body as a value, fields in a fixed order. */
export function renderRequestBody (p: RequestParts): ProviderRequest {
  return {
    model: p.model,
    instructions: p.instructions,
    input: p.input,
    max_output_tokens: p.maxOutputTokens,
    store: false,
    // The request schema pins this value (a const); isValid('request', …) proves they agree.
    text: { format: { type: 'json_schema', name: PROPOSAL_FORMAT_NAME, strict: true, schema: strictProposalSchema() as ProviderRequest['text']['format']['schema'] } },
  }
}

/** The exact bytes sent and kept as request.json. */
export function requestBytes (body: ProviderRequest): Buffer {
  return Buffer.from(jsonFileBytes(body), 'utf8')
}
