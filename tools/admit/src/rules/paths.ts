// Filesystem facts of the config: state_dir's parent exists and state_dir (if present) is a
// directory we own; neither it nor source_root is in a directory the sandbox shows; ca_file is what ask-provider accepts (core's readCaFile); the optional mounts are directories the
// sandbox user (uid/gid 65534, no other groups) can read, judged as the kernel will: on the
// directory a symlink leads to, by its owner, group and other bits, every ancestor searchable.

import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { ExecutionConfig } from '@repairline/schemas'
import { readCaFile, SANDBOX_GID, SANDBOX_UID, sandboxSystemDirs, toolError, unreachableBy, pathWithin } from '@repairline/core'

/**
 * source_root and state_dir hold no control character: git reports the checkout's top one
 * line per path, and every message and record names them on one line.
 */
export function checkPathCharacters (config: ExecutionConfig): void {
  for (const [field, value] of [['source_root', config.source_root], ['state_dir', config.state_dir]] as const) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) throw toolError('CONFIG_INVALID', `${field} ${JSON.stringify(value)} holds a control character`, { path: `/${field}` })
  }
}

export function checkStateDir (config: ExecutionConfig): void {
  const dir = config.state_dir
  const path = '/state_dir'
  try {
    if (!statSync(dirname(dir)).isDirectory()) throw new Error('not a directory')
  } catch {
    throw toolError('STATE_DIR_INVALID', `state_dir's parent ${dirname(dir)} does not exist`, { path })
  }
  let st
  try { st = lstatSync(dir) } catch { st = undefined }
  if (st !== undefined) {
    if (st.isSymbolicLink()) throw toolError('STATE_DIR_INVALID', `state_dir ${dir} is a symlink`, { path })
    if (!st.isDirectory()) throw toolError('STATE_DIR_INVALID', `state_dir ${dir} is not a directory`, { path })
    if (st.uid !== (process.geteuid?.() ?? 0)) throw toolError('STATE_DIR_INVALID', `state_dir ${dir} is owned by uid ${st.uid}, not by us`, { path })
  }
  // The sandbox user mounts work trees from state_dir/attempts/<key>/work: it must be able to
  // traverse every directory above them (state_dir itself is created 0711).
  for (let p = st === undefined ? dirname(dir) : dir; ; p = dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) {
      throw toolError('STATE_DIR_INVALID', `state_dir ${dir}: ${p} cannot be searched by other users, so the sandbox user (uid 65534) could not reach the work trees under it`, { path, hint: `chmod o+x ${p}, or put state_dir somewhere every user can traverse` })
    }
    if (p === '/') break
  }
}

/**
 * The checkout is never written: state_dir (checked by checkStateDir) may not lie in the
 * checkout at source_root (it would also make the next admit's checkout dirty), nor hold it;
 * nor in the repository's git directory (`commonDir`, git's --git-common-dir), which a linked
 * worktree keeps outside its checkout. Compared as the kernel resolves them.
 */
export function checkStateOutsideSource (config: ExecutionConfig, commonDir: string): void {
  const dir = config.state_dir
  const state = realStateDir(dir)
  const source = realpathSync(config.source_root)
  if (within(state, source) || within(source, state)) {
    throw toolError('STATE_DIR_INVALID', `state_dir ${dir} ${within(state, source) ? 'is inside' : 'holds'} source_root ${config.source_root}: repairline never writes into the checkout`, { path: '/state_dir', hint: 'put state_dir outside the repository' })
  }
  const git = realpathSync(commonDir)
  if (within(state, git) || within(git, state)) {
    throw toolError('STATE_DIR_INVALID', `state_dir ${dir} ${within(state, git) ? 'is inside' : 'holds'} the repository's git directory ${git}: repairline never writes into the repository`, { path: '/state_dir', hint: 'put state_dir outside the repository' })
  }
}

/** state_dir as the kernel resolves it, whether it exists yet or not (checkStateDir ran: its parent exists). */
function realStateDir (dir: string): string {
  return existsSync(dir) ? realpathSync(dir) : join(realpathSync(dirname(dir)), basename(dir))
}

