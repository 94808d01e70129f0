// The go runner's private GOCACHE (DESIGN §9, §11): a size- and entry-capped tmpfs mounted by
// the supervisor (root) for one run, with, when the operator names a build cache
// (runner.go_build_cache), a kernel overlay stacked on the same path: lowerdir = that cache,
// never written (overlayfs writes only its upper layer), upperdir/workdir on the tmpfs. The
// overlay covers the tmpfs, so no host path reaches the upper layer except through the
// overlay itself. Seeding is two mounts and a chown of the cache's top-level directories (go's
// 256 `XX/` shards): a metadata copy-up that does not depend on how many files the cache
// holds. Teardown is lazy unmounts (MNT_DETACH): nothing is walked, so a full cap or a
// directory chain deeper than PATH_MAX costs nothing to remove. What a run writes lands in RAM
// (charged to the sandbox's memory cgroup), capped by the tmpfs, never on the state filesystem.
//
// Without a build cache, or where the overlay cannot be mounted, the run gets the bare capped
// tmpfs: cold, with every other guarantee, and the record says why.

import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, statfsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { toolError } from '../errors.ts'
import { run, runSync } from '../spawn.ts'
import { untilEndingSignal } from '../ending-signals.ts'
import { decodeMountinfoField } from '../sandbox/mountinfo.ts'

const MOUNT = '/usr/bin/mount'
const UMOUNT = '/usr/bin/umount'
const MOUNT_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' }

/** The caps of one run's private GOCACHE: tmpfs size= and nr_inodes=. */
export interface GoCacheCaps {
  bytes: number
  entries: number
}

/**
 * The CLI's caps: 1 GiB and 200,000 entries, what a cold build of a large module with a
 * rebuilt standard library writes several times over (its pages count against the sandbox's
 * 4 GiB memory limit, beside the 1 GiB /tmp).
 */
export const GO_CACHE_CAPS: Readonly<GoCacheCaps> = Object.freeze({ bytes: 1024 ** 3, entries: 200_000 })

export interface MountedGoCache {
  /** The path bound into the sandbox as GOCACHE (the overlay's merged view, or the tmpfs). */
  dir: string
  /** The operator's build cache the overlay shows beneath the run's writes, when it does. */
  seededFrom?: string
  method?: 'overlay'
  /** Why the run is cold (no cache configured, the overlay could not be mounted). */
  note?: string
  /** The tmpfs's usage right after seeding: what the run wrote is the difference at the end. */
  base: { bytes: number, entries: number }
}

/** What the run wrote into its private layer (tmpfs usage above the seeding's), read before unmounting. */
export function goCacheWritten (m: MountedGoCache): { files: number, bytes: number } {
  try {
    const s = statfsSync(tmpfsPath(m))
    return { files: Math.max(0, (s.files - s.ffree) - m.base.entries), bytes: Math.max(0, (s.blocks - s.bfree) * s.bsize - m.base.bytes) }
  } catch {
    return { files: 0, bytes: 0 }
  }
}

// The overlay hides the tmpfs; statfs of the merged view reports the upper filesystem (the tmpfs).
const tmpfsPath = (m: MountedGoCache): string => m.dir

async function mountCmd (args: readonly string[], cwd?: string): Promise<string | undefined> {
  const r = await run(MOUNT, args, { env: MOUNT_ENV, timeoutMs: 10_000, ...(cwd === undefined ? {} : { cwd }) })
  if (r.exitCode === 0) return undefined
  return (r.spawnError ?? r.stderr.toString('utf8').trim().split('\n').slice(-2).join(' / ')) || `mount exited ${String(r.exitCode ?? r.signal)}`
}

/**
 * Mounts the private GOCACHE of one run at `dir` (created here, on the caller's scratch) for
 * the sandbox user uid/gid, capped by `caps`; with `lower`, the overlay over it. Needs root.
 * Throws SANDBOX_UNAVAILABLE when even the tmpfs cannot be mounted (nothing is left mounted).
 */
