// Threat-matrix row V5, duplicate or reordered stage records, against readback (DESIGN §12).
// A stage record here is what DESIGN §12 and core's receipt/stages.ts call one: a file a step
// writes into the attempt directory (the four validation records among them), and the
// receipt's copies of them — `files` (every sealed file, sorted by path), `validation` (the
// validation records present, in stage order) and `commands` (the reproduce and verify runs).
// One real attempt is sealed through the driver against the local Responses server (go,
// scoped_test_verified); each test copies it and mutates one thing, the way a forger who
// reseals the receipt would, and asserts the exact set of error codes readback reports. The
// positive control is the unmutated copy, which reads back valid with no finding.
//
// A receipt listing one file twice (DUPLICATE_STAGE_RECORD) is readback-corpus.test.ts's.
// The order of receipt.json's `validation` and `files` lists, which its schema states and
// seal keeps, is checked too: either out of order is STAGE_ORDER.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readbackAttempt, type ReadbackResult } from '@repairline/core'
import { driveChain, startProvider } from '../helpers/chain.ts'
import { copyAttempt, editReceipt, readJson, reseal } from '../helpers/corpus.ts'
import { makeFixture } from '../helpers/fixture.ts'
import { GO_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { tempDir } from '../helpers/tmp.ts'

const provider = await startProvider({ after })
const root = tempDir({ after }, 'rl-stages-')
const cleanups: Array<() => void> = []
after(() => { for (const fn of cleanups) fn() })
let sealed = ''
let copies = 0

before(async () => {
  provider.server.proposals.set('stages-go-fix', GO_FIX_PROPOSAL)
  const f = await makeFixture(tempDir({ after: (fn: () => void) => { cleanups.push(fn) } }), { baseUrl: provider.server.baseUrl('proposal/stages-go-fix'), caFile: provider.tls.caFile })
  const r = await driveChain(f)
  assert.equal(r.exit, 0, r.stderr)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified')
  sealed = r.attemptDir ?? ''
})

/** A fresh copy of the sealed attempt with `mutate` applied, read back. */
async function readbackOf (mutate: (dir: string) => void): Promise<{ dir: string, r: ReadbackResult }> {
  const dir = copyAttempt(sealed, root, `copy-${copies++}`)
  mutate(dir)
  return { dir, r: await readbackAttempt(dir, {}) }
}

function errorCodes (r: ReadbackResult): string[] {
  return [...new Set(r.findings.filter(f => f.severity === 'error').map(f => f.code))].sort()
}

/** Readback is invalid with exactly the error codes `codes`. */
function assertInvalid (r: ReadbackResult, codes: string[]): void {
  const why = JSON.stringify(r.findings, null, 1)
  assert.equal(r.valid, false, why)
  assert.deepEqual(errorCodes(r), [...codes].sort(), why)
}

interface SealedValidation { stage: string }

test('control: the sealed attempt reads back valid with no finding, its four validation records in stage order', async () => {
  const { dir, r } = await readbackOf(() => {})
  assert.equal(r.valid, true, JSON.stringify(r.findings, null, 1))
  assert.deepEqual(r.findings, [])
  assert.deepEqual(readJson<{ validation: SealedValidation[] }>(dir, 'receipt.json').validation.map(v => v.stage), ['job_instructions_validation', 'prompt_validation', 'request_instructions_validation', 'summary_validation'])
})

test('V5 duplicate: receipt.json lists one validation stage twice, in place of another (VALIDATION_MISMATCH), or as a fifth record (MALFORMED: at most four)', async () => {
  const inPlace = await readbackOf(d => editReceipt(d, r => { r.validation[1] = { ...(r.validation[0] as (typeof r.validation)[number]) } }))
  assertInvalid(inPlace.r, ['VALIDATION_MISMATCH'])
  assert.deepEqual(inPlace.r.findings.map(f => f.message), [
    "receipt.json's job_instructions_validation differs from validation/job_instructions.json",
    "receipt.json's prompt_validation differs from validation/prompt.json",
  ])
  const fifth = await readbackOf(d => editReceipt(d, r => { r.validation.push({ ...(r.validation[3] as (typeof r.validation)[number]) }) }))
  assertInvalid(fifth.r, ['MALFORMED'])
  assert.match(fifth.r.findings[0]?.message ?? '', /\/validation: must NOT have more than 4 items/)
})

test('V5 duplicate: a validation record copied over another stage\'s file and resealed (two files claim job_instructions_validation): RERENDER_MISMATCH and VALIDATION_MISMATCH', async () => {
  const { r } = await readbackOf(d => {
    writeFileSync(join(d, 'validation/prompt.json'), readFileSync(join(d, 'validation/job_instructions.json')))
    reseal(d, 'validation/prompt.json')
  })
  assertInvalid(r, ['RERENDER_MISMATCH', 'VALIDATION_MISMATCH'])
  assert.ok(r.findings.some(f => f.code === 'RERENDER_MISMATCH' && f.path === 'validation/prompt.json'), JSON.stringify(r.findings))
})

test('V5 duplicate: receipt.json lists the reproduce command twice: COMMAND_MISALIGNED', async () => {
  const { r } = await readbackOf(d => editReceipt(d, r => { r.commands.push({ ...(r.commands[0] as (typeof r.commands)[number]) }) }))
  assertInvalid(r, ['COMMAND_MISALIGNED'])
  assert.deepEqual(r.findings.map(f => f.message), ["receipt.json's reproduce command differs from what baseline.json records"])
})

test('V5 reordered: two validation records swapped between their files and resealed: RERENDER_MISMATCH for both, and STAGE_ORDER for the receipt that lists them so', async () => {
  const { r } = await readbackOf(d => {
    const job = readFileSync(join(d, 'validation/job_instructions.json'))
    writeFileSync(join(d, 'validation/job_instructions.json'), readFileSync(join(d, 'validation/prompt.json')))
    writeFileSync(join(d, 'validation/prompt.json'), job)
    reseal(d, 'validation/job_instructions.json', 'validation/prompt.json')
  })
  assertInvalid(r, ['RERENDER_MISMATCH', 'STAGE_ORDER'])
  assert.deepEqual(r.findings.map(f => f.path).sort(), ['receipt.json', 'validation/job_instructions.json', 'validation/prompt.json'])
})

test('V5 reordered: the reproduce and verify commands swapped in receipt.json (each labelled as the other step): COMMAND_MISALIGNED for both', async () => {
  const { r } = await readbackOf(d => editReceipt(d, r => {
    const [a, b] = r.commands
    assert.ok(a !== undefined && b !== undefined)
    r.commands = [{ ...b, step: a.step }, { ...a, step: b.step }]
  }))
  assertInvalid(r, ['COMMAND_MISALIGNED'])
  assert.deepEqual(r.findings.map(f => f.message).sort(), [
    "receipt.json's reproduce command differs from what baseline.json records",
    "receipt.json's verify command differs from what verify.json records",
  ])
})

test('V5 reordered: receipt.json\'s validation list out of stage order is STAGE_ORDER', async () => {
  const { r } = await readbackOf(d => editReceipt(d, r => { r.validation.reverse() }))
  assertInvalid(r, ['STAGE_ORDER'])
})

test('V5 reordered: receipt.json\'s files list out of path order is STAGE_ORDER', async () => {
  const { r } = await readbackOf(d => editReceipt(d, r => { r.files.reverse() }))
  assertInvalid(r, ['STAGE_ORDER'])
  // Two neighbours swapped are enough.
  const { r: swapped } = await readbackOf(d => editReceipt(d, r => { const [a, b] = r.files; if (a !== undefined && b !== undefined) r.files.splice(0, 2, b, a) }))
  assertInvalid(swapped, ['STAGE_ORDER'])
})
