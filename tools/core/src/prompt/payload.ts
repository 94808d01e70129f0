// The untrusted payload: the allowlisted files' contents and the failing identities from
// baseline.json — never raw test output. It is framed by marker lines that all start with
// one delimiter, chosen so that no part of the payload contains it:
//
//   <D> BEGIN
//   <D> FILE "<path>" <byte count>
//   <the file's exact text>
//   <D> FAILING <count>
//   "<identity>"               (one JSON string per line: identities may hold any character)
//   <D> UNMET <count> <omitted> (a repair case only: inputs/unmet.json's items)
//   {"kind":…,"name":…,"detail":…,"findings":[…]}   (one JSON object per line)
//   <D> END
//
// The delimiter is PAYLOAD_DELIMITER_STEM + 16 hex digits of sha256(counter, payload
// digest): deterministic (readback re-renders it) and infeasible for the payload to hold;
// the counter moves on if it ever does. Files must be UTF-8 text (the request is JSON).

import { createHash } from 'node:crypto'
import { toolError } from '../errors.ts'
import { jcsSha256 } from '../digest.ts'
import { PAYLOAD_DELIMITER_STEM } from '../text-contracts/delimiter.ts'
import type { UnmetItems } from '@repairline/schemas'

export interface PayloadFile {
  path: string
  bytes: Uint8Array
}

export interface Payload {
  delimiter: string
  text: string
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Chooses the delimiter: the first counter whose delimiter occurs in no part. */
export function chooseDelimiter (parts: readonly string[], digest: string): string {
  for (let n = 0; ; n++) {
    const hex = createHash('sha256').update(`${n}\n${digest}`).digest('hex').slice(0, 16)
    const d = `${PAYLOAD_DELIMITER_STEM}${hex}`
    if (!parts.some(p => p.includes(d))) return d
  }
}

/** Renders the payload; refuses (PAYLOAD_NOT_TEXT) a file that is not valid UTF-8. */
export function renderPayload (files: readonly PayloadFile[], failing: readonly string[], unmet?: UnmetItems): Payload {
  const texts = files.map(f => {
    try {
      return fatal.decode(f.bytes)
    } catch {
      throw toolError('PAYLOAD_NOT_TEXT', `${f.path} is not valid UTF-8 text, so it cannot be sent`, { path: f.path, exit: 1 })
    }
  })
  const unmetLines = (unmet?.items ?? []).map(i => JSON.stringify({ kind: i.kind, name: i.name, detail: i.detail, findings: i.findings }))
  const digest = jcsSha256({ files: files.map((f, i) => ({ path: f.path, text: texts[i] })), failing, ...(unmet === undefined ? {} : { unmet: unmetLines }) })
  const delimiter = chooseDelimiter([...files.map(f => f.path), ...texts, ...failing, ...unmetLines], digest)
  const out: string[] = [`${delimiter} BEGIN\n`]
  files.forEach((f, i) => {
    out.push(`${delimiter} FILE ${JSON.stringify(f.path)} ${f.bytes.length}\n`, texts[i] ?? '', '\n')
  })
  out.push(`${delimiter} FAILING ${failing.length}\n`)
  for (const id of failing) out.push(`${JSON.stringify(id)}\n`)
  if (unmet !== undefined) {
    out.push(`${delimiter} UNMET ${unmetLines.length} ${unmet.omitted}\n`)
    for (const line of unmetLines) out.push(`${line}\n`)
  }
  out.push(`${delimiter} END\n`)
  return { delimiter, text: out.join('') }
}
