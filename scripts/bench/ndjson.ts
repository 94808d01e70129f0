// Why the `ndjson` package was replaced: core's strict reader (Buffer line splitter +
// JSON.parse + schema validation of every record) vs `ndjson.parse()` and readline +
// JSON.parse over the same generated record stream, in-process, interleaved.

import { Readable } from 'node:stream'
import { createInterface } from 'node:readline'
import ndjson from 'ndjson'
import { readRecords, splitLineBatches } from '@repairline/core'
import { interleave, median, SMOKE, type BenchRow } from './lib.ts'

function stream (n: number): Buffer {
  const lines: string[] = []
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ v: 1, kind: 'case-status', case_id: `example.com/calc::TestCase${i}`, status: i % 3 === 0 ? 'eligible' : 'consumed', attempt_key: 'a'.repeat(64), ...(i % 3 === 0 ? {} : { outcome: 'failed', attempt_dir: `/srv/state/attempts/${'b'.repeat(16)}` }) }))
  }
  return Buffer.from(lines.join('\n') + '\n')
}

function chunked (buf: Buffer, size = 64 * 1024): Readable {
  const parts: Buffer[] = []
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size))
  return Readable.from(parts)
}

export async function run (): Promise<BenchRow[]> {
  const records = SMOKE ? 2_000 : 200_000
  const data = stream(records)
  const mib = data.length / (1 << 20)
  let count = 0
  const s = await interleave([
    { name: 'core readRecords (validated)', run: async () => { count = 0; for await (const _ of readRecords(chunked(data))) count++ } },
    { name: 'core line splitter + JSON.parse (no schema)', run: async () => { count = 0; for await (const b of splitLineBatches(chunked(data))) for (const l of b) { JSON.parse(l.text); count++ } } },
    { name: 'ndjson.parse', run: async () => { count = 0; await new Promise<void>((resolve, reject) => { chunked(data).pipe(ndjson.parse({ strict: true })).on('data', () => { count++ }).on('end', resolve).on('error', reject) }) } },
    { name: 'readline + JSON.parse', run: async () => { count = 0; for await (const l of createInterface({ input: chunked(data), crlfDelay: Infinity })) { JSON.parse(l); count++ } } },
  ], 5, 1)
  if (count !== records) throw new Error(`expected ${records} records, read ${count}`)
  const ours = median(s.get('core readRecords (validated)') ?? [])
  const rows: BenchRow[] = []
  for (const other of ['core line splitter + JSON.parse (no schema)', 'ndjson.parse', 'readline + JSON.parse']) {
    const m = median(s.get(other) ?? [])
    rows.push({ name: 'core NDJSON reader (strict, validated)', baseline: other, ratio: m / ours, detail: `throughput ratio (higher is faster): ${(mib / (ours / 1000)).toFixed(0)} MiB/s vs ${(mib / (m / 1000)).toFixed(0)} MiB/s over ${mib.toFixed(0)} MiB` })
  }
  return rows
}
