// admit init: writes a first execution.json, routing-policy.json and report.json into --out
// from the checkout at HEAD and the failing test identities the operator names, so that
// `admit run` (and the driver) accepts them unchanged. It reads committed blobs only and never
// writes into the checkout or the state root.
//
// Contract:
// - source_sha is HEAD's full id; the runner is go (go.mod at the top) or node (package.json),
//   else --runner; neither or both is RUNNER_UNDETECTED (2).
// - Each --test is an identity as `admit report` writes it: go `<import path>::<TestName>`
//   (the package `.` or `./<dir>` under go.mod's module path), node `<test file>::<test name>`
//   (the file a test blob at HEAD). One that names no test package is TEST_IDENTITY_INVALID (2).
//   No --test: nothing is written, USAGE (2) with a hint naming how to list the failing tests.
// - allowed_files are proposed, at most 8, sorted: go, the package directory's .go files that
//   are not tests; node, the source files each test file imports by a relative specifier, else
//   the src/ and lib/ source files. --allowed-file replaces the proposal. package_roots are their
//   directories ("." for a file at the top).
// - The routing policy's task label is the register manifest's one `tasks` row at HEAD, else
//   "repair". No manifest at HEAD: REGISTER_MANIFEST_MISSING (65), its hint the one-line file to
//   commit, nothing written (a commit changes HEAD, so files written before it would be stale).
// - The provider flags are required: init writes a config `admit run` accepts, never one with
//   placeholders. The stub provider (`pnpm stub-provider`) prints a base_url and ca_file to try it.
// - Every file is schema-validated and checked by admit's own config rules before anything is
//   written. An existing file whose bytes differ from what init would write is INIT_FILE_EDITED
//   (73) unless --force, checked for all three before any is written; equal bytes are left
//   alone (report.json compares without its generated_at).

import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import type { Case, ExecutionConfig, RegisterManifest, RoutingPolicy, SuiteReport } from '@repairline/schemas'
import {
  assertValid, caseInputSha256, classifyPath, EXIT, gitOk, goModDirective, isValid, jsonFileBytes, listTree, parseDocument, repoInfo, sha256File,
  SOURCE_EXTENSIONS, toolError, writePlainFileAtomic, type ToolIo, type ToolResult, type TreeEntry,
} from '@repairline/core'
import { checkConfigRules, MINIMAL_MANIFEST, readBlob, REGISTER_MANIFEST_PATH } from './inputs.ts'
import { checkAllowedFilesInTree } from './rules/allowed-files.ts'
import { checkOutsideSandboxView, checkStateOutsideSource, within } from './rules/paths.ts'
import { checkTestPackagesInTree } from './rules/test-packages.ts'

export interface InitOptions {
  sourceRoot: string
  stateDir: string
  out: string
  runner?: 'go' | 'node'
  tests: readonly string[]
  allowedFiles: readonly string[]
  provider?: { baseUrl: string, tokenCommand: string, model: string, caFile?: string }
  force: boolean
}

/** The defaults init writes; the operator edits them in execution.json and routing-policy.json. */
export const INIT_DEFAULTS = {
  timeout_seconds: 300,
  max_patch_bytes: 16384,
  max_output_tokens: 4000,
  max_input_bytes: 200000,
  cost_ceiling_usd: 0.5,
  estimated_input_tokens: 30000,
  estimated_output_tokens: 4000,
  usd_per_million_input_tokens: 0.25,
  usd_per_million_output_tokens: 2,
} as const

const MAX_ALLOWED = 8
const MAX_TEST_PACKAGES = 4

