// allowlist: every path an edit touches is one of the config's allowed_files, exactly as
// written there (so every changed path is too).

import { fail, pass, type GateContext, type RuleOutcome } from '../types.ts'

export function checkAllowlist (ctx: GateContext): RuleOutcome {
  const allowed = new Set(ctx.input.allowedFiles)
  const outside = [...new Set(ctx.input.edits.map(e => e.path))].filter(p => !allowed.has(p))
  if (outside.length > 0) return fail(`${outside.length} edited path(s) are not in allowed_files (${ctx.input.allowedFiles.join(', ')})`, outside.map(p => `${JSON.stringify(p)} is not an allowed file`))
  return pass(`every edited path is in allowed_files (${ctx.input.allowedFiles.join(', ')})`)
}
