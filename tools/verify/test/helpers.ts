// Shared setup for verify's tests: a real fixture repository (go or node, built in code) in a
// directory the sandbox user can reach, taken through the real bins admit → extract-tree →
// reproduce → gate-patch with a hand-written proposal.json, ready for verify.
//
// gate-patch reads only tree.tar, tree-manifest.json, baseline.json and proposal.json, so the
// validation records ask-provider would write (validation/*.json, job.txt, …) are not written
// here: verify does not read them either (readback, not verify, requires them for a pass).

import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execa } from 'execa'
import type { TestContext } from 'node:test'
import type { Baseline, OutcomeFile, ProposalEdit, VerifyReport } from '@repairline/schemas'
import { readJsonFile } from '@repairline/core'
import { admitAttempt, HOOKED_ADMISSION, extractAttempt, writeProposal, type AdmittedAttempt } from '../../../test/helpers/attempt.ts'
import { runBin, type BinResult } from '../../../test/helpers/bin.ts'
import { GO_FILES, makeFixture, MINIMAL_REGISTERS, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { sandboxTemp } from '../../../test/helpers/sandbox.ts'

export const GO_CASE = 'example.com/calc::TestAdd'
export const GO_OTHER = 'example.com/calc::TestDouble'
export const NODE_CASE = 'test/calc.test.js::add adds'
export const NODE_OTHER = 'test/calc.test.js::double doubles'

export const GO_FIX: ProposalEdit[] = [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }]
export const NODE_FIX: ProposalEdit[] = [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b' }]

/**
 * A node fixture whose failing test skips itself when the source says the feature is not
 * supported: flipping `supported` (an initializer change the gate accepts) turns the red
 * test into a skip without fixing anything.
 */
export const NODE_SKIPPABLE_FILES = {
  'package.json': '{\n  "name": "calc",\n  "private": true,\n  "type": "module"\n}\n',
  'src/calc.js': '// supported says whether add is available on this platform.\nexport const supported = true\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  return a - b\n}\n\n// double returns twice n.\nexport function double (n) {\n  return n * 2\n}\n',
  'test/calc.test.js': "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, double, supported } from '../src/calc.js'\n\ntest('add adds', (t) => {\n  if (!supported) {\n    t.skip('add is not supported here')\n    return\n  }\n  assert.equal(add(2, 3), 5)\n})\n\ntest('double doubles', () => {\n  assert.equal(double(4), 8)\n})\n",
  '.repairline/registers.json': JSON.stringify(MINIMAL_REGISTERS, null, 2) + '\n',
}

/** The fixture in a temp directory the sandbox user (65534) can traverse. */
export async function fixture (t: TestContext, o: FixtureOptions = {}): Promise<Fixture> {
  return await makeFixture(sandboxTemp(t, 'rl-verify-'), o)
}

let warmCache: Promise<string> | undefined

/**
 * A host Go build cache warmed once per test process by building the go fixture's test
 * binary (outside the sandbox), removed at exit. Passed as GOCACHE to reproduce and verify it
 * is what an operator's environment gives them: the runner seeds the sandbox's private
 * GOCACHE by copying it (DESIGN §9), so each run compiles in well under a second instead of
 * several seconds cold.
 */
export async function goCacheEnv (): Promise<Record<string, string>> {
  warmCache ??= (async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'rl-gocache-')))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    const repo = join(dir, 'repo')
    for (const [rel, content] of Object.entries(GO_FILES)) {
      if (typeof content !== 'string') continue
      mkdirSync(dirname(join(repo, rel)), { recursive: true })
      writeFileSync(join(repo, rel), content)
    }
    const r = await execa('go', ['test', '-count=1', '.'], {
      cwd: repo,
      env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', GOCACHE: join(dir, 'cache'), GOFLAGS: '', GOTOOLCHAIN: 'local', GOPROXY: 'off', GOENV: 'off', GOWORK: 'off', GOPATH: join(dir, 'gopath') },
      extendEnv: false,
      reject: false,
    })
    assert.match(String(r.stdout), /FAIL/, `warming the go build cache: ${String(r.stderr)}`)
    return join(dir, 'cache')
  })()
  return { GOCACHE: await warmCache }
}

/** Runs the real reproduce bin; the case must be reproduced. */
export async function reproduceAttempt (a: AdmittedAttempt, env: Record<string, string> = {}): Promise<Baseline> {
  const r = await runBin('reproduce', ['--attempt', a.dir], { env })
  assert.equal(r.exitCode, 0, `reproduce: ${r.stderr}`)
  const baseline = readJsonFile('baseline', join(a.dir, 'baseline.json'))
  assert.equal(baseline.reproduced, true)
  return baseline
}

/** Runs the real gate-patch bin; the gate must pass. */
export async function gateAttempt (a: AdmittedAttempt): Promise<void> {
  const r = await runBin('gate-patch', ['--attempt', a.dir])
  assert.equal(r.exitCode, 0, `gate-patch: ${r.stderr}`)
}

/** admit → extract-tree → reproduce → proposal.json (hand-written) → gate-patch, all real. */
export async function gatedAttempt (f: Fixture, edits: ProposalEdit[], env: Record<string, string> = {}): Promise<AdmittedAttempt> {
  const a = await admitAttempt(f, { env: HOOKED_ADMISSION })
  await extractAttempt(a)
  await reproduceAttempt(a, env)
  writeProposal(a, edits)
  await gateAttempt(a)
  return a
}

export async function runVerify (dir: string | undefined, o: { env?: Record<string, string>, input?: string } = {}): Promise<BinResult> {
  return await runBin('verify', dir === undefined ? [] : ['--attempt', dir], { env: o.env ?? {}, ...(o.input === undefined ? {} : { input: o.input }) })
}

export function readVerify (a: AdmittedAttempt): VerifyReport {
  return readJsonFile('verify', join(a.dir, 'verify.json'))
}

export function readOutcomeFile (a: AdmittedAttempt): OutcomeFile {
  return readJsonFile('outcome', join(a.dir, 'outcome.json'))
}

export function readText (a: AdmittedAttempt, rel: string): string {
  return readFileSync(join(a.dir, rel), 'utf8')
}
