// The one tar layout of tree.tar, shared by the writer and every reader so the two cannot
// drift. POSIX ustar, one regular-file entry per manifest entry in manifest order (sorted by
// path bytes), no directory entries; mtime 0, uid/gid 0, empty uname/gname, mode 0644 or
// 0755 from git. A path longer than the 100-byte name field gets a PAX extended header
// (typeflag 'x') holding exactly one `path` record, placed before its entry; the name field
// then holds the path's first 100 bytes. The archive ends with two zero blocks and is not
// padded to a 10 KiB record (readers do not need it). Every offset is a function of the
// entries alone, so a reader can seek to one file without scanning the archive.

import { toolError } from '../errors.ts'

export const BLOCK = 512
const NAME_FIELD = 100
const PAX_NAME = Buffer.from('././@PaxHeader')

export type FileMode = '100644' | '100755'

export interface TarEntryInput {
  path: string
  mode: FileMode
  size: number
}

/**
 * Where each entry sits in the archive, by its index: archive offsets in typed arrays, not an
 * object per entry (20,000 of them took a cold step ~30 ms and ~1,900 page faults to lay out;
 * the arrays ~12 ms and ~650, measured in a fresh process). Only the few entries whose path
 * is longer than the name field carry more (their PAX record).
 */
export interface TarLayout {
  /** First byte of entry i's first header (its PAX header when it has one). */
  start: Float64Array
  /** First byte of entry i's ustar header. */
  header: Float64Array
  /** First byte of entry i's content. */
  data: Float64Array
  /** Entries whose path is longer than the name field: the PAX record and the name field's bytes. */
  long: ReadonlyMap<number, LongPath>
  /** Total archive size, end-of-archive blocks included. */
  size: number
}

/** A path longer than the name field: its PAX extended header's content, and the path's first 100 bytes for the name field. */
export interface LongPath { pax: Buffer, name: Buffer }

/** n rounded up to a whole number of 512-byte blocks. */
export function padded (n: number): number {
  return Math.ceil(n / BLOCK) * BLOCK
}

/** The PAX record `"<len> path=<path>\n"`, where <len> counts the whole record, its own digits included. */
export function paxPathRecord (pathBytes: Buffer): Buffer {
  const body = 'path='.length + pathBytes.length + 1 /* \n */ + 1 /* space */
  let len = body + String(body).length
  if (String(len).length !== String(body).length) len = body + String(len).length
  return Buffer.concat([Buffer.from(`${len} path=`), pathBytes, Buffer.from('\n')])
}

/** The layout of an archive holding `entries` in this order. */
export function tarLayout (entries: readonly TarEntryInput[]): TarLayout {
  const count = entries.length
  const start = new Float64Array(count)
  const header = new Float64Array(count)
  const data = new Float64Array(count)
  const long = new Map<number, LongPath>()
  let off = 0
  for (let i = 0; i < count; i++) {
    const e = entries[i] as TarEntryInput
    start[i] = off
    // UTF-8 takes at most 3 bytes per UTF-16 code unit: a path of up to 33 fits the name field
    // without being measured. Only a longer one needs its bytes now (for its PAX record).
    if (e.path.length > NAME_FIELD / 3 && Buffer.byteLength(e.path) > NAME_FIELD) {
      const bytes = Buffer.from(e.path)
      const pax = paxPathRecord(bytes)
      long.set(i, { pax, name: bytes.subarray(0, NAME_FIELD) })
      off += BLOCK + padded(pax.length)
    }
    header[i] = off
    off += BLOCK
    data[i] = off
    off += padded(e.size)
  }
  return { start, header, data, long, size: off + 2 * BLOCK }
}

// Constant fields of every header: uid, gid, mtime, magic, version, devmajor, devminor.
const TEMPLATE = Buffer.alloc(BLOCK)
TEMPLATE.write('0000000\0', 108, 'latin1')
TEMPLATE.write('0000000\0', 116, 'latin1')
TEMPLATE.write('00000000000\0', 136, 'latin1')
TEMPLATE.write('ustar\0', 257, 'latin1')
TEMPLATE.write('00', 263, 'latin1')
TEMPLATE.write('0000000\0', 329, 'latin1')
TEMPLATE.write('0000000\0', 337, 'latin1')

// The two mode fields as written, and the sum of their bytes.
function modeField (octalMode: string): { bytes: Buffer, sum: number } {
  const bytes = Buffer.from(`${octalMode}\0`, 'latin1')
  return { bytes, sum: bytes.reduce((a, x) => a + x, 0) }
}
const MODE_644 = modeField('0000644')
const MODE_755 = modeField('0000755')

/**
 * Writes `n` as `digits` zero-padded octal digits at `at`; returns the digits' byte sum.
 * Byte by byte, not through strings: this runs twice for each of up to 20,000 entries.
 */
function writeOctal (tar: Buffer, at: number, n: number, digits: number): number {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 8 ** digits) throw toolError('INTERNAL', `tar: ${n} does not fit ${digits} octal digits`)
  let sum = 0
  for (let i = digits - 1; i >= 0; i--) {
    const d = 0x30 + (n % 8)
    tar[at + i] = d
    sum += d
    n = Math.floor(n / 8)
  }
  return sum
}

// The checksum counts its own field as eight spaces; the template's other bytes never change.
let TEMPLATE_SUM = 8 * 0x20
for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) TEMPLATE_SUM += TEMPLATE[i] ?? 0

