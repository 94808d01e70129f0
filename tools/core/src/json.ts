// Strict JSON: what JSON.parse accepts, minus what makes a document ambiguous. A byte-order
// mark, a duplicate object key (JSON.parse silently keeps the last one), invalid UTF-8 or an
// escaped lone surrogate ("\ud800": no Unicode text, no UTF-8 form, and canonical JSON (JCS)
// cannot hash it) is refused, so a reviewed file means exactly one thing to every reader.

export type StrictJsonResult = { ok: true, value: unknown } | { ok: false, message: string }

/** Decodes UTF-8 strictly (no replacement characters) and parses strict JSON. */
export function parseJsonBytes (bytes: Uint8Array): StrictJsonResult {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return { ok: false, message: 'not valid UTF-8' }
  }
  return parseJsonText(text)
}

/** Parses strict JSON text: no BOM, no duplicate keys, no lone surrogates. */
export function parseJsonText (text: string): StrictJsonResult {
  if (text.charCodeAt(0) === 0xfeff) return { ok: false, message: 'starts with a byte-order mark' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { ok: false, message: (e as Error).message }
  }
  const why = findAmbiguity(text)
  if (why !== undefined) return { ok: false, message: why }
  return { ok: true, value }
}

/** A lone high or low surrogate (a string that is not Unicode text). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** True when `s` is Unicode text: no lone surrogate, so it has a UTF-8 form and a JCS form. */
export function isUnicodeText (s: string): boolean {
  return !LONE_SURROGATE.test(s)
}

/**
 * Why already-valid JSON text (JSON.parse accepted it) holds an object with a repeated key, at
 * any depth, keys compared decoded (`duplicate key "a" at offset 7`), or undefined. Unlike
 * parseJsonText it does not look for lone surrogates.
 */
export function findDuplicateKey (text: string): string | undefined {
  return findAmbiguity(text, false)
}

/**
 * Scans already-valid JSON text for an object with a repeated key or (with `surrogates`) a
 * string that decodes to a lone surrogate. Runs after JSON.parse succeeded, so it only tracks
 * strings, nesting and which strings are keys; only strings holding an escape are decoded.
 */
function findAmbiguity (text: string, surrogates = true): string | undefined {
  const stack: Array<Set<string> | null> = []
  let expectKey = false
  // The next backslash at or after the current string (moves forward only: linear overall).
  let nextEscape = text.indexOf('\\')
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x7b /* { */) { stack.push(new Set()); expectKey = true } else if (c === 0x5b /* [ */) { stack.push(null); expectKey = false } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) { stack.pop(); expectKey = false } else if (c === 0x2c /* , */) { expectKey = stack.at(-1) instanceof Set } else if (c === 0x22 /* " */) {
      // The closing quote is the next one not escaped by an odd run of backslashes.
      const start = i
      i = text.indexOf('"', i + 1)
      while (backslashesBefore(text, i) % 2 === 1) i = text.indexOf('"', i + 1)
      if (nextEscape !== -1 && nextEscape < start) nextEscape = text.indexOf('\\', start)
      // Without a backslash a string's text is the string itself; only escapes need decoding.
      const decoded = nextEscape !== -1 && nextEscape < i && (surrogates || expectKey) ? JSON.parse(text.slice(start, i + 1)) as string : undefined
      if (surrogates && decoded !== undefined && !isUnicodeText(decoded)) return `an escaped lone surrogate in the string at offset ${start}`
      if (expectKey) {
        const key = decoded ?? text.slice(start + 1, i)
        const keys = stack.at(-1)
        if (keys instanceof Set) {
          if (keys.has(key)) return `duplicate key ${JSON.stringify(key)} at offset ${start}`
          keys.add(key)
        }
        expectKey = false
      }
    }
  }
  return undefined
}

function backslashesBefore (text: string, at: number): number {
  let n = 0
  while (text.charCodeAt(at - 1 - n) === 0x5c) n++
  return n
}
