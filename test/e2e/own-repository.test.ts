// The README's "Your own repository" section, followed literally on a Go module and a node
// package built here: the sandbox check, the operator directory and token helper, the stub
// provider serving a proposal, admit init (first refused for the missing register manifest,
// whose hint is the line to commit), the driver, receipt readback and the attempt page.
// README.md's commands and this file change together: `/srv/rl` is `rl` here, `/srv/calc` is `repo`.
//
// The stub provider runs as `node --import tsx scripts/stub-provider.ts`, the script behind
// `pnpm stub-provider`: pnpm's launcher would leave the server running if the test stopped it.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { execa } from 'execa'
import { isValid } from '@repairline/core'
import { BASE_ENV, errorOf, ROOT, runBin } from '../helpers/bin.ts'
import { GO_FILES, NODE_FILES } from '../helpers/fixture.ts'
import { createRepo, gitT, type FileSpec } from '../helpers/git.ts'
import { GO_FIX_PROPOSAL, NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { tempDir } from '../helpers/tmp.ts'

interface Walk { runner: 'go' | 'node', files: Record<string, FileSpec>, test: string, proposal: object, fixed: RegExp }

/** The repository as a user has it: no .repairline/registers.json yet. */
function withoutManifest (files: Record<string, FileSpec>): Record<string, FileSpec> {
  const out = { ...files }
  delete out['.repairline/registers.json']
  return out
}

/** Starts the stub provider and waits for its one line (an event, not a clock); stopped when the test ends. */
async function startStub (t: TestContext, proposal: string, dir: string): Promise<{ base_url: string, ca_file: string }> {
  const stub = execa(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'stub-provider.ts'), '--proposal', proposal, '--dir', dir], {
    cwd: ROOT, reject: false, extendEnv: false, env: { PATH: BASE_ENV.PATH ?? '' },
  })
  t.after(async () => {
    stub.kill('SIGTERM')
    await stub
  })
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: stub.stdout }).once('line', resolve)
    void stub.then(r => { reject(new Error(`stub-provider ended before it printed: ${String(r.stderr)}`)) })
  })
  return JSON.parse(first) as { base_url: string, ca_file: string }
}

async function followReadme (t: TestContext, w: Walk): Promise<void> {
  const top = tempDir(t)
  // The sandbox user must traverse to the work trees under the state dir.
  chmodSync(top, 0o711)
  const repo = join(top, 'repo')
  await createRepo(repo, withoutManifest(w.files))
  const rl = join(top, 'rl')

  // 0. Check the sandbox.
  const preflight = await runBin('reproduce', ['--preflight', '--runner', w.runner])
  assert.equal(preflight.exitCode, 0, preflight.stderr)

  // 1. A directory outside the checkout, and a token helper.
  mkdirSync(rl)
  chmodSync(rl, 0o711)
  writeFileSync(join(rl, 'secret-token'), 'sk-try-it-0123456789\n')
  chmodSync(join(rl, 'secret-token'), 0o600)
  writeFileSync(join(rl, 'token'), `#!/bin/sh\ncat ${rl}/secret-token\n`)
  chmodSync(join(rl, 'token'), 0o755)

  // 2. The stub provider, serving the proposal you wrote.
  writeFileSync(join(rl, 'proposal.json'), JSON.stringify(w.proposal))
  const stub = await startStub(t, join(rl, 'proposal.json'), join(rl, 'stub'))

  // 3. admit init; the first run names the register manifest to commit.
  const init = ['init', '--source-root', repo, '--state-dir', join(rl, 'state'), '--out', rl, '--test', w.test,
    '--provider-url', stub.base_url, '--ca-file', stub.ca_file, '--token-command', join(rl, 'token'), '--model', 'my-model']
  const missing = await runBin('admit', init)
  assert.equal(errorOf(missing)?.code, 'REGISTER_MANIFEST_MISSING', missing.stderr)
  assert.equal(missing.exitCode, 65)
  const hint = errorOf(missing)?.hint ?? ''
  const manifest = hint.slice(hint.lastIndexOf(': ') + 2)
  assert.ok(isValid('register-manifest', JSON.parse(manifest)), hint)
  mkdirSync(join(repo, '.repairline'))
  writeFileSync(join(repo, '.repairline', 'registers.json'), `${manifest}\n`)
  await gitT(repo, ['add', '.repairline/registers.json'])
  await gitT(repo, ['commit', '-q', '-m', 'repairline register manifest'])
  const wrote = await runBin('admit', init)
  assert.equal(wrote.exitCode, 0, wrote.stderr)
  for (const f of ['execution.json', 'routing-policy.json', 'report.json']) assert.ok(existsSync(join(rl, f)), f)

  // 4. The driver.
  const driver = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', join(rl, 'execution.json'), '--report', join(rl, 'report.json')], {
    env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, timeout: 300_000,
  })
  const summary = String(driver.stderr).trim().split('\n').at(-1) ?? ''
  assert.equal(driver.exitCode, 0, String(driver.stderr))
  assert.match(summary, /^repairline: scoped_test_verified /)
  const m = / — attempt (\S+), receipt (\S+) \(/.exec(summary)
  assert.ok(m !== null, summary)
  const attempt = m[1] ?? ''
  assert.ok(attempt.startsWith(join(rl, 'state', 'attempts')), attempt)

  // 5. Read it back, the attempt page, and the candidate is the fix.
  const rb = await runBin('receipt', ['readback', '--attempt', attempt])
  assert.equal(rb.exitCode, 0, rb.stderr)
  const record = rb.records.find(r => r.kind === 'readback')
  assert.ok(record !== undefined && record.kind === 'readback')
  assert.equal(record.valid, true, JSON.stringify(record.findings))
  assert.equal(record.outcome, 'scoped_test_verified')
  const view = await runBin('receipt', ['view', '--attempt', attempt, '--html', join(rl, 'attempt.html')])
  assert.equal(view.exitCode, 0, view.stderr)
  assert.match(readFileSync(join(rl, 'attempt.html'), 'utf8'), /scoped_test_verified/)
  assert.match(readFileSync(join(attempt, 'candidate.patch'), 'utf8'), w.fixed)
  // The checkout holds only what the user committed.
  assert.equal(await gitT(repo, ['status', '--porcelain']), '')
}

test('README "Your own repository" on a Go module: admit init, the stub provider, the driver, readback, view', async t => {
  await followReadme(t, { runner: 'go', files: GO_FILES, test: 'example.com/calc::TestAdd', proposal: GO_FIX_PROPOSAL, fixed: /\+\treturn a \+ b/ })
})

test('README "Your own repository" on a node package: admit init, the stub provider, the driver, readback, view', async t => {
  await followReadme(t, { runner: 'node', files: NODE_FILES, test: 'test/calc.test.js::add adds', proposal: NODE_FIX_PROPOSAL, fixed: /\+ {2}return a \+ b/ })
})
