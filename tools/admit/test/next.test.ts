// `admit status --next`: the case `admit run` would admit now, or NOTHING_ELIGIBLE (exit 1)
// with a hint. The selection rule is tested directly (selectNext), then through the bin: the
// case it names is the case admit run admits, ineligible and consumed cases are passed over,
// nothing is written, and once every case is consumed it refuses.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readOutcome, writeOutcome } from '@repairline/core'
import { errorOf, runBin, type BinResult } from '../../../test/helpers/bin.ts'
import type { Fixture } from '../../../test/helpers/fixture.ts'
import { selectNext } from '../src/rules/next-case.ts'
import { admit, assertRefusal, fixture } from './helpers.ts'

const at = (id: string, eligible: boolean, state: 'none' | 'consumed' | 'running' | 'interrupted'): { id: string, candidate: object | undefined, state: { state: typeof state } } =>
  ({ id, candidate: eligible ? {} : undefined, state: { state } })

test('selectNext: the first case, in report order, that is eligible and whose key was never started', () => {
  const order = [at('ineligible', false, 'none'), at('consumed', true, 'consumed'), at('running', true, 'running'), at('interrupted', true, 'interrupted'), at('next', true, 'none'), at('later', true, 'none')]
  assert.equal(selectNext(order)?.id, 'next')
  // Nothing to choose: every case ineligible, or its key used.
  assert.equal(selectNext(order.slice(0, 4)), undefined)
  assert.equal(selectNext([]), undefined)
  // An ineligible case whose key was never used is still not chosen.
  assert.equal(selectNext([at('ineligible', false, 'none')]), undefined)
})

async function next (f: Fixture): Promise<BinResult> {
  return await runBin('admit', ['status', '--next', '--config', f.configPath, '--report', f.reportPath])
}

/** Admits the next case and ends it (not_reproduced), as a finished attempt would. */
async function consumeNext (f: Fixture): Promise<string> {
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  const a = r.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt', r.stderr)
  writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, a.key))
  return a.key
}

test('admit status --next names the case admit run admits, passes over ineligible and consumed cases, writes nothing, and ends NOTHING_ELIGIBLE (1) with a hint', async (t) => {
  const f = await fixture(t, {
    cases: [
      { id: 'elsewhere', package: './other', name: 'example.com/calc/other::TestX' },
      { id: 'first', package: '.', name: 'example.com/calc::TestAdd' },
      { id: 'second', package: '.', name: 'example.com/calc::TestDouble' },
    ],
  })
  const one = await next(f)
  assert.equal(one.exitCode, 0, one.stderr)
  const rec = one.records.filter(x => x.kind === 'case-status')
  assert.deepEqual(rec.map(x => x.kind === 'case-status' ? [x.case_id, x.status] : []), [['first', 'eligible']])
  assert.deepEqual(one.records.map(x => x.kind), ['start', 'case-status', 'result'])
  assert.equal(existsSync(f.stateDir), false, 'status --next wrote the state root')
  // The case named is the one admit run admits: the same key.
  const firstKey = await consumeNext(f)
  assert.equal(rec[0]?.kind === 'case-status' ? rec[0].attempt_key : undefined, firstKey)

  const two = await next(f)
  assert.equal(two.exitCode, 0, two.stderr)
  assert.deepEqual(two.records.flatMap(x => x.kind === 'case-status' ? [x.case_id] : []), ['second'])
  await consumeNext(f)

  const none = await next(f)
  assertRefusal(none, 1, 'NOTHING_ELIGIBLE')
  const err = errorOf(none)
  assert.match(err?.message ?? '', /elsewhere: CASE_PACKAGE_NOT_ALLOWED: .*first: consumed; second: consumed/)
  assert.match(err?.hint ?? '', /new id in the suite report/)
  // Control: plain status still lists every case and exits 0.
  const all = await admit(f, 'status')
  assert.equal(all.exitCode, 0, all.stderr)
  assert.deepEqual(all.records.flatMap(x => x.kind === 'case-status' ? [`${x.case_id}:${x.status}`] : []), ['elsewhere:ineligible', 'first:consumed', 'second:consumed'])
})