export async function mountGoCache (dir: string, lower: string | undefined, uid: number, gid: number, caps: GoCacheCaps = GO_CACHE_CAPS): Promise<MountedGoCache> {
  if ((process.geteuid?.() ?? 0) !== 0) {
    throw toolError('SANDBOX_UNAVAILABLE', 'the go runner\'s private GOCACHE is a capped tmpfs the supervisor mounts: it needs root', { hint: 'run the tools as root; they drop to uid 65534 for the tests' })
  }
  mkdirSync(dir, { mode: 0o700 })
  // Only root traverses the tmpfs while it is being set up; private: nothing mounted on it
  // propagates to another mount namespace.
  const opts = `size=${caps.bytes},nr_inodes=${caps.entries},mode=0700,uid=0,gid=0,nosuid,nodev`
  const failed = await mountCmd(['--make-private', '-t', 'tmpfs', '-o', opts, 'repairline-gocache', dir])
  if (failed !== undefined) {
    try { rmdirSync(dir) } catch {}
    throw toolError('SANDBOX_UNAVAILABLE', `cannot mount the private GOCACHE (tmpfs) on ${dir}: ${failed}`)
  }
  // A tool ended by SIGINT, SIGTERM or SIGHUP detaches it on its way out: its pages are RAM.
  ending.set(dir, untilEndingSignal(() => { unmountAllSync(dir) }))
  const base = (): { bytes: number, entries: number } => {
    const s = statfsSync(dir)
    return { bytes: (s.blocks - s.bfree) * s.bsize, entries: s.files - s.ffree }
  }
  const cold = (note: string): MountedGoCache => {
    chownSync(dir, uid, gid)
    chmodSync(dir, 0o700)
    return { dir, note, base: base() }
  }
  try {
    if (lower === undefined) return cold('cold: no runner.go_build_cache configured')
    const rw = join(dir, 'rw')
    mkdirSync(join(rw, 'upper'), { recursive: true, mode: 0o700 })
    mkdirSync(join(rw, 'work'), { mode: 0o700 })
    // The merged root takes the upper root's owner and mode: the sandbox user's, 0700.
    chownSync(join(rw, 'upper'), uid, gid)
    chmodSync(join(rw, 'upper'), 0o700)
    // Relative layer paths, resolved from mount's cwd (the tmpfs root): the overlay's option
    // string separates on ',' and ':', which an operator's or state path may hold.
    symlinkSync(lower, join(dir, 'lower'))
    const overlay = await mountCmd(['-t', 'overlay', '-o', 'lowerdir=lower,upperdir=rw/upper,workdir=rw/work', 'repairline-gocache', dir], dir)
    if (overlay !== undefined) {
      await unmountAll(dir)
      await mountCmd(['--make-private', '-t', 'tmpfs', '-o', opts, 'repairline-gocache', dir]).then(f => { if (f !== undefined) throw toolError('SANDBOX_UNAVAILABLE', `cannot mount the private GOCACHE (tmpfs) on ${dir}: ${f}`) })
      return cold(`cold: the overlay over ${lower} could not be mounted: ${overlay}`)
    }
    const b = base()
    chownShards(dir, uid, gid)
    return { dir, seededFrom: lower, method: 'overlay', base: b }
  } catch (e) {
    await releaseGoCache({ dir })
    throw e
  }
}

/**
 * Gives the sandbox user the cache's top-level directories (go's `XX/` shards) that everyone
 * may list: a copy-up of each directory's metadata, none of its files, so go can add and
 * replace entries. A directory others may not list stays root's: chowning it would show the
 * sandbox user what the operator's uid 65534 could not see. Files stay as the cache has them:
 * read-only to the sandbox user unless world-writable, and then a write copies up.
 */
function chownShards (dir: string, uid: number, gid: number): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue
    const p = join(dir, e.name)
    if ((statSync(p).mode & 0o005) !== 0o005) continue
    chownSync(p, uid, gid)
  }
}

/** Mount points at or under `dir` in this process's mount namespace, in mountinfo order. */
export function mountsUnder (dir: string): string[] {
  const out: string[] = []
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ')
    if (f.length < 5) continue
    const mp = decodeMountinfoField(f[4] ?? '')
    if (mp === dir || mp.startsWith(`${dir}/`)) out.push(mp)
  }
  return out
}

/**
 * Detaches every mount at or under `dir` (umount -l, the last mounted first: a stacked
 * overlay before its tmpfs; one umount for all of them, each target resolved to the top
 * mount when its turn comes). Returns why something is still mounted, or undefined. Never
 * throws: a cleanup failure is reported, it never replaces a run's verdict.
 */
export async function unmountAll (dir: string): Promise<string | undefined> {
  let last: string | undefined
  for (let i = 0; i < 8; i++) {
    let mounted: string[]
    try { mounted = mountsUnder(dir) } catch (e) { return `cannot read the mount table: ${(e as Error).message}` }
    if (mounted.length === 0) return undefined
    const r = await run(UMOUNT, ['-l', '--', ...mounted.reverse()], { env: MOUNT_ENV, timeoutMs: 10_000 })
    if (r.exitCode !== 0) last = `umount -l: ${r.spawnError ?? r.stderr.toString('utf8').trim()}`
  }
  return last ?? `mounts remain under ${dir}`
}

/** The ending-signal registrations of the GOCACHEs this process has mounted, by mount point. */
const ending = new Map<string, () => void>()

/** unmountAll's one pass, synchronous: for a signal's handler. */
function unmountAllSync (dir: string): void {
  const mounted = mountsUnder(dir)
  if (mounted.length > 0) runSync(UMOUNT, ['-l', '--', ...mounted.reverse()], { env: MOUNT_ENV, timeoutMs: 10_000 })
}

/** Unmounts one run's GOCACHE and removes its mount point; returns why not, never throws. */
export async function releaseGoCache (m: { dir: string }): Promise<string | undefined> {
  const why = await unmountAll(m.dir)
  if (why !== undefined) return why
  ending.get(m.dir)?.()
  ending.delete(m.dir)
  try { rmdirSync(m.dir) } catch (e) { return `cannot remove ${m.dir}: ${(e as Error).message}` }
  return undefined
}
