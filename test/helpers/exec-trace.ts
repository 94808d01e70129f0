// Which programs a command started, from an `strace -f` of its process tree: used to prove
// that git, run by a tool, started nothing but git (a filter, a hook, a remote helper would
// each be an execve of another program by a process git forked).

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { run } from '@repairline/core'

export const STRACE = '/usr/bin/strace'

/** Why strace cannot trace here (not installed, or ptrace refused by the host), or false. */
export async function straceUnusable (): Promise<string | false> {
  if (!existsSync(STRACE)) return 'strace is not installed (the bootstrap installs it as root)'
  const probe = await run(STRACE, ['-qq', '-o', '/dev/null', '--', '/bin/true'], { env: { PATH: '/usr/bin:/bin' } })
  return probe.exitCode === 0 ? false : `strace cannot trace on this host: ${probe.stderr.toString('utf8').trim().split('\n')[0] ?? ''}`
}

export interface Exec { pid: number, path: string, argv: string }

/**
 * Runs `file args` under `strace -f` (execve and every fork-like call, in `dir`) and returns,
 * besides its exit status, each execve (even a failed one) made by a process that is, or
 * descends from, a process that executed `/usr/bin/git`, other than `/usr/bin/git` itself.
 */
export async function execsUnderGit (dir: string, file: string, args: string[], env: Record<string, string>): Promise<{ exitCode: number, stderr: string, foreign: Exec[], gitRuns: number }> {
  const log = join(dir, `strace-${String(Date.now())}-${String(Math.random()).slice(2)}.log`)
  const r = await run(STRACE, ['-f', '-qq', '-s', '256', '-e', 'trace=execve,execveat,clone,clone3,fork,vfork', '-e', 'signal=none', '-o', log, '--', file, ...args], { env })
  const parent = new Map<number, number>()
  const isGit = new Set<number>()
  const execs: Exec[] = []
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    // strace pads the pid to a width: `123  execve(…`.
    const pid = Number(/^(\d+) +/.exec(line)?.[1])
    if (Number.isNaN(pid)) continue
    // A fork-like call, finished on this line or resumed: `= <child pid>`.
    const child = /^\d+ +(?:<\.\.\. )?(?:clone3?|v?fork)\b.*= (\d+)$/.exec(line)?.[1]
    if (child !== undefined) parent.set(Number(child), pid)
    const ex = /^\d+ +execve(?:at)?\((?:\d+, )?"([^"]*)", \[(.*?)\]/.exec(line)
    if (ex !== null) execs.push({ pid, path: ex[1] ?? '', argv: ex[2] ?? '' })
  }
  const underGit = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined; p = parent.get(p)) if (isGit.has(p)) return true
    return false
  }
  // Marked in log order: a process becomes git when it executes git; its children inherit.
  const foreign: Exec[] = []
  let gitRuns = 0
  for (const e of execs) {
    if (e.path === '/usr/bin/git') { isGit.add(e.pid); gitRuns++; continue }
    if (underGit(e.pid)) foreign.push(e)
  }
  return { exitCode: r.exitCode ?? -1, stderr: r.stderr.toString('utf8'), foreign, gitRuns }
}
