// no-new-files: no file is created, deleted, renamed or copied. Every edit path is a file of
// the baseline tree, and the unified diff holds no header that creates, deletes, renames or
// copies a file.

import { fail, pass, type GateContext, type RuleOutcome } from '../types.ts'

const HEADERS = /^(new file mode|deleted file mode|rename from|rename to|copy from|copy to|--- \/dev\/null|\+\+\+ \/dev\/null)/

/** Diff lines outside hunks that create, delete, rename or copy a file. */
export function fileSetHeaders (patch: string): string[] {
  const found: string[] = []
  let inHunk = 0
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) { inHunk = 0; continue }
    if (line.startsWith('@@ ')) { inHunk = 1; continue }
    if (inHunk === 1 && /^[ +\-\\]/.test(line)) continue
    if (HEADERS.test(line)) found.push(line)
  }
  return found
}

export function checkNoNewFiles (ctx: GateContext): RuleOutcome {
  const findings: string[] = []
  for (const p of new Set(ctx.input.edits.map(e => e.path))) {
    if (!ctx.treeByPath.has(p)) findings.push(`${JSON.stringify(p)} is not a file of the baseline tree (a new file)`)
  }
  if (ctx.patch !== undefined) for (const h of fileSetHeaders(ctx.patch)) findings.push(`diff header ${JSON.stringify(h)}`)
  if (findings.length > 0) return fail('the proposal creates, deletes or renames a file', findings)
  return pass('every edited path is an existing file; no file is created, deleted or renamed')
}
