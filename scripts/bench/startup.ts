// Start-up cost of each tool: `<tool> --help` (the bundled bin with precompiled validators)
// vs `node -e 0`, interleaved. Issue goal: ≤ 1.8× for every tool.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { interleave, median, proc, fmt, type BenchRow } from './lib.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const TOOLS = ['admit', 'extract-tree', 'reproduce', 'ask-provider', 'gate-patch', 'verify', 'receipt']

export async function run (): Promise<BenchRow[]> {
  const present = TOOLS.filter(t => existsSync(join(ROOT, 'tools', t, 'dist', `${t}.mjs`)))
  const candidates = [proc('node -e 0', process.execPath, ['-e', '0']), ...present.map(t => proc(t, process.execPath, [join(ROOT, 'tools', t, 'dist', `${t}.mjs`), '--help']))]
  const s = await interleave(candidates, 15, 2)
  const base = median(s.get('node -e 0') ?? [])
  return present.map(t => {
    const m = median(s.get(t) ?? [])
    return { name: `${t} --help`, baseline: 'node -e 0', ratio: m / base, detail: `${fmt(m)} vs ${fmt(base)}`, goal: '≤ 1.8×' }
  })
}
