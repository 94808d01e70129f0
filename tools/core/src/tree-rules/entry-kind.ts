// Rule: the tree holds regular files only (DESIGN §8). A symlink can point a later step out
// of the tree (CVE-2021-21300, CVE-2024-32002); a gitlink names another repository's commit
// (submodules are not extracted); anything else in a recursive listing is malformed.

import type { ErrorCode } from '../errors.ts'

export interface EntryKindInput { mode: string, type: string, path: string }

/** The violation of an entry that is not a regular file, or undefined. */
export function entryKindViolation (e: EntryKindInput): { code: ErrorCode, message: string } | undefined {
  if (e.mode === '120000') return { code: 'TREE_SYMLINK', message: `${e.path} is a symlink; only regular files are extracted` }
  if (e.mode === '160000') return { code: 'TREE_GITLINK', message: `${e.path} is a gitlink (submodule); only regular files are extracted` }
  if ((e.mode !== '100644' && e.mode !== '100755') || e.type !== 'blob') {
    return { code: 'TREE_MODE_UNSUPPORTED', message: `${e.path} has mode ${e.mode} (${e.type}); only regular files (100644, 100755) are accepted` }
  }
  return undefined
}