/** --out: an existing directory outside the checkout and the state root (as the kernel resolves them). */
function checkOutDir (out: string, sourceRoot: string, stateDir: string): string {
  let real: string
  try {
    real = realpathSync(out)
  } catch {
    throw toolError('INPUT_MISSING', `--out ${out} does not exist`, { path: out, hint: `make it first: mkdir -p ${out} && chmod 711 ${out}` })
  }
  if (!statSync(real).isDirectory()) throw toolError('OUTPUT_UNSAFE', `--out ${out} is not a directory`, { path: out })
  const source = realpathSync(sourceRoot)
  if (within(real, source)) throw toolError('OUTPUT_UNSAFE', `--out ${out} is inside source_root ${sourceRoot}: admit never writes into your checkout`, { path: out, hint: 'put the operator files outside the repository, e.g. /srv/rl' })
  let state: string | undefined
  try { state = realpathSync(stateDir) } catch { state = undefined }
  if (state !== undefined && within(real, state)) throw toolError('OUTPUT_UNSAFE', `--out ${out} is inside state_dir ${stateDir}, which only the tools write`, { path: out })
  return real
}

function detectRunner (byPath: ReadonlyMap<string, TreeEntry>, given: 'go' | 'node' | undefined, sha: string): 'go' | 'node' {
  if (given !== undefined) return given
  const go = byPath.has('go.mod')
  const node = byPath.has('package.json')
  if (go && !node) return 'go'
  if (node && !go) return 'node'
  throw toolError('RUNNER_UNDETECTED', `the checkout at ${sha.slice(0, 12)} has ${go ? 'both go.mod and package.json' : 'neither go.mod nor package.json'} at its top`, { hint: 'name the runner: --runner go or --runner node' })
}

interface Target { identity: string, pkg: string, testFile?: string }

/** The go package an identity names: `.` or `./<dir>` under the module path, holding a _test.go file. */
function goTarget (identity: string, modulePath: string, entries: readonly TreeEntry[]): Target {
  const at = identity.indexOf('::')
  const importPath = at === -1 ? '' : identity.slice(0, at)
  const name = at === -1 ? '' : identity.slice(at + 2)
  const invalid = (why: string): Error => toolError('TEST_IDENTITY_INVALID', `--test ${JSON.stringify(identity)}: ${why}`, { hint: `a go identity is <import path>::<TestName>, e.g. ${modulePath}::TestAdd (admit report writes them)` })
  if (name === '') throw invalid('expected <import path>::<TestName>')
  let dir: string
  if (importPath === modulePath) dir = ''
  else if (importPath.startsWith(`${modulePath}/`)) dir = importPath.slice(modulePath.length + 1)
  else throw invalid(`${importPath} is not in module ${modulePath}`)
  const prefix = dir === '' ? '' : `${dir}/`
  if (!entries.some(e => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/') && e.path.endsWith('_test.go'))) throw invalid(`package ${dir === '' ? '.' : `./${dir}`} has no _test.go file at HEAD`)
  return { identity, pkg: dir === '' ? '.' : `./${dir}` }
}

/** The node test file an identity names: the first `::` split whose left side is a test blob at HEAD. */
function nodeTarget (identity: string, byPath: ReadonlyMap<string, TreeEntry>): Target {
  for (let at = identity.indexOf('::'); at !== -1; at = identity.indexOf('::', at + 1)) {
    const file = identity.slice(0, at)
    const entry = byPath.get(file)
    if (entry?.type === 'blob' && identity.length > at + 2 && classifyPath(file) === 'test' && /\.(c|m)?js$/.test(file)) return { identity, pkg: file, testFile: file }
  }
  throw toolError('TEST_IDENTITY_INVALID', `--test ${JSON.stringify(identity)}: no test file at HEAD starts it`, { hint: 'a node identity is <test file>::<test name>, the file as the repository names it, e.g. test/calc.test.js::add adds' })
}

const isSource = (kind: 'go' | 'node', path: string): boolean =>
  classifyPath(path) === 'source' && SOURCE_EXTENSIONS[kind].some(e => path.endsWith(e))

/** Relative specifiers of import/require/export-from in a node test file. */
function relativeImports (text: string): string[] {
  const out: string[] = []
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]+)\1/g
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[2] as string)
  return out
}

