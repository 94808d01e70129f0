// The checks' results in a retained attempt (seed 004, DESIGN §12): what the receipt's
// `checks` says (seal derives it from baseline.json and verify.json), and readback's
// re-derivation of every recorded result with today's code.
//
// CHECK_RESULT_MISMATCH: baseline.json or verify.json records another set of clauses than the
// retained config asks for (baseline: every command once the case reproduced; verify: every
// clause); a content clause's result is not what evaluating it again on the candidate
// (tree.tar with proposal.json's gated edits) gives; a command's status, code or detail is not
// what classifying its recorded run gives, its argv is not the resolved program and the
// clause's args, it was given more than its timeout_ms, it ran in another sandbox than the
// step's test run (environment names, working directory, mount points, limits), or it was not
// run while the test run was usable.
// CHECK_RECEIPT_MISMATCH: receipt.json's `checks` is not what those two files give.
//
// Stated limit: a command's stdout is kept as a digest, not as bytes; whether it held
// stdout_contains / stdout_matches is taken from the record.

import type { CheckResult, ExecutionConfig, Receipt, SandboxRun, SealedCheck } from '@repairline/schemas'
import { jcs } from '../digest.ts'
import { readFileNoFollow } from '../read-file.ts'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { openTreeReader } from '../tree-archive/index.ts'
import { evaluateContentChecks } from '../checks/content.ts'
import { classifyCommand, recordedCommandFacts, type CommandCheck } from '../checks/command.ts'
import { runRecordDifferences } from '../verify/same-sandbox.ts'
import type { CheckContext } from './checks.ts'

export const CHECK_RESULT_MISMATCH = 'CHECK_RESULT_MISMATCH'
export const CHECK_RECEIPT_MISMATCH = 'CHECK_RECEIPT_MISMATCH'

interface RunDoc { checks?: CheckResult[], run?: SandboxRun, runner?: string, timed_out?: boolean, fault?: { code: string } }

/** What the receipt's `checks` says about baseline.json's and verify.json's results. */
export function sealedChecksOf (baseline: RunDoc | undefined, verify: RunDoc | undefined): SealedCheck[] {
  const out: SealedCheck[] = []
  for (const [step, doc] of [['reproduce', baseline], ['verify', verify]] as const) {
    for (const r of doc?.checks ?? []) {
      out.push({
        step, clause: r.clause, index: r.index, status: r.status, code: r.code,
        ...(r.command === undefined ? {} : { argv: r.command.argv, exit_code: r.command.exit_code, timed_out: r.command.timed_out }),
      })
    }
  }
  return out
}

/** seal's reading: the checks of the attempt's baseline.json and verify.json (already validated by their steps). */
export function sealedChecks (dir: string): SealedCheck[] {
  const read = (rel: string): RunDoc | undefined => existsSync(join(dir, rel)) ? JSON.parse(readFileNoFollow(join(dir, rel)).toString('utf8')) as RunDoc : undefined
  return sealedChecksOf(read('baseline.json'), read('verify.json'))
}

type Clause = CheckResult['clause']

/** The (clause, index) pairs a record must hold, in order. */
function expectedClauses (checks: ExecutionConfig['checks'], only?: Clause): string[] {
  const out: string[] = []
  for (const clause of ['source_absent', 'contains', 'matches', 'commands'] as const) {
    if (only !== undefined && clause !== only) continue
    ;(checks?.[clause] ?? []).forEach((_, i) => out.push(`${clause}[${i}]`))
  }
  return out
}

const named = (rs: readonly CheckResult[] | undefined): string[] => (rs ?? []).map(r => `${r.clause}[${r.index}]`)

/** Why a recorded command result is not what its run gives, or undefined. */
function commandMisfit (cmd: CommandCheck, r: CheckResult, runner: string, testRun: SandboxRun | undefined, testsUsable: boolean): string | undefined {
  if (r.code === 'CHECK_DEADLINE_PASSED') return r.status === 'not_run' ? undefined : 'CHECK_DEADLINE_PASSED is not_run'
  if (r.code === 'CHECK_NOT_RUN') return testsUsable ? 'it was not run though the test run was usable' : r.status === 'not_run' ? undefined : 'CHECK_NOT_RUN is not_run'
  if (!testsUsable) return 'it ran though the test run said nothing (fault or timed out)'
  const c = r.command
  if (c === undefined) return 'it records no run'
  if (c.exec !== cmd.exec) return `it ran ${c.exec}, the config says ${cmd.exec}`
  const argv = [c.resolved ?? cmd.exec, ...cmd.args]
  if (jcs(c.argv) !== jcs(argv)) return 'its argv is not the resolved program and the clause\'s args'
  if (c.timeout_ms > cmd.timeout_ms) return `it was given ${c.timeout_ms} ms, more than its timeout_ms ${cmd.timeout_ms}`
  const want = classifyCommand(cmd, recordedCommandFacts(c))
  if (want.status !== r.status || want.code !== r.code || want.detail !== r.detail) return `its run gives ${want.status} ${want.code}, the record says ${r.status} ${r.code}`
  if (c.run !== undefined) {
    if (jcs(c.run.command) !== jcs(argv)) return 'its sandbox ran another command than its argv'
    const differences = runRecordDifferences({ runner, ...(testRun === undefined ? {} : { run: testRun }) }, { runner, run: c.run })
    if (differences.length > 0) return `it did not run in the test run's sandbox: ${differences[0] ?? ''}`
  }
  return undefined
}

