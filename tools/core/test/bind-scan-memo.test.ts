// The cross-process memo of a system directory's clean scan (sandbox/bind-scan-memo.ts): it
// spares the walk only while every directory keeps its stamp, and a special file planted
// anywhere below after the scan is still refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo fixtures, argv arrays
import { chmodSync, chownSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { assertBindSourcesSafe, forgetSystemScans, loadScanMemo } from '../src/index.ts'
import { makeTree, sandboxTemp } from '../../../test/helpers/sandbox.ts'

const NOBODY = 65534

function check (tree: string, memoDir: string): { walked: number, remembered: number } {
  forgetSystemScans() // each call stands for a new tool process
  return assertBindSourcesSafe([{ path: tree, system: true }], NOBODY, NOBODY, memoDir)
}

test('a clean scan is remembered across processes and a special file planted below it afterwards is still refused', t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/b/c/file.txt': 'x\n', 'd/file.txt': 'y\n' })
  const memoDir = join(dir, 'memo')
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

test('a new directory, or a renamed one, voids the memo', t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/file.txt': 'x\n' })
  const memoDir = join(dir, 'memo')
  check(tree, memoDir)
  assert.equal(loadScanMemo(memoDir, tree), true)
  mkdirSync(join(tree, 'a', 'new'))
  assert.equal(loadScanMemo(memoDir, tree), false)
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

test('a memo that is malformed, for another root, or writable by others or owned by another user is ignored', t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'usr', { 'a/file.txt': 'x\n' })
  const memoDir = join(dir, 'memo')
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
  writeFileSync(file, '{"v":2,"root":"/elsewhere","dirs":[]}', { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'a memo of another root')
  writeFileSync(file, 'not json', { mode: 0o600 })
  assert.equal(loadScanMemo(memoDir, tree), false, 'malformed')
  assert.deepEqual(check(tree, memoDir), { walked: 1, remembered: 0 })
})
