// Test events (DESIGN §9): raw `go test -json` lines and repairline's normalized events both
// become test-event.schema.json records; a stream of them is summarized into identities
// (<Package>::<Test>) and their results. Test output can forge framing, so the summary is
// defensive: the last terminal event of a test wins, duplicate terminal events and names
// that never had a `run` event are flagged (and a name without `run` is not an identity), a
// test that started and never finished is failed, and a package that failed to build is the
// failed identity `<Package>::`.

import type { TestEvent } from '@repairline/schemas'
import { isValid } from './contracts.ts'

const TERMINAL = new Set(['pass', 'fail', 'skip'])
// Go ≤ 1.23 prints these as plain text, not JSON, when a package cannot be built or set up.
const PLAIN_FAIL = /^FAIL\t(\S+) \[(build|setup) failed\]$/

/**
 * Normalizes one line of `go test -json` output (or one normalized event). A JSON event
 * keeps test2json's known fields; the plain build-failure line becomes a package `fail`
 * with FailedBuild; anything else is output text. Returns undefined for an empty line.
 */
export function normalizeEventLine (text: string): TestEvent | undefined {
  if (text === '') return undefined
  if (text.startsWith('{')) {
    let v: unknown
    try { v = JSON.parse(text) } catch { v = undefined }
    if (typeof v === 'object' && v !== null && typeof (v as { Action?: unknown }).Action === 'string') {
      const o = v as Record<string, unknown>
      const ev: Record<string, unknown> = {}
      for (const k of ['Time', 'Action', 'Package', 'Test', 'Elapsed', 'Output', 'FailedBuild', 'ImportPath']) if (o[k] !== undefined) ev[k] = o[k]
      if (isValid('test-event', ev)) return ev
    }
  }
  const m = PLAIN_FAIL.exec(text)
  if (m !== null) return { Action: 'fail', Package: m[1], FailedBuild: m[1] }
  return { Action: 'output', Output: `${text}\n` }
}

export type IdentityResult = 'pass' | 'fail' | 'skip'

export interface IdentityState {
  result: IdentityResult
  /** Started (run) and never reached a terminal event: counted as failed. */
  unfinished?: true
  /** More than one terminal event was seen; the last one won. */
  duplicateTerminal?: true
  /** The package failed to build: the identity is <Package>:: */
  buildFailed?: true
}

export interface TestSummary {
  /** Every identity with its result, sorted by identity. */
  identities: Record<string, IdentityState>
  /** Failed identities, sorted. */
  failing: string[]
  /** Package-level results (pass, fail, skip = no tests). */
  packages: Record<string, IdentityResult>
  /** One line per anomaly: forged names, duplicate terminals, unfinished tests. */
  anomalies: string[]
  /** Number of identities that ran (had a run event). */
  ran: number
}

export function identityOf (pkg: string | undefined, test: string | undefined): string {
  return `${pkg ?? ''}::${test ?? ''}`
}

/** Summarizes a stream of normalized events into identities and results. */
export function summarizeEvents (events: Iterable<TestEvent>): TestSummary {
  const started = new Set<string>()
  const terminal = new Map<string, { result: IdentityResult, count: number }>()
  const packages: Record<string, IdentityResult> = {}
  const buildFailed = new Set<string>()
  const anomalies: string[] = []
  const forged = new Set<string>()
  for (const ev of events) {
    const pkg = ev.Package ?? ''
    if (ev.Action === 'build-fail') {
      buildFailed.add(ev.ImportPath?.split(' ')[0] ?? pkg)
      continue
    }
    if (ev.Test === undefined || ev.Test === '') {
      if (TERMINAL.has(ev.Action)) {
        packages[pkg] = ev.Action as IdentityResult
        if (ev.Action === 'fail' && ev.FailedBuild !== undefined) buildFailed.add(pkg)
      }
      continue
    }
    const id = identityOf(pkg, ev.Test)
    if (ev.Action === 'run') started.add(id)
    else if (TERMINAL.has(ev.Action)) {
      if (!started.has(id)) {
        if (!forged.has(id)) anomalies.push(`${id}: ${ev.Action} without a run event (ignored; test output can forge framing)`)
        forged.add(id)
        continue
      }
      const prior = terminal.get(id)
      terminal.set(id, { result: ev.Action as IdentityResult, count: (prior?.count ?? 0) + 1 })
    }
  }
  const identities: Record<string, IdentityState> = {}
  for (const id of started) {
    const t = terminal.get(id)
    if (t === undefined) {
      identities[id] = { result: 'fail', unfinished: true }
      anomalies.push(`${id}: started and never finished (counted as failed)`)
    } else {
      identities[id] = t.count > 1 ? { result: t.result, duplicateTerminal: true } : { result: t.result }
      if (t.count > 1) anomalies.push(`${id}: ${t.count} terminal events (the last one, ${t.result}, wins)`)
    }
  }
  for (const pkg of buildFailed) {
    identities[identityOf(pkg, '')] = { result: 'fail', buildFailed: true }
    packages[pkg] = 'fail'
  }
  // A package that failed with no failed test of its own (TestMain exiting, a panic outside
  // a test, a timeout) is the failed identity <Package>:: too.
  for (const [pkg, r] of Object.entries(packages)) {
    if (r !== 'fail' || buildFailed.has(pkg)) continue
    const prefix = `${pkg}::`
    const anyFailed = Object.entries(identities).some(([id, s]) => id.startsWith(prefix) && s.result === 'fail')
    if (!anyFailed) identities[identityOf(pkg, '')] = { result: 'fail' }
  }
  const sorted: Record<string, IdentityState> = {}
  for (const id of Object.keys(identities).sort()) sorted[id] = identities[id] as IdentityState
  return {
    identities: sorted,
    failing: Object.keys(sorted).filter(id => sorted[id]?.result === 'fail'),
    packages,
    anomalies,
    ran: started.size,
  }
}
