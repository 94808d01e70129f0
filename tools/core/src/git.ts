// Hermetic git (DESIGN §8): every git process runs with a cleared environment (no HOME, no
// system or global config, replace refs off) and with the repository's own hooks and
// fsmonitor disabled on the command line, which outranks repository config. Nothing here
// reads the working tree except `status`, which proves the checkout is clean; it also runs
// with every filter driver of the repository's config emptied, since git re-hashes a
// stat-dirty file through the clean filter .gitattributes selects.

import { existsSync, readdirSync } from 'node:fs'
import { join, isAbsolute } from 'node:path'
import { run, runToFd, spawnStreaming, type RunResult, type StreamingChild, type ToFdResult } from './spawn.ts'
import { hasErrno, toolError, type ToolError } from './errors.ts'

/** The complete environment git runs with. */
export const GIT_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
  // The value `--config-env` gives a key that must be empty (see assertClean); git reads an
  // empty value as "no command" for a filter and as false for `required`.
  REPAIRLINE_GIT_EMPTY: '',
})

/**
 * Every transport git or an installed remote helper speaks. `protocol.allow=never` is only the
 * default for a protocol the config does not name: a repository's own
 * `protocol.<name>.allow=always` outranks it, and the command line outranks that.
 */
const PROTOCOLS = ['ext', 'fd', 'file', 'ftp', 'ftps', 'git', 'http', 'https', 'ssh'] as const

/** Global options placed before every git subcommand. */
export function gitPrefix (repo: string): string[] {
  return [
    '--no-replace-objects', '--no-optional-locks', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.untrackedCache=false',
    '-c', 'protocol.allow=never', ...PROTOCOLS.flatMap(p => ['-c', `protocol.${p}.allow=never`]), '-C', repo,
  ]
}

export const GIT_BIN = '/usr/bin/git'

/**
 * How long one git command may run before it is killed. The plumbing reads a tree within the
 * bounds (20,000 entries, 16 MiB) in well under a second; a git that blocks (a repository
 * config whose include.path is a FIFO, a hung network filesystem) must not hang a step, and
 * with it the state lock, past any deadline.
 */
export const GIT_TIMEOUT_MS = 30_000

/** Runs one git command in `repo`; returns its raw result (never throws for a git failure). */
export async function git (repo: string, args: readonly string[], opts: { input?: Uint8Array | string, maxBuffer?: number, stopAfter?: { byte: number, max: number }, env?: Readonly<Record<string, string>> } = {}): Promise<RunResult> {
  // opts.env adds variables (commit-tree's fixed identity and dates); it never replaces GIT_ENV's.
  return await run(GIT_BIN, [...gitPrefix(repo), ...args], { env: { ...opts.env, ...GIT_ENV }, input: opts.input, maxBuffer: opts.maxBuffer, timeoutMs: GIT_TIMEOUT_MS, ...(opts.stopAfter === undefined ? {} : { stopAfter: opts.stopAfter }) })
}

/** What ended a git command that failed, for a one-line message: a timeout, a spawn error, stderr's first line or the status. */
export function gitFailure (r: { exitCode: number | undefined, signal: string | undefined, spawnError: string | undefined, stderr: Buffer, timedOut: boolean }): string {
  if (r.timedOut) return `it did not finish within ${GIT_TIMEOUT_MS / 1000} s and was killed (does the repository's config or object store hold a FIFO or a path that blocks?)`
  return r.spawnError ?? (r.stderr.toString('utf8').trim().split('\n')[0] || (r.signal ?? `exit ${String(r.exitCode)}`))
}

/**
 * git's own advice for a checkout another user owns (`git config --global --add
 * safe.directory`) cannot work here: git runs without the global config (GIT_ENV).
 */
const DUBIOUS_OWNERSHIP_HINT = "the checkout is owned by another user, and repairline runs git without your global config, so a safe.directory set there does not apply: run repairline as the checkout's owner, or make that user its owner"

