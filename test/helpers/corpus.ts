// The readback fixture corpus's machinery (threat matrix §6 and §9.7, sigstore-conformance
// style): a few real attempts sealed through the driver once per test file, copied
// (`cp -a` semantics) into one directory per fixture and mutated there, plus the small tools
// a forger would use — change one byte, rewrite a JSON file, reseal the receipt's `files`
// entries so that the check under test is the one that fires.

import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import assert from 'node:assert/strict'
import type { ExecutionConfig, Receipt, ValidationRecord } from '@repairline/schemas'
import { commandOf, jsonFileBytes, sealedChecksOf, sha256File, sha256Hex, validationOf, VALIDATION_FILES } from '@repairline/core'
import { makeFixture, rewriteConfig, type Fixture, type FixtureOptions } from './fixture.ts'
import { driveChain, type Provider } from './chain.ts'
import { GO_FIX_PROPOSAL, NODE_FIX_PROPOSAL } from './responses-server.ts'
import { runBin } from './bin.ts'
import { tempDir } from './tmp.ts'

/** The real attempts every fixture is derived from. */
export const SOURCE_NAMES = ['go_verified', 'node_verified', 'not_reproduced', 'rejected', 'provider_error', 'interrupted', 'node_checks'] as const
export type SourceName = (typeof SOURCE_NAMES)[number]

export interface Source {
  name: SourceName
  /** The sealed attempt directory inside the fixture's own state root. */
  dir: string
  fixture: Fixture
  outcome: string
  /** Sealed with REPAIRLINE_TEST_HOOKS=1 (reads back valid only with allowTestHooks). */
  hooks: boolean
}

/** The test clock of the interrupted source: admitted at T0, sealed past deadline + 30 s. */
export const T0 = '2026-11-30T10:00:00.000Z'
export const AFTER_GRACE = '2026-11-30T10:05:00.000Z'
export const hooksEnv = (now: string): Record<string, string> => ({ REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now })

interface Plan {
  name: SourceName
  scenario: string
  options: FixtureOptions
  env?: Record<string, string>
  /** The execution config's checks, if any. */
  checks?: ExecutionConfig['checks']
  /** Driver exit and outcome before any sealing by hand (undefined: killed, no outcome). */
  exit: number | 'killed'
  outcome: string
}

const PLANS: readonly Plan[] = [
  { name: 'go_verified', scenario: 'proposal/corpus-go-fix', options: {}, exit: 0, outcome: 'scoped_test_verified' },
  { name: 'node_verified', scenario: 'proposal/corpus-node-fix', options: { runner: 'node' }, exit: 0, outcome: 'scoped_test_verified' },
  { name: 'rejected', scenario: 'proposal/corpus-edits-test', options: {}, exit: 1, outcome: 'rejected' },
  { name: 'not_reproduced', scenario: 'proposal/corpus-never', options: { cases: [{ package: '.', name: 'example.com/calc::TestDouble' }] }, exit: 1, outcome: 'not_reproduced' },
  { name: 'provider_error', scenario: 'status/429', options: {}, exit: 69, outcome: 'provider_error' },
  { name: 'interrupted', scenario: 'proposal/corpus-crash', options: {}, env: { ...hooksEnv(T0), REPAIRLINE_FAULT_AT: 'dispatch' }, exit: 'killed', outcome: 'interrupted' },
  {
    name: 'node_checks',
    scenario: 'proposal/corpus-node-checks',
    options: { runner: 'node' },
    checks: { source_absent: [{ pattern: 'eval(' }], contains: [{ path: 'src/calc.js', text: 'return a + b' }], commands: [{ exec: 'node', args: ['--check', 'src/calc.js'], timeout_ms: 10000 }] },
    exit: 0,
    outcome: 'scoped_test_verified',
  },
]