/** `name` is at most 100 bytes: a Buffer is copied as is, a string written as UTF-8 (the caller knows it fits). */
function writeHeader (tar: Buffer, at: number, name: Buffer | string, m: { bytes: Buffer, sum: number }, size: number, type: 0x30 | 0x78): void {
  tar.set(TEMPLATE, at)
  const nameLength = typeof name === 'string' ? tar.write(name, at, NAME_FIELD, 'utf8') : name.copy(tar, at, 0, NAME_FIELD)
  tar.set(m.bytes, at + 100)
  // Only the name, mode, size and type fields differ from the template (whose mode and size are zeros).
  let sum = TEMPLATE_SUM + m.sum + type
  for (let i = at; i < at + nameLength; i++) sum += tar[i] ?? 0
  sum += writeOctal(tar, at + 124, size, 11)
  tar[at + 135] = 0
  tar[at + 156] = type
  writeOctal(tar, at + 148, sum, 6)
  tar[at + 154] = 0
  tar[at + 155] = 0x20
}

/**
 * Writes the header block(s) of entry `i` of `layout` into `tar`. Content is written by the
 * caller. `base` is the archive offset of `tar`'s first byte (a window onto the archive).
 */
export function writeEntryHeaders (tar: Buffer, layout: TarLayout, i: number, e: TarEntryInput, base = 0): void {
  const long = layout.long.get(i)
  if (long !== undefined) {
    const at = (layout.start[i] as number) - base
    writeHeader(tar, at, PAX_NAME, MODE_644, long.pax.length, 0x78 /* x */)
    long.pax.copy(tar, at + BLOCK)
  }
  writeHeader(tar, (layout.header[i] as number) - base, long?.name ?? e.path, e.mode === '100755' ? MODE_755 : MODE_644, e.size, 0x30 /* 0 */)
}

/** One entry as a reader finds it in the archive. */
export interface ParsedTarEntry {
  path: string
  mode: FileMode
  size: number
  /** Offset of the content, relative to the buffer parsed. */
  data: number
  /** Offset just past the padded content: the next entry or the end blocks. */
  next: number
}

function field (b: Buffer, at: number, len: number): Buffer {
  const f = b.subarray(at, at + len)
  const nul = f.indexOf(0)
  return nul === -1 ? f : f.subarray(0, nul)
}

function parseOctal (b: Buffer, at: number, len: number, what: string): number {
  const text = field(b, at, len).toString('latin1').trim()
  if (!/^[0-7]{1,12}$/.test(text)) throw mismatch(`${what} field is not octal`)
  return Number.parseInt(text, 8)
}

function mismatch (detail: string): Error {
  return toolError('TREE_ARCHIVE_MISMATCH', `tree.tar is not an archive extract-tree wrote: ${detail}`)
}

function parseHeaderBlock (b: Buffer, at: number): { type: string, name: Buffer, mode: number, size: number } {
  if (at + BLOCK > b.length) throw mismatch(`truncated header at offset ${at}`)
  let sum = 8 * 0x20
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += b[at + i] ?? 0
  if (parseOctal(b, at + 148, 8, 'checksum') !== sum) throw mismatch(`bad header checksum at offset ${at}`)
  if (b.toString('latin1', at + 257, at + 265) !== 'ustar\u000000') throw mismatch(`no ustar magic at offset ${at}`)
  return {
    type: b.toString('latin1', at + 156, at + 157),
    name: Buffer.from(field(b, at, NAME_FIELD)),
    mode: parseOctal(b, at + 100, 8, 'mode'),
    size: parseOctal(b, at + 124, 12, 'size'),
  }
}

/** True when the 1024 bytes at `at` are the end-of-archive blocks. */
export function isEndOfArchive (b: Buffer, at: number): boolean {
  if (at + 2 * BLOCK > b.length) return false
  for (let i = at; i < at + 2 * BLOCK; i++) if (b[i] !== 0) return false
  return true
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Parses the entry whose first header starts at `at` in `b` (which must hold at least the
 * headers; the content may lie beyond `b`). Accepts exactly what the writer produces: an
 * optional PAX header with a single `path` record, then a regular-file ustar header.
 */
export function parseTarEntry (b: Buffer, at: number): ParsedTarEntry {
  let h = parseHeaderBlock(b, at)
  let path: Buffer | undefined
  let off = at + BLOCK
  if (h.type === 'x') {
    const rec = b.subarray(off, off + h.size)
    if (rec.length !== h.size) throw mismatch(`truncated PAX header at offset ${at}`)
    const m = /^(\d+) path=/.exec(rec.toString('latin1', 0, Math.min(rec.length, 32)))
    if (m === null || Number(m[1]) !== rec.length || rec[rec.length - 1] !== 0x0a) throw mismatch(`PAX header at offset ${at} is not one path record`)
    path = Buffer.from(rec.subarray(m[0].length, rec.length - 1))
    off += padded(h.size)
    h = parseHeaderBlock(b, off)
    off += BLOCK
  }
  if (h.type !== '0') throw mismatch(`entry at offset ${at} has type ${JSON.stringify(h.type)}, not a regular file`)
  if (h.mode !== 0o644 && h.mode !== 0o755) throw mismatch(`entry at offset ${at} has mode ${h.mode.toString(8)}`)
  let text: string
  try {
    text = utf8.decode(path ?? h.name)
  } catch {
    throw mismatch(`entry at offset ${at} has a path that is not UTF-8`)
  }
  return { path: text, mode: h.mode === 0o755 ? '100755' : '100644', size: h.size, data: off, next: off + padded(h.size) }
}
