// Per-process rlimits (DESIGN §11), set by prlimit(1) at the head of the launch chain and
// inherited by setpriv, bwrap and everything in the sandbox; read back from
// /proc/<sandbox pid>/limits while bwrap holds the sandbox before its command starts.
// RLIMIT_NPROC is deliberately not used: it counts every process of the real uid system-wide
// (two sandboxes as uid 65534 would share it) and does not bind root; pids.max on the
// sandbox's own cgroup is the tasks limit.

import { readFileSync } from 'node:fs'
import { toolError } from '../errors.ts'
import type { LimitReading } from './cgroup.ts'
import type { SandboxLimits } from './limits.ts'

/** `value` -1 is unlimited. */
interface RlimitSpec { flag: string, row: string, name: string, value: number }

function specs (l: SandboxLimits): RlimitSpec[] {
  const out: RlimitSpec[] = [
    { flag: 'cpu', row: 'Max cpu time', name: 'cpu seconds per process', value: l.cpuSeconds },
    { flag: 'fsize', row: 'Max file size', name: 'file size per process', value: l.fileSizeBytes },
    { flag: 'nofile', row: 'Max open files', name: 'open files per process', value: l.openFiles },
    { flag: 'core', row: 'Max core file size', name: 'core size', value: 0 },
  ]
  // Without an address-space limit (Node reserves far more than it uses) it is set unlimited,
  // not left as inherited: a `ulimit -v` of the caller's would otherwise bind the sandbox.
  out.push({ flag: 'as', row: 'Max address space', name: 'address space per process', value: l.addressSpaceBytes ?? -1 })
  return out
}

const wantOf = (s: RlimitSpec): string => s.value === -1 ? 'unlimited' : String(s.value)

/** prlimit's options: soft = hard for every limit. */
export function prlimitArgs (l: SandboxLimits): string[] {
  return specs(l).map(s => `--${s.flag}=${wantOf(s)}:${wantOf(s)}`)
}

/**
 * What to do when prlimit could not set one of our limits (its stderr: "failed to set the
 * FSIZE resource limit: Operation not permitted"): a limit above the hard limit this process
 * inherited, which only a process with CAP_SYS_RESOURCE may raise. Undefined for any other
 * message.
 */
export function rlimitRefusalHint (stderr: string, l: SandboxLimits): string | undefined {
  const m = /failed to set the ([A-Z]+) resource limit/.exec(stderr)
  const spec = m === null ? undefined : specs(l).find(s => s.flag === (m[1] ?? '').toLowerCase())
  if (spec === undefined) return undefined
  return `the sandbox sets ${spec.name} to ${wantOf(spec)}, above the hard limit this process inherited (see ulimit -Ha); raise that hard limit, or run repairline from a shell without it`
}

/** Parses /proc/<pid>/limits into row → [soft, hard]. */
export function parseProcLimits (text: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>()
  for (const line of text.split('\n').slice(1)) {
    const m = /^(\S.*?)\s{2,}(\S+)\s+(\S+)/.exec(line)
    if (m !== null) out.set(m[1] ?? '', [m[2] ?? '', m[3] ?? ''])
  }
  return out
}

/** The rlimit readings a run under `l` records: name and the value asked. */
export function rlimitWants (l: SandboxLimits): Array<{ name: string, want: string }> {
  return specs(l).map(s => ({ name: s.name, want: wantOf(s) }))
}

/**
 * Reads the rlimits of `pid` and compares each with what was asked (soft and hard). Refuses
 * with SANDBOX_UNAVAILABLE on any difference. Without an address-space limit, the reading
 * must say unlimited (Node runs under none).
 */
export function readBackRlimits (pid: number, l: SandboxLimits): LimitReading[] {
  const source = `/proc/${pid}/limits`
  const rows = parseProcLimits(readFileSync(source, 'utf8'))
  const readings: LimitReading[] = []
  for (const s of specs(l)) {
    const got = rows.get(s.row)
    const want = wantOf(s)
    const gotText = got === undefined ? 'absent' : got[0] === got[1] ? got[0] : `${got[0]} (hard ${got[1]})`
    readings.push({ name: s.name, want, got: gotText, mechanism: 'rlimit', source })
    if (gotText !== want) throw toolError('SANDBOX_UNAVAILABLE', `rlimit: ${s.name} did not take: asked ${want}, ${source} says ${gotText}`)
  }
  return readings
}
