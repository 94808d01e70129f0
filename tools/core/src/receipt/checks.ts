// Readback's content checks: what each retained file must still say, recomputed with the
// current code. The key from the retained inputs; the route and both register tuples from
// the retained policy and manifest; the tree's and the event files' digests; the current
// checker versions; the owned texts and request re-rendered byte for byte; the proposal
// reread and its summary rechecked; the gate rerun; the outcome's claims against the files
// that back them.


import { join } from 'node:path'
import type { Admission, Case, ExecutionConfig, OutcomeFile, Proposal, RegisterManifest, RoutingPolicy, TreeManifest, ValidationRecord } from '@repairline/schemas'
import { attemptKey, caseInputSha256, resolveRoute, resolvePromptRegister, resolveTaskRegister } from '../admission.ts'
import { jcs, jcsSha256, sha256Hex } from '../digest.ts'
import { readFileNoFollow, loadAttempt } from '../attempt-dir.ts'
import { INTERNAL_TEXT_CHECKER, renderSummaryText, validateText, validationPassed, VALIDATION_STAGES, VALIDATION_STAGE_ORDER } from '../text-contracts/index.ts'
import { loadRenderInputs, renderAttempt } from '../prompt/index.ts'
import { openTreeReader } from '../tree-archive/index.ts'
import { jsonFileBytes } from '../atomic.ts'
import type { Findings } from './readback.ts'
import { commandMisalignment } from './command-alignment.ts'

export interface CheckContext {
  dir: string
  admission: Admission
  outcome: OutcomeFile | undefined
  /** Parsed, validated JSON files (undefined when malformed). */
  docs: ReadonlyMap<string, unknown>
  files: ReadonlySet<string>
  findings: Findings
}

const same = (a: unknown, b: unknown): boolean => jcs(a) === jcs(b)

function fileSha (dir: string, rel: string): string {
  return sha256Hex(readFileNoFollow(join(dir, rel), 1 << 30))
}

/** The key, the case, the route and the register tuples, from the retained inputs. */
function checkBinding (c: CheckContext): void {
  const { admission: a, docs, findings: f } = c
  const k = a.key_inputs
  if (attemptKey(k) !== a.attempt_key) f.add('ATTEMPT_BINDING_MISMATCH', 'admission.json key_inputs do not hash to its attempt_key', 'admission.json')
  const config = docs.get('inputs/execution.json') as ExecutionConfig | undefined
  const policy = docs.get('inputs/routing-policy.json') as RoutingPolicy | undefined
  const manifest = docs.get('inputs/registers.json') as RegisterManifest | undefined
  const theCase = docs.get('inputs/case.json') as Case | undefined
  const started = docs.get('started.json') as { attempt_key: string } | undefined
  if (started !== undefined && started.attempt_key !== a.attempt_key) f.add('ATTEMPT_BINDING_MISMATCH', 'started.json names another key', 'started.json')
  if (config !== undefined && (jcsSha256(config) !== k.config_sha256 || config.source_sha !== k.source_sha)) f.add('ATTEMPT_BINDING_MISMATCH', 'inputs/execution.json does not hash to the admitted config_sha256', 'inputs/execution.json')
  if (policy !== undefined && jcsSha256(policy) !== k.routing_policy_sha256) f.add('ATTEMPT_BINDING_MISMATCH', 'inputs/routing-policy.json does not hash to the admitted routing_policy_sha256', 'inputs/routing-policy.json')
  if (theCase !== undefined && (!same(theCase, a.case) || caseInputSha256(theCase) !== k.case_input_sha256 || theCase.id !== k.case_id || theCase.kind !== k.case_kind)) {
    f.add('ATTEMPT_BINDING_MISMATCH', 'inputs/case.json differs from the admitted case', 'inputs/case.json')
  }
  if (policy !== undefined) {
    const r = resolveRoute(policy, a.case.kind)
    if (!r.ok || !same(r.route, a.route)) f.add('ROUTE_MISMATCH', `the route recomputed from inputs/routing-policy.json ${r.ok ? 'differs from admission.json route' : `fails: ${r.message}`}`, 'admission.json')
    if (config !== undefined && a.route.model !== config.provider.model) f.add('ROUTE_MISMATCH', `the route's model ${a.route.model} is not provider.model ${config.provider.model}`, 'admission.json')
  }
  if (manifest !== undefined) {
    if (jcsSha256(manifest) !== k.register_manifest_sha256) f.add('REGISTER_TUPLE_MISMATCH', 'inputs/registers.json does not hash to the admitted register_manifest_sha256 (it is not the manifest blob at source_sha)', 'inputs/registers.json')
    if (!same(resolveTaskRegister(manifest, a.route.task_label), a.task_register) || !same(resolvePromptRegister(manifest), a.prompt_register)) {
      f.add('REGISTER_TUPLE_MISMATCH', 'the register tuples in admission.json disagree with the rows of inputs/registers.json', 'admission.json')
    }
  }
}