async function proposeAllowedFiles (kind: 'go' | 'node', root: string, targets: readonly Target[], entries: readonly TreeEntry[], byPath: ReadonlyMap<string, TreeEntry>): Promise<string[]> {
  const found = new Set<string>()
  if (kind === 'go') {
    for (const t of targets) {
      const prefix = t.pkg === '.' ? '' : `${t.pkg.slice(2)}/`
      for (const e of entries) if (e.type === 'blob' && e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/') && isSource('go', e.path)) found.add(e.path)
    }
  } else {
    for (const t of targets) {
      const entry = byPath.get(t.testFile ?? '')
      if (entry === undefined) continue
      const text = (await readBlob(root, entry)).toString('utf8')
      for (const spec of relativeImports(text)) {
        const base = posix.normalize(posix.join(posix.dirname(t.testFile ?? ''), spec))
        const hit = [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`, `${base}/index.js`].find(p => byPath.get(p)?.type === 'blob' && isSource('node', p))
        if (hit !== undefined) found.add(hit)
      }
    }
    if (found.size === 0) for (const e of entries) if (e.type === 'blob' && /^(src|lib)\//.test(e.path) && isSource('node', e.path)) found.add(e.path)
  }
  return [...found].sort().slice(0, MAX_ALLOWED)
}

/** The fewest directories the allowed files lie under: their own directories, "." for the top. */
function packageRootsFor (files: readonly string[]): string[] {
  const dirs = [...new Set(files.map(f => posix.dirname(f)))].sort()
  if (dirs.includes('.')) return ['.']
  return dirs.filter(d => !dirs.some(o => o !== d && d.startsWith(`${o}/`)))
}

/** The task label the manifest's `tasks` rows allow: its one row, else "repair". */
function taskLabelFor (manifest: RegisterManifest): string {
  const labels = Object.keys(manifest.tasks)
  if (labels.length > 1) {
    throw toolError('REGISTER_MANIFEST_INVALID', `${REGISTER_MANIFEST_PATH} at HEAD has ${labels.length} tasks rows (${labels.join(', ')}): a routing policy has one route per case kind, so one task label`, { path: '/tasks', hint: 'keep one tasks row (or none) and commit it' })
  }
  return labels[0] ?? 'repair'
}

interface Planned { name: 'execution.json' | 'routing-policy.json' | 'report.json', path: string, bytes: string, same: (current: Buffer) => boolean }

/** True when `current` is the report init would write, but for its generated_at. */
function sameReport (report: SuiteReport, current: Buffer): boolean {
  let doc: unknown
  try { doc = JSON.parse(current.toString('utf8')) } catch { return false }
  if (!isValid('suite-report', doc)) return false
  return current.toString('utf8') === jsonFileBytes({ ...report, generated_at: doc.generated_at })
}

export async function admitInit (o: InitOptions, io: ToolIo): Promise<ToolResult> {
  const info = await repoInfo(o.sourceRoot)
  const sha = (await gitOk(o.sourceRoot, ['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}'], `HEAD of ${o.sourceRoot}`)).toString('utf8').trim()
  const outDir = checkOutDir(o.out, o.sourceRoot, o.stateDir)
  const listing = await listTree(o.sourceRoot, sha)
  const entries = listing.entries
  const byPath = new Map(entries.map(e => [e.path, e]))
  const kind = detectRunner(byPath, o.runner, sha)
  const gomod = byPath.get('go.mod')
  const modulePath = kind === 'go' && gomod !== undefined ? goModDirective((await readBlob(o.sourceRoot, gomod)).toString('utf8'), 'module') : undefined
  if (kind === 'go' && modulePath === undefined) throw toolError('RUNNER_UNDETECTED', `the go runner needs go.mod at the top of the checkout at ${sha.slice(0, 12)}, declaring a module path`, { hint: 'run admit init on the module\'s top directory' })

  if (o.tests.length === 0) {
    const how = kind === 'go'
      ? `run \`go test ./...\` in ${o.sourceRoot}: each failing TestName of package P is --test P::TestName (e.g. ${modulePath ?? ''}::TestAdd). Or pipe \`go test -json ./...\` into \`node_modules/.bin/admit report --config C --out F\`, with C holding {"source_root":${JSON.stringify(o.sourceRoot)},"source_sha":"${sha}","runner":{"kind":"go"}}: F lists every failing identity`
      : `run \`node --test\` in ${o.sourceRoot}: each failing test is --test '<test file>::<test name>' (e.g. 'test/calc.test.js::add adds')`
    throw toolError('USAGE', 'name the failing tests with --test ID (repeatable); nothing was written', { hint: how })
  }
  if (o.provider === undefined) {
    throw toolError('USAGE', '--provider-url, --token-command and --model are required; nothing was written', { hint: 'to try it without a model, `pnpm stub-provider --proposal FILE` prints a base_url and ca_file (--provider-url, --ca-file); any token helper and model name work with it' })
  }
  const dup = o.tests.find((t, i) => o.tests.indexOf(t) !== i)
  if (dup !== undefined) throw toolError('USAGE', `--test ${JSON.stringify(dup)} is given twice`)
  const targets = o.tests.map(id => kind === 'go' ? goTarget(id, modulePath ?? '', entries) : nodeTarget(id, byPath))
  const testPackages = [...new Set(targets.map(t => t.pkg))]
  if (testPackages.length > MAX_TEST_PACKAGES) throw toolError('USAGE', `the failing tests lie in ${testPackages.length} test packages (${testPackages.join(', ')}); a config names at most ${MAX_TEST_PACKAGES}`, { hint: 'run admit init for the tests of at most four packages at a time, with another --out' })

  const manifestEntry = byPath.get(REGISTER_MANIFEST_PATH)
  if (manifestEntry === undefined) {
    throw toolError('REGISTER_MANIFEST_MISSING', `no ${REGISTER_MANIFEST_PATH} at HEAD ${sha.slice(0, 12)}; nothing was written`, { path: REGISTER_MANIFEST_PATH, hint: `commit this one line as ${REGISTER_MANIFEST_PATH} in ${o.sourceRoot} (admit reads it from the commit, never from the working tree), then run admit init again: ${MINIMAL_MANIFEST}` })
  }
  const manifest = parseDocument('register-manifest', await readBlob(o.sourceRoot, manifestEntry), `register manifest ${REGISTER_MANIFEST_PATH} at ${sha.slice(0, 12)}`, 'REGISTER_MANIFEST_INVALID')
  const taskLabel = taskLabelFor(manifest)

  const allowed = o.allowedFiles.length > 0 ? [...o.allowedFiles] : await proposeAllowedFiles(kind, o.sourceRoot, targets, entries, byPath)
  if (allowed.length === 0) throw toolError('ALLOWED_FILE_INVALID', `found no ${SOURCE_EXTENSIONS[kind].join(' ')} source file for ${testPackages.join(', ')}; nothing was written`, { path: '/allowed_files', hint: 'name the files a fix may edit with --allowed-file PATH (repeatable)' })

  const policyPath = join(o.out, 'routing-policy.json')
  const p = o.provider
  let token: string
  try {
    token = sha256File(p.tokenCommand).sha256
  } catch {
    throw toolError('TOKEN_HELPER_MISMATCH', `token helper ${p.tokenCommand} cannot be read`, { path: '/provider/token_command' })
  }
  const config: ExecutionConfig = {
    version: 1,
    source_root: o.sourceRoot,
    source_sha: sha,
    state_dir: o.stateDir,
    runner: { kind, package_roots: packageRootsFor(allowed) },
    allowed_files: allowed,
    test_packages: testPackages,
    timeout_seconds: INIT_DEFAULTS.timeout_seconds,
    max_patch_bytes: INIT_DEFAULTS.max_patch_bytes,
    repair_policy: policyPath,
    provider: {
      base_url: p.baseUrl,
      token_command: p.tokenCommand,
      token_command_sha256: token,
      model: p.model,
      max_output_tokens: INIT_DEFAULTS.max_output_tokens,
      max_input_bytes: INIT_DEFAULTS.max_input_bytes,
      ...(p.caFile === undefined ? {} : { ca_file: p.caFile }),
    },
  }
  assertValid('execution', config, 'admit init: the execution config', 'CONFIG_INVALID')
  // admit run's own rules, so a config init writes is one admit run accepts.
  checkConfigRules(config)
  checkStateOutsideSource(config, info.commonDir)
  checkOutsideSandboxView(config)
  checkAllowedFilesInTree(config, byPath)
  checkTestPackagesInTree(config, entries)

  const policy: RoutingPolicy = {
    version: 1,
    cost_ceiling_usd: INIT_DEFAULTS.cost_ceiling_usd,
    routes: [{
      case_kind: 'test_failure',
      task_label: taskLabel,
      model: p.model,
      estimated_input_tokens: INIT_DEFAULTS.estimated_input_tokens,
      estimated_output_tokens: INIT_DEFAULTS.estimated_output_tokens,
      usd_per_million_input_tokens: INIT_DEFAULTS.usd_per_million_input_tokens,
      usd_per_million_output_tokens: INIT_DEFAULTS.usd_per_million_output_tokens,
    }],
  }
  assertValid('routing-policy', policy, 'admit init: the routing policy', 'INTERNAL')
  const cases: Case[] = targets.map(t => {
    const base = { kind: 'test_failure' as const, id: t.identity, test: { package: t.pkg, name: t.identity } }
    return { ...base, input_sha256: caseInputSha256(base) }
  })
  const report: SuiteReport = { version: 1, generated_at: io.now().toISOString(), cases }
  assertValid('suite-report', report, 'admit init: the suite report', 'USAGE')

  const exact = (bytes: string) => (current: Buffer): boolean => current.toString('utf8') === bytes
  const files: Planned[] = [
    { name: 'execution.json', path: join(o.out, 'execution.json'), bytes: jsonFileBytes(config), same: exact(jsonFileBytes(config)) },
    { name: 'routing-policy.json', path: policyPath, bytes: jsonFileBytes(policy), same: exact(jsonFileBytes(policy)) },
    { name: 'report.json', path: join(o.out, 'report.json'), bytes: jsonFileBytes(report), same: current => sameReport(report, current) },
  ]
  const writes: Planned[] = []
  for (const f of files) {
    const current = readExisting(join(outDir, f.name), f.path)
    if (current === undefined || o.force) writes.push(f)
    else if (!f.same(current)) throw toolError('INIT_FILE_EDITED', `${f.path} exists and differs from what admit init writes now (edited, or the checkout moved on); nothing was written`, { path: f.path, hint: 'keep your edits and run admit run, or pass --force to replace all three files' })
  }
  for (const f of writes) writePlainFileAtomic(join(outDir, f.name), f.bytes)
  io.stderr.write([
    ...files.map(f => `admit init: ${writes.includes(f) ? 'wrote' : 'unchanged'} ${f.path}`),
    `admit init: source_sha ${sha}, runner ${kind}, test_packages ${testPackages.join(' ')}`,
    `admit init: allowed_files (the files the model may edit; review them in execution.json): ${allowed.join(' ')}`,
    '',
  ].join('\n'))
  return { exit: EXIT.OK }
}

/** An existing output file's bytes, or undefined; a symlink or non-file is refused. */
function readExisting (real: string, shown: string): Buffer | undefined {
  let st
  try { st = lstatSync(real) } catch { return undefined }
  if (!st.isFile()) throw toolError('OUTPUT_UNSAFE', `${shown} exists and is not a regular file; refusing to replace it`, { path: shown })
  return readFileSync(real)
}
