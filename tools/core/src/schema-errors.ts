// Schema errors as operators read them: one line each, `<pointer>: <what>`.

import type { ErrorObject } from '@repairline/schemas'

/** Schema errors as one line each: `<pointer> <message>`. */
export function formatSchemaErrors (errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(e => {
    const at = e.instancePath === '' ? '/' : e.instancePath
    if (e.keyword === 'additionalProperties') return `${at}: unknown field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
    if (e.keyword === 'enum') return `${at}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}`
    return `${at}: ${e.message ?? e.keyword}`
  })
}

