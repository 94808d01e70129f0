// Loading and validating everything admission reads, in the order an operator fixes
// things: the config (schema, then each rule), the checkout and its tree, the routing
// policy, the register manifest from the blob at source_sha, then the report. Nothing here
// writes. `plan` and `transcript_path` are shape-checked by the schema and never touched.

import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import type { Case, ExecutionConfig, RegisterManifest, RoutingPolicy, SuiteReport } from '@repairline/schemas'
import {
  assertClean, assertCommit, attemptDirFor, assertNoSharedMetadata, assertNoViolations, caseInputSha256, checkManifestVocabulary,
  checkRoutingPolicy, git, gitBlobId, gitFailure, hasErrno, listTree, maxTreePathBytes, parseDocument, repoInfo, toolError,
  type ErrorCode, type TreeEntry,
} from '@repairline/core'
import { checkRunnerOptions } from './rules/runner-options.ts'
import { checkProviderBaseUrl } from './rules/base-url.ts'
import { checkAllowedFileShapes, checkAllowedFilesInTree } from './rules/allowed-files.ts'
import { checkTestPackageShapes, checkTestPackagesInTree } from './rules/test-packages.ts'
import { checkTokenHelper } from './rules/token-helper.ts'
import { checkChecks } from './rules/checks.ts'
import { checkCaFile, checkGoBuildCache, checkMounts, checkOutsideSandboxView, checkPathCharacters, checkStateDir, checkStateOutsideSource } from './rules/paths.ts'

export const REGISTER_MANIFEST_PATH = '.repairline/registers.json'
export const MINIMAL_MANIFEST = '{"version":1,"tasks":{},"surfaces":{"agent":{"register":"internal"},"prompts":{"register":"internal"}}}'

/**
 * Reads an operator file: must be absolute and a regular file (a FIFO or device is refused
 * without blocking), at most `maxBytes`.
 */
