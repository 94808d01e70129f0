// The gate of one attempt: reads proposal.json and the baseline files from tree.tar, runs
// every rule, and returns the exact bytes of gate.json and candidate.patch. gate-patch writes
// them; `gate-patch --check` and readback recompute and compare. Reads only.

import { join } from 'node:path'
import type { GateReport, Proposal } from '@repairline/schemas'
import { type Attempt } from '../attempt-dir.ts'
import { readFileNoFollow } from '../read-file.ts'
import { jsonFileBytes } from '../atomic.ts'
import { parseDocument } from '../contracts.ts'
import { sha256Hex } from '../digest.ts'
import { printableLine } from '../printable-line.ts'
import { hasErrno, toolError } from '../errors.ts'
import { openTreeReader } from '../tree-archive/index.ts'
import { evaluateGate, GATE_CHECKER, type GateEvaluation } from './index.ts'

export { GATE_CHECKER }

/** What the gate computes for an attempt: the two files' bytes (the patch only when the edits applied). */
export interface GateOutput {
  evaluation: GateEvaluation
  report: GateReport
  gateBytes: Buffer
  patchBytes: Buffer | undefined
}

/**
 * One line of at most 2000 code points (schema bound of gate.json's texts). Findings quote the
 * proposal, so the cut is by code points and a lone surrogate becomes U+FFFD: a split pair has
 * no UTF-8 form, and gate.json holding one could not be written (gate-patch crashed, exit 70).
 */
function clip (s: string): string {
  return printableLine(s, 2000)
}

export async function computeAttemptGate (attempt: Attempt): Promise<GateOutput> {
  const proposalPath = join(attempt.dir, 'proposal.json')
  let proposalBytes: Buffer
  try {
    proposalBytes = readFileNoFollow(proposalPath)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw toolError('ATTEMPT_INCOMPLETE', `${proposalPath} is missing: run ask-provider first`, { path: proposalPath })
    throw e
  }
  return await computeGateOf(attempt, parseDocument('proposal', proposalBytes, proposalPath), proposalBytes)
}

/**
 * The gate of `proposal` (whose proposal.json bytes are `proposalBytes`) on the attempt's
 * tree: what gate-patch would write for it. ask-provider computes it before it keeps a
 * proposal, to look for the provider token in what the edits put together.
 */
export async function computeGateOf (attempt: Attempt, proposal: Proposal, proposalBytes: Uint8Array): Promise<GateOutput> {
  const tree = openTreeReader(attempt.dir)
  const manifest = tree.manifest
  const { config } = attempt
  const evaluation = await evaluateGate({
    runner: config.runner.kind,
    allowedFiles: config.allowed_files,
    maxPatchBytes: config.max_patch_bytes,
    tree: manifest.entries.map(e => ({ path: e.path, mode: e.mode })),
    readBaseline: p => tree.readFile(p),
    edits: proposal.edits,
  })
  const patchBytes = evaluation.patch === undefined ? undefined : Buffer.from(evaluation.patch)
  const report: GateReport = {
    v: 1,
    attempt_key: attempt.key,
    source_sha: config.source_sha,
    checker: { ...GATE_CHECKER },
    proposal_sha256: sha256Hex(proposalBytes),
    passed: evaluation.passed,
    failed_rules: evaluation.rules.filter(r => r.status === 'fail').map(r => r.rule),
    rules: evaluation.rules.map(r => ({ rule: r.rule, status: r.status, detail: clip(r.detail), findings: r.findings.slice(0, 64).map(clip) })),
    changed_files: (evaluation.changed ?? []).map(f => ({
      path: f.path,
      mode: f.mode,
      baseline_sha256: sha256Hex(f.before),
      candidate_sha256: sha256Hex(f.after),
      candidate_bytes: Buffer.byteLength(f.after),
    })),
    ...(patchBytes === undefined ? {} : { patch: { sha256: sha256Hex(patchBytes), bytes: patchBytes.length, max_bytes: config.max_patch_bytes } }),
  }
  return { evaluation, report, gateBytes: Buffer.from(jsonFileBytes(report)), patchBytes }
}
