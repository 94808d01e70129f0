// No model control tokens of the <|…|> form (<|im_start|>, <|endoftext|>, …) anywhere.

import type { Finding, TextRule } from '../types.ts'

const SPECIAL = /<\|[^\n]*?\|>/

export const specialToken: TextRule = ({ lines }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    const m = SPECIAL.exec(line)
    if (m !== null) findings.push({ rule: 'special-token', line: i + 1, detail: `a <|…|> control token at column ${m.index + 1}` })
  })
  return findings
}
