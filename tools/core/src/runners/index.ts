// The runners (DESIGN §9): the fixed go and node test commands, run in the sandbox and
// normalized to test-event.schema.json.

export * from './go.ts'
export * from './go-cache.ts'
export * from './scratch.ts'
export * from './node.ts'
export * from './node-reporter.ts'
export * from './run-tests.ts'
export * from './progress.ts'
