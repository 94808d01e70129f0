// A complete admission fixture built in code: a real git repository with a real bug and a
// failing test (go or node), a register manifest committed in it, a routing policy, a token
// helper that prints a random canary, an execution config and a suite report naming the
// failing test. Tests mutate the pieces to build each refusal.

import { randomBytes } from 'node:crypto'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Case, ExecutionConfig, RoutingPolicy, SuiteReport } from '@repairline/schemas'
import { caseInputSha256, sha256File } from '@repairline/core'
import { createRepo, type FileSpec } from './git.ts'

export const MINIMAL_REGISTERS = { version: 1, tasks: { repair: { register: 'internal', max_output_tokens: 4000 } }, surfaces: { agent: { register: 'internal' }, prompts: { register: 'internal' } } }

export const GO_FILES: Record<string, FileSpec> = {
  'go.mod': 'module example.com/calc\n\ngo 1.19\n',
  'calc.go': 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n',
  'calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)\n\t}\n}\n\nfunc TestDouble(t *testing.T) {\n\tif got := Double(4); got != 8 {\n\t\tt.Fatalf("Double(4) = %d, want 8", got)\n\t}\n}\n',
  '.repairline/registers.json': JSON.stringify(MINIMAL_REGISTERS, null, 2) + '\n',
}

export const NODE_FILES: Record<string, FileSpec> = {
  'package.json': '{\n  "name": "calc",\n  "private": true,\n  "type": "module"\n}\n',
  'src/calc.js': '// add returns the sum of a and b.\nexport function add (a, b) {\n  return a - b\n}\n\n// double returns twice n.\nexport function double (n) {\n  return n * 2\n}\n',
  'test/calc.test.js': "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, double } from '../src/calc.js'\n\ntest('add adds', () => {\n  assert.equal(add(2, 3), 5)\n})\n\ntest('double doubles', () => {\n  assert.equal(double(4), 8)\n})\n",
  '.repairline/registers.json': JSON.stringify(MINIMAL_REGISTERS, null, 2) + '\n',
}

export interface Fixture {
  dir: string
  repo: string
  sha: string
  stateDir: string
  configPath: string
  reportPath: string
  policyPath: string
  tokenHelper: string
  canary: string
  config: ExecutionConfig
  policy: RoutingPolicy
  report: SuiteReport
}

export interface FixtureOptions {
  runner?: 'go' | 'node'
  files?: Record<string, FileSpec>
  /** Identities (name) with their package; default: the one failing test of the fixture. */
  cases?: Array<{ id?: string, package: string, name: string }>
  baseUrl?: string
  /** provider.ca_file: the PEM the client trusts besides Node's roots (the local HTTPS server's CA). */
  caFile?: string
  /** The token helper's source (default: a node script printing the canary and a newline). */
  tokenHelperSource?: (canary: string) => string
}

/** Builds a case with a correct input_sha256. */
export function makeCase (id: string, pkg: string, name: string): Case {
  const base = { kind: 'test_failure' as const, id, test: { package: pkg, name } }
  return { ...base, input_sha256: caseInputSha256(base) }
}

/** Writes a JSON file (two-space indent, trailing newline). */
export function writeJson (path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n')
}

/** Builds the fixture under `dir` (which must exist and be empty). */
export async function makeFixture (dir: string, o: FixtureOptions = {}): Promise<Fixture> {
  const runner = o.runner ?? 'go'
  // The sandbox user must traverse to the state dir's work trees (admit refuses otherwise).
  chmodSync(dir, 0o711)
  const repo = join(dir, 'repo')
  const sha = await createRepo(repo, o.files ?? (runner === 'go' ? GO_FILES : NODE_FILES))
  const canary = `rl-canary-${randomBytes(12).toString('hex')}`
  const tokenHelper = join(dir, 'token-helper')
  writeFileSync(tokenHelper, o.tokenHelperSource?.(canary) ?? `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(canary)} + '\\n')\n`)
  chmodSync(tokenHelper, 0o755)
  const policy: RoutingPolicy = {
    version: 1,
    cost_ceiling_usd: 0.5,
    routes: [{ case_kind: 'test_failure', task_label: 'repair', model: 'gpt-5-mini', estimated_input_tokens: 30000, estimated_output_tokens: 4000, usd_per_million_input_tokens: 0.25, usd_per_million_output_tokens: 2 }],
  }
  const policyPath = join(dir, 'routing-policy.json')
  writeJson(policyPath, policy)
  const config: ExecutionConfig = {
    version: 1,
    source_root: repo,
    source_sha: sha,
    state_dir: join(dir, 'state'),
    runner: runner === 'go' ? { kind: 'go', package_roots: ['.'] } : { kind: 'node' },
    allowed_files: runner === 'go' ? ['calc.go'] : ['src/calc.js'],
    test_packages: runner === 'go' ? ['.'] : ['test'],
    timeout_seconds: 120,
    max_patch_bytes: 4096,
    repair_policy: policyPath,
    provider: {
      base_url: o.baseUrl ?? 'https://127.0.0.1:8443/v1',
      token_command: tokenHelper,
      token_command_sha256: sha256File(tokenHelper).sha256,
      model: 'gpt-5-mini',
      max_output_tokens: 4000,
      max_input_bytes: 200000,
      ...(o.caFile === undefined ? {} : { ca_file: o.caFile }),
    },
  }
  const configPath = join(dir, 'execution.json')
  writeJson(configPath, config)
  const cases = (o.cases ?? (runner === 'go'
    ? [{ package: '.', name: 'example.com/calc::TestAdd' }]
    : [{ package: 'test', name: 'test/calc.test.js::add adds' }])).map(c => makeCase(c.id ?? c.name, c.package, c.name))
  const report: SuiteReport = { version: 1, suite: 'fixture', generated_at: '2026-11-29T03:00:00.000Z', cases }
  const reportPath = join(dir, 'report.json')
  writeJson(reportPath, report)
  return { dir, repo, sha, stateDir: config.state_dir, configPath, reportPath, policyPath, tokenHelper, canary, config, policy, report }
}

/** Rewrites the fixture's config file with a change applied. */
export function rewriteConfig (f: Fixture, change: (c: ExecutionConfig) => unknown): void {
  const c = structuredClone(f.config) as ExecutionConfig
  const replaced = change(c)
  writeJson(f.configPath, replaced ?? c)
}
