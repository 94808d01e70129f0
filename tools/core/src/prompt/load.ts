// Loads the render inputs of an attempt from retained files only, and checks that they still
// bind to the attempt: the config, routing policy, register manifest and case hash to the
// admitted key inputs, the route recomputed from the policy equals the admitted one and names
// provider.model, both register tuples re-resolve from the manifest blob in the extracted
// tree, and baseline.json belongs to this attempt and reproduced the case.

import { join } from 'node:path'
import type { Case, RegisterManifest, UnmetItems } from '@repairline/schemas'
import { attemptKey, assertRegisterTuples, caseInputSha256, resolveRoute } from '../admission.ts'
import { readJsonFile, type Attempt } from '../attempt-dir.ts'
import { parseDocument } from '../contracts.ts'
import { jcs, jcsSha256 } from '../digest.ts'
import { toolError } from '../errors.ts'
import type { RenderInputs } from './render.ts'

export const REGISTER_MANIFEST_PATH = '.repairline/registers.json'

/** Reads one file of the extracted tree (tree.tar) by repository path. */
export type TreeReader = (path: string) => Buffer

function mismatch (what: string): never {
  throw toolError('ATTEMPT_BINDING_MISMATCH', `${what}: the retained inputs no longer bind to the admitted attempt`)
}

export function loadRenderInputs (attempt: Attempt, readTree: TreeReader): RenderInputs {
  const { dir, admission, config } = attempt
  const readJson = attempt.readJson ?? readJsonFile
  const k = admission.key_inputs
  if (attemptKey(k) !== admission.attempt_key) mismatch('admission.json key_inputs do not hash to attempt_key')
  if (jcsSha256(config) !== k.config_sha256) mismatch('inputs/execution.json')
  if (config.source_sha !== k.source_sha) mismatch('inputs/execution.json source_sha')
  const policy = readJson('routing-policy', join(dir, 'inputs', 'routing-policy.json'))
  if (jcsSha256(policy) !== k.routing_policy_sha256) mismatch('inputs/routing-policy.json')
  const c: Case = readJson('case', join(dir, 'inputs', 'case.json'))
  if (jcs(c) !== jcs(admission.case)) mismatch('inputs/case.json differs from admission.json case')
  if (caseInputSha256(c) !== k.case_input_sha256 || c.kind !== k.case_kind || c.id !== k.case_id) mismatch('inputs/case.json')

  const routed = resolveRoute(policy, c.kind)
  if (!routed.ok) mismatch(`route: ${routed.message}`)
  if (jcs(routed.route) !== jcs(admission.route)) mismatch('the route recomputed from inputs/routing-policy.json differs from admission.json route')
  if (routed.route.model !== config.provider.model) {
    throw toolError('ROUTE_MODEL_MISMATCH', `the route names model ${JSON.stringify(routed.route.model)}, but provider.model is ${JSON.stringify(config.provider.model)}`, { exit: 65 })
  }

  const manifest: RegisterManifest = parseDocument('register-manifest', readTree(REGISTER_MANIFEST_PATH), `${REGISTER_MANIFEST_PATH} in the extracted tree`, 'REGISTER_MANIFEST_INVALID')
  if (jcsSha256(manifest) !== k.register_manifest_sha256) mismatch(`${REGISTER_MANIFEST_PATH} in the extracted tree`)
  const retained = readJson('register-manifest', join(dir, 'inputs', 'registers.json'))
  if (jcs(retained) !== jcs(manifest)) mismatch('inputs/registers.json differs from the manifest blob')
  assertRegisterTuples(manifest, routed.route.task_label, admission.task_register, admission.prompt_register)

  const baseline = readJson('baseline', join(dir, 'baseline.json'))
  if (baseline.attempt_key !== admission.attempt_key) mismatch('baseline.json names another attempt')
  if (baseline.case_identity !== c.test.name) mismatch('baseline.json case_identity is not the case\'s test')
  if (!baseline.reproduced) throw toolError('ATTEMPT_INCOMPLETE', `${dir}/baseline.json: the case was not reproduced, so the provider is never called`)

  const files = config.allowed_files.map(path => ({ path, bytes: readTree(path) }))
  // A repair case sends the unmet items it was admitted with, as retained: they must be the
  // ones whose digest the case (and so the key) carries.
  let unmet: UnmetItems | undefined
  if (c.repairs !== undefined) {
    unmet = readJson('unmet', join(dir, 'inputs', 'unmet.json'))
    if (jcsSha256(unmet) !== c.repairs.unmet_sha256 || unmet.attempt_key !== c.repairs.attempt_key) mismatch('inputs/unmet.json is not the unmet items the repair case names')
  }
  return { config, case: c, route: routed.route, task: admission.task_register, prompt: admission.prompt_register, files, failing: baseline.failing, ...(unmet === undefined ? {} : { unmet }) }
}
