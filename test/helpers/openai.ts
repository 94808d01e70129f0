// The pinned OpenAI Responses API fixtures (test/fixtures/responses-api): the
// CreateResponse schema every request body must satisfy, the lenient parse contracts, and
// the example bodies with their HTTP status and headers.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { ROOT } from './bin.ts'

export const OPENAI_FIXTURES = join(ROOT, 'test', 'fixtures', 'responses-api')

function compile (file: string): ValidateFunction {
  // The upstream-derived schemas only compile non-strict (REPORT §3.1); formats are annotations.
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: false })
  return ajv.compile(JSON.parse(readFileSync(join(OPENAI_FIXTURES, file), 'utf8')) as object)
}

let request: ValidateFunction | undefined
/** Validates a request body against the pinned CreateResponse schema. */
export function openaiRequestSchema (): ValidateFunction {
  request ??= compile('request.schema.json')
  return request
}

let lenient: ValidateFunction | undefined
/** The lenient parse contract for a 200 body. */
export function lenientResponseSchema (): ValidateFunction {
  lenient ??= compile('response.lenient.schema.json')
  return lenient
}

export interface OpenaiExample {
  name: string
  http_status: number
  response_headers: Record<string, string>
  body: unknown
  description: string
}

/** Every example body (not the request example), by file name without .json. */
export function openaiExamples (): OpenaiExample[] {
  const dir = join(OPENAI_FIXTURES, 'examples')
  return readdirSync(dir).filter(n => n.endsWith('.json') && !n.startsWith('request.')).sort().map(n => {
    const doc = JSON.parse(readFileSync(join(dir, n), 'utf8')) as Omit<OpenaiExample, 'name'>
    return { name: n.slice(0, -'.json'.length), http_status: doc.http_status, response_headers: doc.response_headers, body: doc.body, description: doc.description }
  })
}
