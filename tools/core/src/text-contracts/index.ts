// Text contracts (DESIGN §6b): the versioned internal-text checker, its rules, and the four
// validation records. Lives in core because readback reruns the current checker.

export * from './types.ts'
export * from './delimiter.ts'
export * from './internal-text.ts'
export * from './validation.ts'
export { BRIEF_LABELS } from './rules/brief-lines.ts'
export { SUMMARY_FIELDS } from './rules/summary-line.ts'
export { MAX_LINE_CHARS } from './rules/line-length.ts'
export { MAX_SUMMARY_FIELD_CHARS } from './rules/summary-fields.ts'
