// Validation at every boundary: a file or record is checked against its schema before it is
// written and when it is read. Validators are precompiled (schemas/src/generated).

import { validators, type SchemaName, type SchemaTypes, type ErrorObject } from '@repairline/schemas'
import { formatSchemaErrors } from './schema-errors.ts'

export { formatSchemaErrors }
import { toolError, type ErrorCode } from './errors.ts'
import { parseJsonBytes } from './json.ts'

/** The first error's instance path as a JSON pointer, for the error record's `path`. */
function firstPointer (errors: readonly ErrorObject[] | null | undefined): string {
  const e = errors?.[0]
  if (e === undefined) return ''
  if (e.keyword === 'additionalProperties') return `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`
  if (e.keyword === 'required') return `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
  return e.instancePath
}

/** Returns the schema errors of `value`, or [] when it is valid. */
export function schemaErrors (name: SchemaName, value: unknown): string[] {
  const validate = validators[name]
  return validate(value) ? [] : formatSchemaErrors(validate.errors)
}

export function isValid<N extends SchemaName> (name: N, value: unknown): value is SchemaTypes[N] {
  return validators[name](value)
}

/**
 * Asserts `value` satisfies schema `name`, else throws `code` naming `what` and every error.
 * The error's path is the first failing JSON pointer.
 */
export function assertValid<N extends SchemaName> (name: N, value: unknown, what: string, code: ErrorCode = 'FILE_INVALID'): asserts value is SchemaTypes[N] {
  const validate = validators[name]
  if (validate(value)) return
  const errs = formatSchemaErrors(validate.errors)
  throw toolError(code, `${what}: ${errs.join('; ')}`, { path: firstPointer(validate.errors) })
}

/** Parses strict JSON bytes and validates them; `what` names the source in messages. */
export function parseDocument<N extends SchemaName> (name: N, bytes: Uint8Array, what: string, code: ErrorCode = 'FILE_INVALID'): SchemaTypes[N] {
  const parsed = parseJsonBytes(bytes)
  if (!parsed.ok) throw toolError(code, `${what}: not strict JSON: ${parsed.message}`)
  assertValid(name, parsed.value, what, code)
  return parsed.value
}
