// Threat-matrix row G8, the operator's own environment: `admit run` and `extract-tree` (the
// real bins) started with hostile GIT_* variables — GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, core.fsmonitor
// injected through GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT, GIT_REPLACE_REF_BASE, a HOME
// (and XDG_CONFIG_HOME) with a hostile git config, GIT_CONFIG_GLOBAL / GIT_CONFIG_SYSTEM, and
// GIT_TRACE — produce byte for byte the attempt a clean environment produces (every file of
// the state root, the records on stdout, stderr), run no hook, and write nothing into the
// checkout or the attacker's files. Core's git runs with a complete environment of its own
// (DESIGN §8), so none of them reaches git (the config and replace-ref variables would also
// meet git's own -c core.fsmonitor=false and --no-replace-objects). Two variables turn an
// outcome around for a plain git, and admit is not turned: a source_sha that exists only in
// GIT_ALTERNATE_OBJECT_DIRECTORIES, and a dirty checkout that GIT_WORK_TREE makes look clean,
// are both refused with nothing written. Each variable has its positive control beside it:
// a plain `git` given the same variable is steered (another HEAD, a dirty status, missing or
// extra objects, replaced bytes, the fsmonitor hook run, a trace written).

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { appendFileSync, chmodSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { GIT_TIMEOUT_MS, run, type RunResult } from '@repairline/core'
import { makeFixture, rewriteConfig, type Fixture } from '../helpers/fixture.ts'
import { errorOf, runBin, type BinResult } from '../helpers/bin.ts'
import { createRepo, gitT, writeFiles } from '../helpers/git.ts'
import { snapshot } from '../helpers/snapshot.ts'
import { tempDir } from '../helpers/tmp.ts'

// A fixed test clock makes two runs of the same admission byte-identical (admitted_at,
// deadline, started_at and the lock all come from it).
const HOOKS = { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-11-30T10:00:00.000Z' }

/** Every entry under `root`: path, type and mode, and a file's sha256. */
function contents (root: string): string[] {
  const out: string[] = []
  const walk = (p: string): void => {
    const st = lstatSync(p)
    const what = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : st.isDirectory() ? 'dir' : 'special'
    out.push(`${relative(root, p) || '.'} ${st.mode.toString(8)} ${what}`)
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name))
  }
  walk(root)
  return out
}

interface Chain { admit: BinResult, extract: BinResult, check: BinResult, state: string[] }

/**
 * From an empty state root: `admit run`, `extract-tree` on its stdout, then
 * `extract-tree --check`, each with `env` added to the bins' small environment.
 */
async function admitAndExtract (f: Fixture, env: Record<string, string>): Promise<Chain> {
  rmSync(f.stateDir, { recursive: true, force: true })
  const admit = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: { ...HOOKS, ...env } })
  assert.equal(admit.exitCode, 0, admit.stderr)
  const extract = await runBin('extract-tree', [], { input: admit.stdout, env: { ...HOOKS, ...env } })
  assert.equal(extract.exitCode, 0, extract.stderr)
  const check = await runBin('extract-tree', ['--check'], { input: admit.stdout, env: { ...HOOKS, ...env } })
  assert.equal(check.exitCode, 0, check.stderr)
  return { admit, extract, check, state: contents(f.stateDir) }
}

