// The receipt's `repository` clause (issue 37): for every path the gate changed, the
// instruction files that apply to it and the effective CODEOWNERS rule, both read from the
// tree at source_sha as extract-tree retained it (tree-manifest.json's sha256 of each blob,
// the CODEOWNERS blob's bytes from tree.tar). Seal builds it and readback rebuilds it with
// this one function, so both read the same bytes the same way.

import type { Receipt, TreeManifest } from '@repairline/schemas'
import { CODEOWNERS_FILES, effectiveRule, parseCodeowners } from './codeowners.ts'
import { instructionCandidates } from './instructions.ts'

export type RepositoryClause = NonNullable<Receipt['repository']>

/**
 * The clause for `changed` paths of the tree `manifest`; `readBlob` gives a file's bytes at
 * source_sha (tree.tar's member).
 */
export function repositoryClause (manifest: TreeManifest, changed: readonly string[], readBlob: (path: string) => Uint8Array): RepositoryClause {
  const byPath = new Map(manifest.entries.map(e => [e.path, e]))
  const file = CODEOWNERS_FILES.find(f => byPath.has(f))
  const fileEntry = file === undefined ? undefined : byPath.get(file)
  const rules = file === undefined ? [] : parseCodeowners(Buffer.from(readBlob(file)).toString('utf8'))
  return {
    codeowners: file === undefined || fileEntry === undefined ? null : { path: file, sha256: fileEntry.sha256 },
    paths: changed.map(path => {
      const rule = effectiveRule(rules, path)
      return {
        path,
        instructions: instructionCandidates(path).flatMap(p => { const e = byPath.get(p); return e === undefined ? [] : [{ path: p, sha256: e.sha256 }] }),
        owners: rule === undefined || file === undefined ? null : { file, line: rule.line, pattern: rule.pattern, owners: rule.owners },
      }
    }),
  }
}
