// diff-size: the candidate's unified diff is at most max_patch_bytes bytes.

import { fail, notChecked, pass, type GateContext, type RuleOutcome } from '../types.ts'

export function checkDiffSize (ctx: GateContext): RuleOutcome {
  if (ctx.patch === undefined) return notChecked('no candidate: the edits did not apply')
  const bytes = Buffer.byteLength(ctx.patch)
  const max = ctx.input.maxPatchBytes
  if (bytes > max) return fail(`the unified diff is ${bytes} bytes; max_patch_bytes is ${max}`, [`candidate.patch: ${bytes} > ${max} bytes`])
  return pass(`the unified diff is ${bytes} bytes (max_patch_bytes ${max})`)
}
