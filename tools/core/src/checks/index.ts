// The execution config's checks (seed 004): what an RE2-safe regex is, how a command's exec is
// resolved and run, the content clauses, and how the results combine with the test run's verdict.

export * from './regex.ts'
export * from './exec.ts'
export * from './command.ts'
export * from './content.ts'
export * from './verdict.ts'
