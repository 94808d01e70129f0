// Removing a run's scratch directory (its GOCACHE mount point, its reporter) after the run.
// Whatever a test left there, removal must not fail and must not replace the run's verdict:
// mounts under it are detached first (a run killed before its own cleanup leaves its private
// GOCACHE mounted), then the tree is removed by coreutils' rm, which walks fd-relative
// (openat/unlinkat), so a directory chain deeper than PATH_MAX is no obstacle, and which
// stays on the scratch's filesystem (--one-file-system): a mount that could not be detached
// is left alone, never emptied.

import { lstatSync } from 'node:fs'
import { hasErrno } from '../errors.ts'
import { run } from '../spawn.ts'
import { unmountAll } from './go-cache.ts'

const RM = '/bin/rm'

/**
 * Removes `dir` (mounts under it detached first). Returns why it could not, or undefined;
 * never throws, so a caller may run it in a `finally` beside a verdict.
 */
export async function removeScratch (dir: string): Promise<string | undefined> {
  try {
    lstatSync(dir)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined
    return `cannot inspect ${dir}: ${(e as Error).message}`
  }
  const mounted = (process.geteuid?.() ?? 0) === 0 ? await unmountAll(dir) : undefined
  const r = await run(RM, ['-rf', '--one-file-system', '--', dir], { env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' }, timeoutMs: 120_000 })
  const removed = r.exitCode === 0 ? undefined : `rm -rf ${dir}: ${r.spawnError ?? (r.stderr.toString('utf8').trim().split('\n')[0] ?? `exit ${String(r.exitCode ?? r.signal)}`)}`
  return [mounted, removed].filter(x => x !== undefined).join('; ') || undefined
}
