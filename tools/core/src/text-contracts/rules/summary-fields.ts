// The returned summary, rendered one field per line as "<field>: <value>": exactly the
// fields cause, change and risk, in this order, each value one non-empty line of at most
// 300 characters. A value holding a newline renders as extra lines and fails here.

import { charLength, type Finding, type TextRule } from '../types.ts'
import { SUMMARY_FIELDS } from './summary-line.ts'

export const MAX_SUMMARY_FIELD_CHARS = 300

export const summaryFields: TextRule = ({ lines, surface }) => {
  if (surface !== 'summary') return []
  const findings: Finding[] = []
  SUMMARY_FIELDS.forEach((field, i) => {
    const line = lines[i]
    const prefix = `${field}: `
    if (line === undefined) {
      findings.push({ rule: 'summary-fields', line: 0, detail: `the summary has no ${field} field` })
      return
    }
    if (!line.startsWith(prefix)) {
      findings.push({ rule: 'summary-fields', line: i + 1, detail: `expected the ${field} field here (fields in order: ${SUMMARY_FIELDS.join(', ')})` })
      return
    }
    const value = line.slice(prefix.length)
    if (value.trim() === '') findings.push({ rule: 'summary-fields', line: i + 1, detail: `${field} is empty` })
    const n = charLength(value)
    if (n > MAX_SUMMARY_FIELD_CHARS) findings.push({ rule: 'summary-fields', line: i + 1, detail: `${field} has ${n} characters; at most ${MAX_SUMMARY_FIELD_CHARS}` })
  })
  for (let i = SUMMARY_FIELDS.length; i < lines.length; i++) {
    findings.push({ rule: 'summary-fields', line: i + 1, detail: 'a line beyond the three fields: each field is exactly one line, and no other field is allowed' })
  }
  return findings
}
