// Test events (DESIGN §9): raw `go test -json` lines and repairline's normalized events both
// become test-event.schema.json records; a stream of them is summarized into identities
// (<Package>::<Test>) and their results. Test output can forge framing, so the summary is
// defensive:
//   - a terminal event for a name that never had a `run` event is flagged and ignored (a test
//     printing `--- PASS: TestGhost` makes test2json emit a pass for a test that does not
//     exist);
//   - the last terminal event of a test wins; duplicate terminal events are flagged, and
//     marked `conflicting` when their results disagree (an early forged pass before the real
//     fail, or a forged pass printed after it) so no reader has to trust the last one;
//   - a test that started and never finished is failed (a panic in a goroutine kills the
//     binary mid-test);
//   - a package that failed to build, or failed without a failed test of its own (TestMain
//     exiting, a panic outside a test, a timeout), is the failed identity `<Package>::`.
// assessRun then cross-checks the summary with the exit code: exit 0 with a failure, exit ≠ 0
// without one, or zero tests run says nothing about the code and is a fault, never a pass.

import type { TestEvent } from '@repairline/schemas'
import { isValid } from './contracts.ts'

const TERMINAL = new Set(['pass', 'fail', 'skip'])
// Go ≤ 1.23 prints these as plain text, not JSON, when a package cannot be built or set up.
const PLAIN_FAIL = /^FAIL\t(\S+) \[(build|setup) failed\]$/
const KEYS = ['Time', 'Action', 'Package', 'Test', 'Elapsed', 'Output', 'FailedBuild', 'ImportPath'] as const

/**
 * Normalizes one line of `go test -json` output (or one normalized event). A JSON event
 * keeps test2json's known fields; the plain build-failure line becomes a package `fail`
 * with FailedBuild; anything else is output text. Returns undefined for an empty line.
 */
export function normalizeEventLine (text: string): TestEvent | undefined {
  if (text === '') return undefined
  if (text.charCodeAt(0) === 123 /* { */) {
    let v: unknown
    try { v = JSON.parse(text) } catch { v = undefined }
    if (typeof v === 'object' && v !== null && typeof (v as { Action?: unknown }).Action === 'string') {
      const o = v as Record<string, unknown>
      const ev: Record<string, unknown> = {}
      for (const k of KEYS) if (o[k] !== undefined) ev[k] = o[k]
      if (isValid('test-event', ev)) return ev
    }
  }
  const m = PLAIN_FAIL.exec(text)
  if (m !== null) return { Action: 'fail', Package: m[1], FailedBuild: m[1] }
  return { Action: 'output', Output: `${text}\n` }
}

export interface EventLine {
  /** 1-based line number. */
  line: number
  text: string
  /** The line was longer than the limit; `text` is its head. */
  truncated: boolean
}

/**
 * Splits a byte stream on "\n" without ever holding more than `maxLineBytes` of one line:
 * the rest of an over-long line (one unterminated flood) is dropped and the line is marked
 * truncated. Lines are decoded as UTF-8 (a "\n" byte never falls inside a multi-byte
 * sequence, so splitting bytes first is safe). A final line without "\n" is yielded.
 */
