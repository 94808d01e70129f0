// The bind memo's stamps taken by the C helper while a step loads (sandbox/bind-stamps.ts):
// the helper's stamps are Node's to the bit, a memo is vouched for only when every stamp
// still equals it and the memo passes the same checks as in place, anything else leaves the
// check to the step, and a step started by its bin really moves the lstat calls to the helper.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo fixtures and strace, argv arrays
import { chmodSync, copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  assertBindSourcesSafe, BIND_STAMPS_HELPER, forgetSystemScans, prefetchedFreshRoots, RACY_MARGIN_MS, startBindStampPrefetch, takeBindStampPrefetch,
} from '../src/index.ts'
import { startsSandbox } from '../src/launch.ts'
import { makeTree, sandboxTemp } from '../../../test/helpers/sandbox.ts'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const HELPER = join(ROOT, 'dist', BIND_STAMPS_HELPER)
const NOBODY = 65534
const STRACE = '/usr/bin/strace'

async function settle (): Promise<void> {
  await sleep(RACY_MARGIN_MS + 100)
}

/** A walked, remembered tree and its memo directory. */
async function memoized (t: Parameters<typeof sandboxTemp>[0]): Promise<{ dir: string, tree: string, memoDir: string }> {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/b/c/file.txt': 'x\n', 'd/file.txt': 'y\n', 'e/f/g/h/file.txt': 'z\n' })
  const memoDir = join(dir, 'memo')
  await settle()
  forgetSystemScans()
  assert.deepEqual(assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, memoDir), { walked: 1, remembered: 0, prefetched: 0 })
  assert.equal(readdirSync(memoDir).length, 1)
  return { dir, tree, memoDir }
}

/** A new process's check of `tree`: the prefetch started (helper given), then the check. */
async function checkWithPrefetch (tree: string, memoDir: string, helper = HELPER, takeFrom = memoDir): Promise<{ walked: number, remembered: number, prefetched: number }> {
  forgetSystemScans()
  startBindStampPrefetch(helper, memoDir)
  return assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, takeFrom, await prefetchedFreshRoots(takeFrom))
}

test('the helper is built, and its stamps are Node\'s lstat numbers to the bit; NaN for a file, a symlink and a missing path', t => {
  assert.ok(existsSync(HELPER), `${HELPER} is missing: pnpm build compiles it (needs cc)`)
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', { 'a/b/file.txt': 'x\n', 'c/file.txt': 'y\n' })
  symlinkSync(join(tree, 'a'), join(tree, 'link'))
  const dirs = [tree, join(tree, 'a'), join(tree, 'a', 'b'), join(tree, 'c'), '/usr', '/']
  const others = [join(tree, 'a', 'b', 'file.txt'), join(tree, 'link'), join(tree, 'missing')]
  const input = Buffer.from([...dirs, ...others].map(p => `${p}\0`).join(''))
  const out = execFileSync(HELPER, [], { input, env: {} })
  assert.equal(out.length, (dirs.length + others.length) * 32)
  const stamps = new Float64Array(out.length / 8)
  Buffer.from(stamps.buffer).set(out)
  dirs.forEach((d, i) => {
    const s = lstatSync(d)
    assert.deepEqual([...stamps.subarray(i * 4, i * 4 + 4)], [s.dev, s.ino, s.mtimeMs, s.ctimeMs], d)
  })
  others.forEach((p, i) => {
    assert.ok(stamps.subarray((dirs.length + i) * 4, (dirs.length + i) * 4 + 4).every(Number.isNaN), `${p}: NaN`)
  })
  // A trailing path without its NUL is not a path; empty input, no output.
  assert.equal(execFileSync(HELPER, [], { input: Buffer.from(`${tree}\0${tree}`), env: {} }).length, 32)
  assert.equal(execFileSync(HELPER, [], { input: Buffer.alloc(0), env: {} }).length, 0)
})

