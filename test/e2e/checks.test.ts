// The execution config's checks through the driver, against the loopback HTTPS Responses
// server: a command that cannot run on the baseline (exit 127, a fault exit code, its own
// timeout) ends the attempt fault in reproduce before any provider request (seed 004: a
// repair against a verifier that cannot run buys nothing), sealed and reading back; and a
// fix that every clause accepts is scoped_test_verified, every clause's result in
// verify.json, the receipt and readback.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExecutionConfig, VerifyReport } from '@repairline/schemas'
import { readbackAttempt } from '@repairline/core'
import { rewriteConfig } from '../helpers/fixture.ts'
import { GO_FIX_PROPOSAL, NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'

const p: Provider = await startProvider({ after })
p.server.proposals.set('go-fix', GO_FIX_PROPOSAL)
p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)

type Command = NonNullable<NonNullable<ExecutionConfig['checks']>['commands']>[number]

const baselineFaults: Array<[string, Command, string]> = [
  ['exit 127 (a program it runs is not found)', { exec: 'env', args: ['no-such-verifier-rl'], timeout_ms: 10000 }, 'CHECK_NOT_STARTED'],
  ['a fault exit code', { exec: 'node', args: ['-e', 'process.exit(3)'], timeout_ms: 10000, fault_exit_codes: [3] }, 'CHECK_FAULT_EXIT'],
  ['its own timeout', { exec: 'node', args: ['-e', 'setInterval(() => {}, 1000)'], timeout_ms: 1000 }, 'CHECK_TIMED_OUT'],
]
for (const [name, command, code] of baselineFaults) {
  test(`a check command that cannot run on the baseline (${name}) ends the attempt fault ${code} in reproduce: 0 provider requests, sealed, reads back`, async (t) => {
    const scenario = `proposal/node-fix-${code}`
    p.server.proposals.set(scenario.slice('proposal/'.length), NODE_FIX_PROPOSAL)
    const f = await chainFixture(t, p, scenario, { runner: 'node' })
    rewriteConfig(f, c => { c.checks = { commands: [{ exec: 'node', args: ['--check', 'src/calc.js'], timeout_ms: 10000 }, command] } })
    const r = await driveChain(f)
    assert.equal(r.exit, 1, r.stderr)
    assert.equal(r.outcome?.outcome, 'fault', r.stderr)
    assert.equal(r.outcome?.step, 'reproduce')
    assert.equal(r.outcome?.reason.code, code)
    assert.match(r.outcome?.reason.message ?? '', /^check commands\[1\] could not run on the baseline, so it could not judge a candidate; no provider call was made: /)
    assert.equal(p.server.requestsTo(scenario).length, 0, 'the provider was never called')
    const dir = r.attemptDir ?? ''
    assert.equal(existsSync(join(dir, 'dispatch.json')), false)
    const baseline = JSON.parse(readFileSync(join(dir, 'baseline.json'), 'utf8')) as { reproduced: boolean, checks: Array<{ status: string, code: string }> }
    assert.equal(baseline.reproduced, true, 'the tests reproduced the failure; the verifier is what could not run')
    assert.deepEqual(baseline.checks.map(x => `${x.status}:${x.code}`), ['pass:CHECK_PASSED', `fault:${code}`])
    const receipt = JSON.parse(readFileSync(join(dir, 'receipt.json'), 'utf8')) as { checks?: Array<{ step: string, clause: string, index: number, status: string, code: string }> }
    assert.deepEqual(receipt.checks?.map(x => `${x.step}:${x.clause}[${x.index}]:${x.status}:${x.code}`), ['reproduce:commands[0]:pass:CHECK_PASSED', `reproduce:commands[1]:fault:${code}`])
    const rb = await readbackAttempt(dir)
    assert.equal(rb.valid, true, JSON.stringify(rb.findings))
  })
}

test('go: a fix every clause accepts (go vet, source_absent, contains, matches) is scoped_test_verified with one provider request; every clause\'s result is in verify.json and the receipt, and reads back', async (t) => {
  const f = await chainFixture(t, p, 'proposal/go-fix')
  rewriteConfig(f, c => {
    c.checks = {
      source_absent: [{ pattern: 'os.Exit' }],
      contains: [{ path: 'calc.go', text: 'return a + b' }],
      matches: [{ path: 'calc.go', regex: '^func Add\\(a, b int\\) int \\{$' }],
      commands: [{ exec: 'go', args: ['vet', '.'], timeout_ms: 60000, fault_exit_codes: [3] }],
    }
  })
  const before = p.server.requestsTo('proposal/go-fix').length
  const r = await driveChain(f)
  assert.equal(r.exit, 0, r.stderr)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified')
  assert.equal(p.server.requestsTo('proposal/go-fix').length - before, 1)
  const dir = r.attemptDir ?? ''
  const v = JSON.parse(readFileSync(join(dir, 'verify.json'), 'utf8')) as VerifyReport
  assert.deepEqual(v.checks?.map(x => `${x.clause}[${x.index}]:${x.status}`), ['source_absent[0]:pass', 'contains[0]:pass', 'matches[0]:pass', 'commands[0]:pass'])
  const receipt = JSON.parse(readFileSync(join(dir, 'receipt.json'), 'utf8')) as { checks?: Array<{ step: string, clause: string, status: string }> }
  assert.deepEqual(receipt.checks?.map(x => `${x.step}:${x.clause}:${x.status}`), ['reproduce:commands:pass', 'verify:source_absent:pass', 'verify:contains:pass', 'verify:matches:pass', 'verify:commands:pass'])
  const rb = await readbackAttempt(dir)
  assert.equal(rb.valid, true, JSON.stringify(rb.findings))
})
