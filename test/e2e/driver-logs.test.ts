// The driver's own bookkeeping, found by a black-box audit of the driver: the step logs it
// keeps in logs/ (unsealed) can never stop the chain or be written through a symlink, and its
// last line never claims a receipt that seal did not write. (--until a step that decided
// scoped_test_verified is in hand-operation.test.ts, with the real chain.)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { closeLogs, openLogs, StepLog, summarize } from '../../scripts/attempt.ts'
import { tempDir } from '../helpers/tmp.ts'

/** Runs `fn` with process.stderr captured; returns what it wrote. */
function stderrOf (fn: () => void): string {
  const write = process.stderr.write.bind(process.stderr)
  let text = ''
  process.stderr.write = ((chunk: string | Uint8Array): boolean => { text += String(chunk); return true }) as typeof process.stderr.write
  try {
    fn()
  } finally {
    process.stderr.write = write
  }
  return text
}

/** A state root with one attempt directory, as admit lays it out. */
function fakeAttempt (root: string): string {
  const dir = join(root, 'state', 'attempts', '0123456789abcdef')
  mkdirSync(dir, { recursive: true, mode: 0o711 })
  return dir
}

test('a step log that cannot be written (a full disk) is said once and dropped; nothing throws', (t) => {
  const log = new StepLog('/dev/full')
  log.write('a record\n')
  log.write('another\n')
  assert.match(log.failure ?? '', /ENOSPC/)
  const said = stderrOf(() => closeLogs([log]))
  assert.match(said, /^attempt: logs: cannot keep \/dev\/full: .*ENOSPC.*\n$/)
  // Positive control: a writable log keeps every byte.
  const dir = tempDir(t)
  const ok = new StepLog(join(dir, 'x.stdout'))
  ok.write('a record\n')
  assert.equal(stderrOf(() => closeLogs([ok])), '')
  assert.equal(readFileSync(join(dir, 'x.stdout'), 'utf8'), 'a record\n')
})

test('logs/ replaced by a symlink is not written through: the step keeps no logs and the driver says so', (t) => {
  const root = tempDir(t)
  const attempt = fakeAttempt(root)
  const elsewhere = join(root, 'elsewhere')
  mkdirSync(elsewhere)
  symlinkSync(elsewhere, join(attempt, 'logs'))
  let logs: StepLog[] | undefined
  const said = stderrOf(() => { logs = openLogs(attempt, 'verify') })
  assert.equal(logs, undefined)
  assert.match(said, /^attempt: logs: not keeping verify's streams: /)
  assert.deepEqual(readdirSync(elsewhere), [])
  // A log file planted as a symlink inside a real logs/ is not followed either.
  const other = fakeAttempt(join(root, 'second'))
  mkdirSync(join(other, 'logs'), { mode: 0o755 })
  symlinkSync(join(elsewhere, 'target'), join(other, 'logs', 'verify.stdout'))
  const opened = openLogs(other, 'verify') ?? []
  opened[0]?.write('x')
  opened[1]?.write('y')
  const said2 = stderrOf(() => closeLogs(opened))
  assert.match(said2, /cannot keep .*verify\.stdout: .*ELOOP/)
  assert.equal(existsSync(join(elsewhere, 'target')), false)
  // Positive control: a real logs/ takes both streams.
  const third = fakeAttempt(join(root, 'third'))
  const fine = openLogs(third, 'verify') ?? []
  fine[0]?.write('out')
  fine[1]?.write('err')
  closeLogs(fine)
  assert.deepEqual(readdirSync(join(third, 'logs')).sort(), ['verify.stderr', 'verify.stdout'])
})

test('the last line never claims a receipt that seal did not write', (t) => {
  const root = tempDir(t)
  const attempt = fakeAttempt(root)
  writeFileSync(join(attempt, 'outcome.json'), JSON.stringify({ outcome: 'scoped_test_verified', reason: { code: 'VERIFIED', message: 'ok' } }))
  // seal failed (a FIFO where receipt.json belongs: 73) and wrote no receipt.
  let code = -1
  const failed = stderrOf(() => { code = summarize(attempt, 73, performance.now()) })
  assert.equal(code, 73)
  assert.match(failed, /^repairline: scoped_test_verified — VERIFIED: ok — but not sealed \(receipt seal exited 73\); attempt .*: run receipt seal --attempt /)
  assert.doesNotMatch(failed, /receipt .*receipt\.json/)
  // Seal exited as the outcome does but no receipt is there: still not sealed, and not a success.
  const missing = stderrOf(() => { code = summarize(attempt, 0, performance.now()) })
  assert.equal(code, 70)
  assert.match(missing, /but not sealed/)
  // Positive control: with the receipt, the summary names it and passes the outcome's status on.
  writeFileSync(join(attempt, 'receipt.json'), '{}')
  const sealed = stderrOf(() => { code = summarize(attempt, 0, performance.now()) })
  assert.equal(code, 0)
  assert.match(sealed, new RegExp(`receipt ${join(attempt, 'receipt.json')}`))
})
