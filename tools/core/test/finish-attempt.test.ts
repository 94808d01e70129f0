// finishAttempt: the outcome a step decided is written as decided while the attempt is within
// its deadline and the 30 s grace; a step that decides later (a machine suspended mid-step)
// writes timed_out, since by then the lock was stale and the attempt counted as interrupted.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import type { OutcomeFile } from '@repairline/schemas'
import { finishAttempt, loadAttempt, type ToolIo } from '../src/index.ts'
import { makeFixture } from '../../../test/helpers/fixture.ts'
import { admitDirect } from '../../../test/helpers/admit-direct.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

async function decideAt (t: Parameters<typeof tempDir>[0], afterDeadlineMs: number): Promise<{ outcome: OutcomeFile, exit: number, stderr: string }> {
  const f = await makeFixture(tempDir(t))
  const a = await admitDirect(f)
  const attempt = loadAttempt(a.dir)
  const stderr = new PassThrough()
  let said = ''
  stderr.on('data', (b: Buffer) => { said += b.toString('utf8') })
  const io = { stderr, now: () => new Date(Date.parse(attempt.admission.deadline) + afterDeadlineMs) } as unknown as ToolIo
  const r = finishAttempt('verify', attempt, io, { outcome: 'scoped_test_verified', code: 'SCOPED_TEST_VERIFIED', message: 'the candidate passed' })
  const outcome = JSON.parse(readFileSync(join(a.dir, 'outcome.json'), 'utf8')) as OutcomeFile
  return { outcome, exit: r.exit, stderr: said }
}

test('control: decided within the grace after the deadline, the outcome is written as decided', async t => {
  const r = await decideAt(t, 29_000)
  assert.equal(r.outcome.outcome, 'scoped_test_verified')
  assert.equal(r.outcome.reason.code, 'SCOPED_TEST_VERIFIED')
  assert.equal(r.exit, 0)
  assert.equal(r.stderr, '')
})

test('decided after the deadline had passed by 30 s, the step writes timed_out (DEADLINE_PASSED) and says what it had found', async t => {
  const r = await decideAt(t, 31_000)
  assert.equal(r.outcome.outcome, 'timed_out')
  assert.equal(r.outcome.step, 'verify')
  assert.equal(r.outcome.reason.code, 'DEADLINE_PASSED')
  assert.match(r.outcome.reason.message, /verify found scoped_test_verified \(SCOPED_TEST_VERIFIED\) at .*after the deadline/)
  assert.equal(r.exit, 1)
  assert.match(r.stderr, /^verify: timed_out: DEADLINE_PASSED: /)
})
