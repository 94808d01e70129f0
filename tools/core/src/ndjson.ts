// The one NDJSON reader and writer. The `ndjson` package writes os.EOL, skips blank lines
// and reports no line numbers (see docs/decisions.md, "Packages wrapped or replaced"), so records go
// through here: the writer is JSON.stringify(record) + "\n" after validation; the reader is strict and
// positional — a blank line, bad JSON, an unknown kind or a schema failure is refused with
// `<source>:<line>`, never skipped.

import type { Writable } from 'node:stream'
import { recordKinds, recordValidators, type RecordKind, type RecordTypes } from '@repairline/schemas/records'
import { toolError } from './errors.ts'
import { parseJsonText } from './json.ts'
import { formatSchemaErrors } from './schema-errors.ts'

export type AnyRecord = RecordTypes[RecordKind]

/** Lines longer than this are refused rather than buffered. */
export const MAX_LINE_BYTES = 16 << 20

export interface Line { line: number, text: string }

/**
 * Splits a byte stream into UTF-8 lines on "\n", counting from 1, one batch per input chunk
 * (a batch per line would cost an await per line). A final line without a newline is
 * yielded; a stream ending in "\n" yields no empty last line. A line longer than
 * `maxLineBytes` throws (the caller decides the code) instead of growing without bound.
 */
export async function * splitLineBatches (source: AsyncIterable<Uint8Array | string>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line[]> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let line = 0
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    const batch: Line[] = []
    let start = 0
    for (;;) {
      const nl = buf.indexOf(10, start)
      if (nl === -1) break
      line++
      let text: string
      if (pendingBytes === 0) {
        if (nl - start > maxLineBytes) throw new LineTooLongError(line, maxLineBytes)
        text = buf.toString('utf8', start, nl)
      } else {
        pending.push(buf.subarray(start, nl))
        pendingBytes += nl - start
        if (pendingBytes > maxLineBytes) throw new LineTooLongError(line, maxLineBytes)
        text = Buffer.concat(pending).toString('utf8')
        pending = []
        pendingBytes = 0
      }
      batch.push({ line, text })
      start = nl + 1
    }
    if (start < buf.length) {
      // Copy: the chunk's memory may be reused by the stream.
      const rest = Buffer.from(buf.subarray(start))
      pending.push(rest)
      pendingBytes += rest.length
      if (pendingBytes > maxLineBytes) throw new LineTooLongError(line + 1, maxLineBytes)
    }
    if (batch.length > 0) yield batch
  }
  if (pendingBytes > 0) yield [{ line: line + 1, text: Buffer.concat(pending).toString('utf8') }]
}

/** Line by line; see splitLineBatches. */
export async function * splitLines (source: AsyncIterable<Uint8Array | string>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  for await (const batch of splitLineBatches(source, maxLineBytes)) yield * batch
}

export class LineTooLongError extends Error {
  constructor (readonly line: number, readonly max: number) {
    super(`line ${line} is longer than ${max} bytes`)
    this.name = 'LineTooLongError'
  }
}

/** Parses and validates one record line; throws RECORD_INVALID naming `<source>:<line>`. */
export function parseRecordLine (text: string, where: string): AnyRecord {
  const snippet = text.length > 120 ? `${text.slice(0, 120)}…` : text
  if (text === '') throw toolError('RECORD_INVALID', `${where}: blank line`)
  if (text.endsWith('\r')) throw toolError('RECORD_INVALID', `${where}: line ends with CR`)
  // Strict, as files are: a repeated key (JSON.parse keeps the last) makes a record ambiguous.
  const parsed = parseJsonText(text)
  if (!parsed.ok) throw toolError('RECORD_INVALID', `${where}: not strict JSON: ${parsed.message}: ${snippet}`)
  const value = parsed.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw toolError('RECORD_INVALID', `${where}: not a JSON object: ${snippet}`)
  const kind = (value as { kind?: unknown }).kind
  if (typeof kind !== 'string' || !(recordKinds as readonly string[]).includes(kind)) {
    throw toolError('RECORD_INVALID', `${where}: unknown record kind ${JSON.stringify(kind)}; expected one of ${recordKinds.join(', ')}`)
  }
  const validate = recordValidators[kind as RecordKind]
  if (!validate(value)) throw toolError('RECORD_INVALID', `${where}: ${kind} record: ${formatSchemaErrors(validate.errors).join('; ')}`)
  return value as AnyRecord
}

