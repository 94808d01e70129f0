// Shared setup for admit's tests: a fixture per test and assertions on refusals.

import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import type { TestContext } from 'node:test'
import { makeFixture, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { runBin, errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

export async function fixture (t: TestContext, o: FixtureOptions = {}): Promise<Fixture> {
  return await makeFixture(tempDir(t), o)
}

export async function admit (f: Fixture, command = 'run', env: Record<string, string> = {}): Promise<BinResult> {
  return await runBin('admit', [command, '--config', f.configPath, '--report', f.reportPath], { env })
}

/** Asserts admit's refusal itself: exit status, error code, optional path, its records, one stderr line, no stack trace. */
export function assertRefusal (r: BinResult, exit: number, code: string, path?: string): void {
  const err = errorOf(r)
  assert.equal(err?.code, code, `expected ${code}, got ${JSON.stringify(err)}; stderr: ${r.stderr}`)
  assert.equal(r.exitCode, exit, r.stderr)
  if (path !== undefined) assert.equal(err?.path, path)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'error', 'result'])
  assert.match(r.stderr, new RegExp(`^admit: ${code}: `))
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace')
}

/** Asserts a refusal before any state exists: assertRefusal, and no state dir written. */
export function assertRefused (r: BinResult, exit: number, code: string, f: Fixture, path?: string): void {
  assertRefusal(r, exit, code, path)
  assert.equal(existsSync(f.stateDir), false, 'the state dir was written')
}

export function attemptDirs (f: Fixture): string[] {
  return existsSync(`${f.stateDir}/attempts`) ? readdirSync(`${f.stateDir}/attempts`).sort() : []
}