/**
 * Runs git and returns stdout, or throws `code` with git's first stderr line; a git that was
 * killed at GIT_TIMEOUT_MS is GIT_FAILED whatever `code` is (it said nothing about the repository).
 */
export async function gitOk (repo: string, args: readonly string[], what: string, code: 'SOURCE_NOT_GIT' | 'SOURCE_SHA_UNKNOWN' | 'GIT_FAILED' | 'INTERNAL' = 'SOURCE_NOT_GIT', opts: { input?: Uint8Array | string, maxBuffer?: number, env?: Readonly<Record<string, string>> } = {}): Promise<Buffer> {
  const r = await git(repo, args, opts)
  if (r.exitCode !== 0) throw toolError(r.timedOut ? 'GIT_FAILED' : code, `${what}: git ${args[0] ?? ''} failed: ${gitFailure(r)}`, r.stderr.includes('detected dubious ownership') ? { hint: DUBIOUS_OWNERSHIP_HINT } : {})
  return r.stdout
}

/** Starts a streaming git process (cat-file --batch) in `repo` under the hermetic environment. */
export function gitStreaming (repo: string, args: readonly string[]): StreamingChild {
  return spawnStreaming(GIT_BIN, [...gitPrefix(repo), ...args], { env: { ...GIT_ENV } })
}

/** Runs git in `repo` under the hermetic environment with stdout written to `stdoutFd` (stdin: runToFd's). */
export async function gitToFd (repo: string, args: readonly string[], stdin: number | Uint8Array | string, stdoutFd: number, o: { signal?: AbortSignal } = {}): Promise<ToFdResult> {
  return await runToFd(GIT_BIN, [...gitPrefix(repo), ...args], { env: { ...GIT_ENV }, stdin, stdoutFd, timeoutMs: GIT_TIMEOUT_MS, ...o })
}

export interface RepoInfo {
  /** The checkout's top-level directory. */
  top: string
  /** The common git directory (objects, refs, info). */
  commonDir: string
}

/**
 * Checks `root` is the top of a git checkout that names its objects by SHA-1 and returns its
 * directories. A sha256 repository is not usable: source_sha is a 40-hex SHA-1 id (there,
 * only an abbreviation git would expand) and every blob is rehashed with SHA-1.
 */
export async function repoInfo (root: string): Promise<RepoInfo> {
  const out = (await gitOk(root, ['rev-parse', '--show-toplevel', '--git-common-dir', '--show-object-format'], `source_root ${root}`)).toString('utf8').split('\n')
  const top = out[0] ?? ''
  let commonDir = out[1] ?? ''
  const format = out[2] ?? ''
  if (!isAbsolute(commonDir)) commonDir = join(top, commonDir)
  if (top !== root) throw toolError('SOURCE_NOT_GIT', `source_root ${root} is not the top of its checkout (${top})`, { path: '/source_root' })
  if (format !== 'sha1') throw toolError('SOURCE_NOT_GIT', `source_root ${root} uses the ${format} object format: expected sha1 (source_sha is a 40-hex SHA-1 commit id)`, { path: '/source_root', hint: 'run repairline on a SHA-1 repository' })
  return { top, commonDir }
}

/**
 * `git config -z --get-regexp` of the repository's config (includes followed; system and
 * global config are off): `key\nvalue` records, NUL-terminated; empty when no key matches.
 */
async function configMatching (root: string, regexp: string): Promise<Buffer> {
  const r = await git(root, ['config', '-z', '--get-regexp', regexp])
  // Exit 1 with no output: no key matched.
  if (r.exitCode === 1 && r.stdout.length === 0 && r.spawnError === undefined) return Buffer.alloc(0)
  if (r.exitCode !== 0) throw toolError('SOURCE_NOT_GIT', `source_root ${root}: git config failed: ${r.spawnError ?? r.stderr.toString('utf8').trim().split('\n')[0] ?? ''}`)
  return r.stdout
}

