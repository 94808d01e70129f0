// The gate-patch bin on proposals built to crash it rather than pass it: a replace nested
// 20,000 levels deep (40 kB, inside proposal.schema's bound) overflowed a recursive walk of
// the syntax tree, and a search text whose clipped finding split a surrogate pair made
// gate.json unwritable; both exited 70 with no gate.json and no outcome. Each must end
// `rejected` (exit 1) with gate.json written and valid, and every rerun of the gate —
// `--check`, and readback on the sealed attempt — must compute the same bytes.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { GateReport, OutcomeFile, ProposalEdit } from '@repairline/schemas'
import { loadAttempt, parseDocument } from '@repairline/core'
import { computeAttemptGate } from '@repairline/core/gate/attempt'
import { HOOKED_ADMISSION } from '../../../test/helpers/attempt.ts'
import { runBin } from '../../../test/helpers/bin.ts'
import { fixture, gateReady } from './helpers.ts'

const nested = (n: number): string => '('.repeat(n) + 'a + b' + ')'.repeat(n)

const HOSTILE: Array<{ name: string, edits: ProposalEdit[], fails: string[], finding: RegExp }> = [
  { name: 'a replace nested 20,000 levels deep', edits: [{ path: 'calc.go', search: 'return a - b', replace: `return ${nested(20000)}` }], fails: ['diff-size', 'parses'], finding: /^calc\.go \(candidate\): line \d+: nested more than 1000 levels deep$/ },
  { name: 'an absent search whose clipped finding would split a surrogate pair', edits: [{ path: 'calc.go', search: `${'x'.repeat(78)}😀😀😀`, replace: 'y' }], fails: ['exact-application'], finding: /^edit 1 \(calc\.go\): search text does not occur in calc\.go: "x{76}\.\.\.$/ },
]

test('go: each crash-shaped proposal is rejected (exit 1, not 70) with a valid gate.json that --check and readback recompute byte for byte', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  let i = 0
  for (const h of HOSTILE) {
    const a = await gateReady(f, h.edits, ++i)
    const r = await runBin('gate-patch', ['--attempt', a.dir])
    assert.equal(r.exitCode, 1, `${h.name}: ${r.stderr}`)
    assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'gate-patch', exit: 1, outcome: 'rejected' }, h.name)
    const bytes = readFileSync(join(a.dir, 'gate.json'))
    const report: GateReport = parseDocument('gate', bytes, 'gate.json')
    assert.deepEqual(report.failed_rules, h.fails, h.name)
    const first = report.rules.find(x => x.rule === h.fails.at(-1))?.findings[0] ?? ''
    assert.match(first, h.finding, h.name)
    const outcome = JSON.parse(readFileSync(join(a.dir, 'outcome.json'), 'utf8')) as OutcomeFile
    assert.equal(outcome.outcome, 'rejected')
    assert.equal(outcome.reason.code, 'GATE_REJECTED')

    // The gate's reruns: --check, and the function readback's checkGate calls.
    const check = await runBin('gate-patch', ['--check', '--attempt', a.dir])
    assert.equal(check.exitCode, 0, `${h.name}: ${check.stderr}`)
    assert.ok((await computeAttemptGate(loadAttempt(a.dir))).gateBytes.equals(bytes), h.name)
    const seal = await runBin('receipt', ['seal', '--attempt', a.dir], { env: HOOKED_ADMISSION })
    assert.equal(seal.exitCode, 1, `${h.name}: ${seal.stderr}`)
    const rb = await runBin('receipt', ['readback', '--attempt', a.dir, '--allow-test-hooks'], { env: HOOKED_ADMISSION })
    // gateReady's attempt has no real ask-provider stage, so readback finds other faults;
    // what matters here is that the gate it reruns agrees and gate.json reads back.
    const rec = rb.records.find(x => x.kind === 'readback')
    assert.ok(rec?.kind === 'readback', `${h.name}: ${rb.stderr}`)
    assert.deepEqual(rec.findings.filter(x => x.code === 'GATE_MISMATCH' || x.path === 'gate.json'), [], h.name)
  }
})
