// Findings quote the proposal and are clipped; a clip by UTF-16 units could end inside a
// surrogate pair, and gate.json holding half a pair cannot be written (gate-patch exited 70).
// Every clip cuts by code points (printableLine).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { evaluateGate } from '@repairline/core/gate/index'
import { ACCEPTED, REJECTED, gateInput } from './fixtures.ts'

const LONE_SURROGATE = /\p{Cs}/u

test('no detail or finding of any fixture holds half a surrogate pair (a clip cuts by code points)', async () => {
  for (const c of [...REJECTED, ...ACCEPTED]) {
    const r = await evaluateGate(gateInput(c.baseline, c.edits, c.maxPatchBytes))
    for (const x of r.rules) for (const line of [x.detail, ...x.findings]) assert.doesNotMatch(line, LONE_SURROGATE, `${c.name}: ${x.rule}`)
  }
})