/**
 * Refuses repositories whose objects may come from elsewhere or whose history is cut:
 * alternates, grafts, a shallow file, or a partial clone (a promisor remote: git fetches a
 * missing object from it on first read, running whatever transport its config names and
 * writing into .git) (shared metadata, DESIGN §8). Runs before any git command that reads an
 * object.
 */
export async function assertNoSharedMetadata (root: string, info: RepoInfo, config?: Promise<Buffer>): Promise<void> {
  const refuse = (what: string): never => {
    throw toolError('TREE_SHARED_METADATA', `the repository has ${what}: objects or history are shared with another repository`, { hint: 'run repairline on a standalone, full clone' })
  }
  for (const rel of ['objects/info/alternates', 'objects/info/http-alternates', 'info/grafts', 'shallow']) {
    if (existsSync(join(info.commonDir, rel))) refuse(rel)
  }
  let packs: string[] = []
  try {
    packs = readdirSync(join(info.commonDir, 'objects', 'pack'))
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw toolError('SOURCE_NOT_GIT', `source_root ${root}: cannot list ${join(info.commonDir, 'objects', 'pack')}: ${(e as Error).message}`)
  }
  const promisorPack = packs.find(name => name.endsWith('.promisor'))
  if (promisorPack !== undefined) refuse(`objects/pack/${promisorPack} (a partial clone's promisor pack)`)
  // `config`, when given, was started beside repoInfo and is observed by its caller; else it starts now.
  for (const record of (await (config ?? promisorConfig(root))).toString('utf8').split('\0').filter(Boolean)) {
    const nl = record.indexOf('\n')
    const key = nl === -1 ? record : record.slice(0, nl)
    // A key without a value is true; git's false spellings (an empty value included) are false.
    const value = nl === -1 ? undefined : record.slice(nl + 1).toLowerCase()
    if (key === 'extensions.partialclone') refuse('extensions.partialClone set (a partial clone)')
    if (value === undefined || !['false', 'no', 'off', '0', ''].includes(value)) refuse(`${key} set (a partial clone's promisor remote)`)
  }
}

/**
 * The repository config's partial-clone keys, for assertNoSharedMetadata. `git config` reads
 * no object, so it may start beside repoInfo (extract-tree does: one git start less in turn).
 */
export async function promisorConfig (root: string): Promise<Buffer> {
  return await configMatching(root, '^extensions\\.partialclone$|^remote\\..*\\.promisor$')
}

/** Resolves a full 40-hex id to a commit, refusing short, unknown or non-commit ids. */
export async function assertCommit (root: string, sha: string): Promise<void> {
  if (!/^[0-9a-f]{40}$/.test(sha)) throw toolError('SOURCE_SHA_UNKNOWN', `source_sha must be a full 40-hex commit id, got ${JSON.stringify(sha)}`, { path: '/source_sha' })
  const r = await git(root, ['cat-file', '-t', sha])
  const type = r.stdout.toString('utf8').trim()
  if (r.exitCode !== 0) throw toolError('SOURCE_SHA_UNKNOWN', `source_sha ${sha} is not an object in ${root}`, { path: '/source_sha' })
  if (type !== 'commit') throw toolError('SOURCE_SHA_UNKNOWN', `source_sha ${sha} is a ${type}, not a commit`, { path: '/source_sha' })
}

/**
 * The names of the filter drivers the repository's config defines (includes followed; system
 * and global config are off), e.g. `lfs` for `filter.lfs.clean`.
 */
