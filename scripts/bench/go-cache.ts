// The go runner's private GOCACHE (docs/go-build-cache.md), interleaved, medians:
//
//   - seeding: mounting one run's GOCACHE (capped tmpfs, overlay over the operator's cache,
//     the shard directories given to the sandbox user) and unmounting it, over a
//     100,000-file cache vs a 1,000-file cache (issue goal ≤ 1.2×);
//   - a real go test through runTests with go_build_cache set (warm) vs the same `go test
//     -json` run plainly with that warm cache, and the same runTests without it (cold);
//   - a Go attempt through the driver with go_build_cache set vs its two plain warm `go test
//     -json` runs (baseline and candidate tree) + the provider's answer + 1 s (issue goal
//     ≤ 1.3×): BurntSushi/toml with a one-line bug in isOctal when the module is toml, else
//     the generated module with a bug in Add; the local HTTPS Responses server answers the fix.
//
// The module is REPAIRLINE_BENCH_GO_MODULE (a directory holding a stdlib-only Go module; its
// test packages: REPAIRLINE_BENCH_GO_PACKAGES, comma-separated, default "."), copied to a
// scratch path the sandbox user can reach; without it, a small generated module. The cache is
// warmed by building the tree where the runs mount it (go keys entries by directory).

import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { goCommand, goEnv, goInstall, mountGoCache, releaseGoCache, run as runProcess, runTests, type TestRun } from '@repairline/core'
import { GO_FILES, makeCase, makeFixture, rewriteConfig, writeJson } from '../../test/helpers/fixture.ts'
import type { FileSpec } from '../../test/helpers/git.ts'
import { makeTls } from '../../test/helpers/tls.ts'
import { ResponsesServer } from '../../test/helpers/responses-server.ts'
import { fmt, interleave, median, SMOKE, type BenchRow } from './lib.ts'

const ROOT = join(import.meta.dirname, '..', '..')

/** A fake build cache: `files` one-byte files over go's 256 `XX/` shards. */
function fakeCache (dir: string, files: number): void {
  mkdirSync(dir, { mode: 0o755 })
  for (let s = 0; s < 256; s++) mkdirSync(join(dir, s.toString(16).padStart(2, '0')), { mode: 0o755 })
  for (let i = 0; i < files; i++) {
    const shard = (i % 256).toString(16).padStart(2, '0')
    writeFileSync(join(dir, shard, `${shard}${i.toString(16).padStart(62, '0')}-d`), 'x', { mode: 0o644 })
  }
}

async function seeding (work: string): Promise<BenchRow[]> {
  const small = 1_000
  const large = SMOKE ? 2_000 : 100_000
  for (const n of [small, large]) fakeCache(join(work, `cache-${n}`), n)
  const scratch = join(work, 'seed-scratch')
  mkdirSync(scratch, { mode: 0o755 })
  let i = 0
  const seed = (n: number) => async () => {
    const m = await mountGoCache(join(scratch, `gocache-${i++}`), join(work, `cache-${n}`), 65534, 65534)
    if (m.method !== 'overlay') throw new Error(`not an overlay: ${m.note ?? ''}`)
    const left = await releaseGoCache(m)
    if (left !== undefined) throw new Error(left)
  }
  const s = await interleave([{ name: 'small', run: seed(small) }, { name: 'large', run: seed(large) }], 21, 2)
  const a = median(s.get('small') ?? [])
  const b = median(s.get('large') ?? [])
  return [{
    name: `seeding one run's private GOCACHE over a ${large.toLocaleString('en')}-file cache (mount, chown of the 256 shards, unmount)`,
    baseline: `the same over a ${small.toLocaleString('en')}-file cache`,
    ratio: b / a,
    detail: `${fmt(b)} vs ${fmt(a)}; two mount and one umount spawned per run; 21 interleaved rounds`,
    goal: '≤ 1.2×',
  }]
}

function generatedModule (dir: string): void {
  const files: Record<string, string> = { 'go.mod': 'module example.com/bench\n\ngo 1.19\n' }
  files['calc.go'] = 'package calc\n\nimport "strings"\n\n// Words splits s on white space.\nfunc Words(s string) []string { return strings.Fields(s) }\n'
  let t = 'package calc\n\nimport "testing"\n'
  for (let i = 0; i < 20; i++) t += `\nfunc TestCase${i}(t *testing.T) {\n\tif len(Words("a b c")) != 3 {\n\t\tt.Fatal("no")\n\t}\n}\n`
  files['calc_test.go'] = t
  mkdirSync(dir, { mode: 0o755 })
  for (const [rel, content] of Object.entries(files)) writeFileSync(join(dir, rel), content, { mode: 0o644 })
}