/** Digests that one retained file states about another. */
function checkInnerDigests (c: CheckContext): void {
  const { dir, docs, files, findings: f, admission } = c
  const manifest = docs.get('tree-manifest.json') as TreeManifest | undefined
  if (manifest !== undefined) {
    if (manifest.attempt_key !== admission.attempt_key || manifest.source_sha !== admission.key_inputs.source_sha) f.add('ATTEMPT_BINDING_MISMATCH', 'tree-manifest.json names another attempt or commit', 'tree-manifest.json')
    if (files.has('tree.tar') && fileSha(dir, 'tree.tar') !== manifest.tar_sha256) f.add('DIGEST_MISMATCH', 'tree.tar does not hash to tree-manifest.json tar_sha256', 'tree.tar')
  }
  for (const [summary, events] of [['baseline.json', 'baseline.events.ndjson'], ['verify.json', 'candidate.events.ndjson']] as const) {
    const doc = docs.get(summary) as { attempt_key?: string, events?: { sha256: string } } | undefined
    if (doc === undefined) continue
    if (doc.attempt_key !== undefined && doc.attempt_key !== admission.attempt_key) f.add('ATTEMPT_BINDING_MISMATCH', `${summary} names another attempt`, summary)
    if (doc.events !== undefined && files.has(events) && fileSha(dir, events) !== doc.events.sha256) f.add('DIGEST_MISMATCH', `${events} does not hash to ${summary} events.sha256`, events)
  }
  const gate = docs.get('gate.json') as { proposal_sha256?: string, patch?: { sha256: string } } | undefined
  if (gate !== undefined) {
    if (gate.proposal_sha256 !== undefined && files.has('proposal.json') && fileSha(dir, 'proposal.json') !== gate.proposal_sha256) f.add('DIGEST_MISMATCH', 'proposal.json does not hash to gate.json proposal_sha256', 'proposal.json')
    if (gate.patch !== undefined && files.has('candidate.patch') && fileSha(dir, 'candidate.patch') !== gate.patch.sha256) f.add('DIGEST_MISMATCH', 'candidate.patch does not hash to gate.json patch.sha256', 'candidate.patch')
  }
}

/** Validation records: current checker, and the same verdict on the same bytes today. */
function checkValidations (c: CheckContext): void {
  const { docs, findings: f, admission } = c
  const tuples = { task: admission.task_register, prompt: admission.prompt_register }
  for (const stage of VALIDATION_STAGE_ORDER) {
    const spec = VALIDATION_STAGES[stage]
    const rec = docs.get(spec.file) as ValidationRecord | undefined
    if (rec === undefined) continue
    if (rec.checker.name !== INTERNAL_TEXT_CHECKER.name || rec.checker.version !== INTERNAL_TEXT_CHECKER.version) {
      f.add('STALE_CHECKER_VERSION', `${spec.file} was checked by ${rec.checker.name} v${rec.checker.version}; the current checker is ${INTERNAL_TEXT_CHECKER.name} v${INTERNAL_TEXT_CHECKER.version}`, spec.file)
    }
  }
  // The summary record is checked against proposal.json, reread here.
  const proposal = docs.get('proposal.json') as Proposal | undefined
  const summaryRec = docs.get(VALIDATION_STAGES.summary_validation.file) as ValidationRecord | undefined
  if (proposal !== undefined && summaryRec !== undefined) {
    const again = validateText('summary_validation', tuples, renderSummaryText(proposal.summary))
    if (again.input_sha256 !== summaryRec.input_sha256) f.add('DIGEST_MISMATCH', 'validation/summary.json input_sha256 is not the digest of proposal.json summary', VALIDATION_STAGES.summary_validation.file)
    else if (again.status !== summaryRec.status || !same(again.findings, summaryRec.findings)) f.add('VALIDATION_MISMATCH', `the summary checker says ${again.status} today, the record says ${summaryRec.status}`, VALIDATION_STAGES.summary_validation.file)
  }

}

/** job.txt, prompt.txt, the three owned-text records and request.json, re-rendered. */
function checkRendered (c: CheckContext): void {
  const { dir, files, findings: f } = c
  if (!files.has('job.txt')) return
  let rendered
  try {
    const attempt = loadAttempt(dir)
    const tree = openTreeReader(dir)
    rendered = renderAttempt(loadRenderInputs(attempt, p => tree.readFile(p)))
  } catch (e) {
    const code = (e as { code?: string }).code
    f.add(code === 'REGISTER_TUPLE_MISMATCH' || code === 'ATTEMPT_BINDING_MISMATCH' ? code : 'RERENDER_MISMATCH', `the request cannot be re-rendered from the retained inputs: ${(e as Error).message}`, 'job.txt')
    return
  }
  const expected: Array<[string, Buffer | undefined]> = [
    ['job.txt', Buffer.from(rendered.brief)],
    ['prompt.txt', Buffer.from(rendered.scaffold)],
    ['validation/job_instructions.json', Buffer.from(jsonFileBytes(rendered.validations.job))],
    ['validation/prompt.json', Buffer.from(jsonFileBytes(rendered.validations.prompt))],
    ['validation/request_instructions.json', Buffer.from(jsonFileBytes(rendered.validations.instructions))],
    ['request.json', rendered.request?.bytes],
  ]
  for (const [file, bytes] of expected) {
    if (!files.has(file)) continue
    const kept = readFileNoFollow(join(dir, file))
    if (bytes === undefined || !kept.equals(bytes)) f.add('RERENDER_MISMATCH', `${file} differs from what the retained inputs render today`, file)
  }
}

