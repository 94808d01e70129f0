// The node runner (DESIGN §9): `node --test --test-concurrency=1 --test-reporter=<our
// reporter> <test_packages>`. Its NDJSON becomes test-event records whose identities follow
// DESIGN §6a: Package is the repo-relative test file and Test the chain of names from the
// outermost test to the test itself, joined by " > ", built from test:start order (node
// reports a child's result before its parent's, but starts the parent first). Absolute paths
// under the sandbox's source mount are rewritten repo-relative, so a plain script that runs
// as one file-level test is `test/x.js::test/x.js`. A todo test is a skip either way; a
// skipped test is a skip. Lines on stdout that are not the reporter's are flagged (a test
// process can reach the runner's stdout) and kept as output.

import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import type { TestEvent } from '@repairline/schemas'
import { toolError } from '../errors.ts'
import { sha256Hex } from '../digest.ts'
import { NODE_REPORTER_SHA256, NODE_REPORTER_SOURCE } from './node-reporter.ts'

/** Where the reporter is mounted (read-only) inside the sandbox. */
export const NODE_REPORTER_DEST = '/repairline/ndjson-reporter.mjs'

export function nodeCommand (nodeBin: string, testPackages: readonly string[]): string[] {
  return [nodeBin, '--test', '--test-concurrency=1', `--test-reporter=${NODE_REPORTER_DEST}`, ...testPackages]
}

export function nodeEnv (): Record<string, string> {
  return { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp' }
}

/**
 * Writes the reporter to `path` (0644), reads it back and checks its sha256 against the pin;
 * refuses (SANDBOX_UNAVAILABLE) on any difference. Returns the digest.
 */
export function writeNodeReporter (path: string): string {
  writeFileSync(path, NODE_REPORTER_SOURCE, { mode: 0o644, flag: 'wx' })
  chmodSync(path, 0o644)
  const got = sha256Hex(readFileSync(path))
  if (got !== NODE_REPORTER_SHA256) throw toolError('SANDBOX_UNAVAILABLE', `the node reporter at ${path} hashes to ${got}, not the pinned ${NODE_REPORTER_SHA256}`)
  return got
}

interface ReporterLine {
  type: string
  file?: string
  name?: string
  nesting?: number
  skip?: true
  todo?: true
  message?: string
  duration_ms?: number
  suite?: true
  error?: string
}

function asReporterLine (v: unknown): ReporterLine | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined
  const o = v as Record<string, unknown>
  if (typeof o.type !== 'string' || !o.type.startsWith('test:')) return undefined
  for (const k of ['file', 'name', 'message', 'error'] as const) if (o[k] !== undefined && typeof o[k] !== 'string') return undefined
  if (o.nesting !== undefined && (typeof o.nesting !== 'number' || !Number.isInteger(o.nesting) || o.nesting < 0 || o.nesting > 10_000)) return undefined
  if (o.duration_ms !== undefined && (typeof o.duration_ms !== 'number' || !(o.duration_ms >= 0))) return undefined
  return o as unknown as ReporterLine
}

/** Maps reporter lines to test events, one line at a time. */
/**
 * JSON.parse reviver: a string with a lone surrogate (a JavaScript test may be named
 * 'a \uD800 b'; the reporter's JSON escapes it) gets U+FFFD in its place. Every retained
 * file is strict JSON, which has no lone surrogates: such a name would make baseline.json
 * unwritable after the key is spent.
 */
function wellFormed (_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value
}

// In a /u expression a surrogate pair is one astral code point: only lone halves are \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/gu

export class NodeEventNormalizer {
  private readonly stacks = new Map<string, string[]>()
  readonly anomalies: string[] = []
  /** node's own failure count from its closing diagnostics, when it printed one. */
  reportedFailures: number | undefined

  constructor (private readonly srcRoot: string) {}

  private rel (p: string): string {
    const prefix = `${this.srcRoot}/`
    return p.startsWith(prefix) ? p.slice(prefix.length) : p
  }

  /** The events one stdout line stands for (none for a blank line). */
  line (text: string): TestEvent[] {
    if (text === '') return []
    let parsed: ReporterLine | undefined
    if (text.charCodeAt(0) === 123) {
      try { parsed = asReporterLine(JSON.parse(text, wellFormed)) } catch {}
    }
    if (parsed === undefined) {
      if (this.anomalies.length < 100) this.anomalies.push(`stdout line is not the reporter's: ${JSON.stringify(text.slice(0, 120))}`)
      return [{ Action: 'output', Output: `${text}\n` }]
    }
    const r = parsed
    const file = r.file === undefined ? undefined : this.rel(r.file)
    switch (r.type) {
      case 'test:stdout':
      case 'test:stderr':
        return r.message === undefined ? [] : [{ Action: 'output', ...(file === undefined ? {} : { Package: file }), Output: r.message }]
      case 'test:diagnostic': {
        const m = /^fail (\d+)$/.exec(r.message ?? '')
        if (m !== null && r.nesting === 0) this.reportedFailures = Number(m[1])
        return r.message === undefined ? [] : [{ Action: 'output', Output: `# ${r.message}\n` }]
      }
      case 'test:start':
      case 'test:pass':
      case 'test:fail': {
        if (file === undefined || r.name === undefined || r.nesting === undefined) {
          this.anomalies.push(`${r.type} without file, name or nesting: ${JSON.stringify(text.slice(0, 120))}`)
          return []
        }
        const name = r.name === r.file ? file : this.rel(r.name)
        let stack = this.stacks.get(file)
        if (stack === undefined) { stack = []; this.stacks.set(file, stack) }
        if (r.type === 'test:start') {
          if (r.nesting > stack.length) this.anomalies.push(`${file}: test:start at nesting ${r.nesting} without a parent at ${stack.length}`)
          stack.length = Math.min(stack.length, r.nesting)
          while (stack.length < r.nesting) stack.push('?')
          stack.push(name)
          return [{ Action: 'run', Package: file, Test: stack.join(' > ') }]
        }
        if (stack[r.nesting] !== name) this.anomalies.push(`${file}: ${r.type} for ${JSON.stringify(name)} at nesting ${r.nesting}, which was not started there`)
        const chain = [...stack.slice(0, r.nesting), name]
        while (chain.length < r.nesting + 1) chain.unshift('?')
        const test = chain.join(' > ')
        const action = r.skip === true || r.todo === true ? 'skip' : r.type === 'test:pass' ? 'pass' : 'fail'
        const out: TestEvent[] = []
        if (r.error !== undefined && r.type === 'test:fail') out.push({ Action: 'output', Package: file, Test: test, Output: `${r.error}\n` })
        out.push({ Action: action, Package: file, Test: test, ...(r.duration_ms === undefined ? {} : { Elapsed: r.duration_ms / 1000 }) })
        return out
      }
      default:
        return []
    }
  }
}
