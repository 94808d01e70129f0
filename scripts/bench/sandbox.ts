// The sandbox and the runners against the obvious alternatives, interleaved, medians:
//
//   - a node suite (5 files × 20 tests) through runTests (the CLI's limits: cgroups, rlimits,
//     bwrap as uid 65534, every readback) vs the same `node --test` command with the same
//     reporter run plainly in the same tree (issue goal ≤ 1.10×);
//   - a go suite (3 packages × 10 tests) through runTests with the tree shown at its own path
//     and its private GOCACHE over a warm build cache (go_build_cache) vs the same `go test
//     -json` run plainly in the tree with that warm cache (issue goal ≤ 1.15×);
//   - normalizing a generated 200 MB `go test -json` stream (core's normalizeGoBatches), and
//     normalizing and summarizing it (+ EventSummarizer), vs readline + JSON.parse over the
//     same file, each in a fresh process bundled with esbuild the way the tools are, with peak
//     RSS (issue goals ≥ 1.0× the throughput, ≤ 150 MB).
//
// The in-process sandboxed runs are steady state: the walk of /usr for special files is done
// once per process (a tool pays it once per run); its cost is reported beside them.

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { assertBindSourcesSafe, defaultScanMemoDir, forgetSystemScans, goInstall, goCommand, goEnv, loadScanMemo, nodeCommand, nodeInstall, run as runProcess, runTests, scanSpecialFiles, writeNodeReporter, type TestRun } from '@repairline/core'
import { fmt, interleave, median, SMOKE, type BenchRow } from './lib.ts'
import { writeGoTestJson } from './fixtures/go-test-json.ts'

const ROOT = join(import.meta.dirname, '..', '..')

function writeTree (dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  chmodSync(dir, 0o755)
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel)
    mkdirSync(join(p, '..'), { recursive: true, mode: 0o755 })
    writeFileSync(p, content, { mode: 0o644 })
  }
}

function nodeSuiteFiles (): Record<string, string> {
  const files: Record<string, string> = { 'package.json': '{"type":"module"}\n', 'src/lib.js': 'export function fib (n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\nexport function words (s) { return s.split(/\\s+/).filter(Boolean) }\n' }
  for (let f = 0; f < 5; f++) {
    let body = "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { fib, words } from '../src/lib.js'\n"
    for (let i = 0; i < 20; i++) body += `test('case ${f}.${i}', () => { assert.equal(fib(${10 + (i % 8)}), ${[55, 89, 144, 233, 377, 610, 987, 1597][i % 8]}); assert.equal(words('a b  c ${i}').length, 4) })\n`
    files[`test/suite${f}.test.js`] = body
  }
  return files
}

function goSuiteFiles (): Record<string, string> {
  const files: Record<string, string> = { 'go.mod': 'module example.com/bench\n\ngo 1.19\n' }
  for (const p of ['alpha', 'beta', 'gamma']) {
    files[`internal/${p}/${p}.go`] = `package ${p}\n\nimport "strings"\n\n// Fib returns the nth Fibonacci number.\nfunc Fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn Fib(n-1) + Fib(n-2)\n}\n\n// Words splits s on white space.\nfunc Words(s string) []string { return strings.Fields(s) }\n`
    let t = `package ${p}\n\nimport "testing"\n`
    for (let i = 0; i < 10; i++) t += `\nfunc TestCase${i}(t *testing.T) {\n\tif Fib(${10 + i}) <= 0 || len(Words("a b c")) != 3 {\n\t\tt.Fatal("no")\n\t}\n}\n`
    files[`internal/${p}/${p}_test.go`] = t
  }
  return files
}

/** A fresh scratch directory per run, as each step gets (left in place, as reproduce leaves it). */
function freshScratch (parent: string): string {
  const d = mkdtempSync(join(parent, 'run-'))
  chmodSync(d, 0o755)
  return d
}

function check (r: TestRun, want: number): void {
  if (r.fault !== undefined || r.summary.failing.length > 0 || Object.keys(r.summary.identities).length !== want) {
    throw new Error(`sandboxed run did not pass all ${want} identities: ${JSON.stringify(r.fault)} ${r.summary.failing.slice(0, 3).join(', ')} ${r.stderrTail.slice(0, 300)}`)
  }
}

