// gate-patch: the gate step. Reads proposal.json and the baseline files (tree.tar through
// core's tree API), runs the gate (core/gate), writes candidate.patch (when the edits apply)
// and gate.json, prints one `rule` record per rule, and ends the attempt `rejected` when any
// rule failed. `--check` recomputes both files and compares them byte for byte with the
// retained ones (one `check` record each); it never writes, needs no lock and also works on a
// sealed attempt.

import { join } from 'node:path'
import type { CandidateCommit } from '@repairline/schemas'
import {
  CANDIDATE_BUNDLE, CANDIDATE_JSON, EXIT, endedBefore, makeCandidateBundle, readJsonFile, type Attempt, faultPoint, outcomeExit, finishAttempt, hasErrno, loadAttempt, openStep, readFileNoFollow,
  sha256Hex, toolError, writeFileAtomic, writeJsonAtomic, type ToolIo, type ToolResult,
} from '@repairline/core'
import { computeAttemptGate, type GateOutput } from '@repairline/core/gate/attempt'

export const CANDIDATE_PATCH = 'candidate.patch'
export const GATE_JSON = 'gate.json'
/** The files an earlier step must have written before the gate runs. */
export const REQUIRES = ['tree-manifest.json', 'tree.tar', 'baseline.json', 'proposal.json'] as const

export interface GatePatchOptions { attempt: string, check: boolean }

/** Runs the gate on an attempt's proposal and baseline (core/gate/attempt.ts). Pure: reads, never writes. */
export const computeGate = computeAttemptGate
export type { GateOutput }

export async function gatePatch (o: GatePatchOptions, io: ToolIo): Promise<ToolResult> {
  if (o.check) return await checkGate(o.attempt, io)
  const step = openStep('gate-patch', o.attempt, io, REQUIRES)
  if (step.done) return step.result
  const { attempt } = step
  const out = await computeGate(attempt)
  const stateRoot = attempt.stateRoot
  if (out.patchBytes !== undefined) writeFileAtomic(join(attempt.dir, CANDIDATE_PATCH), out.patchBytes, { stateRoot })
  // A candidate that passed is also a commit, in candidate.bundle (candidate.json says what it
  // holds), dated at this decision. Both are written before gate.json, which completes the stage.
  if (out.report.passed) await writeCandidateBundle(attempt, out, io.now())
  faultPoint(io.env, 'gate')
  writeJsonAtomic('gate', join(attempt.dir, GATE_JSON), out.report, { stateRoot })
  for (const r of out.report.rules) {
    io.out.write({ v: 1, kind: 'rule', rule: r.rule, status: r.status, detail: r.detail, ...(r.status === 'fail' ? { findings: r.findings } : {}) })
  }
  if (out.report.passed) return { exit: EXIT.OK }
  const failed = out.report.rules.filter(r => r.status === 'fail')
  const first = failed[0]?.findings[0]
  io.stderr.write(`gate-patch: rejected by ${failed.map(r => r.rule).join(', ')}\n`)
  return finishAttempt('gate-patch', attempt, io, {
    outcome: 'rejected',
    code: 'GATE_REJECTED',
    message: `the gate rejected the proposal: ${failed.map(r => r.rule).join(', ')}${first === undefined ? '' : ` (${first})`}`,
  })
}

/** candidate.bundle and candidate.json of a gate that passed (core/candidate). */
async function writeCandidateBundle (attempt: Attempt, out: GateOutput, at: Date): Promise<void> {
  const proposal = readJsonFile('proposal', join(attempt.dir, 'proposal.json'))
  const changed = (out.evaluation.changed ?? []).map(f => ({ path: f.path, mode: f.mode, bytes: Buffer.from(f.after, 'utf8') }))
  const made = await makeCandidateBundle(attempt, changed, proposal.summary, at)
  const stateRoot = attempt.stateRoot
  writeFileAtomic(join(attempt.dir, CANDIDATE_BUNDLE), made.bundle, { stateRoot })
  const record: CandidateCommit = {
    v: 1,
    attempt_key: attempt.key,
    source_sha: attempt.config.source_sha,
    ref: made.ref,
    commit: made.commit,
    tree: made.tree,
    committed_at: made.committedAt,
    bundle: { bytes: made.bundle.length, sha256: sha256Hex(made.bundle) },
  }
  writeJsonAtomic('candidate', join(attempt.dir, CANDIDATE_JSON), record, { stateRoot })
}

function readRetained (path: string): Buffer | undefined {
  try {
    return readFileNoFollow(path)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined
    if (hasErrno(e, 'ELOOP')) throw toolError('STATE_UNSAFE', `${path} is a symlink`, { path })
    throw e
  }
}

/** --check: recompute, compare byte for byte, print one check record per file; exit 1 on any difference. */
async function checkGate (dir: string, io: ToolIo): Promise<ToolResult> {
  const attempt = loadAttempt(dir)
  io.out.write({ v: 1, kind: 'attempt', path: attempt.dir, key: attempt.key })
  const ended = endedBefore(attempt, 'gate-patch')
  if (ended !== undefined) {
    io.stderr.write(`gate-patch: check: nothing to recompute: the attempt ended ${ended.outcome} (${ended.reason.code}) at ${ended.step}, before the gate\n`)
    return { exit: outcomeExit(ended.outcome, ended.retryable), outcome: ended.outcome }
  }
  const out = await computeGate(attempt)
  let same = true
  for (const [file, recomputed] of [[CANDIDATE_PATCH, out.patchBytes], [GATE_JSON, out.gateBytes]] as const) {
    const retained = readRetained(join(attempt.dir, file))
    const match = retained === undefined ? recomputed === undefined : recomputed !== undefined && retained.equals(recomputed)
    if (!match) {
      same = false
      io.stderr.write(`gate-patch: check: ${file} ${retained === undefined ? 'is missing' : recomputed === undefined ? 'exists but the edits do not apply' : 'differs from the recomputed bytes'}\n`)
    }
    io.out.write({
      v: 1,
      kind: 'check',
      file,
      match,
      ...(retained === undefined ? {} : { retained_sha256: sha256Hex(retained) }),
      ...(recomputed === undefined ? {} : { recomputed_sha256: sha256Hex(recomputed) }),
    })
  }
  return { exit: same ? EXIT.OK : EXIT.NO }
}
