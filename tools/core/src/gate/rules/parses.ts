// parses: every changed file parses, before and after, with its tree-sitter grammar (go for
// .go, javascript for .js .mjs .cjs). A file with an ERROR or MISSING node, or without a
// grammar, is rejected: its structure cannot be compared.

import { fail, notChecked, pass, type GateContext, type RuleOutcome } from '../types.ts'

export function checkParses (ctx: GateContext): RuleOutcome {
  if (ctx.changed === undefined || ctx.parsed === undefined) return notChecked('no candidate: the edits did not apply')
  const findings: string[] = []
  for (const f of ctx.changed) {
    const pair = ctx.parsed.get(f.path)
    if (pair === undefined) {
      findings.push(`${f.path}: no grammar for this file type`)
      continue
    }
    for (const e of pair.before.errors.slice(0, 3)) findings.push(`${f.path} (baseline): ${e}`)
    for (const e of pair.after.errors.slice(0, 3)) findings.push(`${f.path} (candidate): ${e}`)
  }
  if (findings.length > 0) return fail('a changed file does not parse', findings)
  return pass(`${ctx.changed.length} changed file(s) parse before and after`)
}
