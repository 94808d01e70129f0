// No chat-role markers at a line start (system:, assistant:, user:, developer:, in any case,
// also behind Markdown decoration such as "## " or "> " or "**"): a line that looks like a
// turn of the conversation could be read as one.

import type { Finding, TextRule } from '../types.ts'

const ROLE = /^\s*(?:[#>*_-]+\s*)*(system|assistant|user|developer)\s*(?:[*_]+\s*)?:/i

export const roleMarker: TextRule = ({ lines }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    const m = ROLE.exec(line)
    if (m !== null) findings.push({ rule: 'role-marker', line: i + 1, detail: `the line starts with the chat-role marker ${JSON.stringify(`${(m[1] ?? '').toLowerCase()}:`)}` })
  })
  return findings
}
