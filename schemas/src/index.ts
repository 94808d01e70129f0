// The contract package: types generated from schemas/*.schema.json and their precompiled
// validators. Nothing here compiles a schema at run time.

export * from './generated/index.ts'
export type { Validator, ErrorObject } from './validator.ts'
