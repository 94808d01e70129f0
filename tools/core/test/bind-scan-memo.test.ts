// The cross-process memo of a system directory's clean scan (sandbox/bind-scan-memo.ts): it
// spares the walk only while every directory keeps its stamp, and a special file planted
// anywhere below after the scan is still refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo fixtures, argv arrays
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertBindSourcesSafe, forgetSystemScans, loadScanMemo, RACY_MARGIN_MS } from '../src/index.ts'
import { makeTree, sandboxTemp } from '../../../test/helpers/sandbox.ts'

const NOBODY = 65534

function check (tree: string, memoDir: string): { walked: number, remembered: number } {
  forgetSystemScans() // each call stands for a new tool process
  const { walked, remembered } = assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, memoDir)
  return { walked, remembered }
}

/** Waits until every directory changed so far is old enough for a walk to be remembered. */
async function settle (): Promise<void> {
  await sleep(RACY_MARGIN_MS + 100)
}

test('a clean scan is remembered across processes and a special file planted below it afterwards is still refused', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/b/c/file.txt': 'x\n', 'd/file.txt': 'y\n' })
  const memoDir = join(dir, 'memo')
  await settle()
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
  assert.equal(readdirSync(memoDir).length, 1)
  // A second process takes the memo: no walk.
  assert.deepEqual(check(tree, memoDir), { walked: 0, remembered: 1 })

  // Positive control of the protection: without any memo, the planted FIFO is found.
  execFileSync('/usr/bin/mkfifo', [join(tree, 'a', 'b', 'c', 'pipe')])
  assert.throws(() => check(tree, join(dir, 'other-memo')), { code: 'SANDBOX_BIND_UNSAFE', message: /pipe \(fifo\)/ })
  // With the memo written before the plant: the changed directory stamp voids it, the walk finds the FIFO.
  assert.equal(loadScanMemo(memoDir, tree), false)
  assert.throws(() => check(tree, memoDir), { code: 'SANDBOX_BIND_UNSAFE', message: /pipe \(fifo\)/ })
})

test('a new directory, or a renamed one, voids the memo', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/file.txt': 'x\n' })
  const memoDir = join(dir, 'memo')
  await settle()
  check(tree, memoDir)
  assert.equal(loadScanMemo(memoDir, tree), true)
  mkdirSync(join(tree, 'a', 'new'))
  assert.equal(loadScanMemo(memoDir, tree), false)
  await settle()
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
  assert.equal(loadScanMemo(memoDir, tree), true)
  // A directory holding a FIFO, made elsewhere and renamed into the tree.
  const outside = join(dir, 'outside')
  mkdirSync(outside)
  execFileSync('/usr/bin/mkfifo', [join(outside, 'pipe')])
  renameSync(outside, join(tree, 'a', 'new', 'moved'))
  assert.equal(loadScanMemo(memoDir, tree), false)
  assert.throws(() => check(tree, memoDir), { code: 'SANDBOX_BIND_UNSAFE', message: /moved\/pipe \(fifo\)/ })
})

test('a memo that is malformed, for another root, or writable by others or owned by another user is ignored', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/file.txt': 'x\n' })
  const memoDir = join(dir, 'memo')
  await settle()
  check(tree, memoDir)
  const [name] = readdirSync(memoDir)
  const file = join(memoDir, name as string)
  assert.equal(loadScanMemo(memoDir, tree), true)

  chmodSync(file, 0o666)
  assert.equal(loadScanMemo(memoDir, tree), false, 'a world-writable memo')
  chmodSync(file, 0o600)
  chmodSync(memoDir, 0o777)
  assert.equal(loadScanMemo(memoDir, tree), false, 'a world-writable memo directory')
  chmodSync(memoDir, 0o700)
  if (process.geteuid?.() === 0) {
    chownSync(file, NOBODY, NOBODY)
    assert.equal(loadScanMemo(memoDir, tree), false, 'a memo owned by another user')
    chownSync(file, 0, 0)
  }
  assert.equal(loadScanMemo(memoDir, tree), true, 'positive control: the same memo, restored, holds')
  const good = readFileSync(file)
  // A genuine memo of another tree, put in this tree's place.
  const other = makeTree(dir, 'other', { 'b/file.txt': 'y\n' })
  const otherMemo = join(dir, 'other-memo')
  await settle()
  check(other, otherMemo)
  writeFileSync(file, readFileSync(join(otherMemo, readdirSync(otherMemo)[0] as string)), { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'a memo of another root')
  writeFileSync(file, good.subarray(0, good.length - 40), { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'a truncated memo')
  const wrongCount = Buffer.from(good)
  wrongCount.writeDoubleLE(wrongCount.readDoubleLE(8) + 1, 8)
  writeFileSync(file, wrongCount, { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'a memo whose count disagrees with its paths')
  writeFileSync(file, good, { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), true, 'positive control: the original bytes hold')
  writeFileSync(file, 'not a memo', { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'malformed')
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
})

test('a walk is not remembered while a directory under it changed within the racy margin', async t => {
  // A stamp taken in the clock tick of a later change would match after it: such a walk is
  // not written down, so the next process walks again and sees the change.
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/b/file.txt': 'x\n' })
  const memoDir = join(dir, 'memo')
  await settle()
  mkdirSync(join(tree, 'a', 'b', 'fresh'))
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'no memo of a walk over a just-changed directory')
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 }, 'the next process walks again')
  // A FIFO planted now is found by that walk (not hidden behind a memo).
  execFileSync('/usr/bin/mkfifo', [join(tree, 'a', 'b', 'fresh', 'pipe')])
  assert.throws(() => check(tree, memoDir), { code: 'SANDBOX_BIND_UNSAFE', message: /fresh\/pipe \(fifo\)/ })
  // Positive control: once every change is older than the margin, the same tree is remembered.
  rmSync(join(tree, 'a', 'b', 'fresh'), { recursive: true })
  await settle()
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
  assert.equal(loadScanMemo(memoDir, tree), true)
  assert.deepEqual(check(tree, memoDir), { walked: 0, remembered: 1 })
})

test('a system source inside another one is covered by the outer walk, and a special file in it is still refused', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'lib/go/src/file.go': 'package x\n', 'bin/tool': 'x\n' })
  const inner = join(tree, 'lib', 'go')
  const sources = [{ path: tree, system: true }, { path: inner, system: true }]
  forgetSystemScans()
  assert.deepEqual(assertBindSourcesSafe(sources, NOBODY, NOBODY, join(dir, 'memo')), { walked: 1, remembered: 1 })
  execFileSync('/usr/bin/mkfifo', [join(inner, 'src', 'pipe')])
  forgetSystemScans()
  assert.throws(() => assertBindSourcesSafe(sources, NOBODY, NOBODY, join(dir, 'memo')), { code: 'SANDBOX_BIND_UNSAFE', message: /go\/src\/pipe \(fifo\)/ })
  // Positive control: the inner source alone, with no outer one, is walked and refused on its own.
  forgetSystemScans()
  assert.throws(() => assertBindSourcesSafe([{ path: inner, system: true }], NOBODY, NOBODY), { code: 'SANDBOX_BIND_UNSAFE', message: /src\/pipe \(fifo\)/ })
})
