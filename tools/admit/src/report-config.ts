// What `admit report` reads of the execution config, and nothing more: where the source is
// (source_root, source_sha: go.mod at that commit names the module), the runner (how a
// failing identity maps to a test package), test_packages (node: the entry that holds a test
// file) and state_dir (never written into, like the checkout). Each is checked as the schema
// says; the rest of the config may still be unwritten, so a user gets the failing identities
// before the provider, the allowed files or the token helper are settled.

import type { ExecutionConfig } from '@repairline/schemas'
import { parseJsonBytes, toolError } from '@repairline/core'
import { readOperatorFile } from './inputs.ts'

export type ReportConfig = Pick<ExecutionConfig, 'source_root' | 'source_sha'> & {
  runner: { kind: ExecutionConfig['runner']['kind'] }
  test_packages: readonly string[]
  state_dir?: string
}

const FIELDS = 'source_root, source_sha, runner.kind, test_packages (node) and state_dir (optional)'

function invalid (pointer: string, message: string): Error {
  return toolError('CONFIG_INVALID', `execution config ${pointer}: ${message}`, { path: pointer, hint: `admit report reads only ${FIELDS}` })
}

const isAbsolutePath = (v: unknown): v is string => typeof v === 'string' && v.startsWith('/') && !v.includes('\u0000')

export function loadReportConfig (path: string): ReportConfig {
  const bytes = readOperatorFile(path, 'execution config', 1 << 20, 'CONFIG_INVALID')
  const parsed = parseJsonBytes(bytes)
  if (!parsed.ok) throw toolError('CONFIG_INVALID', `execution config ${path}: not strict JSON: ${parsed.message}`, { path })
  const c = parsed.value
  if (typeof c !== 'object' || c === null || Array.isArray(c)) throw invalid('', 'not a JSON object')
  const o = c as Record<string, unknown>
  if (!isAbsolutePath(o.source_root)) throw invalid('/source_root', 'expected an absolute path')
  if (typeof o.source_sha !== 'string' || !/^[0-9a-f]{40}$/.test(o.source_sha)) throw invalid('/source_sha', 'expected a full 40-hex commit id')
  const runner = o.runner as Record<string, unknown> | undefined
  const kind = typeof runner === 'object' && runner !== null ? runner.kind : undefined
  if (kind !== 'go' && kind !== 'node') throw invalid('/runner/kind', `expected "go" or "node", got ${JSON.stringify(kind)}`)
  const tp = o.test_packages ?? []
  if (!Array.isArray(tp) || !tp.every(t => typeof t === 'string')) throw invalid('/test_packages', 'expected an array of strings')
  if (kind === 'node' && tp.length === 0) throw invalid('/test_packages', 'a node report maps each test file to the test_packages entry that holds it: list them')
  if (o.state_dir !== undefined && !isAbsolutePath(o.state_dir)) throw invalid('/state_dir', 'expected an absolute path')
  return { source_root: o.source_root, source_sha: o.source_sha, runner: { kind }, test_packages: tp as string[], ...(o.state_dir === undefined ? {} : { state_dir: o.state_dir as string }) }
}
