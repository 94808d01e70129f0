// The token lives in this process's heap, so this process must not dump core (threat-matrix
// C7). Node cannot set its own rlimits, so when the soft RLIMIT_CORE is not 0 the tool sets
// soft and hard to 0 for its own pid with util-linux prlimit, then reads /proc/<pid>/limits
// back: a limit that did not take is a refusal (HOSTILE_ENVIRONMENT), never a warning.

import { readFileSync } from 'node:fs'
import { run, toolError } from '@repairline/core'

export const PRLIMIT = '/usr/bin/prlimit'

/** The soft core-file limit of `pid` as /proc prints it ("0", "unlimited", a number). */
export function softCoreLimit (pid: number): string | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/limits`, 'utf8')
  } catch {
    return undefined
  }
  const line = text.split('\n').find(l => l.startsWith('Max core file size'))
  return line?.slice('Max core file size'.length).trim().split(/\s+/)[0]
}

export async function disableCoreDumps (pid: number): Promise<void> {
  if (softCoreLimit(pid) === '0') return
  const r = await run(PRLIMIT, [`--pid=${pid}`, '--core=0:0'], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 5000 })
  const now = softCoreLimit(pid)
  if (now !== '0') {
    const why = r.spawnError ?? (r.exitCode === 0 ? 'the limit did not take' : r.stderr.toString('utf8').trim().split('\n')[0] ?? `exit ${String(r.exitCode)}`)
    throw toolError('HOSTILE_ENVIRONMENT', `core dumps are enabled (soft limit ${now ?? 'unknown'}) and could not be disabled: ${why}`, { hint: 'run ask-provider with ulimit -c 0; a core dump would hold the provider token' })
  }
}
