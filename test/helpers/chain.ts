// The whole chain in tests: one local HTTPS Responses server per test file (the base_url's
// path picks each test's scenario), fixtures whose provider points at it, and the driver run
// the way an operator runs it (the bundled dist/attempt.mjs, argv array, tiny environment).

import { readdirSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { execa } from 'execa'
import type { OutcomeFile } from '@repairline/schemas'
import { makeFixture, type Fixture, type FixtureOptions } from './fixture.ts'
import { makeTls, type TlsMaterial } from './tls.ts'
import { ResponsesServer } from './responses-server.ts'
import { ROOT, BASE_ENV } from './bin.ts'
import { tempDir } from './tmp.ts'

export interface Provider { server: ResponsesServer, tls: TlsMaterial }

/** Starts one server for a test file; closed when the file's tests end. */
export async function startProvider (t: { after: (fn: () => Promise<void> | void) => void }): Promise<Provider> {
  const tls = await makeTls(tempDir(t, 'rl-tls-'))
  const server = await ResponsesServer.start({ tls })
  t.after(async () => { await server.close() })
  return { server, tls }
}

/**
 * A fixture whose provider is the local server under `scenario` (see responses-server.ts:
 * `proposal/<name>` answers with server.proposals.get(name), `status/429` with an error, …).
 */
export async function chainFixture (t: TestContext, p: Provider, scenario: string, o: FixtureOptions = {}): Promise<Fixture> {
  return await makeFixture(tempDir(t), { ...o, baseUrl: p.server.baseUrl(scenario), caFile: p.tls.caFile })
}

export interface DriveResult {
  exit: number
  stderr: string
  /** The attempt directory, when admission succeeded. */
  attemptDir?: string
  outcome?: OutcomeFile
}

/** Runs `pnpm attempt` (the bundled driver) on a fixture. */
export async function driveChain (f: Fixture, env: Record<string, string> = {}, extra: string[] = []): Promise<DriveResult> {
  const r = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', f.configPath, '--report', f.reportPath, ...extra], {
    env: { ...BASE_ENV, ...env }, extendEnv: false, reject: false, cwd: ROOT, timeout: 300_000,
  })
  const attempts = join(f.stateDir, 'attempts')
  const dirs = existsSync(attempts) ? readdirSync(attempts).sort() : []
  const attemptDir = dirs.length === 0 ? undefined : join(attempts, dirs[dirs.length - 1] ?? '')
  const outcomePath = attemptDir === undefined ? undefined : join(attemptDir, 'outcome.json')
  const outcome = outcomePath !== undefined && existsSync(outcomePath) ? JSON.parse(readFileSync(outcomePath, 'utf8')) as OutcomeFile : undefined
  return { exit: r.exitCode ?? -1, stderr: String(r.stderr), ...(attemptDir === undefined ? {} : { attemptDir }), ...(outcome === undefined ? {} : { outcome }) }
}