async function nodeSuite (work: string): Promise<BenchRow[]> {
  const tree = join(work, 'node-tree')
  writeTree(tree, nodeSuiteFiles())
  const scratch = join(work, 'node-scratch')
  writeTree(scratch, {})
  const reporterDir = join(work, 'node-reporter')
  writeTree(reporterDir, {})
  const reporter = join(reporterDir, 'ndjson-reporter.mjs')
  writeNodeReporter(reporter)
  const node = nodeInstall()
  const plainArgv = nodeCommand(node.execPath, ['test']).map(a => a.startsWith('--test-reporter=') ? `--test-reporter=${reporter}` : a)
  const env = { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp' }
  const setup: number[] = []
  const s = await interleave([
    {
      name: 'plain',
      run: async () => {
        const r = await runProcess(plainArgv[0] as string, plainArgv.slice(1), { env, cwd: tree })
        if (r.exitCode !== 0) throw new Error(`plain node --test failed: ${r.stderr.toString().slice(0, 300)}`)
      },
    },
    {
      name: 'sandboxed',
      run: async () => {
        const r = await runTests({ runner: 'node', tree, testPackages: ['test'], scratch: freshScratch(scratch), timeoutMs: 120_000 })
        check(r, 100)
        setup.push(r.sandbox?.timing.setup_ms ?? 0)
      },
    },
  ], 15, 2)
  const plain = median(s.get('plain') ?? [])
  const sand = median(s.get('sandboxed') ?? [])
  return [{
    name: 'node suite in the sandbox (runTests, CLI limits, every readback)',
    baseline: 'the same node --test command and reporter, plain',
    ratio: sand / plain,
    detail: `${fmt(sand)} vs ${fmt(plain)} (${sand >= plain ? '+' : '−'}${fmt(Math.abs(sand - plain))}; sandbox setup median ${fmt(median(setup))}); 5 files × 20 tests; 15 interleaved rounds`,
    goal: '≤ 1.10×',
  }]
}

async function goSuite (work: string): Promise<BenchRow[]> {
  const go = goInstall()
  const tree = join(work, 'go-tree')
  writeTree(tree, goSuiteFiles())
  const scratch = join(work, 'go-scratch')
  writeTree(scratch, {})
  const cache = join(work, 'go-host-cache')
  const pkgs = ['./internal/alpha', './internal/beta', './internal/gamma']
  const argv = goCommand(go.goBin, pkgs, 120_000)
  const env = { ...goEnv(go.goroot, undefined), GOCACHE: cache, GOPATH: join(work, 'gopath'), GOMODCACHE: join(work, 'gopath', 'pkg', 'mod'), HOME: work, TMPDIR: tmpdir() }
  const setup: number[] = []
  const s = await interleave([
    {
      name: 'plain',
      run: async () => {
        const r = await runProcess(argv[0] as string, argv.slice(1), { env, cwd: tree })
        if (r.exitCode !== 0) throw new Error(`plain go test failed: ${r.stderr.toString().slice(0, 300)}`)
      },
    },
    {
      name: 'sandboxed',
      run: async () => {
        const r = await runTests({ runner: 'go', tree, mountPoint: tree, testPackages: pkgs, scratch: freshScratch(scratch), timeoutMs: 120_000, goBuildCache: cache })
        check(r, 30)
        setup.push(r.sandbox?.timing.setup_ms ?? 0)
      },
    },
  ], 11, 2)
  const plain = median(s.get('plain') ?? [])
  const sand = median(s.get('sandboxed') ?? [])
  return [{
    name: 'go suite in the sandbox (runTests, GOCACHE over the warm build cache)',
    baseline: 'the same go test -json command, plain, warm cache',
    ratio: sand / plain,
    detail: `${fmt(sand)} vs ${fmt(plain)} (${sand >= plain ? '+' : '−'}${fmt(Math.abs(sand - plain))}; sandbox setup median ${fmt(median(setup))}); ${go.version}, 3 packages × 10 tests; 11 interleaved rounds`,
    goal: '≤ 1.15×',
  }]
}

// Normalization only: split, JSON.parse, the schema check, the event objects.
const NORMALIZE = `import { createReadStream } from 'node:fs'
import { normalizeGoBatches } from ${JSON.stringify(join(ROOT, 'tools/core/src/events.ts'))}
const t = performance.now()
let events = 0
for await (const batch of normalizeGoBatches(createReadStream(process.argv[2]))) events += batch.length
process.stdout.write(JSON.stringify({ ms: performance.now() - t, rssMB: process.resourceUsage().maxRSS / 1024, events }))
`
// Normalization and the summary runTests returns: identities, failing set, anomalies.
const SUMMARIZE = `import { createReadStream } from 'node:fs'
import { normalizeGoBatches, EventSummarizer } from ${JSON.stringify(join(ROOT, 'tools/core/src/events.ts'))}
const t = performance.now()
const s = new EventSummarizer()
let events = 0
for await (const batch of normalizeGoBatches(createReadStream(process.argv[2]))) for (const ev of batch) { s.add(ev); events++ }
const sum = s.finish()
process.stdout.write(JSON.stringify({ ms: performance.now() - t, rssMB: process.resourceUsage().maxRSS / 1024, events, identities: Object.keys(sum.identities).length, failing: sum.failing.length }))
`
const READLINE = `import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
const t = performance.now()
let events = 0
for await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity })) { JSON.parse(line); events++ }
process.stdout.write(JSON.stringify({ ms: performance.now() - t, rssMB: process.resourceUsage().maxRSS / 1024, events }))
`

async function normalization (work: string): Promise<BenchRow[]> {
  const file = join(work, 'go-test.json')
  const gen = writeGoTestJson(file, SMOKE ? 2_000_000 : 200_000_000)
  const mib = gen.bytes / (1 << 20)
  const bundles: Record<string, string> = {}
  for (const [name, source] of [['normalize', NORMALIZE], ['summarize', SUMMARIZE], ['readline', READLINE]] as const) {
    const entry = join(work, `${name}.mts`)
    writeFileSync(entry, source)
    const out = join(work, `${name}.mjs`)
    await build({ entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" } })
    bundles[name] = out
  }
  type Result = { ms: number, rssMB: number, events: number, identities?: number }
  const results: Record<string, Result[]> = { normalize: [], summarize: [], readline: [] }
  const child = (name: string) => async () => {
    const r = await runProcess(process.execPath, [bundles[name] as string, file], { env: { PATH: '/usr/bin:/bin' } })
    if (r.exitCode !== 0) throw new Error(`${name}: ${r.stderr.toString().slice(0, 300)}`)
    results[name]?.push(JSON.parse(r.stdout.toString()) as Result)
  }
  await interleave(Object.keys(bundles).map(name => ({ name, run: child(name) })), 7, 1)
  const get = (name: string): Result[] => results[name] ?? []
  if ([...get('normalize'), ...get('summarize'), ...get('readline')].some(x => x.events !== gen.lines) || get('summarize').some(x => x.identities !== gen.tests)) throw new Error('the readers disagree on the stream')
  const ms = (name: string): number => median(get(name).map(x => x.ms))
  const rss = (name: string): number => Math.max(...get(name).map(x => x.rssMB))
  const mibs = (name: string): string => `${(mib / (ms(name) / 1000)).toFixed(0)} MiB/s`
  const base = `over ${mib.toFixed(0)} MiB (${gen.lines} events, ${gen.tests} identities); bundled, a fresh process per run, 7 interleaved rounds, medians`
  return [
    {
      name: 'go test -json normalization (normalizeGoBatches: split, JSON.parse, schema check)',
      baseline: 'readline + JSON.parse',
      ratio: ms('readline') / ms('normalize'),
      detail: `throughput ratio (higher is faster): ${mibs('normalize')} vs ${mibs('readline')}; peak RSS ${rss('normalize').toFixed(0)} MB vs ${rss('readline').toFixed(0)} MB; ${base}`,
      goal: '≥ 1.0×, ≤ 150 MB',
    },
    {
      name: 'normalization + summary (EventSummarizer: identities, failing set, anomalies)',
      baseline: 'readline + JSON.parse',
      ratio: ms('readline') / ms('summarize'),
      detail: `throughput ratio: ${mibs('summarize')} vs ${mibs('readline')}; peak RSS ${rss('summarize').toFixed(0)} MB; the sorted record of ${gen.tests} identities (property interning) is most of the difference; ${base}`,
    },
  ]
}

export async function run (): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'rl-bench-sandbox-'))
  chmodSync(work, 0o755)
  try {
    // What a tool run pays once for /usr's special-file check: the memo's stamp check, or
    // the walk when the memo is void (first run, or /usr changed).
    let t = performance.now()
    scanSpecialFiles('/usr')
    const usrWalk = performance.now() - t
    assertBindSourcesSafe([{ path: '/usr', system: true }], 65534, 65534, defaultScanMemoDir())
    forgetSystemScans()
    t = performance.now()
    const held = loadScanMemo(defaultScanMemoDir(), '/usr')
    const usrMemo = performance.now() - t
    const rows = [...await nodeSuite(work), ...await goSuite(work), ...await normalization(work)]
    for (const r of rows.slice(0, 2)) r.detail += `; a tool run also checks /usr for special files once: ${held ? fmt(usrMemo) : 'memo void'} against the memo, ${fmt(usrWalk)} when it walks`
    return rows
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
