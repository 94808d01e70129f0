// modes-unchanged: every changed file keeps its baseline mode, and the unified diff holds no
// mode line (`old mode`, `new mode`).

import { fail, notChecked, pass, type GateContext, type RuleOutcome } from '../types.ts'

export function checkModesUnchanged (ctx: GateContext): RuleOutcome {
  if (ctx.changed === undefined || ctx.patch === undefined) return notChecked('no candidate: the edits did not apply')
  const findings: string[] = []
  for (const f of ctx.changed) {
    const base = ctx.treeByPath.get(f.path)?.mode ?? f.baselineMode
    if (f.mode !== base) findings.push(`${f.path}: mode ${base} would become ${f.mode}`)
  }
  for (const line of ctx.patch.split('\n')) if (/^(old|new) mode /.test(line)) findings.push(`diff header ${JSON.stringify(line)}`)
  if (findings.length > 0) return fail('a file mode changes', findings)
  return pass(`${ctx.changed.length} changed file(s) keep their modes`)
}
