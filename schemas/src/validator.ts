// The shape of a precompiled (ajv standalone) validator.

import type { ErrorObject } from 'ajv'

export interface Validator {
  (data: unknown): boolean
  errors?: ErrorObject[] | null
}
export type { ErrorObject }
