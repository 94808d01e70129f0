// The sandbox launcher (tools/core/native/sandbox-launch.c; docs/sandbox-lifetime.md). The
// supervisor spawns it, not prlimit: it forks the launch chain, whose first process writes
// itself into the run's cgroups before it execs prlimit -> setpriv -> bwrap, so every process
// of a run is in the run's cgroups from its first instruction, and an abort at any moment
// kills the whole run by killing the cgroups. The launcher itself (the "watch") stays the
// supervisor's child, outside the cgroups, relays the chain's exit status, and, if the
// supervisor dies without its teardown (SIGKILL, the OOM killer), kills every task in the
// cgroups and removes them: it holds a pidfd of the supervisor that names the live parent.
//
// There is no fallback without it: a run whose processes could escape its cgroups is refused
// (SANDBOX_UNAVAILABLE), as a missing bwrap is.

import { existsSync } from 'node:fs'
import { basename, dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toolError } from '../errors.ts'

/** The launcher's file name in dist/ and every tool's dist/ (scripts/build.ts compiles it). */
export const SANDBOX_LAUNCHER = 'sandbox-launch'

/** The launcher's status when the chain could not be started or placed, or its supervisor died. */
export const LAUNCHER_FAILED = 125

const SOURCE_SUFFIX = ['tools', 'core', 'src', 'sandbox', 'launcher.ts'].join(sep)

/**
 * Where the launcher is: beside the bundle that runs this module (tools/<tool>/dist/, also
 * for a module split into its chunks/), or, when the sources run (tests, tsx), in the
 * repository's dist/.
 */
export function defaultLauncherPath (): string {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith(SOURCE_SUFFIX)) return join(here.slice(0, -SOURCE_SUFFIX.length), 'dist', SANDBOX_LAUNCHER)
  const dir = dirname(here)
  return join(basename(dir) === 'chunks' ? dirname(dir) : dir, SANDBOX_LAUNCHER)
}

/** The launcher at `path`, or a refusal: without it a run's processes could outlive the run. */
export function assertLauncher (path: string): string {
  if (!existsSync(path)) {
    throw toolError('SANDBOX_UNAVAILABLE', `the sandbox launcher ${path} is missing: without it a sandbox could outlive its supervisor`, { hint: 'build with a C compiler (cc or gcc) installed: pnpm run build' })
  }
  return path
}

/** The argv that starts `chain` (prlimit … bwrap … command) placed in `cgroupDirs`. */
export function launcherArgv (launcher: string, supervisorPid: number, cgroupDirs: readonly string[], chain: readonly string[]): string[] {
  return [launcher, String(supervisorPid), String(cgroupDirs.length), ...cgroupDirs, ...chain]
}
