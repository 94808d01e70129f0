// classifier: every edited path is a `source` path by core's one classifier (no test, config
// or instruction file, DESIGN §10) with the runner's source extension.

import { classifyPath, SOURCE_EXTENSIONS } from '../../classify-path.ts'
import { fail, pass, type GateContext, type RuleOutcome } from '../types.ts'

export function checkClassifier (ctx: GateContext): RuleOutcome {
  const exts = SOURCE_EXTENSIONS[ctx.input.runner]
  const findings: string[] = []
  for (const p of new Set(ctx.input.edits.map(e => e.path))) {
    const cls = classifyPath(p)
    if (cls !== 'source') findings.push(`${JSON.stringify(p)} is a ${cls} file`)
    else if (!exts.some(e => p.endsWith(e))) findings.push(`${JSON.stringify(p)} does not end in ${exts.join(' or ')} (${ctx.input.runner} runner)`)
  }
  if (findings.length > 0) return fail(`${findings.length} edited path(s) are not ${ctx.input.runner} source files`, findings)
  return pass(`every edited path is a ${ctx.input.runner} source file`)
}
