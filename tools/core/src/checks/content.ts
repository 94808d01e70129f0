// The content clauses of the execution config's checks (seed 004), evaluated on the candidate:
//   - source_absent: each pattern (a literal substring, or an RE2-safe regex) is absent from
//     every file the candidate changed, after the edit; a hit fails (CHECK_PATTERN_PRESENT)
//     and names each file and line, at most 32;
//   - contains: an allowed file holds the literal text (else CHECK_TEXT_ABSENT);
//   - matches: an allowed file matches the regex (else CHECK_NO_MATCH).
// Pure functions of the candidate's bytes: verify evaluates them on the tree it runs, readback
// evaluates them again on the candidate rebuilt from tree.tar and proposal.json, and both must
// agree. A content clause never faults: admit checked every path and pattern beforehand.

import type { CheckResult, ExecutionConfig } from '@repairline/schemas'
import { printableLine } from '../printable-line.ts'
import { compileSafeRegex, findMatch } from './regex.ts'

export type ChecksConfig = NonNullable<ExecutionConfig['checks']>

/** At most this many hits are recorded for one source_absent clause. */
const MAX_HITS = 32

/** The candidate's files as the content clauses read them. */
export interface CandidateFiles {
  /** The files the candidate changed, with their bytes after the edit, in path order. */
  changed: ReadonlyMap<string, Buffer>
  /** Any file of the candidate tree (an allowed file, changed or not). */
  read: (path: string) => Buffer
}

const show = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 79)}…` : s)
const line = (text: string, at: number): number => {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** Every start offset of `pattern` in `text` (literal, or a regex), in order. */
function* occurrences (text: string, pattern: string, regex: boolean): Generator<number> {
  if (!regex) {
    for (let i = text.indexOf(pattern); i !== -1; i = text.indexOf(pattern, i + pattern.length)) yield i
    return
  }
  const re = compileSafeRegex(pattern)
  let from = 0
  while (from <= text.length) {
    const m = findMatch(re, text, from)
    if (m === undefined) return
    yield m.start
    from = m.end > m.start ? m.end : m.start + 1
  }
}

function result (clause: CheckResult['clause'], index: number, pass: boolean, failCode: CheckResult['code'], detail: string, hits: NonNullable<CheckResult['hits']>): CheckResult {
  return { clause, index, status: pass ? 'pass' : 'fail', code: pass ? 'CHECK_PASSED' : failCode, detail: printableLine(detail, 2000), ...(hits.length === 0 ? {} : { hits }) }
}

/** The results of source_absent, contains and matches, in that order, each clause by index. */
export function evaluateContentChecks (checks: ChecksConfig | undefined, files: CandidateFiles): CheckResult[] {
  const out: CheckResult[] = []
  const changed = [...files.changed.keys()].sort()
  checks?.source_absent?.forEach((c, index) => {
    const hits: NonNullable<CheckResult['hits']> = []
    let total = 0
    for (const path of changed) {
      const text = (files.changed.get(path) as Buffer).toString('utf8')
      for (const at of occurrences(text, c.pattern, c.regex === true)) {
        total++
        if (hits.length < MAX_HITS) hits.push({ path, line: line(text, at) })
      }
    }
    const what = `${c.regex === true ? 'regex' : 'text'} ${show(c.pattern)}`
    const where = hits.slice(0, 3).map(h => `${h.path}:${h.line}`).join(', ')
    out.push(result('source_absent', index, total === 0, 'CHECK_PATTERN_PRESENT',
      total === 0 ? `forbidden ${what} is absent from the ${changed.length} changed file(s)` : `forbidden ${what} is present ${total} time(s) in the changed files: ${where}${total > 3 ? ', …' : ''}`, hits))
  })
  checks?.contains?.forEach((c, index) => {
    const text = files.read(c.path).toString('utf8')
    const at = text.indexOf(c.text)
    out.push(result('contains', index, at !== -1, 'CHECK_TEXT_ABSENT',
      at !== -1 ? `${c.path} contains text ${show(c.text)} (line ${line(text, at)})` : `${c.path} does not contain text ${show(c.text)}`, at === -1 ? [] : [{ path: c.path, line: line(text, at) }]))
  })
  checks?.matches?.forEach((c, index) => {
    const text = files.read(c.path).toString('utf8')
    const m = findMatch(compileSafeRegex(c.regex), text)
    out.push(result('matches', index, m !== undefined, 'CHECK_NO_MATCH',
      m !== undefined ? `${c.path} matches regex ${show(c.regex)} (line ${line(text, m.start)})` : `${c.path} does not match regex ${show(c.regex)}`, m === undefined ? [] : [{ path: c.path, line: line(text, m.start) }]))
  })
  return out
}
