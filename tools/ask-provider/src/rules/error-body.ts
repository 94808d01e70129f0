// The one-line summary of a non-2xx body, for the outcome's message. Parsed leniently, in the
// shapes compatible servers use (research REPORT §6): {error:{message,type,code}} with a
// string, integer or null code; {error:"…"}; top-level {message,type,code}; {detail:…}.
// Anything else (HTML from a proxy, plain text) is quoted as text. The body was redacted
// before it reaches here; the summary is capped at 300 characters.

import { jsonDepth, MAX_JSON_DEPTH, parseJsonBytes, printableLine } from '@repairline/core'

const MAX = 300

/** Server text for a message: one printable line (see printableLine) of at most MAX code points. */
function clip (s: string): string {
  return printableLine(s.replace(/\s+/g, ' ').trim(), MAX)
}

export function errorSummary (body: Buffer, contentType: string | undefined): string {
  if (body.length === 0) return 'an empty body'
  // A body nested past the bound is quoted as text: `detail` is serialized recursively below.
  const parsed = (/json/i.test(contentType ?? '') || body[0] === 0x7b) && jsonDepth(body) <= MAX_JSON_DEPTH ? parseJsonBytes(body) : { ok: false as const, message: '' }
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
    const v = parsed.value as Record<string, unknown>
    const e = v.error
    if (typeof e === 'string') return clip(e)
    const o = (typeof e === 'object' && e !== null ? e : v) as Record<string, unknown>
    const parts: string[] = []
    if (typeof o.message === 'string' && o.message !== '') parts.push(o.message)
    for (const k of ['type', 'code', 'param']) if (typeof o[k] === 'string' || typeof o[k] === 'number') parts.push(`${k} ${String(o[k])}`)
    if (parts.length > 0) return clip(parts.join('; '))
    if (v.detail !== undefined) return clip(`detail ${JSON.stringify(v.detail)}`)
  }
  return clip(`a ${contentType ?? 'untyped'} body: ${body.subarray(0, 2 * MAX).toString('utf8')}`)
}
