// Strict JSON: what JSON.parse accepts, minus what makes a document ambiguous. A byte-order
// mark, a duplicate object key (JSON.parse silently keeps the last one) or invalid UTF-8 is
// refused, so a reviewed file means exactly one thing to every reader.

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

/** Parses strict JSON text: no BOM, no duplicate keys. */
export function parseJsonText (text: string): StrictJsonResult {
  if (text.charCodeAt(0) === 0xfeff) return { ok: false, message: 'starts with a byte-order mark' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { ok: false, message: (e as Error).message }
  }
  const dup = findDuplicateKey(text)
  if (dup !== undefined) return { ok: false, message: `duplicate key ${JSON.stringify(dup.key)} at offset ${dup.offset}` }
  return { ok: true, value }
}

/**
 * Scans already-valid JSON text for an object with a repeated key. Runs after JSON.parse
 * succeeded, so it only tracks strings, nesting and which strings are keys.
 */
function findDuplicateKey (text: string): { key: string, offset: number } | undefined {
  const stack: Array<Set<string> | null> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x7b /* { */) { stack.push(new Set()); expectKey = true } else if (c === 0x5b /* [ */) { stack.push(null); expectKey = false } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) { stack.pop(); expectKey = false } else if (c === 0x2c /* , */) { expectKey = stack.at(-1) instanceof Set } else if (c === 0x22 /* " */) {
      // The closing quote is the next one not escaped by an odd run of backslashes.
      const start = i
      i = text.indexOf('"', i + 1)
      while (backslashesBefore(text, i) % 2 === 1) i = text.indexOf('"', i + 1)
      if (expectKey) {
        // Without a backslash a key's text is the key itself; only escapes need decoding.
        const raw = text.slice(start + 1, i)
        const key = raw.includes('\\') ? JSON.parse(text.slice(start, i + 1)) as string : raw
        const keys = stack.at(-1)
        if (keys instanceof Set) {
          if (keys.has(key)) return { key, offset: start }
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
