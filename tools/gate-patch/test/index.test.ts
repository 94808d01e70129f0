// gate-patch in process (index.ts with injected I/O) on real attempts: the records it prints,
// the files it writes, and the determinism --check relies on (computeGate twice gives the
// same bytes as the files written).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAttempt } from '@repairline/core'
import { RULE_IDS } from '@repairline/core/gate/index'
import { computeGate, gatePatch } from '../src/index.ts'
import { fakeIo } from '../../../test/helpers/io.ts'
import { fixture, gateReady } from './helpers.ts'

test('in process: a passing gate prints attempt, one rule record per rule, and writes the bytes computeGate computes', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gateReady(f, [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b' }])
  const { io, records, stderr } = fakeIo()
  io.out.write({ v: 1, kind: 'start', tool: 'gate-patch' })
  const r = await gatePatch({ attempt: a.dir, check: false }, io)
  assert.deepEqual(r, { exit: 0 }, stderr())
  const kinds = records().map(x => x.kind)
  assert.deepEqual(kinds, ['start', 'attempt', ...RULE_IDS.map(() => 'rule')])
  const again = await computeGate(loadAttempt(a.dir))
  assert.ok(readFileSync(join(a.dir, 'gate.json')).equals(again.gateBytes))
  assert.ok(readFileSync(join(a.dir, 'candidate.patch')).equals(again.patchBytes ?? Buffer.alloc(0)))
  assert.equal(again.report.proposal_sha256.length, 64)
})

test('in process: a rejected gate returns exit 1 with outcome rejected, and findings only on failed rules', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: '\treturn a - b\n', replace: '\tsum := a + b\n\treturn sum\n' }])
  const { io, records } = fakeIo()
  io.out.write({ v: 1, kind: 'start', tool: 'gate-patch' })
  const r = await gatePatch({ attempt: a.dir, check: false }, io)
  assert.deepEqual(r, { exit: 1, outcome: 'rejected' })
  const rules = records().filter(x => x.kind === 'rule')
  for (const x of rules) {
    if (x.kind !== 'rule') continue
    assert.equal(x.findings !== undefined, x.status === 'fail', x.rule)
  }
  assert.deepEqual(rules.filter(x => x.kind === 'rule' && x.status === 'fail').map(x => x.kind === 'rule' && x.findings), [['calc.go: added declaration (Add, :=, sum)'], ['calc.go: added name sum']])
})