/** Readback: every recorded check result re-derived, and the receipt's copy of them. */
export async function checkCheckResults (c: CheckContext): Promise<void> {
  const { docs, findings: f } = c
  const config = docs.get('inputs/execution.json') as ExecutionConfig | undefined
  const baseline = docs.get('baseline.json') as (RunDoc & { reproduced: boolean }) | undefined
  const verify = docs.get('verify.json') as RunDoc | undefined
  const receipt = docs.get('receipt.json') as Receipt | undefined
  if (receipt !== undefined && (baseline !== undefined || !c.files.has('baseline.json')) && (verify !== undefined || !c.files.has('verify.json'))) {
    if (jcs(receipt.checks ?? []) !== jcs(sealedChecksOf(baseline, verify))) f.add(CHECK_RECEIPT_MISMATCH, 'receipt.json\'s checks differ from what baseline.json and verify.json record', 'receipt.json')
  }
  if (config === undefined) return
  const runner = config.runner.kind

  if (baseline !== undefined) {
    const want = baseline.reproduced ? expectedClauses(config.checks, 'commands') : []
    if (jcs(named(baseline.checks)) !== jcs(want)) f.add(CHECK_RESULT_MISMATCH, `baseline.json records checks ${named(baseline.checks).join(', ') || 'none'}; the config asks for ${want.join(', ') || 'none'}`, 'baseline.json')
    else {
      const usable = !baseline.timed_out && baseline.fault === undefined
      for (const r of baseline.checks ?? []) {
        const why = commandMisfit(config.checks?.commands?.[r.index] as CommandCheck, r, runner, baseline.run, usable)
        if (why !== undefined) f.add(CHECK_RESULT_MISMATCH, `baseline.json commands[${r.index}]: ${why}`, 'baseline.json')
      }
    }
  }

  if (verify === undefined) return
  const want = expectedClauses(config.checks)
  if (jcs(named(verify.checks)) !== jcs(want)) {
    f.add(CHECK_RESULT_MISMATCH, `verify.json records checks ${named(verify.checks).join(', ') || 'none'}; the config asks for ${want.join(', ') || 'none'}`, 'verify.json')
    return
  }
  if (verify.checks === undefined) return
  // The test run said nothing (its own fault, not a check's, or the deadline): no command runs.
  const usable = !verify.timed_out && (verify.fault === undefined || verify.fault.code.startsWith('CHECK_'))
  for (const r of verify.checks.filter(x => x.clause === 'commands')) {
    const why = commandMisfit(config.checks?.commands?.[r.index] as CommandCheck, r, runner, verify.run, usable)
    if (why !== undefined) f.add(CHECK_RESULT_MISMATCH, `verify.json commands[${r.index}]: ${why}`, 'verify.json')
  }
  const content = verify.checks.filter(x => x.clause !== 'commands')
  if (content.length === 0) return
  // The candidate as verify read it: the gated edits over tree.tar (the gate's own rerun).
  const { computeAttemptGate } = await import('../gate/attempt.ts')
  const out = await computeAttemptGate(c.attempt())
  const changed = new Map((out.evaluation.changed ?? []).map(x => [x.path, Buffer.from(x.after, 'utf8')]))
  const tree = openTreeReader(c.dir)
  const again = evaluateContentChecks(config.checks, { changed, read: path => changed.get(path) ?? tree.readFile(path) })
  again.forEach((r, i) => {
    if (jcs(r) !== jcs(content[i])) f.add(CHECK_RESULT_MISMATCH, `verify.json ${r.clause}[${r.index}] records ${content[i]?.status ?? 'nothing'} ${content[i]?.code ?? ''}; evaluating it again on the candidate gives ${r.status} ${r.code}`, 'verify.json')
  })
}
