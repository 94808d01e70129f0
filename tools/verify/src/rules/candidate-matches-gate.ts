// Rule: the candidate that runs is exactly the one the gate passed. The gate is recomputed from
// proposal.json and the baseline (core's computeAttemptGate, the code gate-patch ran): its
// gate.json and candidate.patch must equal the retained files byte for byte, and each changed
// file's sha256 must equal gate.json's candidate_sha256. Only then are the changed files the
// overrides of the work tree. A difference means a retained file changed after the gate (or
// the gate's version did): the candidate is not run.

import { join } from 'node:path'
import type { GateReport } from '@repairline/schemas'
import { readFileNoFollow, sha256Hex, toolError, type Attempt } from '@repairline/core'
import { computeAttemptGate } from '@repairline/core/gate/attempt'

export interface GatedCandidate {
  /** The changed files' candidate bytes, by path: the work tree's overrides. */
  overrides: Map<string, Buffer>
  patchSha256: string
}

export async function gatedCandidate (attempt: Attempt, gate: GateReport): Promise<GatedCandidate> {
  const refuse = (what: string, path: string): never => {
    throw toolError('CANDIDATE_MISMATCH', `${what}`, { path, hint: 'run gate-patch --check on this attempt: a retained file changed after the gate' })
  }
  const gatePath = join(attempt.dir, 'gate.json')
  const patchPath = join(attempt.dir, 'candidate.patch')
  const out = await computeAttemptGate(attempt)
  if (!out.report.passed) refuse(`the gate recomputed today does not pass (${out.report.failed_rules.join(', ')}), though ${gatePath} says it did`, gatePath)
  if (!readFileNoFollow(gatePath).equals(out.gateBytes)) refuse(`${gatePath} differs from the gate recomputed from proposal.json`, gatePath)
  const patch = readFileNoFollow(patchPath)
  if (out.patchBytes === undefined || !patch.equals(out.patchBytes)) refuse(`${patchPath} differs from the patch recomputed from proposal.json`, patchPath)
  const patchSha256 = sha256Hex(patch)
  if (patchSha256 !== gate.patch?.sha256) refuse(`${patchPath} does not hash to gate.json's patch.sha256`, patchPath)
  const overrides = new Map<string, Buffer>()
  const want = new Map(gate.changed_files.map(f => [f.path, f]))
  for (const f of out.evaluation.changed ?? []) {
    const bytes = Buffer.from(f.after, 'utf8')
    const w = want.get(f.path)
    if (w === undefined) refuse(`${f.path} changed, but gate.json's changed_files does not list it`, gatePath)
    else if (sha256Hex(bytes) !== w.candidate_sha256 || bytes.length !== w.candidate_bytes) refuse(`${f.path}: the candidate bytes do not hash to gate.json's candidate_sha256`, gatePath)
    overrides.set(f.path, bytes)
  }
  for (const p of want.keys()) if (!overrides.has(p)) refuse(`gate.json lists ${p} as changed, but the edits do not change it`, gatePath)
  return { overrides, patchSha256 }
}
