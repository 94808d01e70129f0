// The pure parts of admission, shared by admit (which decides) and every later step and
// readback (which recompute and compare): the case input digest, the attempt key, the route
// and its cost, and the two register resolutions (DESIGN §1, §6).

import type { AttemptKeyInputs, Case, ExecutionConfig, PromptRegister, RegisterManifest, ResolvedRoute, RoutingPolicy, TaskRegister } from '@repairline/schemas'
import { jcsSha256 } from './digest.ts'
import { toolError } from './errors.ts'

/**
 * sha256(JCS({kind, id, test})): the digest a case must carry as input_sha256; a repair
 * case's `repairs` (the repaired attempt's key and its unmet items' digest) enters it too.
 */
export function caseInputSha256 (c: Pick<Case, 'kind' | 'id' | 'test' | 'repairs'>): string {
  return jcsSha256({ kind: c.kind, id: c.id, test: c.test, ...(c.repairs === undefined ? {} : { repairs: c.repairs }) })
}

/** The attempt key: sha256 of JCS of exactly these seven inputs, nothing else. */
export function attemptKey (inputs: AttemptKeyInputs): string {
  return jcsSha256({
    source_sha: inputs.source_sha,
    config_sha256: inputs.config_sha256,
    routing_policy_sha256: inputs.routing_policy_sha256,
    register_manifest_sha256: inputs.register_manifest_sha256,
    case_kind: inputs.case_kind,
    case_id: inputs.case_id,
    case_input_sha256: inputs.case_input_sha256,
  })
}

/** The key inputs for one case under a config, policy and manifest (already validated). */
export function keyInputsFor (config: ExecutionConfig, policy: RoutingPolicy, manifest: RegisterManifest, c: Case): AttemptKeyInputs {
  return {
    source_sha: config.source_sha,
    config_sha256: jcsSha256(config),
    routing_policy_sha256: jcsSha256(policy),
    register_manifest_sha256: jcsSha256(manifest),
    case_kind: c.kind,
    case_id: c.id,
    case_input_sha256: caseInputSha256(c),
  }
}

/**
 * Refuses a policy that can never route consistently: two routes for one kind, or a route
 * whose model is not provider.model (no fallback).
 */
export function checkRoutingPolicy (policy: RoutingPolicy, providerModel: string): void {
  const kinds = new Set<string>()
  policy.routes.forEach((r, i) => {
    if (kinds.has(r.case_kind)) throw toolError('ROUTING_POLICY_INVALID', `routing policy: two routes for case kind ${r.case_kind}`, { path: `/routes/${i}/case_kind` })
    kinds.add(r.case_kind)
    if (r.model !== providerModel) {
      throw toolError('ROUTE_MODEL_MISMATCH', `routing policy: route for ${r.case_kind} names model ${JSON.stringify(r.model)}, but provider.model is ${JSON.stringify(providerModel)}`, { path: `/routes/${i}/model`, hint: 'the routed model must equal provider.model; there is no fallback' })
    }
  })
}

/** Estimated cost in USD of a route: tokens × price per million. An estimate, never a reservation. */
export function estimatedCostUsd (r: RoutingPolicy['routes'][number]): number {
  const cost = r.estimated_input_tokens * r.usd_per_million_input_tokens / 1e6 + r.estimated_output_tokens * r.usd_per_million_output_tokens / 1e6
  return Math.round(cost * 1e9) / 1e9
}

export type RouteResolution = { ok: true, route: ResolvedRoute } | { ok: false, code: 'NO_ROUTE' | 'COST_OVER_CEILING', message: string }

/**
 * Recomputes the route of a case kind from the policy. A repair case takes the policy's
 * `repair` route when it has one, else the `test_failure` route: a repair is the same task
 * on the same test, and a policy need not name it.
 */
export function resolveRoute (policy: RoutingPolicy, caseKind: string): RouteResolution {
  const r = policy.routes.find(x => x.case_kind === caseKind) ?? (caseKind === 'repair' ? policy.routes.find(x => x.case_kind === 'test_failure') : undefined)
  if (r === undefined) return { ok: false, code: 'NO_ROUTE', message: `no route for case kind ${caseKind}` }
  const cost = estimatedCostUsd(r)
  if (cost > policy.cost_ceiling_usd) return { ok: false, code: 'COST_OVER_CEILING', message: `estimated cost $${cost} is over the ceiling $${policy.cost_ceiling_usd}` }
  return { ok: true, route: { ...r, estimated_cost_usd: cost, cost_ceiling_usd: policy.cost_ceiling_usd } }
}

/** Every tasks.<label> must be in the routing vocabulary (the policy's task labels). */
export function checkManifestVocabulary (manifest: RegisterManifest, policy: RoutingPolicy): void {
  const vocabulary = new Set(policy.routes.map(r => r.task_label))
  for (const label of Object.keys(manifest.tasks)) {
    if (!vocabulary.has(label)) {
      throw toolError('REGISTER_MANIFEST_INVALID', `register manifest: tasks.${label} is not in the routing vocabulary (${[...vocabulary].join(', ')})`, { path: `/tasks/${label}` })
    }
  }
}

/** Task row: tasks.<label> if present, else surfaces.agent. */
export function resolveTaskRegister (manifest: RegisterManifest, taskLabel: string): TaskRegister {
  const task = Object.hasOwn(manifest.tasks, taskLabel) ? manifest.tasks[taskLabel] : undefined
  const [row, source] = task !== undefined ? [task, `tasks.${taskLabel}`] : [manifest.surfaces.agent, 'surfaces.agent']
  return { register: row.register, register_source: source, ...(row.max_output_tokens === undefined ? {} : { max_output_tokens: row.max_output_tokens }) }
}

/** Prompt row: always surfaces.prompts. */
export function resolvePromptRegister (manifest: RegisterManifest): PromptRegister {
  return { prompt_register: manifest.surfaces.prompts.register, prompt_register_source: 'surfaces.prompts' }
}

/**
 * Re-resolves both tuples from the manifest and compares every field with the recorded
 * ones; refuses (REGISTER_TUPLE_MISMATCH) on any difference.
 */
export function assertRegisterTuples (manifest: RegisterManifest, taskLabel: string, task: TaskRegister, prompt: PromptRegister): void {
  const wantTask = resolveTaskRegister(manifest, taskLabel)
  const wantPrompt = resolvePromptRegister(manifest)
  const fields: Array<[string, unknown, unknown]> = [
    ['register', task.register, wantTask.register],
    ['register_source', task.register_source, wantTask.register_source],
    ['max_output_tokens', task.max_output_tokens, wantTask.max_output_tokens],
    ['prompt_register', prompt.prompt_register, wantPrompt.prompt_register],
    ['prompt_register_source', prompt.prompt_register_source, wantPrompt.prompt_register_source],
  ]
  for (const [name, got, want] of fields) {
    if (got !== want) throw toolError('REGISTER_TUPLE_MISMATCH', `register tuple field ${name} is ${JSON.stringify(got)}, but the manifest resolves ${JSON.stringify(want)}`)
  }
}

/** The job budget: min(provider.max_output_tokens, the task row's max_output_tokens). */
export function requestMaxOutputTokens (config: ExecutionConfig, task: TaskRegister): number {
  return Math.min(config.provider.max_output_tokens, task.max_output_tokens ?? Number.POSITIVE_INFINITY)
}
