// Resolving a check command's exec (seed 004: "resolved once"), on the host, to an absolute
// program the sandbox shows: a bare name in the runner's toolchain bin directory (GOROOT/bin
// for go, Node's bin for node), then /usr/bin and /usr/sbin; an absolute path only under /usr
// or that toolchain directory. No PATH of the environment is read. admit resolves every exec
// before anything is consumed; reproduce and verify resolve it again before each run (a
// program gone since is a fault, CHECK_NOT_STARTED).

import { statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { goInstall, nodeInstall } from '../sandbox/host.ts'
import type { RunnerKind } from '../runners/run-tests.ts'

/** The toolchain directory the sandbox shows besides /usr, and its bin directory. */
function toolchainDirs (runner: RunnerKind): { root: string, bin: string } | undefined {
  try {
    if (runner === 'go') {
      const go = goInstall()
      return { root: go.goroot, bin: join(go.goroot, 'bin') }
    }
    const node = nodeInstall()
    return { root: node.prefix, bin: dirname(node.execPath) }
  } catch {
    return undefined
  }
}

function executableFile (path: string): boolean {
  try {
    const st = statSync(path)
    // The sandbox user is neither owner nor group of the host's programs.
    return st.isFile() && (st.mode & 0o005) === 0o005
  } catch {
    return false
  }
}

const under = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}/`)

/**
 * The absolute program `exec` resolves to for `runner`, or why it does not. Nothing is
 * searched but the directories the sandbox shows.
 */
export function resolveCheckExec (exec: string, runner: RunnerKind): { resolved: string } | { why: string } {
  const tc = toolchainDirs(runner)
  if (exec.startsWith('/')) {
    const p = normalize(exec)
    if (p !== exec) return { why: `${exec} is not a normalized absolute path` }
    if (!under(p, '/usr') && (tc === undefined || !under(p, tc.root))) return { why: `${exec} is outside /usr and the ${runner} toolchain (${tc?.root ?? 'not found'}): the sandbox does not show it` }
    return executableFile(p) ? { resolved: p } : { why: `${exec} is not a file the sandbox user can read and execute` }
  }
  const dirs = [...(tc === undefined ? [] : [tc.bin]), '/usr/bin', '/usr/sbin']
  for (const d of dirs) if (executableFile(join(d, exec))) return { resolved: join(d, exec) }
  return { why: `${exec} is not an executable in ${dirs.join(', ')}` }
}
