// The `internal-text` checker (DESIGN §6b): every rule of the internal register, run over
// exact bytes. The version changes whenever any rule changes, so readback can tell a record
// made by an older checker (STALE_CHECKER_VERSION) from a current one.

import type { Finding, TextRule, TextSurface } from './types.ts'
import { controlCharacters } from './rules/control-characters.ts'
import { lineLength } from './rules/line-length.ts'
import { codeFence } from './rules/code-fence.ts'
import { markup } from './rules/markup.ts'
import { roleMarker } from './rules/role-marker.ts'
import { specialToken } from './rules/special-token.ts'
import { payloadDelimiter } from './rules/payload-delimiter.ts'
import { quotedSpan } from './rules/quoted-span.ts'
import { briefLines } from './rules/brief-lines.ts'
import { summaryLine } from './rules/summary-line.ts'
import { summaryFields } from './rules/summary-fields.ts'

export const INTERNAL_TEXT_CHECKER = { name: 'internal-text', version: 1 } as const

/** Every rule, in the order findings are reported. utf8 runs first and alone. */
export const INTERNAL_TEXT_RULES: ReadonlyArray<readonly [string, TextRule]> = [
  ['control-characters', controlCharacters],
  ['line-length', lineLength],
  ['code-fence', codeFence],
  ['markup', markup],
  ['role-marker', roleMarker],
  ['special-token', specialToken],
  ['payload-delimiter', payloadDelimiter],
  ['quoted-span', quotedSpan],
  ['brief-lines', briefLines],
  ['summary-line', summaryLine],
  ['summary-fields', summaryFields],
]

/** A record keeps at most this many findings (the first ones, in rule then line order). */
export const MAX_FINDINGS = 100

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Splits text into lines on "\n"; a final "\n" does not add an empty line. */
export function textLines (text: string): string[] {
  const lines = text.split('\n')
  if (lines.length > 0 && lines.at(-1) === '') lines.pop()
  return lines
}

/** Decodes strict UTF-8, or names the first line that is not valid UTF-8. */
function decode (bytes: Uint8Array): { ok: true, text: string } | { ok: false, finding: Finding } {
  try {
    return { ok: true, text: fatal.decode(bytes) }
  } catch {
    let line = 1
    let start = 0
    for (let i = 0; i <= bytes.length; i++) {
      if (i === bytes.length || bytes[i] === 0x0a) {
        try {
          fatal.decode(bytes.subarray(start, i))
        } catch {
          return { ok: false, finding: { rule: 'utf8', line, detail: 'the line is not valid UTF-8' } }
        }
        line++
        start = i + 1
      }
    }
    return { ok: false, finding: { rule: 'utf8', line: 0, detail: 'the text is not valid UTF-8' } }
  }
}

/**
 * Runs every internal-register rule over `bytes` as the given surface. Returns the findings
 * (empty = pass), at most MAX_FINDINGS. Invalid UTF-8 is the only finding when present.
 */
export function checkInternalText (bytes: Uint8Array | string, surface: TextSurface, o: { delimiter?: string } = {}): Finding[] {
  const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  const decoded = decode(buf)
  if (!decoded.ok) return [decoded.finding]
  const input = { lines: textLines(decoded.text), surface, ...(o.delimiter === undefined ? {} : { delimiter: o.delimiter }) }
  const findings: Finding[] = []
  for (const [, rule] of INTERNAL_TEXT_RULES) {
    for (const f of rule(input)) {
      findings.push({ ...f, detail: f.detail.length > 500 ? `${f.detail.slice(0, 497)}...` : f.detail })
      if (findings.length >= MAX_FINDINGS) return findings
    }
  }
  return findings
}

/**
 * The exact text the summary checker reads: one "<field>: <value>" line per field of
 * proposal.summary, in the object's own key order (JSON order), each ending in "\n". A
 * non-string value is written as JSON; a summary that is not an object is one JSON line.
 */
export function renderSummaryText (summary: unknown): string {
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) return `${JSON.stringify(summary) ?? 'undefined'}\n`
  return Object.entries(summary).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`).join('')
}
