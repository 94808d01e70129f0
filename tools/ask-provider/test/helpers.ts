// Shared setup for ask-provider's tests: one throwaway CA per test process, a local HTTPS
// Responses server per test, and an attempt ready for the provider step — admitted for real
// (admit run), with the tree written by the core tree API and a reproduced baseline.json
// written by hand (what reproduce would write), so these tests need no sandbox.

import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync, lstatSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { Readable, Writable } from 'node:stream'
import type { OutcomeFile } from '@repairline/schemas'
import { RecordWriter, clockFrom, parseRecordLine, runTool, type ToolIo } from '@repairline/core'
import { askProvider } from '../src/index.ts'
import type { ProviderLimits } from '../src/limits.ts'
import { makeFixture, rewriteConfig, type Fixture, type FixtureOptions } from '../../../test/helpers/fixture.ts'
import { admitFixture, writeBaseline, writeTree, type Admitted } from '../../../test/helpers/attempt.ts'
import { runBin, BASE_ENV, type BinResult } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { makeTls, type TlsMaterial } from '../../../test/helpers/tls.ts'
import { ResponsesServer, type ServerOptions } from '../../../test/helpers/responses-server.ts'
import { assertNoCanary } from '../../../test/helpers/canary.ts'

let material: Promise<TlsMaterial> | undefined

/** The throwaway TLS material of this test process (generated once, removed at exit). */
export async function tls (): Promise<TlsMaterial> {
  if (material === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'rl-tls-'))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    material = makeTls(dir)
  }
  return await material
}

/** A server for this test, closed when it ends. */
export async function startServer (t: TestContext, o: Partial<ServerOptions> = {}): Promise<ResponsesServer> {
  const s = await ResponsesServer.start({ tls: await tls(), ...o })
  t.after(async () => { await s.close() })
  return s
}

/**
 * A token helper that reads the canary from a file beside it rather than holding it (a copy
 * of the helper left behind by a kill then holds no secret), with /bin/sh builtins only, so
 * it runs fast with the empty environment it gets.
 */
export function readingHelper (dir: string): (canary: string) => string {
  return canary => {
    writeFileSync(join(dir, 'canary.secret'), `${canary}\n`)
    return `#!/bin/sh\nIFS= read -r t < '${join(dir, 'canary.secret')}'\nprintf '%s\\n' "$t"\n`
  }
}

/**
 * Runs ask-provider in this process (runTool with in-memory streams, exactly what the bin
 * does minus argv parsing), with optional smaller limits. The real server, files and token
 * helper are used; only the Node start-up is saved.
 */
export async function askInProcess (p: Prepared, o: { limits?: Partial<ProviderLimits>, env?: Record<string, string>, check?: boolean, now?: () => Date } = {}): Promise<BinResult> {
  let stdout = ''
  let stderr = ''
  const out = new Writable({ write (c: Buffer, _e, cb) { stdout += c.toString(); cb() } })
  const err = new Writable({ write (c: Buffer, _e, cb) { stderr += c.toString(); cb() } })
  const env = { ...BASE_ENV, ...o.env }
  const io: ToolIo = { stdin: Readable.from([]), out: new RecordWriter(out), stderr: err, env, now: o.now ?? clockFrom(env), cwd: p.f.dir }
  const exitCode = await runTool('ask-provider', [], io, async (_argv, io2) => await askProvider({ attempt: p.a.dir, check: o.check === true }, io2, o.limits === undefined ? {} : { limits: o.limits }))
  const lines = stdout.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const r: BinResult = { exitCode, records: lines.map((l, i) => parseRecordLine(l, `stdout:${i + 1}`)), stdout, stderr }
  p.runs.push(r)
  return r
}

export interface Prepared {
  f: Fixture
  a: Admitted
  server: ResponsesServer
  runs: BinResult[]
}

export interface PrepareOptions {
  fixture?: FixtureOptions
  /** Skip the tree and baseline (to test what happens without them). */
  bare?: boolean
  admitEnv?: Record<string, string>
  /** Changes the execution config before admission. */
  config?: (c: Fixture['config']) => void
}

