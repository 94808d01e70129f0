// The NDJSON reader is strict and positional, and gives the same records however the
// bytes arrive: whole, line by line, or in 1- and 2-byte chunks.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { readRecords, RecordWriter, splitLines, formatRecord, type AnyRecord } from '../src/index.ts'

const records: AnyRecord[] = [
  { v: 1, kind: 'start', tool: 'admit', command: 'run' },
  { v: 1, kind: 'attempt', path: '/s/attempts/0123456789abcdef', key: 'a'.repeat(64) },
  { v: 1, kind: 'error', code: 'LOCK_HELD', message: 'held — by “someone”' },
  { v: 1, kind: 'result', tool: 'admit', exit: 75 },
]
const text = records.map(r => JSON.stringify(r) + '\n').join('')

async function * chunks (s: string, size: number): AsyncGenerator<Uint8Array> {
  const b = Buffer.from(s)
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, Math.min(b.length, i + size))
}
async function * lines (s: string): AsyncGenerator<string> {
  for (const l of s.split(/(?<=\n)/)) yield l
}
async function collect (src: AsyncIterable<Uint8Array | string>): Promise<AnyRecord[]> {
  const out: AnyRecord[] = []
  for await (const r of readRecords(src)) out.push(r)
  return out
}

test('whole, line by line, 1-byte and 2-byte chunks give the same records', async () => {
  assert.deepEqual(await collect(chunks(text, 1 << 20)), records)
  assert.deepEqual(await collect(lines(text)), records)
  assert.deepEqual(await collect(chunks(text, 1)), records)
  assert.deepEqual(await collect(chunks(text, 2)), records)
})

test('a last line without a newline is read; a trailing newline adds no record', async () => {
  assert.deepEqual(await collect(chunks(text.slice(0, -1), 3)), records)
})

async function rejects (input: string, re: RegExp): Promise<void> {
  for (const size of [1, 2, 1 << 20]) {
    await assert.rejects(collect(chunks(input, size)), (e: { code?: string, message: string }) => {
      assert.equal(e.code, 'RECORD_INVALID')
      assert.match(e.message, re)
      return true
    })
  }
}

test('a blank line is refused with its line number, never skipped', async () => {
  const lines = text.split('\n')
  await rejects(`${lines[0]}\n\n${lines[1]}\n`, /^stdin:2: blank line/)
})

test('bad JSON, a repeated key, an unknown kind and a schema failure name stdin:<line>', async () => {
  const first = JSON.stringify(records[0])
  await rejects(`${first}\n{"v":1,\n`, /^stdin:2: not strict JSON/)
  // JSON.parse would keep the last "path"; the record is refused as ambiguous instead.
  await rejects(`${first}\n{"v":1,"kind":"attempt","path":"/nope","key":"${'a'.repeat(64)}","path":"/real"}\n`, /^stdin:2: not strict JSON: duplicate key "path"/)
  await collect(chunks(`${first}\n{"v":1,"kind":"attempt","path":"/real","key":"${'a'.repeat(64)}"}\n`, 1 << 20))
  await rejects(`${first}\n${first}\n{"v":1,"kind":"frob"}\n`, /^stdin:3: unknown record kind "frob"/)
  await rejects(`{"v":1,"kind":"result","tool":"admit","exit":"zero"}\n`, /^stdin:1: result record: \/exit/)
  await rejects(`${first}\r\n`, /^stdin:1: line ends with CR/)
})

test('splitLines counts lines across chunk boundaries and caps line length', async () => {
  const got: number[] = []
  for await (const l of splitLines(chunks('a\nbb\n\nccc', 2))) got.push(l.line)
  assert.deepEqual(got, [1, 2, 3, 4])
  await assert.rejects(async () => { for await (const _ of splitLines(chunks('x'.repeat(100), 7), 50)); }, /line 1 is longer than 50 bytes/)
})

test('the writer validates, keeps the record order and survives EPIPE', () => {
  const out = new PassThrough()
  let written = ''
  out.on('data', d => { written += String(d) })
  const w = new RecordWriter(out)
  assert.throws(() => w.write(records[1] as AnyRecord), { code: 'INTERNAL' }) // attempt before start
  w.write(records[0] as AnyRecord)
  w.write(records[1] as AnyRecord)
  w.write(records[1] as AnyRecord) // a second attempt record is dropped
  assert.throws(() => w.write({ v: 1, kind: 'result', tool: 'admit', exit: 3 } as unknown as AnyRecord), { code: 'INTERNAL' })
  w.write(records[2] as AnyRecord)
  assert.throws(() => w.write(records[2] as AnyRecord), { code: 'INTERNAL' }) // a second error
  w.write(records[3] as AnyRecord)
  assert.throws(() => w.write(records[3] as AnyRecord), { code: 'INTERNAL' }) // after result
  assert.equal(written, text)
  const broken = new PassThrough()
  const w2 = new RecordWriter(broken)
  broken.emit('error', Object.assign(new Error('EPIPE'), { code: 'EPIPE' }))
  w2.write(records[0] as AnyRecord) // no throw
  assert.equal(formatRecord(records[0] as AnyRecord), JSON.stringify(records[0]) + '\n')
})
