// The job brief names, one per line and in this order, task:, case:, files:, tests: and
// return: — each label exactly once, at the start of its line, followed by a value.

import type { Finding, TextRule } from '../types.ts'

export const BRIEF_LABELS = ['task:', 'case:', 'files:', 'tests:', 'return:'] as const

export const briefLines: TextRule = ({ lines, surface }) => {
  if (surface !== 'job') return []
  const findings: Finding[] = []
  let previous = 0
  for (const label of BRIEF_LABELS) {
    const at: number[] = []
    lines.forEach((line, i) => { if (line.startsWith(label)) at.push(i + 1) })
    const first = at[0]
    if (first === undefined) {
      findings.push({ rule: 'brief-lines', line: 0, detail: `no line starts with ${label}` })
      continue
    }
    if (at.length > 1) findings.push({ rule: 'brief-lines', line: at[1] ?? 0, detail: `${label} appears ${at.length} times; expected once` })
    if (first < previous) findings.push({ rule: 'brief-lines', line: first, detail: `${label} comes before an earlier label; expected the order ${BRIEF_LABELS.join(' ')}` })
    const value = (lines[first - 1] ?? '').slice(label.length)
    if (!/^ \S/.test(value)) findings.push({ rule: 'brief-lines', line: first, detail: `${label} must be followed by a space and a value` })
    previous = Math.max(previous, first)
  }
  return findings
}
