// Rule: which failures of an extraction end the attempt, and how (DESIGN §2, §3). A source
// tree that breaks a rule of §8 is `rejected` — the code is the rule's; git failing or the
// repository being unusable is a `fault` — it says nothing about the code. Anything else
// (the state root, a write, a bug) is not an outcome: the step aborts and the chain stops.

import { isToolError, type ErrorCode } from '@repairline/core'

/** The codes of source trees that break a rule: the attempt is rejected. */
export const REJECTED_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'TREE_SYMLINK', 'TREE_GITLINK', 'TREE_MODE_UNSUPPORTED', 'TREE_PATH_UNSAFE', 'TREE_PATH_DUPLICATE', 'TREE_MALFORMED',
  'TREE_NODE_MODULES', 'TREE_TOO_MANY_ENTRIES', 'TREE_TOO_LARGE', 'TREE_SHARED_METADATA', 'TREE_OBJECT_MISMATCH',
])

/** The codes of an environment that could not run the extraction: the attempt is a fault. */
export const FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['GIT_FAILED', 'SOURCE_NOT_GIT', 'SOURCE_SHA_UNKNOWN'])

export interface Verdict { outcome: 'rejected' | 'fault', code: ErrorCode, message: string, path: string | undefined }

/** The outcome an extraction error decides, or undefined when it decides none (rethrow it). */
export function verdictOf (e: unknown): Verdict | undefined {
  if (!isToolError(e)) return undefined
  const outcome = REJECTED_CODES.has(e.code) ? 'rejected' : FAULT_CODES.has(e.code) ? 'fault' : undefined
  return outcome === undefined ? undefined : { outcome, code: e.code, message: e.message, path: e.path }
}
