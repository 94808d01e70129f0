// receipt seal through the built bin on really admitted attempts: before the deadline with no
// outcome it refuses (ATTEMPT_RUNNING, 75) and writes nothing; past the deadline it seals
// timed_out, past deadline + 30 s interrupted, and releases the lock; a sealed attempt is
// never sealed again; while another process holds the attempt's step lock it refuses
// (LOCK_HELD, 75); with no attempt at all it is ATTEMPT_MISSING (66); an entry no receipt can
// name, a directory the attempt layout does not have, and a file named like a temp file beside
// no file a step writes are STATE_UNSAFE (73).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: a real live process to name as the step lock's holder
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { Admission, OutcomeFile, Receipt } from '@repairline/schemas'
import { processStartTicks, readbackAttempt, stepLockPath } from '@repairline/core'
import { makeFixture, type Fixture } from '../../../test/helpers/fixture.ts'
import { admitFixture, HOOKED_ADMISSION, type Admitted } from '../../../test/helpers/attempt.ts'
import { errorOf, runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

async function admitted (t: Parameters<typeof tempDir>[0]): Promise<{ f: Fixture, a: Admitted, deadline: number }> {
  const f = await makeFixture(tempDir(t))
  const a = await admitFixture(f, HOOKED_ADMISSION)
  const admission = JSON.parse(readFileSync(join(a.dir, 'admission.json'), 'utf8')) as Admission
  return { f, a, deadline: Date.parse(admission.deadline) }
}

const at = (ms: number): Record<string, string> => ({ REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: new Date(ms).toISOString() })
const seal = async (a: Admitted, ms: number): ReturnType<typeof runBin> => await runBin('receipt', ['seal', '--attempt', a.dir], { env: at(ms) })
const files = (a: Admitted): string[] => readdirSync(a.dir).sort()
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T

test('before the deadline an attempt without an outcome is ATTEMPT_RUNNING (75): nothing written, the lock kept; past it, timed_out is sealed and the lock released', async t => {
  const { f, a, deadline } = await admitted(t)
  const before = files(a)
  const early = await seal(a, deadline)
  assert.equal(early.exitCode, 75, early.stderr)
  assert.equal(errorOf(early)?.code, 'ATTEMPT_RUNNING')
  assert.deepEqual(files(a), before)
  assert.ok(existsSync(join(f.stateDir, 'lock')))

  const late = await seal(a, deadline + 1000)
  assert.equal(late.exitCode, 1, late.stderr)
  assert.deepEqual(late.records.at(-1), { v: 1, kind: 'result', tool: 'receipt', exit: 1, outcome: 'timed_out' })
  const outcome = readJson<OutcomeFile>(join(a.dir, 'outcome.json'))
  assert.deepEqual([outcome.outcome, outcome.step, outcome.reason.code], ['timed_out', 'receipt', 'DEADLINE_PASSED'])
  assert.equal(readJson<Receipt>(join(a.dir, 'receipt.json')).outcome.outcome, 'timed_out')
  assert.equal(existsSync(join(f.stateDir, 'lock')), false, 'the lock is released')
  assert.deepEqual(readdirSync(join(f.stateDir, 'steps')), [], 'and the step lock')

  // Sealed once: a second seal writes nothing and repeats the outcome.
  const sealed = files(a)
  const receiptBytes = readFileSync(join(a.dir, 'receipt.json'))
  const again = await seal(a, deadline + 60_000)
  assert.equal(again.exitCode, 1, again.stderr)
  assert.deepEqual(files(a), sealed)
  assert.deepEqual(readFileSync(join(a.dir, 'receipt.json')), receiptBytes)
})

test('past deadline + 30 s an attempt without an outcome is sealed interrupted', async t => {
  const { a, deadline } = await admitted(t)
  const r = await seal(a, deadline + 30_001)
  assert.equal(r.exitCode, 1, r.stderr)
  const outcome = readJson<OutcomeFile>(join(a.dir, 'outcome.json'))
  assert.deepEqual([outcome.outcome, outcome.reason.code], ['interrupted', 'ATTEMPT_INTERRUPTED'])
})

test('while a live process holds the attempt\'s step lock, seal is LOCK_HELD (75) and writes nothing; once it is gone, seal breaks the lock and seals', async t => {
  const { f, a, deadline } = await admitted(t)
  const holder = spawn('/usr/bin/sleep', ['60'], { stdio: 'ignore' })
  t.after(() => holder.kill('SIGKILL'))
  await new Promise(resolve => holder.once('spawn', resolve))
  const pid = holder.pid as number
  mkdirSync(join(f.stateDir, 'steps'), { recursive: true })
  const lock = { v: 1, attempt_key: a.key, step: 'verify', pid, start_ticks: processStartTicks(pid), boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() }
  writeFileSync(stepLockPath(f.stateDir, a.key), JSON.stringify(lock, null, 2) + '\n')
  const before = files(a)
  const held = await seal(a, deadline + 1000)
  assert.equal(held.exitCode, 75, held.stderr)
  assert.equal(errorOf(held)?.code, 'LOCK_HELD')
  assert.match(held.stderr, new RegExp(`verify \\(pid ${pid}\\) is working on attempt`))
  assert.deepEqual(files(a), before, 'no outcome and no receipt')
  assert.ok(existsSync(join(f.stateDir, 'lock')))

  // Positive control: the holder gone (killed, as a crash would), the same seal proceeds.
  holder.kill('SIGKILL')
  await new Promise(resolve => holder.once('exit', resolve))
  const r = await seal(a, deadline + 1000)
  assert.equal(r.exitCode, 1, r.stderr)
  assert.equal(readJson<OutcomeFile>(join(a.dir, 'outcome.json')).outcome, 'timed_out')
  assert.ok(existsSync(join(a.dir, 'receipt.json')))
})

test('seal with no --attempt and no attempt record on stdin is ATTEMPT_MISSING (66)', async () => {
  const r = await runBin('receipt', ['seal'], { input: '' })
  assert.equal(r.exitCode, 66, r.stderr)
  assert.equal(errorOf(r)?.code, 'ATTEMPT_MISSING')
})

test('an attempt holding a file whose name is not UTF-8 is STATE_UNSAFE (73): no receipt can name it, so none is written; without it, seal seals', async t => {
  const { a, deadline } = await admitted(t)
  const junk = Buffer.concat([Buffer.from(`${a.dir}/junk`), Buffer.from([0xff])])
  writeFileSync(junk, 'x')
  const r = await seal(a, deadline + 30_001)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /junk\\xff \(its name is not UTF-8/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  unlinkSync(junk)
  const ok = await seal(a, deadline + 30_001)
  assert.equal(ok.exitCode, 1, ok.stderr)
  assert.equal(readJson<Receipt>(join(a.dir, 'receipt.json')).outcome.outcome, 'interrupted')
})

test("an outcome.json copied from another attempt is refused by a step and by seal (ATTEMPT_BINDING_MISMATCH, 65): nothing sealed, the lock kept; the attempt's own outcome seals", async t => {
  const { f, a, deadline } = await admitted(t)
  const other = await admitted(t)
  // The other attempt decided (sealed timed_out); its outcome.json is copied in.
  assert.equal((await seal(other.a, other.deadline + 1000)).exitCode, 1)
  const foreign = readFileSync(join(other.a.dir, 'outcome.json'))
  writeFileSync(join(a.dir, 'outcome.json'), foreign)
  const before = files(a)
  const step = await runBin('extract-tree', ['--attempt', a.dir], { env: at(deadline - 1000) })
  assert.equal(step.exitCode, 65, step.stderr)
  assert.equal(errorOf(step)?.code, 'ATTEMPT_BINDING_MISMATCH')
  const check = await runBin('extract-tree', ['--check', '--attempt', a.dir], { env: at(deadline - 1000) })
  assert.equal(check.exitCode, 65, check.stderr)
  assert.equal(errorOf(check)?.code, 'ATTEMPT_BINDING_MISMATCH')
  // readback does not report the other attempt's outcome as this one's, nor advise a seal.
  const rb = await readbackAttempt(a.dir, { allowTestHooks: true })
  assert.deepEqual([rb.valid, rb.outcome], [false, undefined])
  assert.ok(rb.findings.some(x => x.code === 'ATTEMPT_BINDING_MISMATCH' && x.path === 'outcome.json'), JSON.stringify(rb.findings))
  assert.match(rb.findings.find(x => x.code === 'NOT_SEALED')?.message ?? '', /names another attempt .* seal refuses it/)
  const sealed = await seal(a, deadline + 1000)
  assert.equal(sealed.exitCode, 65, sealed.stderr)
  assert.equal(errorOf(sealed)?.code, 'ATTEMPT_BINDING_MISMATCH')
  assert.deepEqual(files(a), before, 'no tree, no receipt')
  assert.ok(existsSync(join(f.stateDir, 'lock')), 'the lock is kept')
  // Control: without the foreign file the same seal decides and seals this attempt's own outcome.
  unlinkSync(join(a.dir, 'outcome.json'))
  const own = await seal(a, deadline + 1000)
  assert.equal(own.exitCode, 1, own.stderr)
  assert.equal(readJson<OutcomeFile>(join(a.dir, 'outcome.json')).attempt_key, readJson<Admission>(join(a.dir, 'admission.json')).attempt_key)
})

test('a directory where a stage file belongs is refused by seal (STATE_UNSAFE, 73): no receipt; without it, it seals', async t => {
  const { a, deadline } = await admitted(t)
  mkdirSync(join(a.dir, 'baseline.json'))
  const r = await seal(a, deadline + 60_000)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /a directory where a stage file belongs: baseline\.json/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  // Positive control: the directory gone, the same seal writes the receipt.
  rmdirSync(join(a.dir, 'baseline.json'))
  const ok = await seal(a, deadline + 60_000)
  assert.equal(ok.exitCode, 1, ok.stderr)
  assert.ok(existsSync(join(a.dir, 'receipt.json')))
})

test('a file no step writes (an operator\'s notes) is refused by seal (STATE_UNSAFE, 73), naming it: nothing sealed or decided, nothing lost; moved to logs/, the attempt seals and reads back valid', async t => {
  const { a, deadline } = await admitted(t)
  writeFileSync(join(a.dir, 'NOTES.md'), 'what I saw\n')
  const r = await seal(a, deadline + 60_000)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /holds files no step writes: NOTES\.md/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  // Past deadline + 30 s with no outcome, but a refusal decides nothing: no interrupted either.
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false, 'no outcome is written by a seal that refuses')
  assert.equal(readFileSync(join(a.dir, 'NOTES.md'), 'utf8'), 'what I saw\n')
  mkdirSync(join(a.dir, 'logs'), { recursive: true })
  renameSync(join(a.dir, 'NOTES.md'), join(a.dir, 'logs', 'NOTES.md'))
  const ok = await seal(a, deadline + 60_000)
  assert.equal(ok.exitCode, 1, ok.stderr)
  assert.equal((await readbackAttempt(a.dir, { allowTestHooks: true })).valid, true)
})

test('seal through a symlinked path is the same attempt: it seals and releases the lock that names the real path; a lock naming the key in another directory is left, and said', async t => {
  const { f, a, deadline } = await admitted(t)
  const link = join(tempDir(t), 'link')
  symlinkSync(dirname(f.stateDir), link)
  const via = join(link, relative(dirname(f.stateDir), a.dir))
  const r = await runBin('receipt', ['seal', '--attempt', via], { env: at(deadline + 1000) })
  assert.equal(r.exitCode, 1, r.stderr)
  assert.match(r.stderr, /; lock released\n/)
  assert.equal(existsSync(join(f.stateDir, 'lock')), false)
  assert.equal((await readbackAttempt(a.dir, { allowTestHooks: true })).valid, true)

  // Control: a lock naming this key in another directory is not this attempt's to release.
  const { f: g, a: b, deadline: bDeadline } = await admitted(t)
  const lockFile = join(g.stateDir, 'lock')
  const held = readFileSync(lockFile, 'utf8')
  const elsewhere = join(g.stateDir, 'attempts', '0123456789abcdef')
  writeFileSync(lockFile, held.replace(JSON.stringify(b.dir), JSON.stringify(elsewhere)))
  const left = await seal(b, bDeadline + 1000)
  assert.equal(left.exitCode, 1, left.stderr)
  assert.match(left.stderr, /the lock names this attempt at .*0123456789abcdef and was left/)
  assert.ok(existsSync(lockFile))
})

test('a file named like a temp file beside no file a step writes is refused by seal (STATE_UNSAFE, 73); the temp file of an interrupted write of usage.json is left unsealed, and the attempt reads back valid with a notice', async t => {
  const { a, deadline } = await admitted(t)
  writeFileSync(join(a.dir, '.evil.tmp-000000000000'), 'x')
  const r = await seal(a, deadline + 60_000)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /holds files no step writes: \.evil\.tmp-000000000000/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  // Positive control: the temp name of a file a step writes there is never sealed, nor refused.
  unlinkSync(join(a.dir, '.evil.tmp-000000000000'))
  writeFileSync(join(a.dir, '.usage.json.tmp-0123456789ab'), '{"v":')
  const ok = await seal(a, deadline + 60_000)
  assert.equal(ok.exitCode, 1, ok.stderr)
  assert.deepEqual(readJson<Receipt>(join(a.dir, 'receipt.json')).files.filter(x => x.path.includes('.tmp-')), [])
  const rb = await readbackAttempt(a.dir, { allowTestHooks: true })
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
  assert.ok(rb.findings.some(x => x.code === 'LEFTOVER_TEMP_FILE' && x.path === '.usage.json.tmp-0123456789ab'))
})

test('a directory no step makes, or work/ that is a symlink, is refused by seal (STATE_UNSAFE, 73): no receipt; without them, it seals and reads back valid', async t => {
  const { a, deadline } = await admitted(t)
  mkdirSync(join(a.dir, 'extra', 'empty'), { recursive: true })
  const r = await seal(a, deadline + 60_000)
  assert.equal(r.exitCode, 73, r.stderr)
  assert.equal(errorOf(r)?.code, 'STATE_UNSAFE')
  assert.match(r.stderr, /holds entries the attempt layout has no place for: extra \(is a directory no step makes\)/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  rmdirSync(join(a.dir, 'extra', 'empty'))
  rmdirSync(join(a.dir, 'extra'))
  symlinkSync('/', join(a.dir, 'work'))
  const link = await seal(a, deadline + 60_000)
  assert.equal(link.exitCode, 73, link.stderr)
  assert.match(link.stderr, /work \(is a symbolic link, not the directory the steps make\)/)
  assert.equal(existsSync(join(a.dir, 'receipt.json')), false)
  // Positive control: work/ a real directory again, the same seal writes the receipt.
  unlinkSync(join(a.dir, 'work'))
  mkdirSync(join(a.dir, 'work'))
  const ok = await seal(a, deadline + 60_000)
  assert.equal(ok.exitCode, 1, ok.stderr)
  assert.equal((await readbackAttempt(a.dir, { allowTestHooks: true })).valid, true)
})

test('readback names what it found: a sealed outcome.json that no longer parses is not called missing, and a symlinked receipt.json is called a symlink', async t => {
  const { a, deadline } = await admitted(t)
  assert.equal((await seal(a, deadline + 1000)).exitCode, 1)
  const back = async (): Promise<Array<{ code: string, message: string }>> => (await readbackAttempt(a.dir, { allowTestHooks: true })).findings.filter(x => x.severity === 'error')
  // Control: sealed as it is, it reads back valid.
  assert.deepEqual(await back(), [])
  const outcomePath = join(a.dir, 'outcome.json')
  const outcomeBytes = readFileSync(outcomePath)
  writeFileSync(outcomePath, Buffer.concat([outcomeBytes.subarray(0, 1), Buffer.from('}'), outcomeBytes.subarray(2)]))
  const broken = await back()
  assert.ok(broken.some(x => x.code === 'MALFORMED' && /^outcome\.json is not strict JSON/.test(x.message)), JSON.stringify(broken))
  assert.ok(broken.some(x => x.code === 'MISSING_STAGE_RECORD' && x.message === 'receipt.json exists, but outcome.json cannot be read (its MALFORMED finding says why)'), JSON.stringify(broken))
  writeFileSync(outcomePath, outcomeBytes)
  const receiptPath = join(a.dir, 'receipt.json')
  renameSync(receiptPath, join(a.dir, 'logs-receipt.json'))
  symlinkSync(join(a.dir, 'logs-receipt.json'), receiptPath)
  const linked = await back()
  assert.ok(linked.some(x => x.code === 'MALFORMED' && x.message === 'receipt.json is a symlink'), JSON.stringify(linked))
})
