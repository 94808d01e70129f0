// @repairline/core: the one shared library. Tools import from here; a tool never imports
// another tool.

export * from './exit-codes.ts'
export * from './errors.ts'
export * from './json.ts'
export * from './digest.ts'
export * from './contracts.ts'
export * from './ndjson.ts'
export * from './hooks.ts'
export * from './run-cli.ts'
export * from './spawn.ts'
export * from './atomic.ts'
export * from './outcome.ts'
export * from './lock.ts'
export * from './attempt-dir.ts'
export * from './git.ts'
export * from './tree.ts'
export * from './classify-path.ts'
export * from './url.ts'
export * from './admission.ts'
export * from './events.ts'
export * from './tree-archive/index.ts'
export * from './text-contracts/index.ts'
export * from './prompt/index.ts'
// The gate (DESIGN §10) is imported as '@repairline/core/gate/index' by the tools that run it
// (gate-patch, readback), so the other bundles stay free of the tree-sitter runtime.
export * from './verify/compare.ts'
