// Rule: red-then-green means something only under the identical command and sandbox
// (DESIGN §11, seed 002's symmetry). The candidate run is compared with baseline.json: the
// runner, the toolchain, the command (go's -timeout excepted: it is set below the time left
// until the deadline, which is shorter for the later run), the reporter digest, the
// environment names, the working directory, the mount points and their modes, and every limit
// asked for. Mount sources differ by construction (work/baseline vs work/candidate, their
// scratch directories) and are not compared. Any difference makes the run a fault, never
// failed work.
//
// It lives in core because verify applies it to the run it just made and readback reapplies
// it to the run verify.json retains (receipt/test-verdicts.ts): both compare the same fields,
// so the code is the one function below.

import type { Baseline, SandboxRun } from '@repairline/schemas'
import type { TestRun } from '../runners/run-tests.ts'

const GO_TIMEOUT = /^-timeout=\d+s$/

/** The fields of a test run's record (baseline.json, verify.json) that the comparison reads. */
export interface RunRecordView {
  runner: string
  toolchain?: string
  command?: readonly string[]
  reporter_sha256?: string
  run?: SandboxRun
  /** The recorded fault (its code names which refusal stopped a run that never started). */
  fault?: { code: string }
}

/** A TestRun as the record reproduce or verify writes of it would show it. */
export function testRunView (run: TestRun): RunRecordView {
  return {
    runner: run.runner,
    toolchain: run.toolchain,
    command: run.command,
    ...(run.reporterSha256 === undefined ? {} : { reporter_sha256: run.reporterSha256 }),
    ...(run.sandbox === undefined ? {} : { run: run.sandbox }),
  }
}

function normalized (command: readonly string[] | undefined, runner: string): string[] | undefined {
  return command?.map(a => runner === 'go' && GO_TIMEOUT.test(a) ? '-timeout=<below the deadline>' : a)
}

function show (v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined'
  return s.length > 300 ? `${s.slice(0, 299)}…` : s
}

/** One line per way the candidate run differs from the baseline's; empty when identical. */
export function sandboxDifferences (baseline: Baseline, run: TestRun): string[] {
  return runRecordDifferences(baseline, testRunView(run))
}

/** sandboxDifferences on two run records (readback compares verify.json with baseline.json). */
export function runRecordDifferences (baseline: RunRecordView, candidate: RunRecordView): string[] {
  const out: string[] = []
  const differ = (what: string, b: unknown, c: unknown): void => {
    if (show(b) !== show(c)) out.push(`${what}: baseline ${show(b)}, candidate ${show(c)}`)
  }
  differ('runner', baseline.runner, candidate.runner)
  differ('toolchain', baseline.toolchain, candidate.toolchain)
  differ('command', normalized(baseline.command, baseline.runner), normalized(candidate.command, candidate.runner))
  differ('reporter sha256', baseline.reporter_sha256, candidate.reporter_sha256)
  const b: SandboxRun | undefined = baseline.run
  const c: SandboxRun | undefined = candidate.run
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
