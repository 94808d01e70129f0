// The execution config's checks (seed 004): what an RE2-safe regex is, and how a command's exec
// is resolved.

export * from './regex.ts'
export * from './exec.ts'
