// Preparing an admitted attempt for the steps after admit: admission is real (admit run on a
// fixture, through the built bin); the files of the steps that are not under test are
// written here in their schema-valid shape. baseline.json is written by hand (what
// reproduce would write for a reproduced case), and the tree either with core's tree API
// (writeTree: what extract-tree writes) or straight from the fixture repository's commit
// (repoFiles), so provider tests need neither the sandbox nor Go.
//
// For the steps that read the extracted tree through core's tree API (gate-patch, verify):
// admitAttempt returns the attempt with its fixture, extractAttempt runs the real extract-tree
// bin, writeReproducedBaseline and writeProposal write those steps' files.

import { join } from 'node:path'
import assert from 'node:assert/strict'
import type { Baseline, Proposal, ProposalEdit } from '@repairline/schemas'
import { buildTreeArchive, listTree, treeManifestFor, writeFileAtomic, writeJsonAtomic, TREE_MANIFEST, TREE_TAR } from '@repairline/core'
import { rewriteConfig, type Fixture } from './fixture.ts'
import { gitT } from './git.ts'
import { runBin, errorOf } from './bin.ts'

export interface Admitted {
  dir: string
  key: string
}

/** admit run on the fixture; throws with the error record unless it admitted a case. */
export async function admitFixture (f: Fixture, env: Record<string, string> = {}): Promise<Admitted> {
  const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env })
  const attempt = r.records.find(x => x.kind === 'attempt')
  if (r.exitCode !== 0 || attempt?.kind !== 'attempt') throw new Error(`admit run failed (${r.exitCode}): ${JSON.stringify(errorOf(r))} ${r.stderr}`)
  return { dir: attempt.path, key: attempt.key }
}

/** The fields of baseline.json about the run itself, as a hand-written go run that exited 1. */
export function handWrittenRunFields (runner: 'go' | 'node' = 'go'): Pick<Baseline, 'runner' | 'toolchain' | 'command' | 'exit_code' | 'timed_out' | 'events'> {
  return {
    runner,
    toolchain: runner === 'go' ? 'go1.19.8' : 'node v20.20.2',
    command: runner === 'go' ? ['/usr/lib/go-1.19/bin/go', 'test', '-json', '-count=1', '-timeout=100s', '.'] : ['/usr/bin/node', '--test', '--test-concurrency=1', '--test-reporter=/repairline/ndjson-reporter.mjs', 'test'],
    exit_code: 1,
    timed_out: false,
    events: { count: 0, bytes: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
  }
}

/**
 * Writes the baseline.json reproduce would write for a reproduced case: the case identity
 * failed, every other identity passed.
 */
export function writeBaseline (f: Fixture, a: Admitted, o: { failing?: string[], reproduced?: boolean, caseIdentity?: string } = {}): Baseline {
  const caseIdentity = o.caseIdentity ?? f.report.cases[0]?.test.name ?? ''
  const failing = [...(o.failing ?? [caseIdentity])].sort()
  const baseline: Baseline = {
    v: 1,
    attempt_key: a.key,
    case_identity: caseIdentity,
    reproduced: o.reproduced ?? failing.includes(caseIdentity),
    identities: Object.fromEntries(failing.map(id => [id, { result: 'fail' as const }])),
    failing,
    anomalies: [],
    ...handWrittenRunFields(f.config.runner.kind),
  }
  writeJsonAtomic('baseline', join(a.dir, 'baseline.json'), baseline, { stateRoot: f.stateDir })
  return baseline
}

/** Every blob of the fixture's commit, by path (what the extracted tree holds). */
export async function repoFiles (f: Fixture): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  const list = (await gitT(f.repo, ['ls-tree', '-r', '-z', '--name-only', f.sha])).split('\0').filter(Boolean)
  for (const path of list) out.set(path, Buffer.from(await gitT(f.repo, ['show', `${f.sha}:${path}`]), 'utf8'))
  return out
}

/** A TreeReader over `files` that throws like a missing tree entry. */
export function mapReader (files: Map<string, Buffer>): (path: string) => Buffer {
  return (path: string) => {
    const b = files.get(path)
    if (b === undefined) throw new Error(`no ${path} in the tree`)
    return b
  }
}

export interface AdmittedAttempt { fixture: Fixture, dir: string, key: string }

/**
 * The admission environment of an attempt whose later steps use the test clock or the fault
 * hook: hooks are on for a whole attempt or not at all (TEST_HOOKS_MISMATCH otherwise).
 */
export const HOOKED_ADMISSION: Record<string, string> = { REPAIRLINE_TEST_HOOKS: '1' }

/** Runs `admit run` on the fixture (optionally with a changed config) and returns the attempt. */
export async function admitAttempt (f: Fixture, o: { env?: Record<string, string>, config?: (c: Fixture['config']) => void } = {}): Promise<AdmittedAttempt> {
  if (o.config !== undefined) rewriteConfig(f, o.config)
  const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env: o.env ?? {} })
  assert.equal(r.exitCode, 0, `admit run: ${r.stderr}`)
  const rec = r.records.find(x => x.kind === 'attempt')
  assert.ok(rec?.kind === 'attempt')
  return { fixture: f, dir: rec.path, key: rec.key }
}

/** Runs the real extract-tree bin on the attempt (tree.tar, tree-manifest.json). */
export async function extractAttempt (a: AdmittedAttempt, env: Record<string, string> = {}): Promise<void> {
  const r = await runBin('extract-tree', ['--attempt', a.dir], { env })
  assert.equal(r.exitCode, 0, `extract-tree: ${r.stderr}`)
}

/** Writes baseline.json as reproduce does for a reproduced case: `failing` failed, `passing` passed. */
export function writeReproducedBaseline (a: AdmittedAttempt, failing: string[], passing: string[] = []): Baseline {
  const identities: Baseline['identities'] = {}
  for (const id of passing) identities[id] = { result: 'pass' }
  for (const id of failing) identities[id] = { result: 'fail' }
  const caseIdentity = a.fixture.report.cases[0]?.test.name ?? ''
  const baseline: Baseline = { v: 1, attempt_key: a.key, case_identity: caseIdentity, reproduced: failing.includes(caseIdentity), identities, failing: [...failing].sort(), anomalies: [], ...handWrittenRunFields(a.fixture.config.runner.kind) }
  writeJsonAtomic('baseline', join(a.dir, 'baseline.json'), baseline, { stateRoot: a.fixture.stateDir })
  return baseline
}

/** Writes proposal.json as ask-provider does once the summary passed its contract. */
export function writeProposal (a: AdmittedAttempt, edits: ProposalEdit[]): Proposal {
  const proposal: Proposal = { summary: { cause: 'Add subtracts.', change: 'Return the sum.', risk: 'None beyond Add.' }, edits }
  writeJsonAtomic('proposal', join(a.dir, 'proposal.json'), proposal, { stateRoot: a.fixture.stateDir })
  return proposal
}

/** Writes tree.tar and tree-manifest.json for the attempt with the core tree API (what extract-tree writes). */
export async function writeTree (f: Fixture, a: Admitted): Promise<void> {
  const listing = await listTree(f.repo, f.sha)
  const archive = await buildTreeArchive(f.repo, listing)
  writeFileAtomic(join(a.dir, TREE_TAR), archive.tar, { stateRoot: f.stateDir })
  writeJsonAtomic('tree-manifest', join(a.dir, TREE_MANIFEST), treeManifestFor(archive, a.key, f.sha), { stateRoot: f.stateDir })
}