export async function * splitEventLines (source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, maxLineBytes = 1 << 20): AsyncGenerator<EventLine> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let truncated = false
  let line = 0
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    for (;;) {
      const nl = buf.indexOf(10, start)
      if (nl === -1) break
      line++
      if (pendingBytes === 0 && !truncated) {
        if (nl - start > maxLineBytes) yield { line, text: buf.toString('utf8', start, start + maxLineBytes), truncated: true }
        else yield { line, text: buf.toString('utf8', start, nl), truncated: false }
      } else {
        const room = maxLineBytes - pendingBytes
        if (room > 0 && !truncated) {
          const take = Math.min(room, nl - start)
          pending.push(buf.subarray(start, start + take))
          pendingBytes += take
          if (take < nl - start) truncated = true
        } else if (nl > start) {
          truncated = true
        }
        yield { line, text: Buffer.concat(pending, pendingBytes).toString('utf8'), truncated }
        pending = []
        pendingBytes = 0
        truncated = false
      }
      start = nl + 1
    }
    if (start < buf.length) {
      const room = maxLineBytes - pendingBytes
      if (room <= 0) {
        truncated = true
      } else {
        const take = Math.min(room, buf.length - start)
        // Copy: the chunk's memory may be reused by the stream.
        pending.push(Buffer.from(buf.subarray(start, start + take)))
        pendingBytes += take
        if (take < buf.length - start) truncated = true
      }
    }
  }
  if (pendingBytes > 0 || truncated) yield { line: line + 1, text: Buffer.concat(pending, pendingBytes).toString('utf8'), truncated }
}

/** Normalizes a `go test -json` byte stream; over-long lines become truncated output events. */
export async function * normalizeGoStream (source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, maxLineBytes = 1 << 20): AsyncGenerator<TestEvent> {
  for await (const l of splitEventLines(source, maxLineBytes)) {
    if (l.truncated) {
      yield { Action: 'output', Output: `${l.text}… [line ${l.line} truncated at ${maxLineBytes} bytes]\n` }
      continue
    }
    const ev = normalizeEventLine(l.text)
    if (ev !== undefined) yield ev
  }
}

export type IdentityResult = 'pass' | 'fail' | 'skip'

export interface IdentityState {
  result: IdentityResult
  /** Started (run) and never reached a terminal event: counted as failed. */
  unfinished?: true
  /** More than one terminal event was seen; the last one won. */
  duplicateTerminal?: true
  /** Its terminal events disagreed (pass and fail): do not trust the last one alone. */
  conflicting?: true
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

/** At most this many anomaly lines are kept; the count of the rest is reported. */
const MAX_ANOMALIES = 1000

/**
 * Summarizes events one at a time (memory grows with identities, not events), so a stream
 * of any length can be summarized while it is read.
 */
export class EventSummarizer {
  private readonly started = new Map<string, number>()
  private readonly terminal = new Map<string, { result: IdentityResult, count: number, seen: Set<IdentityResult> }>()
  private readonly packages: Record<string, IdentityResult> = {}
  private readonly buildFailed = new Set<string>()
  private readonly forged = new Set<string>()
  private readonly anomalies: string[] = []
  private dropped = 0

  /** Adds an anomaly line (runners report their own: stray output, truncated lines). */
  flag (line: string): void {
    if (this.anomalies.length < MAX_ANOMALIES) this.anomalies.push(line)
    else this.dropped++
  }

  add (ev: TestEvent): void {
    const action = ev.Action
    if (action === 'output') return
    const pkg = ev.Package ?? ''
    if (action === 'build-fail') {
      this.buildFailed.add(ev.ImportPath?.split(' ')[0] ?? pkg)
      return
    }
    if (ev.Test === undefined || ev.Test === '') {
      if (TERMINAL.has(action)) {
        this.packages[pkg] = action as IdentityResult
        if (action === 'fail' && ev.FailedBuild !== undefined) this.buildFailed.add(pkg)
      }
      return
    }
    const id = identityOf(pkg, ev.Test)
    if (action === 'run') {
      const n = (this.started.get(id) ?? 0) + 1
      this.started.set(id, n)
      if (n === 2) this.flag(`${id}: started more than once (names are not unique, or test output forged a run line)`)
    } else if (TERMINAL.has(action)) {
      if (!this.started.has(id)) {
        if (!this.forged.has(id)) this.flag(`${id}: ${action} without a run event (ignored; test output can forge framing)`)
        this.forged.add(id)
        return
      }
      const prior = this.terminal.get(id)
      const result = action as IdentityResult
      if (prior === undefined) this.terminal.set(id, { result, count: 1, seen: new Set([result]) })
      else {
        prior.result = result
        prior.count++
        prior.seen.add(result)
      }
    }
  }

