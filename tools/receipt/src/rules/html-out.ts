// Rule: `receipt view --html` writes an attempt page and nothing else. It never writes into
// the checkout (source_root), the state root or the attempt directory, judged on the path as
// the kernel resolves it, and it replaces an existing file only when that file is itself an
// attempt page (one regenerated in place); any other file, and a symlink, is refused
// (OUTPUT_UNSAFE, 73), untouched.

import { closeSync, lstatSync, openSync, readSync, realpathSync, statSync, constants } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { toolError } from '@repairline/core'
import { PAGE_HEAD } from '../view.ts'

/** True when `path` is `dir` or lies under it. */
function within (path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`)
}

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

/** Whether the file at `path` starts as every attempt page does (its first bytes only are read). */
function isAttemptPage (path: string): boolean {
  const head = Buffer.alloc(Buffer.byteLength(PAGE_HEAD))
  let fd: number
  try { fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW) } catch { return false }
  try {
    return readSync(fd, head, 0, head.length, 0) === head.length && head.toString('utf8') === PAGE_HEAD
  } catch {
    return false
  } finally {
    closeSync(fd)
  }
}

/**
 * Refuses `out` (OUTPUT_UNSAFE) inside any of `roots` (the checkout, the state root, the
 * attempt) or naming something other than an attempt page; its directory must exist
 * (WRITE_FAILED). Returns the path to write, its directory resolved.
 */
export function checkHtmlOut (out: string, roots: ReadonlyArray<{ what: string, path: string }>): string {
  const target = resolvedPath(out)
  for (const r of roots) {
    if (inside(r.path, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside ${r.what} ${r.path}: receipt view never writes there`, { path: out, hint: 'write the page outside the checkout and the state directory, e.g. /tmp/attempt.html' })
  }
  let st
  try { st = lstatSync(target) } catch { return target }
  if (!st.isFile() || !isAttemptPage(target)) {
    throw toolError('OUTPUT_UNSAFE', `${out} exists and is not an attempt page; refusing to overwrite it`, { path: out, hint: 'name a new file, or remove this one yourself' })
  }
  return target
}
