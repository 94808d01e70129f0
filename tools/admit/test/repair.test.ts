// admit repair's refusals that need no finished chain (test/e2e/repair.test.ts drives the
// chains): a directory that is no attempt (INPUT_MISSING, 66), an attempt of another state
// root (REPAIR_INPUTS_CHANGED, 1), an attempt without an outcome (REPAIR_SOURCE_INVALID, 1),
// an attempt whose outcome says nothing about a proposal (REPAIR_NOT_REPAIRABLE, 1) — each
// writing nothing and leaving the lock as it was — and a suite report that lists a repair case
// (REPORT_INVALID, 65).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { caseInputSha256, readOutcome, writeOutcome } from '@repairline/core'
import { runBin, type BinResult } from '../../../test/helpers/bin.ts'
import { writeJson, type Fixture } from '../../../test/helpers/fixture.ts'
import { admit, assertRefusal, fixture } from './helpers.ts'

async function repair (f: Fixture, attempt: string): Promise<BinResult> {
  return await runBin('admit', ['repair', '--config', f.configPath, '--attempt', attempt])
}

async function admitted (f: Fixture): Promise<{ path: string, key: string }> {
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  const a = r.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt')
  return { path: a.path, key: a.key }
}

test('admit repair refuses a directory that is no attempt, another state root\'s attempt, an attempt without an outcome, and one that ended not_reproduced; nothing is written', async (t) => {
  const f = await fixture(t)
  const other = await fixture(t)
  const empty = join(f.dir, 'not-an-attempt')
  mkdirSync(empty)
  assertRefusal(await repair(f, empty), 66, 'INPUT_MISSING')

  const a = await admitted(f)
  const lock = readFileSync(join(f.stateDir, 'lock'))
  const files = readdirSync(a.path).sort()
  // The attempt still runs (no outcome): there is nothing to repair yet.
  const running = await repair(f, a.path)
  assertRefusal(running, 1, 'REPAIR_SOURCE_INVALID')
  // Under another config, this attempt is not of its state root.
  assertRefusal(await repair(other, a.path), 1, 'REPAIR_INPUTS_CHANGED')
  assert.equal(existsSync(other.stateDir), false, 'the other state root was written')
  // not_reproduced: no proposal was ever made, so there is nothing to tell a repair.
  writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, a.key))
  const after = readdirSync(a.path).sort()
  const notRepro = await repair(f, a.path)
  assertRefusal(notRepro, 1, 'REPAIR_NOT_REPAIRABLE')
  assert.match(notRepro.stderr, /ended not_reproduced/)
  assert.deepEqual(readdirSync(join(f.stateDir, 'attempts')), [a.path.slice(-16)], 'a repair attempt was written')
  assert.deepEqual(readdirSync(a.path).sort(), after)
  assert.deepEqual(files.filter(x => x !== 'outcome.json'), after.filter(x => x !== 'outcome.json'))
  assert.ok(readFileSync(join(f.stateDir, 'lock')).equals(lock), 'the lock changed')
})

test('a suite report may not list a repair case (REPORT_INVALID, 65); the same report without it admits', async (t) => {
  const f = await fixture(t)
  const c = f.report.cases[0]
  assert.ok(c !== undefined)
  const body = { kind: 'repair' as const, id: `${c.id}#r1`, test: c.test, repairs: { attempt_key: 'a'.repeat(64), unmet_sha256: 'b'.repeat(64) } }
  writeJson(f.reportPath, { ...f.report, cases: [{ ...body, input_sha256: caseInputSha256(body) }, c] })
  const r = await admit(f)
  assertRefusal(r, 65, 'REPORT_INVALID', '/cases/0/kind')
  assert.equal(existsSync(f.stateDir), false)
  writeJson(f.reportPath, f.report)
  await admitted(f)
})