  finish (): TestSummary {
    const identities: Record<string, IdentityState> = {}
    const anomalies = [...this.anomalies]
    for (const id of this.started.keys()) {
      const t = this.terminal.get(id)
      if (t === undefined) {
        identities[id] = { result: 'fail', unfinished: true }
        anomalies.push(`${id}: started and never finished (counted as failed)`)
      } else if (t.count > 1) {
        const conflicting = t.seen.has('pass') && t.seen.has('fail')
        identities[id] = conflicting ? { result: t.result, duplicateTerminal: true, conflicting: true } : { result: t.result, duplicateTerminal: true }
        anomalies.push(`${id}: ${t.count} terminal events (${[...t.seen].sort().join(', ')}); the last one, ${t.result}, wins${conflicting ? ' (conflicting)' : ''}`)
      } else {
        identities[id] = { result: t.result }
      }
    }
    const packages = { ...this.packages }
    for (const pkg of this.buildFailed) {
      identities[identityOf(pkg, '')] = { result: 'fail', buildFailed: true }
      packages[pkg] = 'fail'
    }
    // A package that failed with no failed test of its own (TestMain exiting, a panic outside
    // a test, a timeout) is the failed identity <Package>:: too.
    const failedPkgs = new Set<string>()
    for (const [id, s] of Object.entries(identities)) if (s.result === 'fail') failedPkgs.add(id.slice(0, id.indexOf('::')))
    for (const [pkg, r] of Object.entries(packages)) {
      if (r !== 'fail' || this.buildFailed.has(pkg) || failedPkgs.has(pkg)) continue
      identities[identityOf(pkg, '')] = { result: 'fail' }
      anomalies.push(`${identityOf(pkg, '')}: the package failed without a failed test (counted as a failed identity)`)
    }
    if (this.dropped > 0) anomalies.push(`… and ${this.dropped} more anomalies`)
    const sorted: Record<string, IdentityState> = {}
    for (const id of Object.keys(identities).sort()) sorted[id] = identities[id] as IdentityState
    return {
      identities: sorted,
      failing: Object.keys(sorted).filter(id => sorted[id]?.result === 'fail'),
      packages,
      anomalies,
      ran: this.started.size,
    }
  }
}

/** Summarizes a stream of normalized events into identities and results. */
export function summarizeEvents (events: Iterable<TestEvent>): TestSummary {
  const s = new EventSummarizer()
  for (const ev of events) s.add(ev)
  return s.finish()
}

export interface RunFault {
  code: 'TESTS_NOT_RUN' | 'EVENTS_EXIT_MISMATCH'
  message: string
}

/**
 * Cross-checks a summary with the command's exit code (DESIGN §9). Zero identities, exit 0
 * with a failure, or exit ≠ 0 without one is a fault: the run says nothing usable about the
 * code. Returns undefined when they agree.
 */
export function assessRun (summary: TestSummary, exitCode: number | null): RunFault | undefined {
  if (Object.keys(summary.identities).length === 0) {
    return { code: 'TESTS_NOT_RUN', message: `zero tests ran (exit ${String(exitCode)}): the command found no test, or exited before running one` }
  }
  if (exitCode === 0 && summary.failing.length > 0) {
    return { code: 'EVENTS_EXIT_MISMATCH', message: `the command exited 0 but ${summary.failing.length} identit${summary.failing.length === 1 ? 'y' : 'ies'} failed (first: ${summary.failing[0] ?? ''}); an exit that hides failures is not a result` }
  }
  if (exitCode !== 0 && summary.failing.length === 0) {
    return { code: 'EVENTS_EXIT_MISMATCH', message: `the command exited ${String(exitCode)} but no identity failed; the failure is outside the events` }
  }
  return undefined
}
