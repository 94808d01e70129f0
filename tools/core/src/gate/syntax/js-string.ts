// The value of a JavaScript string literal or template fragment, as the engine reads it in
// sloppy mode (the widest reading: a strict file refuses legacy octal escapes outright).

const SIMPLE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }

/**
 * The value of a JavaScript string literal's or template's body: `\u{…}`, `\uXXXX`, `\xXX`,
 * legacy octal escapes `\0`–`\377` (sloppy-mode strings; `\0` not followed by a digit is NUL),
 * line continuations (nothing), the single-character escapes, and `\c` as `c` otherwise.
 */
export function decodeJsString (body: string): string {
  return body.replace(/\\(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([0-3][0-7]{0,2}|[4-7][0-7]?)|(\r\n|[\n\r\u2028\u2029])|([\s\S]))/g, (_m, cp: string | undefined, u: string | undefined, x: string | undefined, o: string | undefined, nl: string | undefined, c: string | undefined) => {
    if (cp !== undefined) { const v = parseInt(cp, 16); return v <= 0x10ffff ? String.fromCodePoint(v) : '' }
    if (u !== undefined) return String.fromCharCode(parseInt(u, 16))
    if (x !== undefined) return String.fromCharCode(parseInt(x, 16))
    if (o !== undefined) return String.fromCharCode(parseInt(o, 8))
    if (nl !== undefined) return ''
    return SIMPLE[c as string] ?? (c as string)
  })
}
