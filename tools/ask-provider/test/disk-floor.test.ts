// A provider call is paid for once it is sent, so none is sent whose answer the state
// filesystem could not keep: below the chain's 2 GiB disk floor ask-provider exits
// RESOURCES_LOW (75) before it reads the token, with nothing sent and no outcome, and the
// same step sends exactly once when there is room. A filesystem with no room at all fails
// the first write (WRITE_FAILED, 73), again with nothing sent. The state directory is put
// on a private tmpfs with little left, in a mount namespace of its own; the provider server
// is this process's, on loopback.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine } from '@repairline/core'
import { BASE_ENV, ROOT, binPath } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { ask, assertNoLeak, attemptFiles, hits, outcomeOf, prepare, startServer, type Prepared } from './helpers.ts'

const IN_FULL_FS = fileURLToPath(new URL('../../../test/helpers/in-full-fs.mjs', import.meta.url))
const SKIP = process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root'

/** A token helper that reads the canary from a file beside it and counts its own runs in `runs`. */
function countingHelper (dir: string, runs: string): (canary: string) => string {
  return canary => {
    writeFileSync(join(dir, 'canary.secret'), `${canary}\n`)
    return `#!/bin/sh\nprintf x >> '${runs}'\nIFS= read -r t < '${join(dir, 'canary.secret')}'\nprintf '%s\\n' "$t"\n`
  }
}

/** Runs ask-provider on the attempt with the state directory on a private tmpfs that has `freeBytes` left. */
async function askOnSmallFs (p: Prepared, freeBytes: number, scratch: string): Promise<{ exitCode: number, code: string | undefined, stdout: string, stderr: string }> {
  const listing = join(scratch, `listing-${freeBytes}.json`)
  const spec = { dir: p.f.stateDir, freeBytes, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath('ask-provider'), '--attempt', p.a.dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const stdout = String(r.stdout)
  const stderr = String(r.stderr)
  const records = stdout.split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))
  const error = records.find(x => x.kind === 'error')
  p.runs.push({ exitCode: r.exitCode ?? -1, records, stdout, stderr })
  return { exitCode: r.exitCode ?? -1, code: error?.kind === 'error' ? error.code : undefined, stdout, stderr }
}

async function prepared (t: TestContext): Promise<{ p: Prepared, helperRuns: () => number }> {
  const server = await startServer(t)
  const scratch = tempDir(t)
  const runs = join(scratch, 'helper.runs')
  const p = await prepare(t, server, 'ok', { fixture: { tokenHelperSource: countingHelper(scratch, runs) } })
  return { p, helperRuns: () => existsSync(runs) ? readFileSync(runs, 'utf8').length : 0 }
}

test('below the disk floor ask-provider sends nothing and reads no token (RESOURCES_LOW, 75, no outcome); with room the same step sends once', { skip: SKIP }, async t => {
  const { p, helperRuns } = await prepared(t)
  const before = attemptFiles(p)
  const low = await askOnSmallFs(p, 32 << 20, tempDir(t))
  assert.equal(low.exitCode, 75, low.stderr)
  assert.equal(low.code, 'RESOURCES_LOW')
  assert.match(low.stderr, /^ask-provider: RESOURCES_LOW: refusing to send the provider call: free disk on .* is below the floor 2\.00 GiB/m)
  assert.equal(hits(p), 0, 'nothing was sent')
  assert.equal(helperRuns(), 0, 'the token helper never ran')
  // What ran on the small filesystem stayed there: the attempt itself is as it was.
  assert.deepEqual(attemptFiles(p), before)
  assert.equal(outcomeOf(p), undefined)
  // Positive control: the same step on the state directory's own filesystem (far above the
  // floor) reads the token and sends exactly once.
  const ok = await ask(p)
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(hits(p), 1)
  assert.equal(helperRuns(), 1)
  assert.ok(existsSync(join(p.a.dir, 'proposal.json')))
  assertNoLeak(p)
})

test('a state filesystem with no room at all fails the first write (WRITE_FAILED, 73): nothing sent, no token read, no outcome', { skip: SKIP }, async t => {
  const { p, helperRuns } = await prepared(t)
  const full = await askOnSmallFs(p, 0, tempDir(t))
  assert.equal(full.exitCode, 73, full.stderr)
  assert.equal(full.code, 'WRITE_FAILED')
  assert.match(full.stderr, /ENOSPC/)
  assert.equal(hits(p), 0)
  assert.equal(helperRuns(), 0)
  assert.equal(outcomeOf(p), undefined)
  assertNoLeak(p)
})