/** Admits a fixture whose provider is `server` at `scenario`, and writes the tree and baseline. */
export async function prepare (t: TestContext, server: ResponsesServer, scenario: string, o: PrepareOptions = {}): Promise<Prepared> {
  const dir = tempDir(t, 'rl-ask-')
  const f = await makeFixture(dir, { baseUrl: server.baseUrl(scenario), caFile: server.tls.caFile, tokenHelperSource: readingHelper(dir), ...o.fixture })
  if (o.config !== undefined) {
    o.config(f.config)
    rewriteConfig(f, () => f.config)
  }
  const a = await admitFixture(f, o.admitEnv)
  if (o.bare !== true) {
    await writeTree(f, a)
    writeBaseline(f, a)
  }
  return { f, a, server, runs: [] }
}

/** Runs the built ask-provider on the prepared attempt; keeps the run for the canary scan. */
export async function ask (p: Prepared, o: { args?: string[], env?: Record<string, string>, timeoutMs?: number } = {}): Promise<BinResult> {
  const r = await runBin('ask-provider', ['--attempt', p.a.dir, ...(o.args ?? [])], { ...(o.env === undefined ? {} : { env: o.env }), ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }) })
  p.runs.push(r)
  return r
}

export function outcomeOf (p: Prepared): OutcomeFile | undefined {
  const path = join(p.a.dir, 'outcome.json')
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) as OutcomeFile : undefined
}

/** The attempt's files, relative, sorted (directories excluded). */
export function attemptFiles (p: Prepared): string[] {
  const out: string[] = []
  const walk = (rel: string): void => {
    for (const n of readdirSync(join(p.a.dir, rel))) {
      const r = rel === '' ? n : `${rel}/${n}`
      if (lstatSync(join(p.a.dir, r)).isDirectory()) walk(r)
      else out.push(r)
    }
  }
  walk('')
  return out.sort()
}

export function readJson<T = Record<string, unknown>> (p: Prepared, rel: string): T {
  return JSON.parse(readFileSync(join(p.a.dir, rel), 'utf8')) as T
}

/** Requests the server received for this attempt: its scenario's path, carrying its own token. */
export function hits (p: Prepared): number {
  const path = new URL(p.f.config.provider.base_url).pathname
  return p.server.requests.filter(r => r.path === `${path}/responses` && r.headers.authorization === `Bearer ${p.f.canary}`).length
}

/** The canary is in no file of the state root, no stdout record and no stderr line of any run. */
export function assertNoLeak (p: Prepared): void {
  const texts: Record<string, string> = {}
  p.runs.forEach((r, i) => { texts[`run ${i} stdout`] = r.stdout; texts[`run ${i} stderr`] = r.stderr })
  assertNoCanary(p.f.canary, { paths: [p.f.stateDir], texts })
}

/** A provider_error (or other) outcome with its code, exit status and error-free records. */
export function assertOutcome (p: Prepared, r: BinResult, outcome: OutcomeFile['outcome'], code: string, o: { retryable?: boolean } = {}): OutcomeFile {
  const file = outcomeOf(p)
  assert.ok(file !== undefined, `no outcome.json; exit ${r.exitCode}; stderr: ${r.stderr}`)
  assert.equal(file.outcome, outcome, `${file.reason.code}: ${file.reason.message}`)
  assert.equal(file.reason.code, code, file.reason.message)
  assert.equal(file.step, 'ask-provider')
  if (outcome === 'provider_error') assert.equal(file.retryable, o.retryable, `retryable; ${file.reason.message}`)
  const exit = outcome === 'provider_error' && file.retryable === true ? 69 : 1
  assert.equal(r.exitCode, exit, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
  const result = r.records.at(-1)
  assert.ok(result?.kind === 'result' && result.outcome === outcome && result.exit === exit)
  assert.match(r.stderr, new RegExp(`ask-provider: ${outcome}.*${code}`))
  assertNoLeak(p)
  return file
}
