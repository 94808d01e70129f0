// No occurrence of the untrusted-payload delimiter: neither the delimiter chosen for this
// request nor the fixed stem every delimiter starts with. An owned text that held either
// could open or close the payload frame.

import { PAYLOAD_DELIMITER_STEM } from '../delimiter.ts'
import type { Finding, TextRule } from '../types.ts'

export const payloadDelimiter: TextRule = ({ lines, delimiter }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    if (delimiter !== undefined && delimiter !== '' && line.includes(delimiter)) {
      findings.push({ rule: 'payload-delimiter', line: i + 1, detail: 'the line holds this request\'s payload delimiter' })
    } else if (line.includes(PAYLOAD_DELIMITER_STEM)) {
      findings.push({ rule: 'payload-delimiter', line: i + 1, detail: `the line holds the payload delimiter stem ${PAYLOAD_DELIMITER_STEM}` })
    }
  })
  return findings
}
