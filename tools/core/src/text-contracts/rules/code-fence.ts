// No code fences: a line that opens or closes a Markdown fence (``` or ~~~, after optional
// indentation) would let a document nest another document inside the owned text.

import type { Finding, TextRule } from '../types.ts'

export const FENCE = /^\s*(```|~~~)/

export const codeFence: TextRule = ({ lines }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    if (FENCE.test(line)) findings.push({ rule: 'code-fence', line: i + 1, detail: 'a line opens or closes a code fence' })
  })
  return findings
}