export function readOperatorFile (path: string, what: string, maxBytes: number, tooLarge: 'CONFIG_INVALID' | 'ROUTING_POLICY_INVALID' | 'REPORT_INVALID'): Buffer {
  if (!isAbsolute(path)) throw toolError('USAGE', `${what} must be an absolute path, got ${path}`)
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    throw toolError('INPUT_MISSING', `${what} ${path} cannot be read: ${hasErrno(e, 'ENOENT') ? 'no such file' : (e as Error).message}`, { path })
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw toolError('INPUT_MISSING', `${what} ${path} is not a regular file`, { path })
    // Present but over its bound: the file breaks its contract (it is not missing).
    if (st.size > maxBytes) throw toolError(tooLarge, `${what} ${path} is larger than ${maxBytes} bytes`, { path })
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

export interface LoadedConfig {
  config: ExecutionConfig
  configBytes: Buffer
}

/** The config: strict JSON, schema, then the rules that need no repository. */
export function loadConfig (path: string): LoadedConfig {
  const configBytes = readOperatorFile(path, 'execution config', 1 << 20, 'CONFIG_INVALID')
  const config = parseDocument('execution', configBytes, `execution config ${path}`, 'CONFIG_INVALID')
  checkConfigRules(config)
  return { config, configBytes }
}

/** Every rule of a schema-valid config that needs no repository, in the order an operator fixes things (admit init runs them on what it writes). */
export function checkConfigRules (config: ExecutionConfig): void {
  checkRunnerOptions(config)
  checkProviderBaseUrl(config)
  checkAllowedFileShapes(config)
  checkTestPackageShapes(config)
  checkPathCharacters(config)
  checkStateDir(config)
  checkCaFile(config)
  checkTokenHelper(config)
  checkMounts(config)
  checkGoBuildCache(config)
  checkChecks(config)
}

export interface LoadedSource {
  entries: TreeEntry[]
  byPath: Map<string, TreeEntry>
  blobCount: number
  blobBytes: number
}

/** The checkout and the tree at source_sha: usable repository, commit, (clean), bounds, paths. */
export async function loadSource (config: ExecutionConfig, opts: { requireClean: boolean }): Promise<LoadedSource> {
  const info = await repoInfo(config.source_root)
  checkStateOutsideSource(config, info.commonDir)
  checkOutsideSandboxView(config)
  await assertNoSharedMetadata(config.source_root, info)
  await assertCommit(config.source_root, config.source_sha)
  if (opts.requireClean) await assertClean(config.source_root)
  // Every attempt directory of this state root has the same length, whatever its key.
  const listing = await listTree(config.source_root, config.source_sha, { maxPathBytes: maxTreePathBytes(attemptDirFor(config.state_dir, '0'.repeat(64))) })
  assertNoViolations(listing.violations)
  const byPath = new Map(listing.entries.map(e => [e.path, e]))
  checkAllowedFilesInTree(config, byPath)
  checkTestPackagesInTree(config, listing.entries)
  return { entries: listing.entries, byPath, blobCount: listing.blobCount, blobBytes: listing.blobBytes }
}

/** Reads one blob of the tree by its listed id and rehashes it (a tampered store is refused). */
export async function readBlob (root: string, entry: TreeEntry): Promise<Buffer> {
  const read = await git(root, ['cat-file', 'blob', entry.oid])
  if (read.exitCode !== 0 && !read.timedOut) {
    // The listing calls it a blob: an object of another type there is the listing's lie (as
    // extract-tree says it), one missing is an incomplete store.
    const type = (await git(root, ['cat-file', '-t', entry.oid])).stdout.toString('utf8').trim()
    if (type !== '' && type !== 'blob') throw toolError('TREE_OBJECT_MISMATCH', `${entry.path}: the tree lists ${entry.oid} as a blob, but it is a ${type}`, { path: entry.path })
    if (type === '') throw toolError('GIT_FAILED', `${entry.path}: blob ${entry.oid} is missing from the repository`, { path: entry.path, hint: 'the object store is incomplete; run git fsck in source_root' })
  }
  if (read.exitCode !== 0) throw toolError('SOURCE_NOT_GIT', `blob ${entry.path}: git cat-file failed: ${gitFailure(read)}`)
  const bytes = read.stdout
  if (gitBlobId(bytes) !== entry.oid) throw toolError('TREE_OBJECT_MISMATCH', `${entry.path}: blob ${entry.oid} does not hash to its id (tampered object store)`)
  return bytes
}

export interface LoadedPolicy { policy: RoutingPolicy, policyBytes: Buffer }

export function loadPolicy (config: ExecutionConfig): LoadedPolicy {
  const policyBytes = readOperatorFile(config.repair_policy, 'routing policy', 1 << 20, 'ROUTING_POLICY_INVALID')
  const policy = parseDocument('routing-policy', policyBytes, `routing policy ${config.repair_policy}`, 'ROUTING_POLICY_INVALID')
  checkRoutingPolicy(policy, config.provider.model)
  return { policy, policyBytes }
}

export interface LoadedManifest { manifest: RegisterManifest, manifestBytes: Buffer }

/** The register manifest from the blob at source_sha, never from the checkout. */
export async function loadManifest (config: ExecutionConfig, source: LoadedSource, policy: RoutingPolicy): Promise<LoadedManifest> {
  const entry = source.byPath.get(REGISTER_MANIFEST_PATH)
  if (entry === undefined) {
    throw toolError('REGISTER_MANIFEST_MISSING', `no ${REGISTER_MANIFEST_PATH} at source_sha ${config.source_sha.slice(0, 12)}`, { path: REGISTER_MANIFEST_PATH, hint: `commit a minimal one: ${MINIMAL_MANIFEST}` })
  }
  const manifestBytes = await readBlob(config.source_root, entry)
  const manifest = parseDocument('register-manifest', manifestBytes, `register manifest ${REGISTER_MANIFEST_PATH} at ${config.source_sha.slice(0, 12)}`, 'REGISTER_MANIFEST_INVALID')
  checkManifestVocabulary(manifest, policy)
  return { manifest, manifestBytes }
}

/** The largest suite report admit reads (and the largest file `admit report --out` may replace). */
export const SUITE_REPORT_MAX_BYTES = 16 << 20

/** The report: strict JSON, schema, unique ids, and every input_sha256 recomputed. */
export function loadReport (path: string): SuiteReport {
  const bytes = readOperatorFile(path, 'suite report', SUITE_REPORT_MAX_BYTES, 'REPORT_INVALID')
  const report = parseDocument('suite-report', bytes, `suite report ${path}`, 'REPORT_INVALID')
  const ids = new Set<string>()
  report.cases.forEach((c: Case, i: number) => {
    if (ids.has(c.id)) throw toolError('REPORT_INVALID', `suite report: case id ${JSON.stringify(c.id)} appears twice`, { path: `/cases/${i}/id` })
    if (c.kind === 'repair') throw toolError('REPORT_INVALID', `suite report: case ${JSON.stringify(c.id)} is a repair case; admit repair makes those from a sealed attempt, a report lists test_failure cases`, { path: `/cases/${i}/kind` })
    ids.add(c.id)
    const want = caseInputSha256(c)
    if (want !== c.input_sha256) {
      throw toolError('CASE_INPUT_MISMATCH', `suite report: case ${JSON.stringify(c.id)} has input_sha256 ${c.input_sha256}, but its kind, id and test hash to ${want}`, { path: `/cases/${i}/input_sha256` })
    }
  })
  return report
}

export type { ErrorCode }