async function sealOne (p: Provider, after: (fn: () => void) => void, plan: Plan): Promise<Source> {
  const f = await makeFixture(tempDir({ after }), { ...plan.options, baseUrl: p.server.baseUrl(plan.scenario), caFile: p.tls.caFile })
  if (plan.checks !== undefined) rewriteConfig(f, c => { c.checks = plan.checks })
  const r = await driveChain(f, plan.env ?? {})
  const dir = r.attemptDir ?? ''
  assert.ok(existsSync(join(dir, 'started.json')), `${plan.name}: no attempt was started: ${r.stderr}`)
  if (plan.exit === 'killed') {
    assert.notEqual(r.exit, 0, `${plan.name}: the chain was not killed: ${r.stderr}`)
    assert.equal(r.outcome, undefined, `${plan.name}: an outcome before the kill`)
    // Sealed later, by hand, once the test clock is past deadline + 30 s (a crash).
    const seal = await runBin('receipt', ['seal', '--attempt', dir], { env: hooksEnv(AFTER_GRACE) })
    assert.equal(seal.exitCode, 1, seal.stderr)
  } else {
    assert.equal(r.exit, plan.exit, `${plan.name}: ${r.stderr}`)
  }
  const outcome = JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')) as { outcome: string }
  assert.equal(outcome.outcome, plan.outcome, `${plan.name}: ${r.stderr}`)
  assert.ok(existsSync(join(dir, 'receipt.json')), `${plan.name}: not sealed`)
  return { name: plan.name, dir, fixture: f, outcome: outcome.outcome, hooks: plan.env?.REPAIRLINE_TEST_HOOKS === '1' }
}

/**
 * Seals the seven source attempts through the driver against the local Responses server, two
 * at a time (the machine has two cores; each chain is mostly waiting on its sandboxed tests).
 */
export async function sealSources (p: Provider, after: (fn: () => void) => void): Promise<Record<SourceName, Source>> {
  p.server.proposals.set('corpus-go-fix', GO_FIX_PROPOSAL)
  p.server.proposals.set('corpus-node-fix', NODE_FIX_PROPOSAL)
  p.server.proposals.set('corpus-node-checks', NODE_FIX_PROPOSAL)
  p.server.proposals.set('corpus-crash', GO_FIX_PROPOSAL)
  p.server.proposals.set('corpus-edits-test', { ...GO_FIX_PROPOSAL, edits: [{ path: 'calc_test.go', search: 'Add(2, 3); got != 5', replace: 'Add(2, 3); got != -1' }] })
  const queue = [...PLANS]
  const out: Partial<Record<SourceName, Source>> = {}
  const worker = async (): Promise<void> => {
    for (let plan = queue.shift(); plan !== undefined; plan = queue.shift()) out[plan.name] = await sealOne(p, after, plan)
  }
  await Promise.all([worker(), worker()])
  return out as Record<SourceName, Source>
}

/**
 * Copies an attempt directory the way `cp -a` does (modes, timestamps, symlinks as links) to
 * `<root>/<name>/attempts/<same 16 hex>`, so the copy keeps its binding to the key. `work/`
 * (unsealed sandbox scratch trees, owned by the sandbox user) is left out: readback never
 * reads it, and leaving it out keeps a corpus of ~100 copies fast.
 */
export function copyAttempt (src: string, root: string, name: string): string {
  const dest = join(root, name, 'attempts', basename(src))
  const work = join(src, 'work')
  cpSync(src, dest, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false, filter: s => s !== work })
  return dest
}

/** Reads a JSON file of the attempt (loosely: the forger's view). */
export function readJson<T = any> (dir: string, rel: string): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(readFileSync(join(dir, rel), 'utf8')) as T
}

/** Rewrites a JSON file the way the tools write it (two-space indent, trailing newline). */
export function editJson (dir: string, rel: string, change: (doc: any) => unknown): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  const doc = readJson(dir, rel)
  const replaced = change(doc)
  writeFileSync(join(dir, rel), jsonFileBytes(replaced === undefined ? doc : replaced))
}

/**
 * The consistent forger of a test run: rewrites each event of `events` (a function returning
 * the event to keep), updates `summary`'s events {count, bytes, sha256} to match, and reseals
 * both, so that every digest holds and only a re-derivation can tell.
 */
export function rewriteEvents (dir: string, events: string, summary: string, change: (ev: any) => unknown): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  const lines = readFileSync(join(dir, events), 'utf8').split('\n').filter(l => l !== '')
  const bytes = Buffer.from(lines.map(l => `${JSON.stringify(change(JSON.parse(l)))}\n`).join(''))
  writeFileSync(join(dir, events), bytes)
  editJson(dir, summary, d => { d.events = { count: lines.length, bytes: bytes.length, sha256: sha256Hex(bytes) } })
  reseal(dir, events, summary)
}

