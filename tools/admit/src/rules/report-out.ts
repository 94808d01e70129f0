// Rule: `admit report --out` writes a suite report and nothing else. It never writes into the
// checkout (source_root) or the state root, and it replaces an existing file only when that
// file is itself a suite report (a report regenerated in place); any other file — the
// execution config, a source file, the routing policy, the lock — is refused, untouched.

import { readFileSync, realpathSync, lstatSync, statSync } from 'node:fs'
import { dirname, basename, join } from 'node:path'
import { isValid, toolError } from '@repairline/core'
import { within } from './paths.ts'
import { SUITE_REPORT_MAX_BYTES } from '../inputs.ts'

/** `path` with its directory's symlinks resolved (the directory must exist). */
function resolvedPath (path: string): string {
  let dir: string
  try {
    dir = realpathSync(dirname(path))
  } catch {
    throw toolError('WRITE_FAILED', `cannot write ${path}: its directory does not exist`, { path })
  }
  if (!statSync(dir).isDirectory()) throw toolError('WRITE_FAILED', `cannot write ${path}: ${dirname(path)} is not a directory`, { path })
  return join(dir, basename(path))
}

/** True when `path` (already resolved) lies in `root` as the kernel resolves it. */
function inside (root: string, path: string): boolean {
  let base: string
  try { base = realpathSync(root) } catch { return false }
  return within(path, base)
}

export function checkReportOut (out: string, config: { source_root: string, state_dir?: string }): void {
  const target = resolvedPath(out)
  if (inside(config.source_root, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside source_root ${config.source_root}: admit never writes into your checkout`, { path: out })
  if (config.state_dir !== undefined && inside(config.state_dir, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside state_dir ${config.state_dir}, which only the tools write`, { path: out })
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
