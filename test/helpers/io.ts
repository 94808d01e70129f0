// In-process tool I/O for index.ts tests: records are parsed back strictly from what the
// tool printed, stderr is collected, the environment is explicit.

import { PassThrough, Readable } from 'node:stream'
import { RecordWriter, parseRecordLine, type AnyRecord, type Env, type ToolIo } from '@repairline/core'

export interface FakeIo { io: ToolIo, records: () => AnyRecord[], stderr: () => string }

export function fakeIo (o: { env?: Env, stdin?: string, now?: Date, cwd?: string } = {}): FakeIo {
  const out = new PassThrough()
  const err = new PassThrough()
  let stdout = ''
  let stderr = ''
  out.on('data', (c: Buffer) => { stdout += c.toString() })
  err.on('data', (c: Buffer) => { stderr += c.toString() })
  const io: ToolIo = {
    stdin: Readable.from([Buffer.from(o.stdin ?? '')]),
    out: new RecordWriter(out),
    stderr: err,
    env: o.env ?? {},
    now: () => o.now ?? new Date(),
    cwd: o.cwd ?? '/',
  }
  return {
    io,
    records: () => stdout.split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`)),
    stderr: () => stderr,
  }
}