async function realGoTest (work: string): Promise<BenchRow[]> {
  const go = goInstall()
  const source = process.env.REPAIRLINE_BENCH_GO_MODULE
  const tree = join(work, 'module')
  if (source !== undefined && source !== '') {
    cpSync(source, tree, { recursive: true })
    await runProcess('/bin/chmod', ['-R', 'a+rX', tree], { env: { PATH: '/usr/bin:/bin' } })
  } else {
    generatedModule(tree)
  }
  const pkgs = (process.env.REPAIRLINE_BENCH_GO_PACKAGES ?? '.').split(',').filter(p => p !== '')
  const cache = join(work, 'go-build')
  mkdirSync(cache, { mode: 0o755 })
  const argv = goCommand(go.goBin, pkgs, 120_000)
  const env = { ...goEnv(go.goroot, undefined), GOCACHE: cache, GOPATH: join(work, 'gopath'), GOMODCACHE: join(work, 'gopath', 'pkg', 'mod'), HOME: work, TMPDIR: tmpdir() }
  const plain = async (): Promise<void> => {
    const r = await runProcess(argv[0] as string, argv.slice(1), { env, cwd: tree })
    if (r.exitCode !== 0) throw new Error(`plain go test failed: ${r.stderr.toString().slice(0, 300)}`)
  }
  await plain() // warms the operator's cache where the runs mount the tree
  let identities = 0
  const written: Record<string, number[]> = { warm: [], cold: [] }
  const check = (r: TestRun, kind: 'warm' | 'cold'): void => {
    if (r.fault !== undefined || r.summary.failing.length > 0) throw new Error(`sandboxed run failed: ${JSON.stringify(r.fault)} ${r.stderrTail.slice(0, 300)}`)
    identities = Object.keys(r.summary.identities).length
    written[kind]?.push(r.goCache?.bytes ?? 0)
  }
  const scratch = join(work, 'run-scratch')
  mkdirSync(scratch, { mode: 0o755 })
  const s = await interleave([
    { name: 'plain', run: plain },
    { name: 'warm', run: async () => { check(await runTests({ runner: 'go', tree, mountPoint: tree, testPackages: pkgs, scratch, timeoutMs: 120_000, goBuildCache: cache }), 'warm') } },
    { name: 'cold', run: async () => { check(await runTests({ runner: 'go', tree, mountPoint: tree, testPackages: pkgs, scratch, timeoutMs: 120_000 }), 'cold') } },
  ], 7, 1)
  const p = median(s.get('plain') ?? [])
  const w = median(s.get('warm') ?? [])
  const c = median(s.get('cold') ?? [])
  const what = `${source === undefined || source === '' ? 'a generated module' : source} (${identities} identities), ${go.version}; 7 interleaved rounds`
  const mb = (xs: number[] = []): string => `${(median(xs) / 1024 ** 2).toFixed(1)} MB`
  return [
    {
      name: 'go test in the sandbox over go_build_cache (runTests, overlay, warm)',
      baseline: 'the same go test -json, plain, warm cache',
      ratio: w / p,
      detail: `${fmt(w)} vs ${fmt(p)}; ${mb(written.warm)} written to the private layer; ${what}`,
      goal: '≤ 1.15×',
    },
    {
      name: 'go test in the sandbox without go_build_cache (runTests, cold)',
      baseline: 'the same over go_build_cache (warm)',
      ratio: c / w,
      detail: `${fmt(c)} vs ${fmt(w)}; ${mb(written.cold)} written to the private layer; ${what}`,
    },
  ]
}

/** Every regular file of a module tree, by relative path, as bytes (testdata may not be UTF-8). */
function readModule (dir: string): Record<string, FileSpec> {
  const out: Record<string, FileSpec> = {}
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[relative(dir, join(e.parentPath, e.name))] = { content: readFileSync(join(e.parentPath, e.name)) }
  }
  return out
}

export interface BugCase { files: Record<string, FileSpec>, file: string, bug: string, fix: string, identity: string }

