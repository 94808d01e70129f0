// The candidate's unified diff, in git's format so `git apply` accepts it on source_sha:
// per changed file, sorted by path bytes, `diff --git`, `index <old blob>..<new blob> <mode>`,
// `--- a/<path>`, `+++ b/<path>` and the hunks jsdiff computes with three lines of context.
// Paths git would quote are quoted the way git quotes them (C style, octal bytes).

import { structuredPatch } from 'diff'
import { gitBlobId } from '../digest.ts'
import type { CandidateFile } from './types.ts'

/** git's blob id of a text (its UTF-8 bytes). */
export function blobId (text: string): string {
  return gitBlobId(Buffer.from(text))
}

const C_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' }

/** `prefix + path` as git prints it in a diff header: quoted when it holds a byte git quotes. */
export function gitQuotedPath (prefix: string, path: string): string {
  const bytes = Buffer.from(prefix + path)
  if (!bytes.some(b => b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x7f)) return prefix + path
  let s = '"'
  for (const b of bytes) {
    const esc = C_ESCAPES[b]
    if (esc !== undefined) s += esc
    else if (b < 0x20 || b >= 0x7f) s += `\\${b.toString(8).padStart(3, '0')}`
    else s += String.fromCharCode(b)
  }
  return `${s}"`
}

/** The unified diff of the changed files (those whose text differs), or '' when none does. */
export function buildUnifiedDiff (files: readonly CandidateFile[]): string {
  let out = ''
  for (const f of files) {
    if (f.before === f.after) continue
    const a = gitQuotedPath('a/', f.path)
    const b = gitQuotedPath('b/', f.path)
    // git appends a tab to ---/+++ names that contain a space, for GNU patch.
    const tab = f.path.includes(' ') && !a.startsWith('"') ? '\t' : ''
    out += `diff --git ${a} ${b}\n`
    out += f.mode === f.baselineMode
      ? `index ${blobId(f.before)}..${blobId(f.after)} ${f.mode}\n`
      : `old mode ${f.baselineMode}\nnew mode ${f.mode}\nindex ${blobId(f.before)}..${blobId(f.after)}\n`
    out += `--- ${a}${tab}\n+++ ${b}${tab}\n`
    const p = structuredPatch(a, b, f.before, f.after, undefined, undefined, { context: 3 })
    for (const h of p.hunks) {
      // Unified-diff quirk: an empty range starts one line earlier.
      const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart
      const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart
      out += `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@\n`
      for (const line of h.lines) out += `${line}\n`
    }
  }
  return out
}
