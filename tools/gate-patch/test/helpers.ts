// Shared setup for gate-patch's tests: a real admitted and extracted attempt with a
// reproduced baseline and a proposal, the candidate tree it implies, and `git apply` of
// candidate.patch on a clean worktree of source_sha.

import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { TestContext } from 'node:test'
import type { ProposalEdit } from '@repairline/schemas'
import { readTreeFile, readTreeManifest } from '@repairline/core'
import { admitAttempt, HOOKED_ADMISSION, extractAttempt, writeProposal, writeReproducedBaseline, type AdmittedAttempt } from '../../../test/helpers/attempt.ts'
import { makeFixture, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { gitT } from '../../../test/helpers/git.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

export const GO_CASE = 'example.com/calc::TestAdd'
export const NODE_CASE = 'test/calc.test.js::add adds'

export async function fixture (t: TestContext, o: FixtureOptions = {}): Promise<Fixture> {
  return await makeFixture(tempDir(t), o)
}

/**
 * Admits, extracts, and writes the reproduced baseline and `edits` as the proposal. `variant`
 * changes max_patch_bytes so that one fixture can hold several attempts (a distinct key each).
 */
export async function gateReady (f: Fixture, edits: ProposalEdit[], variant = 0): Promise<AdmittedAttempt> {
  const a = await admitAttempt(f, { env: HOOKED_ADMISSION, config: c => { c.max_patch_bytes = 4096 + variant } })
  await extractAttempt(a)
  const runner = f.config.runner.kind
  writeReproducedBaseline(a, [runner === 'go' ? GO_CASE : NODE_CASE], [runner === 'go' ? 'example.com/calc::TestDouble' : 'test/calc.test.js::double doubles'])
  writeProposal(a, edits)
  return a
}

/** Every file of a directory (no .git), with its bytes and executable bit. */
export function filesOf (root: string, dir = root, out = new Map<string, { bytes: Buffer, exec: boolean }>()): Map<string, { bytes: Buffer, exec: boolean }> {
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) filesOf(root, p, out)
    else out.set(relative(root, p), { bytes: readFileSync(p), exec: (st.mode & 0o100) !== 0 })
  }
  return out
}

/** The candidate tree: the extracted baseline with each changed file replaced. */
export function candidateTree (a: AdmittedAttempt, changed: ReadonlyMap<string, string>): Map<string, { bytes: Buffer, exec: boolean }> {
  const m = readTreeManifest(a.dir)
  return new Map(m.entries.map(e => [e.path, { bytes: changed.has(e.path) ? Buffer.from(changed.get(e.path) as string) : readTreeFile(a.dir, e.path), exec: e.mode === '100755' }]))
}

/** Applies candidate.patch with `git apply` to a clean worktree of source_sha and returns its files. */
export async function applyToCleanWorktree (t: TestContext, a: AdmittedAttempt): Promise<Map<string, { bytes: Buffer, exec: boolean }>> {
  const dir = tempDir(t)
  const wt = join(dir, 'wt')
  // A clone, so the fixture's own repository (the source checkout) is left untouched.
  await gitT(dir, ['clone', '-q', '--no-checkout', a.fixture.repo, wt])
  await gitT(wt, ['checkout', '-q', '--detach', a.fixture.config.source_sha])
  const patch = join(dir, 'candidate.patch')
  writeFileSync(patch, readFileSync(join(a.dir, 'candidate.patch')))
  await gitT(wt, ['apply', '--check', patch])
  await gitT(wt, ['apply', patch])
  return filesOf(wt)
}

export function assertSameTree (got: ReadonlyMap<string, { bytes: Buffer, exec: boolean }>, want: ReadonlyMap<string, { bytes: Buffer, exec: boolean }>): void {
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort())
  for (const [p, w] of want) {
    assert.ok(got.get(p)?.bytes.equals(w.bytes), `${p} differs`)
    assert.equal(got.get(p)?.exec, w.exec, `${p}: executable bit`)
  }
}
