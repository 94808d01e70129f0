// exact-application: the edits apply in order, each to the result of the previous one; each
// `search` occurs exactly once in its file at that point (overlapping occurrences count);
// no fuzz and no whitespace folding: bytes are compared as they are. A file must be UTF-8
// text (its bytes round-trip exactly), the edit texts must be well-formed Unicode, and the
// edits together must change something.

import { printableLine } from '../../printable-line.ts'
import { fail, notChecked, pass, type Application, type CandidateFile, type GateContext, type GateInput, type RuleOutcome } from '../types.ts'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
// In a `u` regexp a paired surrogate is one code point, so this matches lone halves only.
const LONE_SURROGATE = /\p{Cs}/u

/** Occurrences of `needle` in `hay`, overlapping ones included, stopping at `limit`. */
export function countOccurrences (hay: string, needle: string, limit = 2): number {
  let n = 0
  for (let at = hay.indexOf(needle); at !== -1 && n < limit; at = hay.indexOf(needle, at + 1)) n++
  return n
}

/**
 * Applies the edits to the baseline. Every edit path must be readable (allowed and in the
 * tree); the caller checks that first. Returns every touched file, or every reason the edits
 * did not apply (the first failing edit of each file stops that file).
 */
export function applyEdits (input: GateInput, modeOf: (path: string) => CandidateFile['mode']): Application {
  const findings: string[] = []
  const files = new Map<string, CandidateFile>()
  const broken = new Set<string>()
  input.edits.forEach((e, i) => {
    const at = `edit ${i + 1} (${e.path})`
    if (broken.has(e.path)) return
    if (LONE_SURROGATE.test(e.search) || LONE_SURROGATE.test(e.replace)) {
      findings.push(`${at}: search or replace holds a lone UTF-16 surrogate, which has no UTF-8 form`)
      broken.add(e.path)
      return
    }
    let file = files.get(e.path)
    if (file === undefined) {
      const bytes = input.readBaseline(e.path)
      let text: string
      try {
        text = utf8.decode(bytes)
      } catch {
        findings.push(`${at}: ${e.path} is not UTF-8 text`)
        broken.add(e.path)
        return
      }
      const mode = modeOf(e.path)
      file = { path: e.path, baselineMode: mode, mode, before: text, after: text }
      files.set(e.path, file)
    }
    const count = countOccurrences(file.after, e.search)
    if (count !== 1) {
      findings.push(`${at}: search text ${count === 0 ? 'does not occur' : 'occurs more than once'} in ${e.path}${i > 0 ? ' after the earlier edits' : ''}: ${preview(e.search)}`)
      broken.add(e.path)
      return
    }
    const idx = file.after.indexOf(e.search)
    file.after = file.after.slice(0, idx) + e.replace + file.after.slice(idx + e.search.length)
  })
  if (findings.length > 0) return { ok: false, findings }
  const touched = [...files.values()].sort((a, b) => comparePaths(a.path, b.path))
  if (touched.every(f => f.before === f.after)) return { ok: false, findings: ['the edits change nothing: the candidate equals the baseline'] }
  return { ok: true, files: touched }
}

/** Paths compare by their UTF-8 bytes, as git and tree-manifest.json order them. */
export function comparePaths (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** A search text for a finding: JSON-quoted, at most 80 code points (a cut never splits a pair). */
function preview (s: string): string {
  return printableLine(JSON.stringify(s.slice(0, 200)), 80)
}

export function checkExactApplication (ctx: GateContext): RuleOutcome {
  const a = ctx.application
  if (a === undefined) return notChecked('not applied: an edit names a path that is not an allowed file of the baseline tree (see path-tricks, allowlist, no-new-files)')
  if (!a.ok) return fail(`the edits do not apply exactly: ${a.findings.length} problem${a.findings.length === 1 ? '' : 's'}`, a.findings)
  const n = ctx.input.edits.length
  return pass(`${n} edit${n === 1 ? '' : 's'} applied in order, each search text found exactly once; ${a.files.filter(f => f.before !== f.after).length} file(s) changed`)
}
