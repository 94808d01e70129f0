// No control characters but "\n" (the line separator) and, in the prompt scaffold only,
// "\t". Format characters that change how text reads without being seen — bidirectional
// overrides and isolates, zero-width characters, line/paragraph separators, the BOM — count
// as control characters too: they can make a reviewed line say something else to the model.

import { codePointName, type Finding, type TextRule } from '../types.ts'

// C0 except \t and \n, DEL, C1, zero-width and directional marks, LS/PS, bidi embeddings and
// overrides, word joiner and invisible operators, bidi isolates, BOM / zero-width no-break space.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u

export const controlCharacters: TextRule = ({ lines, surface }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    let col = 0
    for (const ch of line) {
      col++
      if ((ch === '\t' && surface !== 'scaffold') || FORBIDDEN.test(ch)) {
        findings.push({ rule: 'control-characters', line: i + 1, detail: `${codePointName(ch)} at column ${col}${ch === '\t' ? ' (a tab is allowed only in the prompt scaffold)' : ''}` })
        return
      }
    }
  })
  return findings
}