test('a memo whose stamps the helper finds unchanged spares the check; a FIFO planted below after the walk is still refused', async t => {
  const { tree, memoDir } = await memoized(t)
  assert.deepEqual(await checkWithPrefetch(tree, memoDir), { walked: 0, remembered: 1, prefetched: 1 })

  execFileSync('/usr/bin/mkfifo', [join(tree, 'e', 'f', 'g', 'pipe')])
  forgetSystemScans()
  startBindStampPrefetch(HELPER, memoDir)
  const fresh = await prefetchedFreshRoots(memoDir)
  assert.equal(fresh.has(tree), false, 'the planted FIFO changed its directory\'s stamp')
  assert.throws(() => assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, memoDir, fresh), { code: 'SANDBOX_BIND_UNSAFE', message: /g\/pipe \(fifo\)/ })
  // Positive control: vouching for the tree without the stamp comparison hides the FIFO.
  forgetSystemScans()
  assert.deepEqual(assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, memoDir, new Set([tree])), { walked: 0, remembered: 1, prefetched: 1 })
})

test('the prefetch vouches only for a memo that passes the in-place checks as it was read', async t => {
  const { dir, tree, memoDir } = await memoized(t)
  const [name] = readdirSync(memoDir)
  const file = join(memoDir, name as string)
  const good = readFileSync(file)

  chmodSync(file, 0o666)
  assert.deepEqual(await checkWithPrefetch(tree, memoDir), { walked: 1, remembered: 0, prefetched: 0 }, 'a world-writable memo')
  chmodSync(file, 0o600)
  writeFileSync(file, good, { mode: 0o600 })
  chmodSync(memoDir, 0o777)
  assert.deepEqual(await checkWithPrefetch(tree, memoDir), { walked: 1, remembered: 0, prefetched: 0 }, 'a world-writable memo directory')
  chmodSync(memoDir, 0o700)

  // A genuine, holding memo of another tree, put under this tree's name.
  const other = makeTree(dir, 'other', { 'b/file.txt': 'y\n' })
  const otherMemo = join(dir, 'other-memo')
  await settle()
  forgetSystemScans()
  assertBindSourcesSafe([{ path: other, system: true }], NOBODY, NOBODY, otherMemo)
  writeFileSync(file, readFileSync(join(otherMemo, readdirSync(otherMemo)[0] as string)), { mode: 0o600 })
  forgetSystemScans()
  startBindStampPrefetch(HELPER, memoDir)
  assert.deepEqual([...await prefetchedFreshRoots(memoDir)], [], 'a memo of another root under this name')

  // A symlink in the memo's place is not followed.
  rmSync(file)
  symlinkSync(join(otherMemo, readdirSync(otherMemo)[0] as string), file)
  forgetSystemScans()
  startBindStampPrefetch(HELPER, memoDir)
  assert.deepEqual([...await prefetchedFreshRoots(memoDir)], [], 'a symlinked memo')

  // Positive control: the original bytes, restored, are vouched for again.
  rmSync(file)
  writeFileSync(file, good, { mode: 0o600 })
  assert.deepEqual(await checkWithPrefetch(tree, memoDir), { walked: 0, remembered: 1, prefetched: 1 })
})

test('no helper, a failing one, one that lies about the count, or a prefetch of another memo directory: the step checks in place', async t => {
  const { dir, tree, memoDir } = await memoized(t)
  const expected = { walked: 0, remembered: 1, prefetched: 0 }
  assert.deepEqual(await checkWithPrefetch(tree, memoDir, join(dir, 'no-such-helper')), expected)
  assert.deepEqual(await checkWithPrefetch(tree, memoDir, '/bin/false'), expected)
  // /bin/cat echoes the paths: output of the wrong length is no answer.
  assert.deepEqual(await checkWithPrefetch(tree, memoDir, '/bin/cat'), expected)
  mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 })
  assert.deepEqual(await checkWithPrefetch(tree, memoDir, HELPER, join(dir, 'elsewhere')), { walked: 1, remembered: 0, prefetched: 0 })
  // A prefetch is taken once.
  forgetSystemScans()
  startBindStampPrefetch(HELPER, memoDir)
  assert.notEqual(takeBindStampPrefetch(memoDir), undefined)
  assert.equal(takeBindStampPrefetch(memoDir), undefined)
  // Positive control: the same memo with the real helper.
  assert.deepEqual(await checkWithPrefetch(tree, memoDir), { walked: 0, remembered: 1, prefetched: 1 })
})

