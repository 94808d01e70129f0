// Where a tool may write an operator-named output file (admit report --out, receipt view
// --html): judged on the path as the kernel resolves it, so a symlinked directory cannot
// carry a write into the checkout or the state root.

import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { toolError } from './errors.ts'

/** True when `path` is `dir` or lies under it (both as given: resolve them first). */
export function pathWithin (path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`)
}

/** `path` with its directory's symlinks resolved; the directory must exist (else WRITE_FAILED, 73). */
export function resolvedOutputPath (path: string): string {
  let dir: string
  try {
    dir = realpathSync(dirname(path))
  } catch {
    throw toolError('WRITE_FAILED', `cannot write ${path}: its directory does not exist`, { path })
  }
  if (!statSync(dir).isDirectory()) throw toolError('WRITE_FAILED', `cannot write ${path}: ${dirname(path)} is not a directory`, { path })
  return join(dir, basename(path))
}

/** True when `path` (already resolved) lies in `root` as the kernel resolves it; false when `root` does not exist. */
export function resolvedInside (root: string, path: string): boolean {
  let base: string
  try { base = realpathSync(root) } catch { return false }
  return pathWithin(path, base)
}
