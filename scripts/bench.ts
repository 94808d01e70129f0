// bench runs every benchmark module in scripts/bench/ (each exports `run(): Promise<BenchRow[]>`)
// and prints one Markdown table: the figures docs/performance.md reports. Ratios only, each against the
// obvious alternative measured in the same interleaved run; no thresholds.
//
//   pnpm bench [module …]     e.g. pnpm bench startup ndjson

import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchRow } from './bench/lib.ts'

const dir = join(import.meta.dirname, 'bench')
const wanted = process.argv.slice(2)
const modules = readdirSync(dir).filter(f => f.endsWith('.ts') && f !== 'lib.ts').map(f => f.slice(0, -3)).filter(m => wanted.length === 0 || wanted.includes(m)).sort()

const rows: Array<BenchRow & { module: string }> = []
for (const m of modules) {
  process.stderr.write(`bench: ${m} …\n`)
  const mod = await import(join(dir, `${m}.ts`)) as { run: () => Promise<BenchRow[]> }
  for (const r of await mod.run()) rows.push({ ...r, module: m })
}
process.stdout.write('| area | measured | against | ratio | goal | detail |\n|---|---|---|---|---|---|\n')
for (const r of rows) process.stdout.write(`| ${r.module} | ${r.name} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.goal ?? ''} | ${r.detail} |\n`)
