import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseJsonText, parseJsonBytes, findDuplicateKey, jcs, jcsSha256, sha256Hex, sha256File, sha256Text, gitBlobId, run } from '../src/index.ts'

test('strict JSON refuses duplicate keys at any depth, a BOM and invalid UTF-8', () => {
  assert.deepEqual(parseJsonText('{"a":1,"b":{"c":[1,{"d":2}]}}'), { ok: true, value: { a: 1, b: { c: [1, { d: 2 }] } } })
  assert.match((parseJsonText('{"a":1,"a":2}') as { message: string }).message, /duplicate key "a"/)
  assert.match((parseJsonText('{"x":[{"k":1,"k":1}]}') as { message: string }).message, /duplicate key "k"/)
  assert.deepEqual(parseJsonText('{"a":"a","b":"a"}').ok, true) // equal values are not keys
  assert.deepEqual(parseJsonText('{"a\\"":1,"a":2}').ok, true) // escaped quote in a key
  // Keys are compared decoded: an escape and the character it stands for are one key; a
  // backslash run before a quote ends the string only when it is even.
  assert.match((parseJsonText('{"a\\"b":1,"a\\"b":2}') as { message: string }).message, /duplicate key "a\\"b"/)
  assert.match((parseJsonText('{"\\u0061":1,"a":2}') as { message: string }).message, /duplicate key "a"/)
  assert.match((parseJsonText('{"x\\\\":{"y":1},"x\\\\":2}') as { message: string }).message, /duplicate key "x\\\\"/)
  assert.deepEqual(parseJsonText('{"x\\\\":1,"x":2,"k":"\\\\\\"{"}').ok, true)
  assert.match((parseJsonText('{"s":"\\\\","s":1}') as { message: string }).message, /duplicate key "s"/)
  assert.match((parseJsonText('\ufeff{}') as { message: string }).message, /byte-order mark/)
  assert.match((parseJsonBytes(Buffer.from([0x7b, 0xff, 0x7d])) as { message: string }).message, /UTF-8/)
  assert.equal(parseJsonText('{"a":1,}').ok, false)
})

test('findDuplicateKey: a key repeated in any object, compared decoded; a lone surrogate is not its business', () => {
  assert.equal(findDuplicateKey('{"a":1,"a":2}'), 'duplicate key "a" at offset 7')
  assert.equal(findDuplicateKey('{"x":[{"k":1,"\\u006b":2}]}'), 'duplicate key "k" at offset 13')
  assert.equal(findDuplicateKey('{"a":1,"b":{"a":2},"c":["a","a"],"d":"\\"a\\":1,\\"a\\":2"}'), undefined)
  assert.equal(findDuplicateKey('{"id":"a\\ud800","\\ud800":1}'), undefined)
  assert.match(findDuplicateKey('{"\\ud800":1,"\\ud800":2}') ?? '', /^duplicate key "\\ud800"/)
})

test('strict JSON refuses an escaped lone surrogate in any string, key or value; a pair, and a backslash before "u", are fine', () => {
  for (const bad of ['{"id":"a\\ud800"}', '{"id":"\\udc00b"}', '["\\ude00\\ud83d"]', '{"\\ud800":1}', '{"a":{"b":["x","\\udbff"]}}']) {
    assert.match((parseJsonText(bad) as { message: string }).message, /lone surrogate/, bad)
    assert.doesNotThrow(() => JSON.parse(bad), 'JSON.parse alone accepts it')
  }
  assert.deepEqual(parseJsonText('{"e":"\\ud83d\\ude00"}'), { ok: true, value: { e: '\u{1f600}' } })
  assert.deepEqual(parseJsonText('{"p":"\\\\ud800"}'), { ok: true, value: { p: '\\ud800' } })
  // A lone surrogate would make JCS throw; every refused document is one JCS could not hash.
  assert.throws(() => jcs(JSON.parse('{"id":"a\\ud800"}')))
})

test('JCS is key-order independent and digests match known values', () => {
  assert.equal(jcs({ b: 1, a: [true, null, 'é'] }), '{"a":[true,null,"é"],"b":1}')
  assert.equal(jcsSha256({ b: 1, a: 2 }), jcsSha256({ a: 2, b: 1 }))
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  // git hash-object of "hello\n"
  assert.equal(gitBlobId(Buffer.from('hello\n')), 'ce013625030ba8dba906f756967f9e9ca394464a')
})

test('sha256File hashes each file whole with one reused buffer: a short file after a long one, sizes across the 1 MiB reads, no byte left from before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-sha-file-'))
  try {
    const sizes = [(1 << 20) * 2 + 3, 0, 1, 1 << 20, (1 << 20) - 1, 5, (1 << 20) + 1, 2]
    sizes.forEach((n, i) => {
      const p = join(dir, `f${i}`)
      writeFileSync(p, randomBytes(n))
      assert.deepEqual(sha256File(p), { sha256: sha256Hex(readFileSync(p)), bytes: n }, `file ${i} of ${n} bytes`)
    })
    // What it refuses, it refuses before reading: a FIFO (it would block) and a file over the bound.
    assert.equal((await run('/usr/bin/mkfifo', [join(dir, 'fifo')], { env: { PATH: '/usr/bin:/bin' } })).exitCode, 0)
    assert.throws(() => sha256File(join(dir, 'fifo')), (e: { code?: string }) => e.code === 'STATE_UNSAFE')
    assert.throws(() => sha256File(join(dir, 'f0'), 1 << 20), (e: { code?: string }) => e.code === 'FILE_INVALID')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('sha256Text: the bytes of Buffer.from(text), in pieces, a surrogate pair never split across a piece boundary', () => {
  const PIECE = 1 << 16
  const texts = [
    '',
    'a',
    'x'.repeat(3 * PIECE + 17),
    // A pair whose high half is the last code unit of the first piece, then of later ones.
    'a'.repeat(PIECE - 1) + '\u{1F600}' + 'é'.repeat(PIECE) + '\u{10348}'.repeat(PIECE),
    // Three-byte characters filling whole pieces, and a lone high surrogate at the very end.
    '€'.repeat(2 * PIECE) + '\ud83d',
  ]
  for (const text of texts) {
    const pieces: Buffer[] = []
    const r = sha256Text(text, piece => { pieces.push(Buffer.from(piece)) })
    const bytes = Buffer.from(text)
    assert.deepEqual(r, { sha256: sha256Hex(bytes), bytes: bytes.length }, `text of ${text.length} code units`)
    assert.ok(Buffer.concat(pieces).equals(bytes), 'the pieces are the text\'s UTF-8 bytes in order')
    assert.ok(pieces.every(p => p.length <= 3 * PIECE))
  }
  // A call made from inside another's callback uses a buffer of its own.
  const outer = 'o'.repeat(2 * PIECE)
  const inner: string[] = []
  const seen: Buffer[] = []
  const r = sha256Text(outer, piece => {
    inner.push(sha256Text('i'.repeat(PIECE)).sha256)
    seen.push(Buffer.from(piece))
  })
  assert.equal(r.sha256, sha256Hex(outer))
  assert.ok(Buffer.concat(seen).equals(Buffer.from(outer)), 'the outer piece is intact after the nested call')
  assert.deepEqual(inner, [sha256Hex('i'.repeat(PIECE)), sha256Hex('i'.repeat(PIECE))])
})