/** Edits receipt.json itself (it is the seal: no digest covers it). */
export function editReceipt (dir: string, change: (r: Receipt) => unknown): void {
  editJson(dir, 'receipt.json', change as (doc: unknown) => unknown)
}

/**
 * Changes exactly one byte of a file: the first occurrence of `from` becomes `to`, two
 * strings of the same byte length that differ in one byte. Fails if `from` is absent.
 */
export function flipByte (dir: string, rel: string, from: string, to: string): void {
  const a = Buffer.from(from)
  const b = Buffer.from(to)
  assert.equal(a.length, b.length, `flipByte: ${JSON.stringify(from)} and ${JSON.stringify(to)} differ in length`)
  assert.equal([...a].filter((x, i) => x !== b[i]).length, 1, 'flipByte: the two strings must differ in exactly one byte')
  const path = join(dir, rel)
  const bytes = readFileSync(path)
  const at = bytes.indexOf(a)
  assert.ok(at >= 0, `flipByte: ${JSON.stringify(from)} is not in ${rel}`)
  b.copy(bytes, at)
  writeFileSync(path, bytes)
}

/** Flips one byte at an offset (negative: from the end) by XOR with `mask`. */
export function flipByteAt (dir: string, rel: string, offset: number, mask = 0x01): void {
  const path = join(dir, rel)
  const bytes = readFileSync(path)
  const at = offset < 0 ? bytes.length + offset : offset
  bytes[at] = (bytes[at] ?? 0) ^ mask
  writeFileSync(path, bytes)
}

/**
 * One byte of JSON whitespace changed: the first indentation space becomes a tab. The file
 * parses to the same value, so only checks on its bytes can notice.
 */
export function flipJsonWhitespace (dir: string, rel: string): void {
  flipByte(dir, rel, '\n  "', '\n \t"')
}

const COMMAND_FILES = [['reproduce', 'baseline.json'], ['verify', 'verify.json']] as const

function parsed (path: string): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  try { return JSON.parse(readFileSync(path, 'utf8')) } catch { return undefined }
}

/**
 * The forger's reseal, done the way seal does it: recomputes receipt.json's `files` entries
 * for the given paths (a file that no longer exists loses its entry, a new one gains one,
 * the sealed order is kept) and, when one of them is a validation record or baseline.json /
 * verify.json, the receipt's copies derived from those files (a file that no longer parses
 * keeps its old copy).
 */
export function reseal (dir: string, ...rels: string[]): void {
  editReceipt(dir, r => {
    for (const rel of rels) {
      const i = r.files.findIndex(x => x.path === rel)
      if (i >= 0) r.files.splice(i, 1)
      if (existsSync(join(dir, rel))) r.files.push({ path: rel, ...sha256File(join(dir, rel)) })
    }
    r.files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
    if (rels.some(rel => (VALIDATION_FILES as readonly string[]).includes(rel))) {
      r.validation = VALIDATION_FILES.filter(f => existsSync(join(dir, f))).flatMap(f => {
        const doc = parsed(join(dir, f)) as ValidationRecord | undefined
        const old = r.validation.find(x => x.stage === doc?.stage)
        return doc?.stage === undefined ? [] : [doc.checker === undefined && old !== undefined ? old : validationOf(doc)]
      })
    }
    if (rels.some(rel => COMMAND_FILES.some(([, f]) => f === rel))) {
      r.commands = COMMAND_FILES.filter(([, f]) => existsSync(join(dir, f))).flatMap(([step, f]) => {
        const doc = parsed(join(dir, f)) as Record<string, unknown> | undefined
        const c = doc === undefined ? r.commands.find(x => x.step === step) : commandOf(step, doc)
        return c === undefined ? [] : [c]
      })
      const checks = sealedChecksOf(parsed(join(dir, 'baseline.json')), parsed(join(dir, 'verify.json')))
      if (checks.length === 0) delete r.checks
      else r.checks = checks
    }
  })
}