function bugCase (work: string): BugCase {
  const source = process.env.REPAIRLINE_BENCH_GO_MODULE
  if (source !== undefined && source !== '' && /^module github\.com\/BurntSushi\/toml$/m.test(readFileSync(join(source, 'go.mod'), 'utf8'))) {
    const files = readModule(source)
    const fix = "func isOctal(r rune) bool  { return r >= '0' && r <= '7' }"
    const bug = fix.replace("'7'", "'6'")
    files['lex.go'] = readFileSync(join(source, 'lex.go'), 'utf8').replace(fix, bug)
    return { files, file: 'lex.go', bug, fix, identity: 'github.com/BurntSushi/toml::TestToml/decode/valid/integer/literals' }
  }
  const dir = join(work, 'attempt-module')
  generatedModule(dir)
  const files = readModule(dir)
  files['add.go'] = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n'
  files['add_test.go'] = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add(2, 3) != 5")\n\t}\n}\n'
  return { files, file: 'add.go', bug: 'return a - b', fix: 'return a + b', identity: 'example.com/bench::TestAdd' }
}

/** A real Go attempt set up for the driver: the fixture, its server, and the plain warm runs it is compared with. */
export interface GoAttemptSetup {
  bug: BugCase
  /** The fixture's config and report paths and its state directory. */
  configPath: string
  reportPath: string
  stateDir: string
  /** The operator's build cache the attempt's runs are given (runner.go_build_cache). */
  goBuildCache: string
  /** The Responses server's answer time of the newest attempt, in ms. */
  providerMs: () => number
  /** One plain warm `go test -json` run of the baseline tree (exits 1) or the candidate tree (exits 0). */
  plain: (which: 'baseline' | 'candidate') => () => Promise<void>
  /**
   * `n` runs of the candidate as the attempt's verify run meets it: the edited file at the
   * baseline's path, over a copy (made now) of the cache as only the baseline's run warmed
   * it, so the edited package is compiled; each run takes the next copy.
   */
  plainEdited: (n: number) => () => Promise<void>
  close: () => Promise<void>
}

/**
 * The module of bugCase as a fixture with `cases` admissible cases, go_build_cache warmed by
 * plain runs of both trees, and the local HTTPS Responses server answering the fix.
 */
export async function prepareGoAttempt (work: string, cases: number): Promise<GoAttemptSetup> {
  const go = goInstall()
  const b = bugCase(work)
  const tls = await makeTls(join(work, 'tls'))
  const server = await ResponsesServer.start({ tls })
  server.proposal = { summary: { cause: 'A one-line slip.', change: 'Restore the line.', risk: 'Low.' }, edits: [{ path: b.file, search: b.bug, replace: b.fix }] }
  const fdir = join(work, 'attempt')
  mkdirSync(fdir)
  const f = await makeFixture(fdir, { files: { ...b.files, '.repairline/registers.json': GO_FILES['.repairline/registers.json'] ?? '' }, baseUrl: server.baseUrl('ok'), caFile: tls.caFile, cases: [{ package: '.', name: b.identity }] })
  const cache = join(work, 'attempt-go-build')
  mkdirSync(cache, { mode: 0o755 })
  rewriteConfig(f, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: cache }; c.allowed_files = [b.file]; c.timeout_seconds = 300 })
  writeJson(f.reportPath, { ...f.report, cases: Array.from({ length: cases }, (_, i) => makeCase(`case-${i}`, '.', b.identity)) })
  // The candidate tree, where plain go runs it; both trees warmed in the operator's cache.
  const candidate = join(work, 'candidate')
  cpSync(f.repo, candidate, { recursive: true })
  writeFileSync(join(candidate, b.file), readFileSync(join(f.repo, b.file), 'utf8').replace(b.bug, b.fix))
  const argv = goCommand(go.goBin, ['.'], 120_000)
  const env = { ...goEnv(go.goroot, undefined), GOCACHE: cache, GOPATH: join(work, 'gopath'), GOMODCACHE: join(work, 'gopath', 'pkg', 'mod'), HOME: work, TMPDIR: tmpdir() }
  const plain = (which: 'baseline' | 'candidate') => async (): Promise<void> => {
    const tree = which === 'baseline' ? f.repo : candidate
    const r = await runProcess(argv[0] as string, argv.slice(1), { env, cwd: tree })
    if (r.exitCode !== (which === 'baseline' ? 1 : 0)) throw new Error(`plain go test in ${tree} exited ${String(r.exitCode)}: ${r.stderr.toString().slice(0, 300)}`)
  }
  await plain('baseline')()
  const baselineWarm = join(work, 'go-build-baseline-warm')
  cpSync(cache, baselineWarm, { recursive: true })
  await plain('candidate')()
  let copies = 0
  const plainEdited = (n: number): (() => Promise<void>) => {
    const pool = Array.from({ length: n }, () => {
      const c = join(work, `go-build-edited-${copies++}`)
      cpSync(baselineWarm, c, { recursive: true })
      return c
    })
    return async () => {
      const c = pool.shift()
      if (c === undefined) throw new Error('no cache copy left')
      const file = join(f.repo, b.file)
      const bug = readFileSync(file)
      writeFileSync(file, bug.toString('utf8').replace(b.bug, b.fix))
      try {
        const r = await runProcess(argv[0] as string, argv.slice(1), { env: { ...env, GOCACHE: c }, cwd: f.repo })
        if (r.exitCode !== 0) throw new Error(`plain go test of the edited tree exited ${String(r.exitCode)}: ${r.stderr.toString().slice(0, 300)}`)
      } finally {
        writeFileSync(file, bug)
        rmSync(c, { recursive: true, force: true })
      }
    }
  }
  const providerMs = (): number => {
    const attempts = join(f.stateDir, 'attempts')
    const newest = readdirSync(attempts).map(a => join(attempts, a)).sort((x, y) => Date.parse(JSON.parse(readFileSync(join(y, 'admission.json'), 'utf8')).admitted_at) - Date.parse(JSON.parse(readFileSync(join(x, 'admission.json'), 'utf8')).admitted_at))[0] ?? ''
    const baseline = JSON.parse(readFileSync(join(newest, 'baseline.json'), 'utf8')) as { go_cache?: { method?: string } }
    if (baseline.go_cache?.method !== 'overlay') throw new Error('the attempt did not run over go_build_cache')
    const dispatched = Date.parse((JSON.parse(readFileSync(join(newest, 'dispatch.json'), 'utf8')) as { dispatched_at: string }).dispatched_at)
    const received = Date.parse((JSON.parse(readFileSync(join(newest, 'response.json'), 'utf8')) as { received_at: string }).received_at)
    return received - dispatched
  }
  return { bug: b, configPath: f.configPath, reportPath: f.reportPath, stateDir: f.stateDir, goBuildCache: cache, providerMs, plain, plainEdited, close: async () => { await server.close() } }
}

