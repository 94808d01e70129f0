export * from './codeowners.ts'
export * from './instructions.ts'
export * from './clause.ts'
