// Rule: `receipt view --html` writes an attempt page and nothing else. It never writes into
// the checkout (source_root), the state root or the attempt directory, judged on the path as
// the kernel resolves it, and it replaces an existing file only when that file is itself an
// attempt page (one regenerated in place); any other file, and a symlink, is refused
// (OUTPUT_UNSAFE, 73), untouched.

import { closeSync, lstatSync, openSync, readSync, constants } from 'node:fs'
import { resolvedInside, resolvedOutputPath, toolError } from '@repairline/core'
import { PAGE_HEAD } from '../view.ts'

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
  const target = resolvedOutputPath(out)
  for (const r of roots) {
    if (resolvedInside(r.path, target)) throw toolError('OUTPUT_UNSAFE', `${out} is inside ${r.what} ${r.path}: receipt view never writes there`, { path: out, hint: 'write the page outside the checkout and the state directory, e.g. /tmp/attempt.html' })
  }
  let st
  try { st = lstatSync(target) } catch { return target }
  if (!st.isFile() || !isAttemptPage(target)) {
    throw toolError('OUTPUT_UNSAFE', `${out} exists and is not an attempt page; refusing to overwrite it`, { path: out, hint: 'name a new file, or remove this one yourself' })
  }
  return target
}
