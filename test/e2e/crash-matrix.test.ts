// The crash matrix (issue 6, threat K1): with REPAIRLINE_TEST_HOOKS=1, the fault hook
// SIGKILLs the chain at each labelled point, three times each. After every kill: the key is
// consumed exactly when started.json is durable (DESIGN §7: the `lock` point is before it,
// so nothing is consumed and the same case is admitted again once the lock is stale);
// `admit status` says interrupted once the test clock passes deadline + 30 s (never before),
// the same bytes each time it is asked;
// no second provider request is ever made, even when the killed step is run again; no file
// of the attempt is half-written; and after `receipt seal` readback classifies the attempt.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { FAULT_LABELS, readbackAttempt, listAttemptFiles } from '@repairline/core'
import { NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'
import { binPath, BASE_ENV, runBin } from '../helpers/bin.ts'
import { assertNoCanary } from '../helpers/canary.ts'

const T0 = '2026-11-30T10:00:00.000Z'
const AT_GRACE_END = '2026-11-30T10:02:30.000Z' // deadline (T0 + 120 s) + 30 s: still running
const AFTER_GRACE = '2026-11-30T10:02:30.001Z'
const hooks = (now: string): Record<string, string> => ({ REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now })

// One server for the whole file, closed (and its TLS material removed) when the file ends.
const p: Provider = await startProvider({ after })

async function status (configPath: string, reportPath: string, now: string): Promise<string | undefined> {
  const r = await runBin('admit', ['status', '--config', configPath, '--report', reportPath], { env: hooks(now) })
  const s = r.records.find(x => x.kind === 'case-status')
  return s?.kind === 'case-status' ? s.status : undefined
}

/** `admit status` run twice at the same clock: its whole stdout, the same bytes both times (threat matrix §10). */
async function statusTwice (configPath: string, reportPath: string, now: string): Promise<string> {
  const run = async (): Promise<string> => (await runBin('admit', ['status', '--config', configPath, '--report', reportPath], { env: hooks(now) })).stdout
  const once = await run()
  assert.equal(await run(), once, 'admit status gave other bytes the second time')
  return once
}

for (const label of FAULT_LABELS) {
  for (let rep = 1; rep <= 3; rep++) {
    test(`killed at ${label} (${rep}/3)`, async (t) => {
      const scenario = `crash-${label}-${rep}`.replace(/[^a-z0-9-]/g, '-')
      p.server.proposals.set(scenario, NODE_FIX_PROPOSAL)
      const f = await chainFixture(t, p, `proposal/${scenario}`, { runner: 'node' })
      const r = await driveChain(f, { ...hooks(T0), REPAIRLINE_FAULT_AT: label })
      // A step killed by a signal printed no result: to the driver a crash (70), never 128+n.
      assert.equal(r.exit, 70, `the chain was not killed at ${label}: ${r.stderr}`)
      assert.match(r.stderr, /: it was killed by SIGKILL before its result record/, 'the driver names the signal')
      const sent = (): number => p.server.requestsTo(`proposal/${scenario}`).length

      if (label === 'lock' || label === 'admission') {
        // Killed holding the lock, before the attempt directory exists or before started.json:
        // nothing is consumed, and the driver, never told of an attempt, kept no logs in one.
        if (label === 'lock') assert.equal(r.attemptDir, undefined)
        else assert.deepEqual(readdirSync(r.attemptDir ?? '').sort(), ['admission.json', 'inputs'])
        assert.doesNotMatch(r.stderr, /attempt \//, 'the driver names no attempt')
        assert.equal(await status(f.configPath, f.reportPath, AFTER_GRACE), 'eligible')
        // A live lock is never broken early; past deadline + 30 s the same case is admitted.
        const early = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: hooks(AT_GRACE_END) })
        assert.equal(early.exitCode, 75, early.stderr)
        assert.equal(early.records.find(x => x.kind === 'error')?.code, 'LOCK_HELD')
        const again = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: hooks(AFTER_GRACE) })
        assert.equal(again.exitCode, 0, again.stderr)
        assert.equal(sent(), 0)
        return
      }

      const dir = r.attemptDir ?? ''
      assert.ok(existsSync(join(dir, 'admission.json')), r.stderr)
      // Nothing half-written: every file of ours parses strictly and validates, no temp files.
      assert.deepEqual(listAttemptFiles(dir).leftovers, [])
      const early = await readbackAttempt(dir, { allowTestHooks: true })
      assert.deepEqual(early.findings.filter(x => x.code === 'MALFORMED'), [])

      assert.ok(existsSync(join(dir, 'started.json')), 'the key is consumed')
      const sealedOutcome = existsSync(join(dir, 'outcome.json')) ? JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')).outcome as string : undefined
      if (sealedOutcome === undefined) {
        assert.equal(await status(f.configPath, f.reportPath, AT_GRACE_END), 'running')
        assert.match(await statusTwice(f.configPath, f.reportPath, AFTER_GRACE), /"status":"interrupted"/)
      } else {
        assert.equal(label, 'seal', `an outcome (${sealedOutcome}) before the kill at ${label}`)
        assert.equal(await status(f.configPath, f.reportPath, AFTER_GRACE), 'consumed')
      }

      // Rerunning the provider step never sends a second request.
      const rerun = await execa(binPath('ask-provider'), ['--attempt', dir], { env: { ...BASE_ENV, ...hooks(T0) }, extendEnv: false, reject: false })
      assert.ok([0, 1, 2, 65, 66, 69, 75].includes(rerun.exitCode ?? -1), String(rerun.stderr))
      assert.ok(sent() <= 1, `${sent()} requests for one attempt`)
      if (['started.json', 'extraction', 'sandbox-start'].includes(label)) assert.equal(sent(), 0)

      // Sealed after the grace period, the attempt reads back and says what happened.
      const seal = await execa(binPath('receipt'), ['seal', '--attempt', dir], { env: { ...BASE_ENV, ...hooks(AFTER_GRACE) }, extendEnv: false, reject: false })
      assert.ok([0, 1, 69].includes(seal.exitCode ?? -1), String(seal.stderr))
      const rb = await readbackAttempt(dir, { allowTestHooks: true })
      assert.equal(rb.valid, true, JSON.stringify(rb.findings))
      // The rerun of ask-provider after a kill at dispatch decides provider_error (retryable:
      // the call may have reached the provider and is never sent twice); after a kill once the
      // answer was kept, the rerun decides from it, and the attempt, never verified, is
      // interrupted.
      const expected = label === 'seal' ? 'scoped_test_verified' : label === 'dispatch' ? 'provider_error' : 'interrupted'
      assert.equal(rb.outcome, expected)
      // Without --allow-test-hooks the same attempt is flagged: it is evidence of a test.
      const strict = await readbackAttempt(dir)
      assert.deepEqual(strict.findings.filter(x => x.severity === 'error').map(x => x.code), ['TEST_HOOKS_ENABLED'])
      assertNoCanary(f.canary, { paths: [f.stateDir], texts: { stderr: r.stderr } })
    })
  }
}
