// A push parser for `git cat-file --batch` output when the caller knows, from the listing,
// exactly which objects it asked for, in which order, and how big each one is:
//
//   <oid> SP <type> SP <size> LF <size bytes> LF      (or: <oid> SP missing LF)
//
// Each header is checked against the expected object before a single byte of its body is
// accepted: another id, another type or another size stops the stream there. The parser
// owns no buffers: body pieces go to the sink as ranges of the chunks it is fed (valid only
// during the call), so the caller can copy them straight to their final place.

import { toolError } from '../errors.ts'

export interface ExpectedObject { oid: string, size: number }

export interface BatchSink {
  /** Bytes [start, end) of `chunk` are the next piece of object `index`'s body. Valid only during the call. */
  body: (index: number, chunk: Buffer, start: number, end: number) => void
  /** Object `index`'s body is complete (all `size` bytes were passed to `body`). */
  end: (index: number) => void
}

/** Longest header line accepted: "<40 hex> blob <size>" is under 70 bytes. */
const MAX_HEADER = 256

export class CatFileBatchParser {
  private index = 0
  private state: 'header' | 'body' | 'lf' = 'header'
  private header: Buffer[] = []
  private headerBytes = 0
  private remaining = 0

  constructor (private readonly expected: readonly ExpectedObject[], private readonly sink: BatchSink) {}

  /** Feeds the next chunk of cat-file's stdout. Throws a typed error at the first deviation. */
  push (chunk: Buffer): void {
    let pos = 0
    while (pos < chunk.length) {
      if (this.state === 'header') {
        const nl = chunk.indexOf(0x0a, pos)
        const end = nl === -1 ? chunk.length : nl
        if (this.headerBytes + end - pos > MAX_HEADER) throw protocol(`header of object ${this.index + 1} is longer than ${MAX_HEADER} bytes`)
        if (nl !== -1 && this.headerBytes === 0) {
          // The whole header is in this chunk (the common case): no copy.
          this.startBody(chunk.toString('latin1', pos, nl))
        } else {
          this.header.push(Buffer.from(chunk.subarray(pos, end)))
          this.headerBytes += end - pos
          if (nl === -1) return
          this.startBody(Buffer.concat(this.header).toString('latin1'))
          this.header = []
          this.headerBytes = 0
        }
        pos = nl + 1
      } else if (this.state === 'body') {
        const n = Math.min(this.remaining, chunk.length - pos)
        if (n > 0) this.sink.body(this.index, chunk, pos, pos + n)
        pos += n
        this.remaining -= n
        if (this.remaining === 0) this.state = 'lf'
      } else {
        if (chunk[pos] !== 0x0a) throw protocol(`object ${this.index + 1} is not followed by a newline`)
        pos++
        this.sink.end(this.index)
        this.index++
        this.state = 'header'
      }
    }
  }

  /** The stream ended: every expected object must have arrived whole. */
  finish (): void {
    if (this.state !== 'header' || this.headerBytes > 0) throw protocol(`output ended inside object ${this.index + 1}`)
    if (this.index !== this.expected.length) throw protocol(`output ended after ${this.index} of ${this.expected.length} objects`)
  }

  /** Objects completed so far. */
  get completed (): number { return this.index }

  private startBody (line: string): void {
    const want = this.expected[this.index]
    if (want === undefined) throw protocol(`unexpected output after the last object: ${JSON.stringify(line.slice(0, 80))}`)
    const oidLength = want.oid.length
    if (line.charCodeAt(oidLength) !== 0x20 || !line.startsWith(want.oid)) throw protocol(`expected object ${want.oid}, got header ${JSON.stringify(line.slice(0, 80))}`)
    const rest = line.slice(oidLength + 1)
    if (rest === 'missing') {
      throw toolError('GIT_FAILED', `object ${want.oid} is missing from the repository`, { hint: 'the object store is incomplete; run git fsck in source_root' })
    }
    const sp = rest.indexOf(' ')
    const type = sp === -1 ? rest : rest.slice(0, sp)
    const sizeText = sp === -1 ? '' : rest.slice(sp + 1)
    if (sp === -1 || !/^(0|[1-9][0-9]{0,15})$/.test(sizeText)) throw protocol(`malformed header ${JSON.stringify(line.slice(0, 80))}`)
    if (type !== 'blob') throw toolError('TREE_OBJECT_MISMATCH', `object ${want.oid} is listed as a blob but is a ${type}`)
    const size = Number(sizeText)
    if (size !== want.size) {
      throw toolError('TREE_OBJECT_MISMATCH', `blob ${want.oid} was listed with ${want.size} bytes but has ${size}: the object store changed while it was read`)
    }
    this.remaining = size
    this.state = size === 0 ? 'lf' : 'body'
  }
}

function protocol (detail: string): Error {
  return toolError('GIT_FAILED', `git cat-file --batch: ${detail}`)
}
