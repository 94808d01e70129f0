// Redaction of one secret (the provider token) from bytes a server sent us, before anything
// is kept. The token is never written by us; this is for a server that echoes it back — in
// an error message, a JSON field, a header. Every encoded form a log masker is known to need
// is replaced (GitHub Actions' list, plus the double-base64 that defeated it in
// CVE-2025-30066): raw; base64 and base64url in each of the 3 byte alignments; lowercase and
// uppercase hex; URL-encoding (encodeURIComponent and every byte percent-encoded, either hex
// case); JSON string escaping (minimal, and every character as \uXXXX); reversed; and
// base64 of base64 in all 9 alignment pairs. Redaction is a last line of defence: the token
// is kept out of every file, record and log by construction.

export const REDACTED = '[REDACTED]'

/** Encoded forms shorter than this are not redacted (they would match by chance). */
const MIN_VARIANT_CHARS = 8

/**
 * The characters of base64(prefix + secret) that depend on the secret's bytes only, for a
 * secret starting `shift` bytes into a 3-byte group: the form it takes inside any larger
 * base64 text at that alignment.
 */
export function base64Core (secret: Buffer, shift: 0 | 1 | 2, url = false): string {
  const enc = Buffer.concat([Buffer.alloc(shift), secret]).toString(url ? 'base64url' : 'base64')
  const first = Math.ceil((8 * shift) / 6)
  const last = Math.floor((8 * (shift + secret.length)) / 6)
  return enc.slice(first, last)
}

const SHIFTS = [0, 1, 2] as const

/** Every encoded form of `secret` that redaction replaces, longest first, without duplicates. */
export function secretVariants (secret: string): string[] {
  const raw = Buffer.from(secret, 'utf8')
  const hex = raw.toString('hex')
  const out = new Set<string>([secret])
  for (const s of SHIFTS) {
    out.add(base64Core(raw, s))
    out.add(base64Core(raw, s, true))
  }
  out.add(hex)
  out.add(hex.toUpperCase())
  out.add(encodeURIComponent(secret))
  out.add(hex.replace(/../g, '%$&'))
  out.add(hex.toUpperCase().replace(/../g, '%$&'))
  out.add(JSON.stringify(secret).slice(1, -1))
  const uEscaped = [...secret].map(c => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join('')
  out.add(uEscaped)
  out.add(uEscaped.toUpperCase().replace(/\\U/g, '\\u'))
  out.add([...secret].reverse().join(''))
  for (const inner of SHIFTS) {
    const once = Buffer.from(base64Core(raw, inner), 'latin1')
    for (const outer of SHIFTS) out.add(base64Core(once, outer))
  }
  return [...out].filter(v => v.length >= MIN_VARIANT_CHARS).sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
}

export interface Redacted<T> {
  value: T
  /** How many occurrences were replaced. */
  count: number
}

/** Replaces every variant in a string (byte-transparent for latin1-decoded input). */
export function redactText (text: string, secret: string, variants = secretVariants(secret)): Redacted<string> {
  let count = 0
  let value = text
  // Repeat until stable: removing one form can never create another, but be certain.
  for (let changed = true; changed;) {
    changed = false
    for (const v of variants) {
      const parts = value.split(v)
      if (parts.length > 1) {
        count += parts.length - 1
        value = parts.join(REDACTED)
        changed = true
      }
    }
  }
  return { value, count }
}

/** Redacts bytes exactly: non-ASCII bytes pass through unchanged. */
export function redactBytes (bytes: Uint8Array, secret: string): Redacted<Buffer> {
  const r = redactText(Buffer.from(bytes).toString('latin1'), secret)
  return { value: Buffer.from(r.value, 'latin1'), count: r.count }
}
