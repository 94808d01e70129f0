// The prompt scaffold and the request instructions each contain a line that starts with
// summary: and names the summary fields as words in schema order: cause, change, risk.

import type { TextRule } from '../types.ts'

export const SUMMARY_FIELDS = ['cause', 'change', 'risk'] as const

// Each field as a whole word (no letter, digit or underscore on either side); built once.
const FIELD_WORDS = SUMMARY_FIELDS.map(field => ({ field, word: new RegExp(`(?<![\\p{L}\\p{N}_])${field}(?![\\p{L}\\p{N}_])`, 'u') }))

function namesFieldsInOrder (rest: string): boolean {
  let from = 0
  for (const { field, word } of FIELD_WORDS) {
    const m = word.exec(rest.slice(from))
    if (m === null) return false
    from += m.index + field.length
  }
  return true
}

export const summaryLine: TextRule = ({ lines, surface }) => {
  if (surface !== 'scaffold' && surface !== 'instructions') return []
  const candidates = lines.map((line, i) => ({ line, n: i + 1 })).filter(x => x.line.startsWith('summary:'))
  if (candidates.some(c => namesFieldsInOrder(c.line.slice('summary:'.length)))) return []
  const first = candidates[0]
  return [{
    rule: 'summary-line',
    line: first?.n ?? 0,
    detail: first === undefined ? 'no line starts with summary:' : `the summary: line does not name ${SUMMARY_FIELDS.join(', ')} in this order`,
  }]
}
