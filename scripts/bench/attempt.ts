// What each start-up mechanism saves of a real attempt (docs/performance.md, "What the
// start-up mechanisms save"): a mechanism that saves less than 3 % of a median real attempt is
// not worth its code. The attempt is the go-cache bench's: a Go module with a one-line bug
// (REPAIRLINE_BENCH_GO_MODULE, else a small generated module), go_build_cache warm, the local
// HTTPS Responses server answering the fix. Interleaved rounds, medians; each row is the
// attempt without one mechanism against the attempt as built, with the wall time and the CPU
// time (user + system of the driver and every process it waited for) it saves:
//
//   - standbys: the driver with --no-standby;
//   - the V8 code caches: a copy of the built tools without their .v8cache files (each step
//     compiles its bundle from the text, as launch.ts does when a cache is missing);
//   - the bind-scan memo: the bind check of a Go run's sources (what admit's preflight,
//     reproduce and verify each check) walking every system directory, against the same check
//     with the memo, in this process; the attempt pays it three times.

import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertBindSourcesSafe, defaultScanMemoDir, forgetSystemScans, goInstall, sandboxSystemDirs } from '@repairline/core'
import { driveAttempt, prepareGoAttempt } from './go-cache.ts'
import { fmt, interleave, median, SMOKE, type BenchRow } from './lib.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SANDBOX_STARTS_PER_ATTEMPT = 3

/**
 * A copy of the built driver and tools (what a step runs: dist/, each tool's bin/, dist/ and
 * package.json) under `dir`, less the files `drop` names: the driver finds the tools beside
 * its own bundle.
 */
function builtCopy (dir: string, drop: (file: string) => boolean): string {
  mkdirSync(dir)
  const keep = (src: string): boolean => !drop(src)
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: keep })
  for (const tool of readdirSync(join(ROOT, 'tools'))) {
    if (!existsSync(join(ROOT, 'tools', tool, 'bin'))) continue
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, 'tools', tool, part), join(dir, 'tools', tool, part), { recursive: true, filter: keep })
  }
  return dir
}

/**
 * CPU ms (user + system) of this process's waited-for children so far: the driver and every
 * process it waited for (/proc/self/stat's cutime and cstime, in ticks of 10 ms: USER_HZ 100).
 */
function childrenCpuMs (): number {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // Fields after the command: state is field 3, so cutime (16) and cstime (17) are at 13, 14.
  return (Number(fields[13]) + Number(fields[14])) * 10
}

export async function run (): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'rl-bench-attempt-'))
  chmodSync(work, 0o755)
  const rounds = SMOKE ? 1 : 7
  const s = await prepareGoAttempt(work, (rounds + 1) * 3)
  try {
    const cpu = new Map<string, number[]>()
    const drive = (name: string, root: string, extra: string[] = []) => ({
      name,
      run: async (): Promise<void> => {
        const before = childrenCpuMs()
        await driveAttempt(s, root, extra)
        cpu.set(name, [...(cpu.get(name) ?? []), childrenCpuMs() - before])
        // Retention is capped (admit's RETENTION_FULL): the sealed attempt is not needed.
        for (const a of readdirSync(join(s.stateDir, 'attempts'))) rmSync(join(s.stateDir, 'attempts', a), { recursive: true, force: true })
      },
    })
    const all = [
      drive('as built', ROOT),
      drive('no standby', ROOT, ['--no-standby']),
      drive('no code cache', builtCopy(join(work, 'no-code-cache'), f => f.endsWith('.v8cache'))),
    ]
    const walls = await interleave(all, rounds, 1)
    const base = median(walls.get('as built') ?? [])
    const baseCpu = median(cpu.get('as built') ?? [])
    const rows: BenchRow[] = all.slice(1).map(({ name: v }) => {
      const w = median(walls.get(v) ?? [])
      const c = median(cpu.get(v) ?? [])
      return {
        name: `a Go attempt through the driver, ${v === 'no standby' ? 'with --no-standby' : 'without the tools\' V8 code caches'}`,
        baseline: 'the same attempt as built',
        ratio: w / base,
        detail: `wall ${fmt(w)} vs ${fmt(base)} (saves ${((w - base) / base * 100).toFixed(1)} %); CPU ${fmt(c)} vs ${fmt(baseCpu)} (${((c - baseCpu) / baseCpu * 100).toFixed(1)} %); ${rounds} interleaved rounds`,
        goal: 'keep if ≥ 1.03×',
      }
    })
    // The memo, in process: the go run's system directories, walked vs checked against the memo.
    goInstall()
    // The system directories and the operator's build cache, whose overlay's lower layer is
    // checked the same way (docs/go-build-cache.md).
    const sources = [...sandboxSystemDirs('go'), s.goBuildCache].map(path => ({ path, system: true }))
    const memoDir = defaultScanMemoDir()
    const check = (memo: string | undefined) => (): void => {
      forgetSystemScans()
      assertBindSourcesSafe(sources, 65534, 65534, memo)
    }
    check(memoDir)() // the memo, made if missing
    const checks = await interleave([{ name: 'walk', run: check(undefined) }, { name: 'memo', run: check(memoDir) }], SMOKE ? 1 : 15, 1)
    const walk = median(checks.get('walk') ?? [])
    const memo = median(checks.get('memo') ?? [])
    const saved = (walk - memo) * SANDBOX_STARTS_PER_ATTEMPT
    rows.push({
      name: `the bind check of a Go run's system directories (${sources.map(x => x.path).join(', ')}) walking them`,
      baseline: 'the same check with the bind-scan memo',
      ratio: walk / memo,
      detail: `${fmt(walk)} vs ${fmt(memo)}; × ${SANDBOX_STARTS_PER_ATTEMPT} sandbox starts = ${fmt(saved)}, ${(saved / base * 100).toFixed(1)} % of the attempt as built (${fmt(base)})`,
      goal: 'keep if the saving ≥ 3 % of the attempt',
    })
    return rows
  } finally {
    await s.close()
    rmSync(work, { recursive: true, force: true })
  }
}
