// The canary scanner: proves a secret appears in no retained byte, record or stderr line.
// It looks for the raw canary and every encoding a leak is known to take (threat-matrix §5:
// GitHub's masker list plus CVE-2025-30066's double base64): base64 and base64url in the 3
// byte alignments, hex (either case), URL-encoding, JSON escapes, reversed, and base64 of
// base64. It is written independently of core's redact.ts (which the scanner checks), and
// stays conservative: for an aligned encoding it searches the part that is certain to appear.

import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The searchable forms of `canary`, named. */
export function canaryForms (canary: string): Array<{ name: string, text: string }> {
  const raw = Buffer.from(canary, 'utf8')
  const forms: Array<{ name: string, text: string }> = [{ name: 'raw', text: canary }]
  // Inside a longer base64 text, the canary starting k bytes into a group encodes like
  // base64("\0"*k + canary) except for the characters its neighbours also touch: drop 4 at
  // each end, which is always enough.
  const aligned = (b: Buffer, k: number, enc: 'base64' | 'base64url'): string => {
    const s = Buffer.concat([Buffer.alloc(k), b]).toString(enc).replace(/=+$/, '')
    return s.slice(4, -4)
  }
  for (let k = 0; k < 3; k++) {
    forms.push({ name: `base64+${k}`, text: aligned(raw, k, 'base64') })
    forms.push({ name: `base64url+${k}`, text: aligned(raw, k, 'base64url') })
    for (let j = 0; j < 3; j++) forms.push({ name: `double-base64+${k}+${j}`, text: aligned(Buffer.from(aligned(raw, k, 'base64')), j, 'base64') })
  }
  forms.push({ name: 'hex', text: raw.toString('hex') })
  forms.push({ name: 'HEX', text: raw.toString('hex').toUpperCase() })
  forms.push({ name: 'url', text: encodeURIComponent(canary) })
  forms.push({ name: 'url-all', text: [...raw].map(b => `%${b.toString(16).padStart(2, '0')}`).join('') })
  forms.push({ name: 'URL-all', text: [...raw].map(b => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('') })
  forms.push({ name: 'json', text: JSON.stringify(canary).slice(1, -1) })
  forms.push({ name: 'json-u', text: [...canary].map(c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') })
  forms.push({ name: 'reversed', text: [...canary].reverse().join('') })
  return forms.filter(f => f.text.length >= 8)
}

export interface CanaryHit { where: string, form: string }

/** Forms whose hex digits a decoder reads in either case: searched case-insensitively. */
const HEX_DIGIT_FORMS = new Set(['hex', 'HEX', 'url-all', 'URL-all', 'json-u'])

/**
 * Scans bytes for every form; `where` names the source in hits. Text that is JSON (a whole
 * document, or each line of NDJSON) is also scanned decoded, as `decoded-json`: an escape of
 * one character (`\u0072l-…`) is no byte form, yet every reader of the file sees the canary.
 */
export function scanBytes (bytes: Uint8Array | string, canary: string, where: string): CanaryHit[] {
  const hay = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('latin1')
  const lower = hay.toLowerCase()
  const hits = canaryForms(canary).filter(f => hay.includes(f.text) || (HEX_DIGIT_FORMS.has(f.name) && lower.includes(f.text.toLowerCase()))).map(f => ({ where, form: f.name }))
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8')
  if (hay.includes('\\') && decodedStrings(text).some(x => x.includes(canary))) hits.push({ where, form: 'decoded-json' })
  else if (leniently(text).some(x => x.includes(canary))) hits.push({ where, form: 'decoded-leniently' })
  return hits
}

const SHORT_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/**
 * What a forgiving reader makes of `text`, up to four levels deep: JSON escapes (`\u0072`,
 * `\\`, …) and `%XX` decoded wherever they stand, valid JSON or not (a document with
 * duplicate keys, a lone surrogate, a JSON text inside a JSON string, a URL). One level per
 * entry.
 */
export function leniently (text: string): string[] {
  const out: string[] = []
  let v = text
  for (let level = 0; level < 4 && /[\\%]/.test(v); level++) {
    const next = v
      .replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, hex: string | undefined, c: string | undefined) => hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : SHORT_ESCAPES[c ?? ''] ?? '')
      .replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    if (next === v) break
    out.push(next)
    v = next
  }
  return out
}

/** Every string (keys included) of the JSON documents in `text`: the whole, or each line. */
export function decodedStrings (text: string): string[] {
  const docs: unknown[] = []
  const parse = (t: string): boolean => { try { docs.push(JSON.parse(t)); return true } catch { return false } }
  if (!parse(text)) for (const line of text.split('\n')) if (line.includes('\\')) parse(line)
  const out: string[] = []
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) { out.push(k); walk(x) }
  }
  docs.forEach(walk)
  return out
}

/** Scans every regular file under each path (recursively, without following symlinks). */
export function scanPaths (paths: readonly string[], canary: string): CanaryHit[] {
  const hits: CanaryHit[] = []
  const visit = (p: string): void => {
    let st
    try { st = lstatSync(p) } catch { return }
    if (st.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n))
    else if (st.isFile()) hits.push(...scanBytes(readFileSync(p), canary, p))
    else if (st.isSymbolicLink()) hits.push(...scanBytes(p, canary, `${p} (link name)`))
  }
  for (const p of paths) visit(p)
  return hits
}

/** Throws listing every hit, or returns quietly when the canary is nowhere. */
export function assertNoCanary (canary: string, o: { paths?: readonly string[], texts?: Record<string, string | Uint8Array> }): void {
  const hits = [...scanPaths(o.paths ?? [], canary), ...Object.entries(o.texts ?? {}).flatMap(([where, t]) => scanBytes(t, canary, where))]
  if (hits.length > 0) throw new Error(`the canary leaked: ${hits.map(h => `${h.where} (${h.form})`).join(', ')}`)
}