test('the launcher prefetches only for a step that may start the sandbox', () => {
  assert.equal(startsSandbox('reproduce', ['--attempt', '/x']), true)
  assert.equal(startsSandbox('reproduce', ['--preflight']), true)
  assert.equal(startsSandbox('verify', ['--attempt', '/x']), true)
  assert.equal(startsSandbox('admit', ['run', '--config', '/c', '--report', '/r']), true)
  for (const [tool, argv] of [['admit', ['status']], ['admit', ['report']], ['extract-tree', []], ['ask-provider', []], ['gate-patch', []], ['receipt', ['seal']], ['receipt', ['readback']]] as const) {
    assert.equal(startsSandbox(tool, argv), false, `${tool} ${argv.join(' ')}`)
  }
})

/** The stat calls of each process of `reproduce --preflight` run by its bin under strace, and which process was the helper. */
function statCallsOfPreflight (binDir: string, tmp: string): { step: number, helper: number, helperRan: boolean } {
  const log = join(tmp, `trace-${Date.now()}`)
  const r = spawnSync(STRACE, ['-f', '-qq', '-o', log, '-e', 'trace=execve,lstat,newfstatat,statx', '--', process.execPath, join(binDir, 'bin', 'reproduce.js'), '--preflight'], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', TMPDIR: tmp } })
  assert.equal(r.status, 0, String(r.stderr))
  const trace = readFileSync(log, 'utf8')
  const perPid = new Map<string, number>()
  let helperPid: string | undefined
  for (const line of trace.split('\n')) {
    const pid = /^(\d+) /.exec(line)?.[1]
    if (pid === undefined) continue
    if (line.includes('execve(') && line.includes(`/${BIND_STAMPS_HELPER}"`)) helperPid = pid
    if (/ (lstat|newfstatat|statx)\(/.test(line)) perPid.set(pid, (perPid.get(pid) ?? 0) + 1)
  }
  const mainPid = /^(\d+) /.exec(trace)?.[1] ?? ''
  return { step: perPid.get(mainPid) ?? 0, helper: helperPid === undefined ? 0 : perPid.get(helperPid) ?? 0, helperRan: helperPid !== undefined }
}

test('a step started by its bin leaves the memo\'s lstat calls to the helper', { skip: existsSync(STRACE) ? false : 'strace is not installed (the bootstrap installs it as root)' }, t => {
  // Its own temp dir, so its memo of /usr is its own: made by a first run's walk.
  const tmp = sandboxTemp(t)
  const first = statCallsOfPreflight(join(ROOT, 'tools', 'reproduce'), tmp)
  assert.equal(first.helperRan, false, 'no memo yet: nothing to prefetch')
  const dirs = first.step
  assert.ok(dirs > 1000, `the first run walked /usr (${dirs} stat calls)`)
  const second = statCallsOfPreflight(join(ROOT, 'tools', 'reproduce'), tmp)
  assert.ok(second.helperRan, 'the launcher started the helper')
  assert.ok(second.helper > 1000, `the helper took the memo's stamps (${second.helper} stat calls)`)
  assert.ok(second.step < 1000, `the step itself did not (${second.step} stat calls)`)
  // Control: the same bin and bundle without the helper beside them checks in place.
  const copy = join(tmp, 'reproduce')
  cpSync(join(ROOT, 'tools', 'reproduce', 'bin'), join(copy, 'bin'), { recursive: true })
  cpSync(join(ROOT, 'tools', 'reproduce', 'dist'), join(copy, 'dist'), { recursive: true })
  rmSync(join(copy, 'dist', BIND_STAMPS_HELPER))
  copyFileSync(join(ROOT, 'tools', 'reproduce', 'package.json'), join(copy, 'package.json'))
  const control = statCallsOfPreflight(copy, tmp)
  assert.equal(control.helperRan, false)
  assert.ok(control.step > 1000, `without the helper the step took the stamps itself (${control.step} stat calls)`)
})
