// Benchmark helpers: interleaved rounds (every round runs each candidate once, in rotating
// order, so the machine's slow and fast phases hit all of them alike), medians, ratios.

import { run } from '@repairline/core'

export interface BenchRow {
  /** What was measured. */
  name: string
  /** The obvious alternative it is compared with, measured in the same run. */
  baseline: string
  /** median(name) / median(baseline); for throughput rows, a throughput ratio (see detail). */
  ratio: number
  /** Medians and anything else worth printing. */
  detail: string
  /** The goal, e.g. "≤ 1.8×". */
  goal?: string
}

export interface Candidate { name: string, run: () => Promise<void> | void }

export function median (xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2
}

/**
 * REPAIRLINE_BENCH_SMOKE=1: every module runs once on small inputs. Its figures mean nothing;
 * the test suite uses it so a benchmark that no longer runs (a changed contract, a renamed
 * export) fails CI instead of the next person who measures.
 */
export const SMOKE = process.env.REPAIRLINE_BENCH_SMOKE === '1'

/** Runs every candidate `rounds` times, interleaved with rotating order; returns ms samples by name. */
export async function interleave (candidates: readonly Candidate[], rounds: number, warmup = 1): Promise<Map<string, number[]>> {
  if (SMOKE) { rounds = 1; warmup = 0 }
  const samples = new Map<string, number[]>(candidates.map(c => [c.name, []]))
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[(i + Math.max(r, 0)) % candidates.length]
      if (c === undefined) continue
      const t = performance.now()
      await c.run()
      const ms = performance.now() - t
      if (r >= 0) samples.get(c.name)?.push(ms)
    }
  }
  return samples
}

/** A candidate that spawns a process (argv array, explicit env) and requires exit 0. */
export function proc (name: string, file: string, args: string[], env: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin' }, okExits: readonly number[] = [0]): Candidate {
  return {
    name,
    run: async () => {
      const r = await run(file, args, { env })
      if (r.exitCode === undefined || !okExits.includes(r.exitCode)) throw new Error(`${name}: exit ${String(r.exitCode)}: ${r.stderr.toString().slice(0, 300)}`)
    },
  }
}

export const fmt = (ms: number): string => `${ms.toFixed(1)} ms`
