// Comparing one structural fact (imports, declarations, calls, …) of each changed file,
// before and after, as multisets. A file that does not parse is not compared here: the
// `parses` rule fails for it, and these rules say it was left out.

import { fail, notChecked, pass, type GateContext, type RuleOutcome } from '../types.ts'
import type { SyntaxTree } from './parse.ts'

export interface MultisetDiff { added: string[], removed: string[] }

/** Elements whose count grew (added) or shrank (removed), one entry per unit of difference. */
export function diffMultisets (before: readonly string[], after: readonly string[]): MultisetDiff {
  const counts = new Map<string, number>()
  for (const b of before) counts.set(b, (counts.get(b) ?? 0) + 1)
  for (const a of after) counts.set(a, (counts.get(a) ?? 0) - 1)
  const added: string[] = []
  const removed: string[] = []
  for (const [k, n] of [...counts].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    for (let i = 0; i < n; i++) removed.push(k)
    for (let i = 0; i < -n; i++) added.push(k)
  }
  return { added, removed }
}

export interface StructureCheck {
  /** What the rule compares, plural: "imports", "calls". */
  what: string
  extract: (tree: SyntaxTree) => string[]
  /** Which differences break the rule: both directions, or additions only. */
  direction: 'both' | 'added'
  /** How one element prints in a finding. */
  show?: (element: string) => string
}

/** Runs one structural comparison over every changed file that parses. */
export function checkStructure (ctx: GateContext, c: StructureCheck): RuleOutcome {
  if (ctx.changed === undefined || ctx.parsed === undefined) return notChecked('no candidate: the edits did not apply')
  const show = c.show ?? ((e: string) => e)
  const findings: string[] = []
  const skipped: string[] = []
  const failing = new Set<string>()
  let compared = 0
  for (const f of ctx.changed) {
    const pair = ctx.parsed.get(f.path)
    if (pair === undefined || pair.before.errors.length > 0 || pair.after.errors.length > 0) {
      skipped.push(f.path)
      continue
    }
    compared++
    const d = diffMultisets(c.extract(pair.before), c.extract(pair.after))
    const before = findings.length
    for (const a of d.added) findings.push(`${f.path}: added ${show(a)}`)
    if (c.direction === 'both') for (const r of d.removed) findings.push(`${f.path}: removed ${show(r)}`)
    if (findings.length > before) failing.add(f.path)
  }
  const left = skipped.length > 0 ? `; not compared (does not parse): ${skipped.join(', ')}` : ''
  if (findings.length > 0) return fail(`${c.what} changed in ${failing.size} file(s)${left}`, findings)
  if (compared === 0) return notChecked(`no changed file parses${left}`)
  return pass(`${c.what} unchanged in ${compared} file(s)${left}`)
}