/**
 * DESIGN §11: the sandbox shows /usr, the loader paths, the toolchain (Node's prefix or
 * GOROOT) and the work tree, nothing else. A checkout inside one of those directories (one in
 * /usr/local/src) is visible to the tests at its own path, .git and ignored, never-committed
 * files such as .env included, and what a test reads can leave through its name; a state root
 * there shows every other attempt. One that holds such a directory shows itself in part. The
 * mounts the config adds (go_mod_cache, go_build_cache, dependency_dir) may lie in the checkout (its own
 * node_modules), but neither the checkout nor the state root may lie in them. Compared by real
 * path; `systemDirs` defaults to this host's for the config's runner.
 */
export function checkOutsideSandboxView (config: ExecutionConfig, systemDirs: readonly string[] = sandboxSystemDirs(config.runner.kind)): void {
  const mounts = [config.runner.go_mod_cache, config.runner.go_build_cache, config.runner.dependency_dir].flatMap(m => {
    if (m === undefined) return []
    try { return [realpathSync(m)] } catch { return [] }
  })
  const shown = [...new Set([...systemDirs, ...mounts])]
  for (const [field, value, real] of [['source_root', config.source_root, realpathSync(config.source_root)], ['state_dir', config.state_dir, realStateDir(config.state_dir)]] as const) {
    const code = field === 'state_dir' ? 'STATE_DIR_INVALID' : 'CONFIG_INVALID'
    const opts = { path: `/${field}`, hint: `put ${field} outside ${shown.join(', ')}: the sandbox shows those directories to the tests` }
    for (const d of shown) {
      if (within(real, d)) throw toolError(code, `${field} ${value} is inside ${d}, which the sandbox shows to the tests: they could read ${field === 'source_root' ? 'the checkout, .git and ignored files included' : 'every attempt in it'}`, opts)
    }
    for (const d of systemDirs) {
      if (within(d, real)) throw toolError(code, `${field} ${value} holds ${d}, which the sandbox shows to the tests: they could read that part of it`, opts)
    }
  }
}

/** True when `path` is `dir` or below it (both normalized absolute paths). */
export const within = pathWithin

/** provider.ca_file, when set, is one ask-provider will accept (a refusal there would come after the key is consumed). */
export function checkCaFile (config: ExecutionConfig): void {
  const ca = config.provider.ca_file
  if (ca === undefined) return
  const r = readCaFile(ca)
  if (!r.ok) throw toolError('CONFIG_INVALID', r.message, { path: '/provider/ca_file' })
}

/** Why the sandbox user cannot reach and list directory `dir` (after its symlinks), or undefined. */
export function unreadableBySandbox (dir: string): string | undefined {
  let real: string
  try { real = realpathSync(dir) } catch { return 'does not exist' }
  if (!statSync(real).isDirectory()) return 'is not a directory'
  const why = unreachableBy(real, SANDBOX_UID, SANDBOX_GID)
  if (why === undefined) return undefined
  return real === dir ? why : `leads to ${real}, which ${why}`
}

export function checkMounts (config: ExecutionConfig): void {
  for (const [field, dir] of [['go_mod_cache', config.runner.go_mod_cache], ['dependency_dir', config.runner.dependency_dir]] as const) {
    if (dir === undefined) continue
    const why = unreadableBySandbox(dir)
    if (why !== undefined) throw toolError('MOUNT_UNREADABLE', `runner.${field} ${dir} ${why}`, { path: `/runner/${field}`, hint: 'the sandbox runs as an unprivileged user (uid 65534) and mounts it read-only' })
  }
}

/**
 * runner.go_build_cache, when set, is a directory the sandbox user reaches through its whole
 * path: its contents become readable to the tests (shown beneath each run's private GOCACHE),
 * so it may hold only what the operator's uid 65534 could read anyway. A cache under a 0700
 * home (root's ~/.cache/go-build) is refused, never exposed.
 */
export function checkGoBuildCache (config: ExecutionConfig): void {
  const dir = config.runner.go_build_cache
  if (dir === undefined) return
  const why = unreadableBySandbox(dir)
  if (why !== undefined) {
    throw toolError('MOUNT_UNREADABLE', `runner.go_build_cache ${dir} ${why}`, {
      path: '/runner/go_build_cache',
      hint: 'name a build cache for this project that uid 65534 can reach (every ancestor o+x, the directory o+rx), e.g. GOCACHE=/var/cache/repairline/<project>/go-build go build ./...: the tests can read everything in it',
    })
  }
}