export async function filterDrivers (root: string): Promise<string[]> {
  const out = await configMatching(root, '^filter\\.')
  const names = new Set<string>()
  for (let start = 0; start < out.length;) {
    const end = out.indexOf(0, start) === -1 ? out.length : out.indexOf(0, start)
    // -z prints `key\nvalue` (or `key` alone for a key without a value); the subsection, the
    // driver name, is what lies between `filter.` and the last dot, dots and `=` included.
    const record = out.subarray(start, end)
    const nl = record.indexOf(0x0a)
    const keyBytes = nl === -1 ? record : record.subarray(0, nl)
    const key = keyBytes.toString('utf8')
    // argv is UTF-8: a name that is not cannot be named on the command line, so not disabled.
    if (!Buffer.from(key, 'utf8').equals(keyBytes)) throw toolError('SOURCE_NOT_GIT', `source_root ${root}: the repository config defines a filter driver whose name is not UTF-8 (${JSON.stringify(key)}); it could not be disabled`, { path: '/source_root', hint: 'remove that filter driver from the repository config (git config --remove-section)' })
    const last = key.lastIndexOf('.')
    if (last > 'filter.'.length) names.add(key.slice('filter.'.length, last))
    start = end + 1
  }
  return [...names].sort()
}

/**
 * Global options that disable every named filter driver: clean, smudge and process empty,
 * required false. `--config-env` splits at the last `=`, so a name holding `=` (which `-c`
 * would split at) is still one key.
 */
export function disableFilters (names: readonly string[]): string[] {
  return names.flatMap(name => ['clean', 'smudge', 'process', 'required'].map(v => `--config-env=filter.${name}.${v}=REPAIRLINE_GIT_EMPTY`))
}

/**
 * Refuses a checkout with modified, staged or untracked files (ignored files do not count).
 * git compares a file's raw bytes with its blob: the repository's filter drivers are
 * disabled (no process is started, and none can make a modified file hash to the committed
 * blob), and no git runs inside a submodule (its own config could name a filter); a
 * submodule at another commit than its gitlink still makes the checkout dirty, changes
 * inside its work tree do not. An index entry marked assume-unchanged or skip-worktree is
 * refused too: status never looks at that file, so an edit to it would not show.
 */
export async function assertClean (root: string): Promise<void> {
  const failed = (what: string, r: RunResult): ToolError => toolError('SOURCE_NOT_GIT', `source_root ${root}: git ${what} failed: ${r.spawnError ?? r.stderr.toString('utf8').trim().split('\n')[0] ?? `exit ${String(r.exitCode)}`}`)
  const dirty = (detail: string, hint: string): ToolError => toolError('CHECKOUT_DIRTY', `source_root ${root} is not clean: ${detail}`, { path: '/source_root', hint })
  const [drivers, index] = await Promise.all([filterDrivers(root), git(root, ['ls-files', '-v', '-z'])])
  if (index.exitCode !== 0) throw failed('ls-files', index)
  // -v tags each entry `<tag> <path>`: a lowercase tag is assume-unchanged, `S` (or `s`) skip-worktree.
  for (const entry of index.stdout.toString('utf8').split('\0')) {
    const tag = entry.slice(0, 1)
    const path = entry.slice(2)
    if (tag === 'S' || tag === 's') throw dirty(`${path} is marked skip-worktree in the index (git status does not look at it)`, `git update-index --no-skip-worktree -- ${path} (or disable the sparse checkout)`)
    if (tag !== tag.toUpperCase()) throw dirty(`${path} is marked assume-unchanged in the index (git status does not look at it)`, `git update-index --no-assume-unchanged -- ${path}`)
  }
  const r = await git(root, [...disableFilters(drivers), 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=dirty'])
  if (r.exitCode !== 0) throw failed('status', r)
  const out = r.stdout
  if (out.length > 0) {
    const first = out.toString('utf8').split('\0')[0] ?? ''
    throw dirty(`${first.trim()}${out.toString('utf8').split('\0').filter(Boolean).length > 1 ? ' …' : ''}`, 'commit or stash your changes; repairline reads only committed blobs but refuses a dirty checkout so the receipt can say the checkout was unchanged')
  }
}
