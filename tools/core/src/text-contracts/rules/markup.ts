// No HTML/XML: comments (<!-- -->), CDATA, declarations (<!DOCTYPE …>), processing
// instructions (<?xml …?>) and tags (<name …>, </name>, <name/>). A tag is "<" directly
// followed by a letter and a name that ends at whitespace, "/", ">" or the end of the line,
// so comparisons written with spaces (a < b) pass.

import type { Finding, TextRule } from '../types.ts'

const CONSTRUCTS: Array<[RegExp, string]> = [
  [/<!--|-->/, 'an HTML/XML comment delimiter'],
  [/<!\[CDATA\[/i, 'a CDATA section'],
  [/<![A-Za-z]/, 'a markup declaration'],
  [/<\?[A-Za-z]/, 'a processing instruction'],
  [/<\/?[A-Za-z][A-Za-z0-9:._-]*(?=[\s/>]|$)/, 'an HTML/XML tag'],
]

export const markup: TextRule = ({ lines }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    for (const [re, what] of CONSTRUCTS) {
      const m = re.exec(line)
      if (m !== null) {
        findings.push({ rule: 'markup', line: i + 1, detail: `${what} at column ${m.index + 1}: ${JSON.stringify(m[0])}` })
        return
      }
    }
  })
  return findings
}
