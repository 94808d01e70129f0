// Rule: red-then-green means something only under the identical command and sandbox
// (DESIGN §11, seed 002's symmetry). The candidate run is compared with baseline.json: the
// runner, the toolchain, the command (go's -timeout excepted: it is set below the time left
// until the deadline, which is shorter for the later run), the reporter digest, the
// environment names, the working directory, the mount points and their modes, and every limit
// asked for. Mount sources differ by construction (work/baseline vs work/candidate, their
// scratch directories) and are not compared. Any difference makes the run a fault, never
// failed work.

import type { Baseline, SandboxRun } from '@repairline/schemas'
import type { TestRun } from '@repairline/core'

const GO_TIMEOUT = /^-timeout=\d+s$/

function normalized (command: readonly string[], runner: string): string[] {
  return command.map(a => runner === 'go' && GO_TIMEOUT.test(a) ? '-timeout=<below the deadline>' : a)
}

function show (v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined'
  return s.length > 300 ? `${s.slice(0, 299)}…` : s
}

/** One line per way the candidate run differs from the baseline's; empty when identical. */
export function sandboxDifferences (baseline: Baseline, run: TestRun): string[] {
  const out: string[] = []
  const differ = (what: string, b: unknown, c: unknown): void => {
    if (show(b) !== show(c)) out.push(`${what}: baseline ${show(b)}, candidate ${show(c)}`)
  }
  differ('runner', baseline.runner, run.runner)
  differ('toolchain', baseline.toolchain, run.toolchain)
  differ('command', normalized(baseline.command, baseline.runner), normalized(run.command, run.runner))
  differ('reporter sha256', baseline.reporter_sha256, run.reporterSha256)
  const b: SandboxRun | undefined = baseline.run
  const c: SandboxRun | undefined = run.sandbox
  if (b === undefined || c === undefined) {
    differ('sandbox run', b === undefined ? 'absent' : 'present', c === undefined ? 'absent' : 'present')
    return out
  }
  differ('environment names', b.env_names, c.env_names)
  differ('working directory', b.cwd, c.cwd)
  differ('sandbox uid:gid', `${b.uid}:${b.gid}`, `${c.uid}:${c.gid}`)
  differ('mount points', b.mounts.map(m => `${m.dest}:${m.mode}`), c.mounts.map(m => `${m.dest}:${m.mode}`))
  const asked = (r: SandboxRun): Record<string, string> => Object.fromEntries(r.limits.map(l => [l.name, l.want]))
  const bl = asked(b)
  const cl = asked(c)
  for (const name of [...new Set([...Object.keys(bl), ...Object.keys(cl)])].sort()) differ(`limit ${name}`, bl[name] ?? 'absent', cl[name] ?? 'absent')
  return out
}