/** The gate, rerun on the retained proposal and tree: gate.json and candidate.patch byte for byte. */
async function checkGate (c: CheckContext): Promise<void> {
  const { dir, files, docs, findings: f } = c
  const gate = docs.get('gate.json') as { checker: { name: string, version: number } } | undefined
  if (gate === undefined || !files.has('proposal.json')) return
  // Loaded only here: the tree-sitter runtime stays out of every other path.
  const { computeAttemptGate, GATE_CHECKER } = await import('../gate/attempt.ts')
  if (gate.checker.name !== GATE_CHECKER.name || gate.checker.version !== GATE_CHECKER.version) {
    f.add('STALE_CHECKER_VERSION', `gate.json was written by ${gate.checker.name} v${gate.checker.version}; the current gate is v${GATE_CHECKER.version}`, 'gate.json')
    return
  }
  const out = await computeAttemptGate(loadAttempt(dir))
  if (!readFileNoFollow(join(dir, 'gate.json')).equals(out.gateBytes)) f.add('GATE_MISMATCH', 'gate.json differs from what the gate computes today', 'gate.json')
  const kept = files.has('candidate.patch') ? readFileNoFollow(join(dir, 'candidate.patch')) : undefined
  if ((kept === undefined) !== (out.patchBytes === undefined) || (kept !== undefined && out.patchBytes !== undefined && !kept.equals(out.patchBytes))) {
    f.add('GATE_MISMATCH', 'candidate.patch differs from what the gate computes today', 'candidate.patch')
  }
}

/** Every recorded test command is the fixed command, in the summary files and in the receipt. */
function checkCommands (c: CheckContext): void {
  const { docs, findings: f } = c
  const config = docs.get('inputs/execution.json') as ExecutionConfig | undefined
  if (config === undefined) return
  for (const file of ['baseline.json', 'verify.json']) {
    const doc = docs.get(file) as { command?: string[], run?: { command?: string[], env_names?: string[] } } | undefined
    const argv = doc?.run?.command ?? doc?.command
    if (argv === undefined) continue
    const why = commandMisalignment(config, argv, doc?.run?.env_names ?? [])
    if (why !== undefined) f.add('COMMAND_MISALIGNED', `${file}: ${why}`, file)
  }
  const receipt = docs.get('receipt.json') as { commands?: Array<{ step: string, argv: string[], env_names: string[] }> } | undefined
  for (const cmd of receipt?.commands ?? []) {
    const why = commandMisalignment(config, cmd.argv, cmd.env_names)
    if (why !== undefined) f.add('COMMAND_MISALIGNED', `receipt.json (${cmd.step}): ${why}`, 'receipt.json')
  }
}

/** What the outcome claims must be backed by the files. */
function checkOutcomeClaims (c: CheckContext): void {
  const { outcome, docs, findings: f } = c
  if (outcome?.outcome !== 'scoped_test_verified') return
  for (const stage of VALIDATION_STAGE_ORDER) {
    const rec = docs.get(VALIDATION_STAGES[stage].file) as ValidationRecord | undefined
    if (rec !== undefined && !validationPassed(rec)) f.add('OUTCOME_MISMATCH', `scoped_test_verified, but ${VALIDATION_STAGES[stage].file} says ${rec.status}`, VALIDATION_STAGES[stage].file)
  }
  const gate = docs.get('gate.json') as { passed?: boolean } | undefined
  if (gate !== undefined && gate.passed !== true) f.add('OUTCOME_MISMATCH', 'scoped_test_verified, but gate.json did not pass', 'gate.json')
  const verify = docs.get('verify.json') as { classification?: string } | undefined
  if (verify !== undefined && verify.classification !== undefined && verify.classification !== 'scoped_test_verified') f.add('OUTCOME_MISMATCH', `scoped_test_verified, but verify.json says ${verify.classification}`, 'verify.json')
}

export async function runContentChecks (c: CheckContext): Promise<void> {
  checkBinding(c)
  checkInnerDigests(c)
  checkValidations(c)
  checkRendered(c)
  await checkGate(c)
  checkCommands(c)
  checkOutcomeClaims(c)
}
