// Redaction of one secret (the provider token) from what a server sent us, before anything
// is kept. The token is never written by us; this is for a server that echoes it back — in
// an error message, a JSON field, a header. Every encoded form a log masker is known to need
// is replaced (GitHub Actions' list, plus the double-base64 that defeated it in
// CVE-2025-30066): raw; base64 and base64url in each of the 3 byte alignments; hex;
// URL-encoding (encodeURIComponent and every byte percent-encoded); JSON string escaping
// (minimal, and every character as \uXXXX); reversed; and base64 of base64 in all 9 alignment
// pairs. Hex digits match in either case, mixed too, wherever a form has them (hex, %XX,
// \uXXXX): a decoder reads them alike. Forms a decoder builds from partial escapes (one
// character of the token written as \u0072 in JSON) are no byte form at all: JSON is
// redacted again after it is decoded (redactJson), and text that a forgiving reader still
// decodes into a form (escapes and %XX decoded wherever they stand, a few levels deep:
// hidesSecret) is not kept at all. Redaction is a last line of defence: the token is kept
// out of every file, record and log by construction.

export const REDACTED = '[REDACTED]'

/**
 * Encoded forms shorter than this are not redacted (they would match by chance). A secret
 * itself shorter than this could not be redacted at all: the token helper refuses one
 * (ask-provider's token-helper rule).
 */
export const MIN_SECRET_CHARS = 8

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
  return [...out].filter(v => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
}

/** What redaction matches for one secret: its forms, and those with hex digits case-folded. */
export interface SecretPattern {
  /** Every form, longest first, matched exactly. */
  variants: string[]
  /** The hex-digit forms (hex, %XX, \\uXXXX) lowercased, matched in lowercased text. */
  folded: string[]
}

/** Forms whose letters are hex digits a decoder reads in either case. */
const HEX_CASE_FREE = /^(?:[0-9a-fA-F]+|(?:%[0-9a-fA-F]{2})+|(?:\\u[0-9a-fA-F]{4})+)$/

/** The forms of `secret` redaction looks for: exact, and hex-digit forms in any mix of case. */
export function secretPattern (secret: string): SecretPattern {
  const variants = secretVariants(secret)
  return { variants, folded: [...new Set(variants.filter(v => HEX_CASE_FREE.test(v)).map(v => v.toLowerCase()))] }
}

export interface Redacted<T> {
  value: T
  /** How many occurrences were replaced. */
  count: number
}

/** Replaces every variant in a string (byte-transparent for latin1-decoded input). */
export function redactText (text: string, pattern: SecretPattern): Redacted<string> {
  let count = 0
  let value = text
  // Repeat until stable: a replacement can join the text around it into a new form.
  for (let changed = true; changed;) {
    changed = false
    for (const v of pattern.variants) {
      const parts = value.split(v)
      if (parts.length > 1) {
        count += parts.length - 1
        value = parts.join(REDACTED)
        changed = true
      }
    }
    // Mixed-case hex: found in a lowercased copy. U+0130 is the one character whose lowercase
    // is longer; written as I first, the copy keeps every offset.
    if (/[A-F]/.test(value)) {
      const folded = value.replace(/\u0130/g, 'I').toLowerCase()
      const hits: Array<[number, number]> = []
      for (const v of pattern.folded) {
        for (let at = folded.indexOf(v); at !== -1; at = folded.indexOf(v, at + v.length)) hits.push([at, at + v.length])
      }
      hits.sort((a, b) => a[0] - b[0])
      let out = ''
      let from = 0
      for (const [a, b] of hits) {
        if (a < from) continue
        out += value.slice(from, a) + REDACTED
        from = b
        count++
        changed = true
      }
      if (from > 0) value = out + value.slice(from)
    }
  }
  return { value, count }
}

const SHORT_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/** Levels of escaping decoded when looking for a hidden secret (a JSON text inside a JSON string is two). */
const DECODE_LEVELS = 4

/**
 * Whether `text`, its JSON escapes (`\u0072`, `\\`, …) and `%XX` bytes decoded wherever they
 * stand, up to DECODE_LEVELS times, shows a form of the secret: what a forgiving reader
 * makes of a document that is not strict JSON (duplicate keys, a lone surrogate), of a JSON
 * text inside a JSON string, or of a URL with one character percent-encoded. No byte form
 * of the secret matches such text, so redactText alone leaves it.
 */
export function hidesSecret (text: string, pattern: SecretPattern): boolean {
  let v = text
  for (let level = 0; level < DECODE_LEVELS && /[\\%]/.test(v); level++) {
    const next = v
      .replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, hex: string | undefined, c: string | undefined) => hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : SHORT_ESCAPES[c ?? ''] ?? '')
      .replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    if (next === v) return false
    if (redactText(next, pattern).count > 0) return true
    v = next
  }
  return false
}

/**
 * redactText, and where the text still hides a form of the secret behind escapes
 * (hidesSecret), the whole text replaced: such a form cannot be cut out of its escapes.
 */
export function redactTextDeep (text: string, pattern: SecretPattern): Redacted<string> {
  const r = redactText(text, pattern)
  return hidesSecret(r.value, pattern) ? { value: REDACTED, count: r.count + 1 } : r
}

/** Redacts bytes exactly: non-ASCII bytes pass through unchanged. */
export function redactBytes (bytes: Uint8Array, secret: string | SecretPattern): Redacted<Buffer> {
  const r = redactText(Buffer.from(bytes).toString('latin1'), typeof secret === 'string' ? secretPattern(secret) : secret)
  return { value: Buffer.from(r.value, 'latin1'), count: r.count }
}

/**
 * Redacts every string of a decoded JSON value, keys included: what a server can hide from
 * byte-level redaction with escapes (`"\u0072l-…"`) is plain text once decoded, and a
 * string that hides it one level further (a JSON text inside it, escaped again) is replaced
 * whole (redactTextDeep).
 */
export function redactJson (value: unknown, pattern: SecretPattern): Redacted<unknown> {
  let count = 0
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = redactTextDeep(v, pattern)
      count += r.count
      return r.value
    }
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) out[walk(k) as string] = walk(x)
      return out
    }
    return v
  }
  const redacted = walk(value)
  return { value: redacted, count }
}