/** A plain git in `repo` with only PATH, HOME and `env`: what an operator's shell would run. */
async function plainGit (repo: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return await run('/usr/bin/git', ['-C', repo, ...args], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent', LC_ALL: 'C', ...env } })
}

const out = (r: RunResult): string => r.stdout.toString('utf8')

// One fixture for the file: its repository, the attacker's repository and files beside it,
// and the attempt a clean environment makes (the reference every hostile run must equal).
let f: Fixture
let attacker: string
let attackerHead: string
let foreignBlob: string
let hook: string
let marker: string
let hostileConfig: string
let hostileHome: string
let reference: Chain

const cleanups: Array<() => void> = []
after(() => { for (const fn of cleanups) fn() })

before(async () => {
  const dir = tempDir({ after: (fn: () => void) => { cleanups.push(fn) } })
  f = await makeFixture(dir)
  // attacker-repo: a repository with other files, its own HEAD, index and objects.
  attacker = join(dir, 'attacker')
  attackerHead = await createRepo(attacker, {
    'go.mod': 'module example.com/calc\n\ngo 1.19\n',
    'calc.go': 'package calc\n\n// Add is what the attacker wants extracted.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n',
    'pwned.go': 'package calc\n\nfunc init() { panic("pwned") }\n',
  })
  foreignBlob = (await gitT(attacker, ['rev-parse', 'HEAD:pwned.go'])).trim()
  // fsmonitor-hook: any git that consults core.fsmonitor runs it, and it leaves a marker.
  marker = join(dir, 'fsmonitor-ran')
  hook = join(dir, 'fsmonitor-hook')
  writeFileSync(hook, `#!/bin/sh\necho "$@" >> ${marker}\nexit 1\n`)
  chmodSync(hook, 0o755)
  hostileConfig = join(dir, 'hostile.gitconfig')
  writeFileSync(hostileConfig, `[core]\n\tfsmonitor = ${hook}\n`)
  // hostile-home: ~/.gitconfig and $XDG_CONFIG_HOME/git/config both name the hook.
  hostileHome = join(dir, 'home')
  writeFiles(hostileHome, { '.gitconfig': `[core]\n\tfsmonitor = ${hook}\n`, '.config/git/config': `[core]\n\tfsmonitor = ${hook}\n` })
  reference = await admitAndExtract(f, {})
  assert.deepEqual(reference.extract.records.map(r => r.kind), ['start', 'attempt', 'tree', 'result'])
  assert.equal(existsSync(marker), false)
})

/**
 * The hostile run: the same chain with `env` gives the reference's state root byte for byte,
 * the same stdout and stderr from each bin, no hook run, and nothing written into the checkout
 * or the attacker's repository and files.
 */
async function assertUnsteered (env: Record<string, string>): Promise<void> {
  const repoBefore = snapshot(f.repo)
  const attackerBefore = snapshot(attacker)
  const hostile = await admitAndExtract(f, env)
  assert.deepEqual(hostile.state, reference.state, 'the state root differs from the clean run')
  for (const step of ['admit', 'extract', 'check'] as const) {
    assert.equal(hostile[step].stdout, reference[step].stdout, `${step} stdout`)
    assert.equal(hostile[step].stderr, reference[step].stderr, `${step} stderr`)
  }
  assert.equal(existsSync(marker), false, 'admit or extract-tree ran the fsmonitor hook')
  assert.deepEqual(snapshot(f.repo), repoBefore, 'the checkout was written')
  assert.deepEqual(snapshot(attacker), attackerBefore, 'the attacker repository was written')
}

/** Runs the positive control for a hook-running variable: the marker appears, and is removed. */
async function assertHookRuns (env: Record<string, string>): Promise<void> {
  await plainGit(f.repo, ['status', '--porcelain'], env)
  assert.ok(existsSync(marker), 'the positive control did not run the fsmonitor hook')
  rmSync(marker)
}

test('GIT_DIR naming another repository: admit and extract-tree still read source_root; a plain git rev-parse HEAD reads the other repository', async () => {
  const env = { GIT_DIR: join(attacker, '.git') }
  await assertUnsteered(env)
  assert.equal(out(await plainGit(f.repo, ['rev-parse', 'HEAD'], {})).trim(), f.sha)
  assert.equal(out(await plainGit(f.repo, ['rev-parse', 'HEAD'], env)).trim(), attackerHead)
})

test('GIT_WORK_TREE naming another directory: the checkout is still judged clean and the tree unchanged; a plain git status there is dirty', async () => {
  const env = { GIT_WORK_TREE: attacker }
  await assertUnsteered(env)
  assert.equal(out(await plainGit(f.repo, ['status', '--porcelain'], {})), '')
  assert.match(out(await plainGit(f.repo, ['status', '--porcelain'], env)), /pwned\.go/)
})

test('GIT_INDEX_FILE naming an index that does not exist: unchanged, and that file is never created; a plain git status sees every file deleted and untracked', async () => {
  const index = join(f.dir, 'hostile-index')
  const env = { GIT_INDEX_FILE: index }
  await assertUnsteered(env)
  assert.equal(existsSync(index), false, 'GIT_INDEX_FILE reached git')
  assert.match(out(await plainGit(f.repo, ['status', '--porcelain'], env)), /^D {2}calc\.go$/m)
  rmSync(index, { force: true })
})

/** admit run with `env` refuses with `code` (78), its three records, and writes nothing anywhere in the fixture. */
async function assertAdmitRefuses (g: Fixture, env: Record<string, string>, code: string): Promise<void> {
  const before = snapshot(g.dir)
  const r = await runBin('admit', ['run', '--config', g.configPath, '--report', g.reportPath], { env })
  assert.equal(errorOf(r)?.code, code, r.stderr)
  assert.equal(r.exitCode, 78)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
  assert.equal(existsSync(g.stateDir), false, 'admit wrote the state directory')
  assert.deepEqual(snapshot(g.dir), before)
}

test('GIT_WORK_TREE naming a clean copy hides a dirty checkout from a plain git status; admit still refuses it (CHECKOUT_DIRTY, 78) and writes nothing', async t => {
  const g = await makeFixture(tempDir(t))
  const copy = join(g.dir, 'clean-copy')
  await gitT(g.dir, ['clone', '-q', g.repo, copy])
  writeFileSync(join(g.repo, 'calc.go'), 'package calc\n// edited, not committed\n')
  const env = { GIT_WORK_TREE: copy }
  // Positive control: plain git calls the checkout dirty, and clean under the variable.
  assert.match(out(await plainGit(g.repo, ['status', '--porcelain'], {})), /^ M calc\.go$/m)
  assert.equal(out(await plainGit(g.repo, ['status', '--porcelain'], env)), '')
  await assertAdmitRefuses(g, env, 'CHECKOUT_DIRTY')
})

test('a repository config whose include.path is a FIFO blocks git: admit kills it after GIT_TIMEOUT_MS and refuses (GIT_FAILED, 66) with nothing written, where it hung; without the include it admits', async t => {
  const g = await makeFixture(tempDir(t))
  const fifo = join(g.dir, 'cfgfifo')
  assert.equal((await run('/usr/bin/mkfifo', [fifo], { env: {} })).exitCode, 0)
  const config = join(g.repo, '.git', 'config')
  const clean = readFileSync(config, 'utf8')
  appendFileSync(config, `[include]\n\tpath = ${fifo}\n`)
  // Positive control: a plain git in that repository blocks on the FIFO (killed here at 2 s).
  assert.equal((await run('/usr/bin/git', ['-C', g.repo, 'rev-parse', 'HEAD'], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 2000 })).timedOut, true)
  const before = snapshot(g.dir)
  const r = await runBin('admit', ['run', '--config', g.configPath, '--report', g.reportPath])
  assert.equal(r.exitCode, 66, r.stderr)
  assert.equal(errorOf(r)?.code, 'GIT_FAILED')
  assert.match(r.stderr, new RegExp(`did not finish within ${GIT_TIMEOUT_MS / 1000} s and was killed`))
  assert.equal(existsSync(g.stateDir), false)
  assert.deepEqual(snapshot(g.dir), before)
  writeFileSync(config, clean)
  const ok = await runBin('admit', ['run', '--config', g.configPath, '--report', g.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('a checkout another user owns: git refuses it (dubious ownership) and admit says so with a hint that works here (not git\'s --global advice), nothing written; owned again, it admits', { skip: process.geteuid?.() === 0 ? false : 'chown needs root' }, async t => {
  const g = await makeFixture(tempDir(t))
  const owner = lstatSync(g.repo).uid
  assert.equal((await run('/usr/bin/chown', ['-R', '65534:65534', g.repo], { env: {} })).exitCode, 0)
  const before = snapshot(g.dir)
  const r = await runBin('admit', ['run', '--config', g.configPath, '--report', g.reportPath])
  assert.equal(r.exitCode, 78, r.stderr)
  assert.equal(errorOf(r)?.code, 'SOURCE_NOT_GIT')
  assert.match(r.stderr, /detected dubious ownership/)
  assert.match(r.stderr, /hint: the checkout is owned by another user, and repairline runs git without your global config/)
  assert.doesNotMatch(r.stderr, /--global/)
  assert.equal(existsSync(g.stateDir), false)
  assert.deepEqual(snapshot(g.dir), before)
  // Positive control: the same checkout given back to its owner is admitted.
  assert.equal((await run('/usr/bin/chown', ['-R', `${owner}:${owner}`, g.repo], { env: {} })).exitCode, 0)
  const ok = await runBin('admit', ['run', '--config', g.configPath, '--report', g.reportPath])
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('GIT_OBJECT_DIRECTORY naming another object store: unchanged; a plain git cannot find source_sha and finds the attacker\'s objects', async () => {
  const env = { GIT_OBJECT_DIRECTORY: join(attacker, '.git', 'objects') }
  await assertUnsteered(env)
  assert.equal(out(await plainGit(f.repo, ['cat-file', '-t', f.sha], {})).trim(), 'commit')
  assert.notEqual((await plainGit(f.repo, ['cat-file', '-t', f.sha], env)).exitCode, 0)
  assert.equal(out(await plainGit(f.repo, ['cat-file', '-t', foreignBlob], env)).trim(), 'blob')
})

test('GIT_ALTERNATE_OBJECT_DIRECTORIES adding the attacker\'s objects: unchanged, and a source_sha that exists only there is refused (SOURCE_SHA_UNKNOWN) with nothing written; a plain git reads it', async t => {
  const env = { GIT_ALTERNATE_OBJECT_DIRECTORIES: join(attacker, '.git', 'objects') }
  await assertUnsteered(env)
  // Positive control: the attacker's commit is unknown to the repository, and known through the variable.
  assert.notEqual((await plainGit(f.repo, ['cat-file', '-e', attackerHead], {})).exitCode, 0)
  assert.equal(out(await plainGit(f.repo, ['cat-file', '-t', attackerHead], env)).trim(), 'commit')
  assert.match(out(await plainGit(f.repo, ['ls-tree', '--name-only', attackerHead], env)), /pwned\.go/)
  // An admission naming that commit is refused as if the variable were not there.
  const g = await makeFixture(tempDir(t))
  rewriteConfig(g, c => ({ ...c, source_sha: attackerHead }))
  await assertAdmitRefuses(g, env, 'SOURCE_SHA_UNKNOWN')
})

test('core.fsmonitor injected through GIT_CONFIG_PARAMETERS: no hook runs and nothing changes; a plain git status runs it', async () => {
  const env = { GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${hook}'` }
  await assertUnsteered(env)
  await assertHookRuns(env)
})

test('core.fsmonitor injected through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_0 / GIT_CONFIG_VALUE_0: no hook runs and nothing changes; a plain git status runs it', async () => {
  const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: hook }
  await assertUnsteered(env)
  await assertHookRuns(env)
})

test('HOME and XDG_CONFIG_HOME holding a git config with core.fsmonitor: no hook runs; a plain git status run with that HOME runs it', async () => {
  await assertUnsteered({ HOME: hostileHome, XDG_CONFIG_HOME: join(hostileHome, '.config') })
  await assertHookRuns({ HOME: hostileHome })
  await assertHookRuns({ XDG_CONFIG_HOME: join(hostileHome, '.config') })
})

test('GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM naming a hostile config file: no hook runs; a plain git status runs it through either', async () => {
  await assertUnsteered({ GIT_CONFIG_GLOBAL: hostileConfig, GIT_CONFIG_SYSTEM: hostileConfig, GIT_CONFIG_NOSYSTEM: '0' })
  await assertHookRuns({ GIT_CONFIG_GLOBAL: hostileConfig })
  await assertHookRuns({ GIT_CONFIG_SYSTEM: hostileConfig })
})

test('GIT_REPLACE_REF_BASE naming refs that replace calc.go: the original bytes are extracted; a plain git cat-file serves the replacement', async () => {
  const blob = (await gitT(f.repo, ['rev-parse', 'HEAD:calc.go'])).trim()
  const evil = (await gitT(f.repo, ['hash-object', '-w', '--stdin'], 'package calc\n\nfunc Add(a, b int) int { return a + b } // replaced\n')).trim()
  // The replacement lives outside refs/replace/, so only the variable makes git use it.
  await gitT(f.repo, ['update-ref', `refs/evil/${blob}`, evil])
  try {
    const env = { GIT_REPLACE_REF_BASE: 'refs/evil/' }
    await assertUnsteered(env)
    assert.equal(out(await plainGit(f.repo, ['cat-file', 'blob', blob], {})), readFileSync(join(f.repo, 'calc.go'), 'utf8'))
    assert.match(out(await plainGit(f.repo, ['cat-file', 'blob', blob], env)), /replaced/)
  } finally {
    await gitT(f.repo, ['update-ref', '-d', `refs/evil/${blob}`])
  }
})

test('GIT_TRACE and GIT_TRACE2_EVENT naming files: neither is written; a plain git writes both', async () => {
  const trace = join(f.dir, 'git-trace')
  const trace2 = join(f.dir, 'git-trace2')
  const env = { GIT_TRACE: trace, GIT_TRACE2_EVENT: trace2 }
  await assertUnsteered(env)
  assert.equal(existsSync(trace), false, 'GIT_TRACE reached git')
  assert.equal(existsSync(trace2), false, 'GIT_TRACE2_EVENT reached git')
  await plainGit(f.repo, ['rev-parse', 'HEAD'], env)
  assert.match(readFileSync(trace, 'utf8'), /rev-parse HEAD/)
  assert.match(readFileSync(trace2, 'utf8'), /"event":"start"/)
  rmSync(trace)
  rmSync(trace2)
})

test('every hostile variable at once: the same attempt as the clean run', async () => {
  await assertUnsteered({
    GIT_DIR: join(attacker, '.git'),
    GIT_WORK_TREE: attacker,
    GIT_INDEX_FILE: join(attacker, '.git', 'index'),
    GIT_OBJECT_DIRECTORY: join(attacker, '.git', 'objects'),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(attacker, '.git', 'objects'),
    GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${hook}'`,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.fsmonitor',
    GIT_CONFIG_VALUE_0: hook,
    GIT_REPLACE_REF_BASE: 'refs/evil/',
    GIT_CONFIG_GLOBAL: hostileConfig,
    GIT_CONFIG_SYSTEM: hostileConfig,
    HOME: hostileHome,
    XDG_CONFIG_HOME: join(hostileHome, '.config'),
  })
  // The checkout itself is still what the clean run saw: committed, clean, at source_sha.
  assert.equal((await gitT(f.repo, ['status', '--porcelain'])), '')
  assert.equal((await gitT(f.repo, ['rev-parse', 'HEAD'])).trim(), f.sha)
})
