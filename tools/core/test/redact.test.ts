// Redaction and the canary scanner check each other: every realistic leak of a random
// canary (embedded at every byte alignment) is found by the scanner (the positive control
// that makes "0 hits" mean something) and is gone after redactBytes.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { printableLine, redactBytes, redactJson, redactText, secretPattern, secretVariants, REDACTED } from '@repairline/core'
import { canaryForms, scanBytes } from '../../../test/helpers/canary.ts'

const canary = `rl-canary-${randomBytes(12).toString('hex')}`

function leaks (c: string): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = []
  const raw = Buffer.from(c)
  out.push(['raw in JSON', Buffer.from(JSON.stringify({ error: { message: `Incorrect API key provided: ${c}` } }))])
  out.push(['header echo', Buffer.from(`authorization: Bearer ${c}\r\n`)])
  for (let k = 0; k < 6; k++) {
    const framed = Buffer.concat([randomBytes(k), raw, randomBytes(3)])
    out.push([`base64 at +${k}`, Buffer.from(`x ${framed.toString('base64')} y`)])
    out.push([`base64url at +${k}`, Buffer.from(framed.toString('base64url'))])
    out.push([`double base64 at +${k}`, Buffer.from(Buffer.concat([randomBytes(k % 3), Buffer.from(framed.toString('base64'))]).toString('base64'))])
  }
  out.push(['hex', Buffer.from(`0x${raw.toString('hex')}`)])
  out.push(['HEX', Buffer.from(raw.toString('hex').toUpperCase())])
  out.push(['url', Buffer.from(`?key=${encodeURIComponent(`Bearer ${c}`)}`)])
  out.push(['url every byte', Buffer.from([...raw].map(b => `%${b.toString(16).toUpperCase()}`).join(''))])
  out.push(['json \\u escapes', Buffer.from(`"${[...c].map(ch => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`)])
  out.push(['reversed', Buffer.from([...c].reverse().join(''))])
  out.push(['non-ASCII around it', Buffer.concat([Buffer.from([0xff, 0xc3, 0xa9]), raw, Buffer.from([0x80])])])
  return out
}

test('the scanner finds every realistic leak (positive control)', () => {
  for (const [what, bytes] of leaks(canary)) assert.ok(scanBytes(bytes, canary, what).length > 0, `${what} was not found`)
  assert.deepEqual(scanBytes('nothing to see here, rl-canary-000', canary, 'clean'), [])
})

test('redactBytes removes every leak and keeps every other byte', () => {
  for (const [what, bytes] of leaks(canary)) {
    const r = redactBytes(bytes, canary)
    assert.ok(r.count > 0, `${what}: nothing redacted`)
    assert.deepEqual(scanBytes(r.value, canary, what), [], `${what}: still leaks after redaction`)
  }
  const body = Buffer.concat([Buffer.from('{"a":"é'), Buffer.from([0xff]), Buffer.from(`${canary}"}`)])
  const r = redactBytes(body, canary)
  assert.ok(r.value.equals(Buffer.concat([Buffer.from('{"a":"é'), Buffer.from([0xff]), Buffer.from(`${REDACTED}"}`)])))
  assert.equal(r.count, 1)
})

test('redaction is a no-op on clean bytes, and covers every scanner form', () => {
  const clean = Buffer.from('{"summary":{"cause":"a","change":"b","risk":"c"}}')
  const r = redactBytes(clean, canary)
  assert.equal(r.count, 0)
  assert.ok(r.value.equals(clean))
  const variants = secretVariants(canary)
  for (const f of canaryForms(canary)) {
    assert.ok(variants.some(v => v.includes(f.text) || f.text.includes(v)), `scanner form ${f.name} has no redaction variant`)
  }
})

test('hex digits match in any mix of case (hex, %XX, \\uXXXX), and decoded JSON is redacted where no byte form shows', () => {
  const pattern = secretPattern(canary)
  const hex = Buffer.from(canary).toString('hex')
  const mixed = [...hex].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('')
  const pct = [...Buffer.from(canary)].map((b, i) => `%${b.toString(16).padStart(2, '0')[i % 2 === 0 ? 'toUpperCase' : 'toLowerCase']()}`).join('')
  const u = [...canary].map((ch, i) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')[i % 2 === 0 ? 'toUpperCase' : 'toLowerCase']()}`).join('')
  for (const form of [mixed, pct, u]) {
    const r = redactText(`x ${form} y`, pattern)
    assert.equal(r.value, `x ${REDACTED} y`, form)
  }
  // One character escaped: no byte form, but the decoded value is the token.
  const escaped = `{"message":"key \\u${(canary.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}${canary.slice(1)}"}`
  assert.equal(redactText(escaped, pattern).count, 0, 'the byte forms do not see it (the point of redactJson)')
  const decoded = redactJson(JSON.parse(escaped), pattern)
  assert.equal(decoded.count, 1)
  assert.deepEqual(decoded.value, { message: `key ${REDACTED}` })
  assert.equal(redactJson({ [canary]: [1, { a: canary }] }, pattern).count, 2, 'keys and nested values')
})

test('printableLine: one line, controls escaped, lone surrogates replaced, cut by code points', () => {
  assert.equal(printableLine('a\r\nb\u2028c', 100), 'a b c')
  assert.equal(printableLine('x\u001b]0;t\u0007\u009by\tz', 100), 'x\\x1b]0;t\\x07\\x9by\tz')
  assert.equal(printableLine('a\ud800b\udc00', 100), 'a\ufffdb\ufffd')
  assert.equal(printableLine(`${'a'.repeat(9)}😀`, 10), `${'a'.repeat(9)}😀`)
  assert.equal(printableLine(`${'a'.repeat(8)}😀bc`, 10), `${'a'.repeat(7)}...`)
  assert.equal(printableLine('x'.repeat(100_000), 5), 'xx...')
})

test('the scanner also finds the canary in mixed-case hex forms and behind one JSON escape (positive control for the decoded redaction)', () => {
  const hex = Buffer.from(canary).toString('hex').replace(/[a-f]/, c => c.toUpperCase())
  assert.ok(scanBytes(`k=${hex}`, canary, 'mixed hex').length > 0)
  const escaped = `{"m":"\\u${(canary.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}${canary.slice(1)}"}`
  assert.ok(!escaped.includes(canary))
  assert.deepEqual(scanBytes(escaped, canary, 'json').map(h => h.form), ['decoded-json'])
  assert.deepEqual(scanBytes(`{"ok":1}\n${escaped}\n`, canary, 'ndjson').map(h => h.form), ['decoded-json'])
})
