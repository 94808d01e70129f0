// Rule: `admit report --out` writes a suite report and nothing else. It never writes into the
// checkout (source_root) or the state root, and it replaces an existing file only when that
// file is itself a suite report (a report regenerated in place); any other file — the
// execution config, a source file, the routing policy, the lock — is refused, untouched.

import { readFileSync, lstatSync } from 'node:fs'
import { isValid, resolvedInside, resolvedOutputPath, toolError } from '@repairline/core'
import { SUITE_REPORT_MAX_BYTES } from '../inputs.ts'

export function checkReportOut (out: string, config: { source_root: string, state_dir?: string }): void {
  const target = resolvedOutputPath(out)
  if (resolvedInside(config.source_root, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside source_root ${config.source_root}: admit never writes into your checkout`, { path: out })
  if (config.state_dir !== undefined && resolvedInside(config.state_dir, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside state_dir ${config.state_dir}, which only the tools write`, { path: out })
  let st
  try { st = lstatSync(target) } catch { return }
  let current: unknown
  try {
    current = st.isFile() && st.size <= SUITE_REPORT_MAX_BYTES ? JSON.parse(readFileSync(target, 'utf8')) : undefined
  } catch {
    current = undefined
  }
  if (!isValid('suite-report', current)) {
    throw toolError('OUTPUT_UNSAFE', `${out} exists and is not a suite report; refusing to overwrite it`, { path: out, hint: 'name a new file, or remove this one yourself' })
  }
}