/** Runs the driver (`root`'s build) on the next case of `s`; throws unless the attempt is verified. */
export async function driveAttempt (s: GoAttemptSetup, root = ROOT, extra: readonly string[] = []): Promise<string> {
  const r = await runProcess(process.execPath, [join(root, 'dist', 'attempt.mjs'), '--config', s.configPath, '--report', s.reportPath, ...extra], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' } })
  if (r.exitCode !== 0) throw new Error(`the driver exited ${String(r.exitCode)}: ${r.stderr.toString().slice(-400)}`)
  return r.stderr.toString()
}

async function goAttempt (work: string): Promise<BenchRow[]> {
  const rounds = SMOKE ? 1 : 5
  const s = await prepareGoAttempt(work, rounds + 1)
  try {
    const parts: number[] = []
    const drive = async (): Promise<void> => {
      await driveAttempt(s)
      parts.push(s.providerMs())
    }
    await drive() // the first attempt warms the driver's standbys and the memo of /usr's scan
    parts.length = 0
    const r = await interleave([
      { name: 'driver', run: drive },
      { name: 'baseline', run: s.plain('baseline') },
      { name: 'candidate', run: s.plain('candidate') },
      { name: 'edited', run: s.plainEdited(rounds) },
    ], rounds, 0)
    const d = median(r.get('driver') ?? [])
    const pb = median(r.get('baseline') ?? [])
    const pc = median(r.get('candidate') ?? [])
    const provider = median(parts)
    const floor = pb + pc + provider + 1000
    const pe = median(r.get('edited') ?? [])
    const compiled = pb + pe + provider + 1000
    return [{
      name: `a Go attempt through the driver with go_build_cache (${s.bug.identity.split('::')[0] ?? ''}, a one-line bug in ${s.bug.file})`,
      baseline: 'its two plain warm go test -json runs + the provider\'s answer + 1 s',
      ratio: d / floor,
      detail: `${fmt(d)} vs ${fmt(floor)} (baseline ${fmt(pb)}, candidate ${fmt(pc)}, provider ${fmt(provider)}); ${goInstall().version}; ${rounds} interleaved rounds`,
      goal: '≤ 1.3×',
    }, {
      name: 'the same attempt',
      baseline: 'its plain warm baseline run + the candidate run plain go makes after the edit (the edited package compiled over the baseline\'s cache) + the provider\'s answer + 1 s',
      ratio: d / compiled,
      detail: `${fmt(d)} vs ${fmt(compiled)} (candidate after the edit ${fmt(pe)})`,
    }]
  } finally {
    await s.close()
  }
}

export async function run (): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'rl-bench-gocache-'))
  chmodSync(work, 0o755)
  try {
    return [...await seeding(work), ...await realGoTest(work), ...await goAttempt(work)]
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
