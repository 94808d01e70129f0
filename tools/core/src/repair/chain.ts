// Readback of a repair attempt's chain: the attempt it names (case.repairs.attempt_key) is in
// the same state root, was admitted under the same source commit, config, routing policy and
// register manifest, and — recomputed from its sealed files now — left exactly the unmet items
// retained in inputs/unmet.json, whose digest the case carries; the case is the one admit
// repair makes from it (id `<case id>#r<n>`). An attempt that repairs nothing holds no
// inputs/unmet.json. The repaired attempt is not read back whole here: a readback of the
// state root reads it back in its own right.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission, UnmetItems } from '@repairline/schemas'
import { attemptDirFor, readJsonFile, readOutcome, stateRootOf } from '../attempt-dir.ts'
import { jcs, jcsSha256 } from '../digest.ts'
import { isToolError } from '../errors.ts'
import type { CheckContext } from '../receipt/checks.ts'
import { REPAIR_INPUT_FILE as UNMET_FILE } from '../receipt/stages.ts'
import { repairCaseFor, unmetItemsOf } from './unmet.ts'

export function checkRepairChain (c: CheckContext): void {
  const { dir, admission, files, docs, findings: f } = c
  const repairs = admission.case.repairs
  if (repairs === undefined) {
    if (files.has(UNMET_FILE)) f.add('REPAIR_CHAIN_MISMATCH', `${UNMET_FILE} exists, but case ${admission.case.id} repairs no attempt`, UNMET_FILE)
    return
  }
  if (!files.has(UNMET_FILE)) {
    f.add('MISSING_STAGE_RECORD', `case ${admission.case.id} is a repair, but ${UNMET_FILE} is missing`, UNMET_FILE)
    return
  }
  const unmet = docs.get(UNMET_FILE) as UnmetItems | undefined
  if (unmet === undefined) return
  if (jcsSha256(unmet) !== repairs.unmet_sha256 || unmet.attempt_key !== repairs.attempt_key) {
    f.add('REPAIR_CHAIN_MISMATCH', `${UNMET_FILE} is not the unmet items the case names (repairs.unmet_sha256, repairs.attempt_key)`, UNMET_FILE)
  }
  const prevDir = attemptDirFor(stateRootOf(dir), repairs.attempt_key)
  if (!existsSync(join(prevDir, 'admission.json'))) {
    f.add('REPAIR_CHAIN_BROKEN', `the attempt this one repairs (${repairs.attempt_key.slice(0, 16)}) is not in this state root`, 'inputs/case.json')
    return
  }
  let prev: Admission
  try {
    prev = readJsonFile('admission', join(prevDir, 'admission.json'))
    if (prev.attempt_key !== repairs.attempt_key) throw new Error(`${prevDir} holds attempt ${prev.attempt_key.slice(0, 16)}, another key`)
    const outcome = readOutcome(prevDir, prev.attempt_key)
    if (outcome === undefined) throw new Error(`${prevDir} has no outcome`)
    const a = admission.key_inputs
    const b = prev.key_inputs
    if (a.source_sha !== b.source_sha || a.config_sha256 !== b.config_sha256 || a.routing_policy_sha256 !== b.routing_policy_sha256 || a.register_manifest_sha256 !== b.register_manifest_sha256) {
      f.add('REPAIR_CHAIN_MISMATCH', `the attempt this one repairs (${prevDir}) was admitted under another source commit, config, routing policy or register manifest`, 'admission.json')
    }
    const now = unmetItemsOf({ dir: prevDir, admission: prev, outcome })
    if (jcs(now) !== jcs(unmet)) f.add('REPAIR_CHAIN_MISMATCH', `${UNMET_FILE} differs from the unmet items recomputed from ${prevDir}`, UNMET_FILE)
    if (jcs(repairCaseFor(prev.case, prev.attempt_key, now)) !== jcs(admission.case)) f.add('REPAIR_CHAIN_MISMATCH', `the case is not the repair case of ${prevDir} (case ${prev.case.id})`, 'inputs/case.json')
  } catch (e) {
    f.add('REPAIR_CHAIN_BROKEN', `the attempt this one repairs (${prevDir}) cannot be read as a repairable attempt: ${isToolError(e) ? `${e.code}: ` : ''}${(e as Error).message}`, 'inputs/case.json')
  }
}