/** Reads every record of a stream strictly. `source` names it in errors (`stdin`). */
export async function * readRecords (input: AsyncIterable<Uint8Array | string>, source = 'stdin'): AsyncGenerator<AnyRecord> {
  try {
    for await (const batch of splitLineBatches(input)) {
      const records = batch.map(({ line, text }) => parseRecordLine(text, `${source}:${line}`))
      yield * records
    }
  } catch (e) {
    if (e instanceof LineTooLongError) throw toolError('RECORD_INVALID', `${source}:${e.line}: line longer than ${e.max} bytes`)
    throw e
  }
}

/** Serializes a record after validating it against its kind's schema. */
export function formatRecord (record: AnyRecord): string {
  const validate = recordValidators[record.kind]
  if (!validate(record)) {
    throw toolError('INTERNAL', `refusing to print an invalid ${record.kind} record: ${formatSchemaErrors(validate.errors).join('; ')}`)
  }
  return JSON.stringify(record) + '\n'
}

/**
 * Prints records in the order every tool keeps: one `start`, at most one `attempt`, the
 * tool's own records, at most one `error`, one `result`. EPIPE (the reader went away) makes
 * further writes silent; the tool finishes its work and exit status is unchanged. Any other
 * write error (a full disk, an I/O error) also silences further writes and is kept as
 * `failure`, for runCli to report once the tool has finished (OUTPUT_FAILED).
 */
export class RecordWriter {
  private state: 'new' | 'started' | 'errored' | 'done' = 'new'
  private attemptPrinted = false
  private broken = false
  private failed: Error | undefined
  readonly printed: AnyRecord[] = []

  constructor (private readonly out: Writable) {
    out.on('error', (e: NodeJS.ErrnoException) => {
      this.broken = true
      if (e.code !== 'EPIPE') this.failed ??= e
    })
  }

  /** The write error that lost records (not EPIPE), if any. */
  get failure (): Error | undefined { return this.failed }

  /** True once a step has ended on this failure itself (runCli then reports nothing more). */
  failureReported = false

  /**
   * Waits until every record written so far has reached stdout or failed, and throws
   * OUTPUT_FAILED if one failed (a closed pipe does not count): for a step about to do what
   * cannot be undone, which it should not do when nobody can be told.
   */
  async settle (): Promise<void> {
    if (!this.broken) await new Promise<void>(resolve => this.out.write('', () => { resolve() }))
    if (this.failed !== undefined) {
      this.failureReported = true
      throw toolError('OUTPUT_FAILED', `cannot write records to stdout: ${this.failed.message}`)
    }
  }

  write (record: AnyRecord): void {
    const { kind } = record
    const line = formatRecord(record)
    if (kind === 'start' ? this.state !== 'new' : this.state === 'new' || this.state === 'done') {
      throw toolError('INTERNAL', `record order: ${kind} after ${this.state}`)
    }
    if (kind === 'attempt') {
      if (this.attemptPrinted) return
      this.attemptPrinted = true
    }
    if (kind === 'error') {
      if (this.state === 'errored') throw toolError('INTERNAL', 'record order: a second error record')
      this.state = 'errored'
    } else if (kind === 'result') {
      this.state = 'done'
    } else if (kind === 'start') {
      this.state = 'started'
    } else if (this.state === 'errored') {
      throw toolError('INTERNAL', `record order: ${kind} after error`)
    }
    this.printed.push(record)
    if (!this.broken) this.out.write(line)
  }

  get attemptKnown (): boolean { return this.attemptPrinted }
}
