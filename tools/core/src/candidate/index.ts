export * from './git-object.ts'
export * from './candidate.ts'
export * from './make-bundle.ts'
