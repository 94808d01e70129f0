// No owned line over 200 characters (code points). The summary has its own, per-field
// bound of 300 (summary-fields), so this rule does not apply to it.

import { charLength, type Finding, type TextRule } from '../types.ts'

export const MAX_LINE_CHARS = 200

export const lineLength: TextRule = ({ lines, surface }) => {
  if (surface === 'summary') return []
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    const n = charLength(line)
    if (n > MAX_LINE_CHARS) findings.push({ rule: 'line-length', line: i + 1, detail: `${n} characters; at most ${MAX_LINE_CHARS}` })
  })
  return findings
}
