// Readback's content checks: what each retained file must still say, recomputed with the
// current code. The key from the retained inputs; the route and both register tuples from
// the retained policy and manifest; the tree's and the event files' digests; the current
// checker versions; the owned texts and request re-rendered byte for byte; the proposal
// reread and its summary rechecked; the gate rerun; the test verdicts re-derived from the
// retained events (test-verdicts.ts); the digests one file states about another (dispatch →
// request, verify → proposal and patch); every recorded test command and
// receipt.json's copies of the commands and validation verdicts; the outcome's claims
// against the files that back them.


import { join } from 'node:path'
import type { Admission, Case, CheckResult, ExecutionConfig, Receipt, OutcomeFile, Proposal, ProviderResponse, RegisterManifest, RoutingPolicy, TreeManifest, ValidationRecord } from '@repairline/schemas'
import { attemptKey, caseInputSha256, resolveRoute, resolvePromptRegister, resolveTaskRegister } from '../admission.ts'
import { jcs, jcsSha256, sha256Hex } from '../digest.ts'
import type { Attempt } from '../attempt-dir.ts'
import { readFileNoFollow } from '../read-file.ts'
import { responsesUrl } from '../url.ts'
import { INTERNAL_TEXT_CHECKER, renderSummaryText, validateText, validationPassed, VALIDATION_STAGES, VALIDATION_STAGE_ORDER } from '../text-contracts/index.ts'
import { loadRenderInputs, renderAttempt, renderedFiles } from '../prompt/index.ts'
import { openTreeReader, verifyTreeArchive } from '../tree-archive/index.ts'
import { isToolError } from '../errors.ts'
import { STALE_GRACE_MS } from '../lock.ts'
import { decideAnswer, retainedAnswer, usageRecord } from '../provider/answer.ts'
import { HTTP_STATUS_CODES } from '../provider/classify-status.ts'
import type { Findings } from './readback.ts'
import { commandMisalignment } from './command-alignment.ts'
import { commandOf, validationOf } from './seal.ts'
import { VALIDATION_FILES } from './stages.ts'
import { checkTestVerdicts } from './test-verdicts.ts'
import { checkTimeOrder } from './time-order.ts'
import { CANDIDATE_CODE, checkCandidate } from './candidate-check.ts'
import { checkOperatorWork, OPERATOR_WORK_CODE } from './operator-work-clause.ts'
import { checkRepository, INSTRUCTIONS_CODE } from './repository-check.ts'
import { checksTimedOut, firstCheck } from '../checks/verdict.ts'
import { CHECK_RESULT_MISMATCH, checkCheckResults } from './check-results.ts'
import { checkRepairChain } from '../repair/chain.ts'

export interface CheckContext {
  dir: string
  admission: Admission
  outcome: OutcomeFile | undefined
  /** Parsed, validated JSON files (undefined when malformed). */
  docs: ReadonlyMap<string, unknown>
  files: ReadonlySet<string>
  findings: Findings
  /** sha256 of a retained file, read and hashed at most once per readback. */
  digestOf: (rel: string) => string
  /**
   * The attempt as the steps load it (loadAttempt outside a state root), loaded once: its
   * JSON files come from `docs` where they are there, so none is read and validated again.
   * Throws what loadAttempt throws, each time it is asked.
   */
  attempt: () => Attempt
  /** Readback's clock, when it has one (time-order.ts). */
  now?: Date
}

const same = (a: unknown, b: unknown): boolean => jcs(a) === jcs(b)

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
  // The provider's records, the gate's and the outcome name this attempt too (the tree
  // manifest, baseline and verify are checked with their digests).
  for (const file of ['dispatch.json', 'response.json', 'usage.json', 'gate.json', 'outcome.json']) {
    const key = (docs.get(file) as { attempt_key?: string } | undefined)?.attempt_key
    if (key !== undefined && key !== a.attempt_key) f.add('ATTEMPT_BINDING_MISMATCH', `${file} names another attempt`, file)
  }
  // dispatch.json states where the call went and with what: the retained config's endpoint
  // and token helper, the (re-rendered) request's model and output budget.
  const dispatch = docs.get('dispatch.json') as { url: string, model: string, max_output_tokens: number, token_command_sha256: string } | undefined
  const request = docs.get('request.json') as { model?: string, max_output_tokens?: number } | undefined
  if (dispatch !== undefined && config !== undefined) {
    const p = config.provider
    const sent = request === undefined || (dispatch.model === request.model && dispatch.max_output_tokens === request.max_output_tokens)
    if (dispatch.url !== responsesUrl(p.base_url) || dispatch.token_command_sha256 !== p.token_command_sha256 || !sent) {
      f.add('ATTEMPT_BINDING_MISMATCH', 'dispatch.json url or token_command_sha256 is not what inputs/execution.json says, or its model or max_output_tokens not what request.json says', 'dispatch.json')
    }
  }
  // The deadline every step and the lock obey: the config's timeout from admitted_at.
  if (config !== undefined && (a.timeout_seconds !== config.timeout_seconds || Date.parse(a.deadline) !== Date.parse(a.admitted_at) + config.timeout_seconds * 1000)) {
    f.add('ATTEMPT_BINDING_MISMATCH', `admission.json timeout_seconds ${a.timeout_seconds} and deadline ${a.deadline} are not inputs/execution.json timeout_seconds ${config.timeout_seconds} from admitted_at ${a.admitted_at}`, 'admission.json')
  }
  if (config !== undefined && (jcsSha256(config) !== k.config_sha256 || config.source_sha !== k.source_sha)) f.add('ATTEMPT_BINDING_MISMATCH', 'inputs/execution.json does not hash to the admitted config_sha256', 'inputs/execution.json')
  // What admit saw of the checkout: the admitted commit in the configured root, with the
  // listing's counts the tree manifest has too.
  if (a.source.sha !== k.source_sha || (config !== undefined && a.source.root !== config.source_root)) f.add('ATTEMPT_BINDING_MISMATCH', `admission.json source (${a.source.sha.slice(0, 12)} in ${a.source.root}) is not the admitted source_sha in inputs/execution.json source_root`, 'admission.json')
  const tree = docs.get('tree-manifest.json') as TreeManifest | undefined
  if (tree !== undefined) {
    // Against the entries themselves: a manifest whose counts contradict its entries is the tree check's finding.
    let bytes = 0
    for (const e of tree.entries) bytes += e.bytes
    if (a.source.tree_entries !== tree.entries.length || a.source.tree_bytes !== bytes) f.add('ATTEMPT_BINDING_MISMATCH', `admission.json counts ${a.source.tree_entries} blobs of ${a.source.tree_bytes} bytes at source_sha; tree-manifest.json lists ${tree.entries.length} of ${bytes}`, 'admission.json')
  }
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
    if (files.has('tree.tar') && c.digestOf('tree.tar') !== manifest.tar_sha256) f.add('DIGEST_MISMATCH', 'tree.tar does not hash to tree-manifest.json tar_sha256', 'tree.tar')
  }
  for (const [summary, events] of [['baseline.json', 'baseline.events.ndjson'], ['verify.json', 'candidate.events.ndjson']] as const) {
    const doc = docs.get(summary) as { attempt_key?: string, events?: { sha256: string } } | undefined
    if (doc === undefined) continue
    if (doc.attempt_key !== undefined && doc.attempt_key !== admission.attempt_key) f.add('ATTEMPT_BINDING_MISMATCH', `${summary} names another attempt`, summary)
    if (doc.events !== undefined && files.has(events) && c.digestOf(events) !== doc.events.sha256) f.add('DIGEST_MISMATCH', `${events} does not hash to ${summary} events.sha256`, events)
  }
  // dispatch.json names the request bytes that were sent; verify.json the proposal and patch it tested.
  const dispatch = docs.get('dispatch.json') as { request_sha256: string, request_bytes: number } | undefined
  if (dispatch !== undefined && files.has('request.json')) {
    const bytes = readFileNoFollow(join(dir, 'request.json'))
    if (bytes.length !== dispatch.request_bytes || sha256Hex(bytes) !== dispatch.request_sha256) f.add('DIGEST_MISMATCH', 'request.json does not hash to dispatch.json request_sha256', 'request.json')
  }
  const tested = (docs.get('verify.json') as { candidate?: { proposal_sha256?: string, patch_sha256?: string, files?: Array<{ path: string, sha256: string, bytes: number }> } } | undefined)?.candidate
  if (tested?.proposal_sha256 !== undefined && files.has('proposal.json') && c.digestOf('proposal.json') !== tested.proposal_sha256) f.add('DIGEST_MISMATCH', 'proposal.json does not hash to verify.json candidate.proposal_sha256', 'proposal.json')
  if (tested?.patch_sha256 !== undefined && files.has('candidate.patch') && c.digestOf('candidate.patch') !== tested.patch_sha256) f.add('DIGEST_MISMATCH', 'candidate.patch does not hash to verify.json candidate.patch_sha256', 'candidate.patch')
  const gate = docs.get('gate.json') as { proposal_sha256?: string, patch?: { sha256: string }, changed_files?: Array<{ path: string, candidate_sha256: string, candidate_bytes: number }> } | undefined
  // The files verify wrote into the work tree are exactly the gate's changed files.
  if (tested?.files !== undefined && gate?.changed_files !== undefined) {
    const wrote = tested.files.map(x => `${x.path}\0${x.sha256}\0${x.bytes}`).join('\n')
    const gated = gate.changed_files.map(x => `${x.path}\0${x.candidate_sha256}\0${x.candidate_bytes}`).join('\n')
    if (wrote !== gated) f.add('DIGEST_MISMATCH', 'verify.json candidate.files are not gate.json changed_files (path, candidate_sha256, candidate_bytes)', 'verify.json')
  }
  if (gate !== undefined) {
    if (gate.proposal_sha256 !== undefined && files.has('proposal.json') && c.digestOf('proposal.json') !== gate.proposal_sha256) f.add('DIGEST_MISMATCH', 'proposal.json does not hash to gate.json proposal_sha256', 'proposal.json')
    if (gate.patch !== undefined && files.has('candidate.patch') && c.digestOf('candidate.patch') !== gate.patch.sha256) f.add('DIGEST_MISMATCH', 'candidate.patch does not hash to gate.json patch.sha256', 'candidate.patch')
  }
}

/**
 * tree.tar against the entries of tree-manifest.json, member by member (verifyTreeArchive).
 * Only an archive that still hashes to the manifest's tar_sha256: any other is already a
 * DIGEST_MISMATCH. Without this, an attempt that ended before anything read the tree (not
 * reproduced, say) would vouch for a manifest whose entries the archive does not hold.
 */
function checkTree (c: CheckContext): void {
  const manifest = c.docs.get('tree-manifest.json') as TreeManifest | undefined
  if (manifest === undefined || !c.files.has('tree.tar') || c.digestOf('tree.tar') !== manifest.tar_sha256) return
  try {
    verifyTreeArchive(c.dir)
  } catch (e) {
    if (!isToolError(e)) throw e
    // FILE_INVALID: the manifest contradicts itself (counts, sums, order, layout size).
    c.findings.add('TREE_ARCHIVE_MISMATCH', e.message, e.code === 'FILE_INVALID' ? 'tree-manifest.json' : 'tree.tar')
  }
}

/**
 * The answer decided again from response.json (core's decideAnswer, which ask-provider used):
 * usage.json must be what its server report gives, proposal.json the proposal it holds, and
 * an outcome ask-provider decided after a complete answer the one it gives. Two of
 * ask-provider's refusals need the token, which readback never holds (the token split across
 * output_text parts, or escaped inside the proposal's own strings): PROVIDER_ECHOED_TOKEN
 * beside an answer that otherwise holds a proposal is taken as recorded.
 */
function checkProviderAnswer (c: CheckContext): void {
  const { docs, files, findings: f, admission, outcome } = c
  const response = docs.get('response.json') as ProviderResponse | undefined
  const request = docs.get('request.json') as { model: string, max_output_tokens: number } | undefined
  // These codes are decided from an answer whose status line arrived, and response.json is
  // written whenever one does: the outcome claims more than the files hold.
  if (response === undefined && outcome?.step === 'ask-provider' && outcome.outcome === 'provider_error' && ANSWER_CODES.has(outcome.reason.code) && !files.has('response.json')) {
    f.add('OUTCOME_MISMATCH', `ask-provider decided ${outcome.reason.code}, which only an answer gives, but response.json is not retained`, 'outcome.json')
  }
  if (response === undefined || request === undefined) return
  const usage = docs.get('usage.json')
  const proposal = docs.get('proposal.json')
  if (!response.body_complete) {
    // The call failed mid-body: nothing was decided from it.
    for (const file of ['usage.json', 'proposal.json']) if (files.has(file)) f.add(CODE_ANSWER, `${file} exists, but response.json holds no complete answer to take it from`, file)
    return
  }
  const d = decideAnswer(retainedAnswer(response), request.max_output_tokens)
  if (d.kind === 'status') {
    if (files.has('usage.json')) f.add(CODE_ANSWER, `usage.json exists, but HTTP ${response.http_status} is no answer (${d.code})`, 'usage.json')
  } else if (usage !== undefined && !same(usage, usageRecord(admission.attempt_key, request.model, request.max_output_tokens, admission.route.estimated_cost_usd, d.report))) {
    f.add(CODE_ANSWER, 'usage.json is not what response.json reports (server model, token counts, cost)', 'usage.json')
  }
  if (proposal !== undefined && (d.kind !== 'proposal' || !same(proposal, d.proposal))) {
    f.add(CODE_ANSWER, d.kind === 'proposal' ? 'proposal.json is not the proposal response.json holds' : `proposal.json exists, but response.json gives ${d.code}`, 'proposal.json')
  }
  if (outcome?.step !== 'ask-provider' || outcome.outcome === 'timed_out' || outcome.outcome === 'interrupted' || outcome.reason.code === 'DISPATCH_INTERRUPTED') return
  const want = d.kind === 'proposal' ? undefined : { code: d.code, retryable: d.retryable }
  const ok = want === undefined
    ? (outcome.outcome === 'rejected' && outcome.reason.code === 'SUMMARY_CONTRACT_FAILED') || (outcome.outcome === 'provider_error' && outcome.reason.code === 'PROVIDER_ECHOED_TOKEN')
    : outcome.outcome === 'provider_error' && outcome.reason.code === want.code && outcome.retryable === want.retryable
  if (!ok) f.add('OUTCOME_MISMATCH', `ask-provider decided ${outcome.outcome} ${outcome.reason.code}, but response.json gives ${want === undefined ? 'a proposal' : `provider_error ${want.code} (retryable: ${String(want.retryable)})`}`, 'outcome.json')
}

const CODE_ANSWER = 'PROVIDER_ANSWER_MISMATCH'

/** Outcome codes only decideAnswer gives, from an answer whose status line arrived. */
const ANSWER_CODES: ReadonlySet<string> = new Set([...HTTP_STATUS_CODES, 'PROPOSAL_INVALID'])

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
    // The other three records are re-rendered byte for byte; this one names its row here.
    else if (again.register !== summaryRec.register || again.register_source !== summaryRec.register_source) f.add('REGISTER_TUPLE_MISMATCH', `validation/summary.json names register ${summaryRec.register} (${summaryRec.register_source}); the summary is checked under the task's row, ${again.register} (${again.register_source})`, VALIDATION_STAGES.summary_validation.file)
    else if (again.status !== summaryRec.status || !same(again.findings, summaryRec.findings)) f.add('VALIDATION_MISMATCH', `the summary checker says ${again.status} today, the record says ${summaryRec.status}`, VALIDATION_STAGES.summary_validation.file)
  }

}

/** job.txt, prompt.txt, the three owned-text records and request.json, re-rendered. */
function checkRendered (c: CheckContext): void {
  const { dir, files, findings: f } = c
  if (!files.has('job.txt')) return
  let rendered
  try {
    const attempt = c.attempt()
    const tree = openTreeReader(dir)
    rendered = renderAttempt(loadRenderInputs(attempt, p => tree.readFile(p)))
  } catch (e) {
    const code = (e as { code?: string }).code
    f.add(code === 'REGISTER_TUPLE_MISMATCH' || code === 'ATTEMPT_BINDING_MISMATCH' ? code : 'RERENDER_MISMATCH', `the request cannot be re-rendered from the retained inputs: ${(e as Error).message}`, 'job.txt')
    return
  }
  const expected = renderedFiles(rendered)
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
  // A proposal.json that is not strict, valid JSON is already MALFORMED: the gate is not rerun on it.
  if (gate === undefined || !files.has('proposal.json') || docs.get('proposal.json') === undefined) return
  // Loaded only here: the tree-sitter runtime stays out of every other path.
  const { computeAttemptGate, GATE_CHECKER } = await import('../gate/attempt.ts')
  if (gate.checker.name !== GATE_CHECKER.name || gate.checker.version !== GATE_CHECKER.version) {
    f.add('STALE_CHECKER_VERSION', `gate.json was written by ${gate.checker.name} v${gate.checker.version}; the current gate is v${GATE_CHECKER.version}`, 'gate.json')
    return
  }
  // The rerun reads the attempt's own files, which may be damaged in ways other checks
  // report (a tree member that no longer has its digest, started.json of another key): a
  // gate that cannot be rerun is a finding, never a crash of readback.
  let out
  try {
    out = await computeAttemptGate(c.attempt())
  } catch (e) {
    f.add('GATE_MISMATCH', `the gate cannot be rerun on the retained files: ${(e as Error).message}`, 'gate.json')
    return
  }
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
  const receipt = docs.get('receipt.json') as Receipt | undefined
  for (const [step, file] of [['reproduce', 'baseline.json'], ['verify', 'verify.json']] as const) {
    const doc = docs.get(file) as { command?: string[], run?: { command?: string[], argv?: string[], env_names?: string[] } } | undefined
    if (doc === undefined) continue
    // A summary records its command up to three times: `command`, `run.command`, and the
    // tail of the sandbox argv after bwrap's `--` (what actually ran). Each must be the
    // fixed command, and they must be one command.
    const argvs = new Map<string, readonly string[]>()
    if (doc.command !== undefined) argvs.set('command', doc.command)
    if (doc.run?.command !== undefined) argvs.set('run.command', doc.run.command)
    if (doc.run?.argv !== undefined) argvs.set('run.argv', doc.run.argv.slice(doc.run.argv.lastIndexOf('--') + 1))
    const why = [...argvs].map(([field, argv]) => {
      const w = commandMisalignment(config, argv, doc.run?.env_names ?? [])
      return w === undefined ? undefined : `${field}: ${w}`
    }).find(w => w !== undefined) ?? (new Set([...argvs.values()].map(a => JSON.stringify(a))).size > 1 ? `${[...argvs.keys()].join(', ')} are not one command` : undefined)
    if (why !== undefined) f.add('COMMAND_MISALIGNED', `${file}: ${why}`, file)
    // receipt.json's copy of the command is what seal derives from this file.
    if (receipt !== undefined) {
      const want = commandOf(step, doc as Record<string, unknown>)
      if (!same(receipt.commands.filter(x => x.step === step), want === undefined ? [] : [want])) f.add('COMMAND_MISALIGNED', `receipt.json's ${step} command differs from what ${file} records`, 'receipt.json')
    }
  }
  for (const cmd of receipt?.commands ?? []) {
    const why = commandMisalignment(config, cmd.argv, cmd.env_names)
    if (why !== undefined) f.add('COMMAND_MISALIGNED', `receipt.json (${cmd.step}): ${why}`, 'receipt.json')
    // A command the receipt records is one a retained summary records: no run without its file.
    const file = cmd.step === 'reproduce' ? 'baseline.json' : cmd.step === 'verify' ? 'verify.json' : undefined
    if (file === undefined || !c.files.has(file)) f.add('COMMAND_MISALIGNED', `receipt.json records a ${cmd.step} command, but ${file ?? 'no summary of that step'} is not retained`, 'receipt.json')
  }
}

/** receipt.json's copy of each validation verdict is what the retained record says. */
function checkReceiptValidations (c: CheckContext): void {
  const { docs, findings: f } = c
  const receipt = docs.get('receipt.json') as Receipt | undefined
  if (receipt === undefined) return
  for (const file of VALIDATION_FILES) {
    const rec = docs.get(file) as ValidationRecord | undefined
    if (rec === undefined) continue
    if (!same(receipt.validation.filter(x => x.stage === rec.stage), [validationOf(rec)])) f.add('VALIDATION_MISMATCH', `receipt.json's ${rec.stage} differs from ${file}`, 'receipt.json')
  }
  // A verdict the receipt records is one a retained record gives: none without its file.
  for (const v of receipt.validation) {
    const file = VALIDATION_STAGES[v.stage].file
    if (!c.files.has(file)) f.add('VALIDATION_MISMATCH', `receipt.json records a ${v.stage} verdict, but ${file} is not retained`, 'receipt.json')
  }
  // Seal lists the records in stage order (the receipt schema's order).
  const at = receipt.validation.map(v => VALIDATION_STAGE_ORDER.indexOf(v.stage))
  const late = at.findIndex((n, i) => i > 0 && n < (at[i - 1] ?? -1))
  if (late !== -1) f.add('STAGE_ORDER', `receipt.json lists ${receipt.validation[late]?.stage ?? '?'} after ${receipt.validation[late - 1]?.stage ?? '?'}: its validation records are not in stage order`, 'receipt.json')
}

/** The one reason code each of these outcomes is written with, whichever step decides it (gate-patch's rejection: GATE_REJECTED). */
const ONE_CODE: Partial<Record<OutcomeFile['outcome'], string>> = {
  scoped_test_verified: 'SCOPED_TEST_VERIFIED',
  not_reproduced: 'NOT_REPRODUCED',
  failed: 'VERIFY_FAILED',
  timed_out: 'DEADLINE_PASSED',
  interrupted: 'ATTEMPT_INTERRUPTED',
}

/**
 * The outcome a deciding step wrote must be the one its own record gives: reproduce's from
 * baseline.json (timed out, a fault, the case not failing: not_reproduced; a reproduced
 * baseline decides nothing), gate-patch's rejection from a gate.json that did not pass, and
 * verify's from verify.json's classification. A timed_out outcome is exempt from that where a
 * step found the deadline passed (decided at or after it; whatever an earlier run of the step
 * left behind) and where the step's record is missing; before the deadline, the deciding
 * record that is there must say timed out too.
 */
function checkDecidingRecord (c: CheckContext): void {
  const { outcome, docs, files, findings: f } = c
  if (outcome === undefined) return
  const code = outcome.outcome === 'rejected' ? outcome.step === 'gate-patch' ? 'GATE_REJECTED' : undefined : ONE_CODE[outcome.outcome]
  if (code !== undefined && outcome.reason.code !== code) f.add('OUTCOME_MISMATCH', `${outcome.step} decided ${outcome.outcome} with code ${outcome.reason.code}, but that outcome is always ${code}`, 'outcome.json')
  // admit and seal decide from the clock alone, and only that: seal timed_out once the
  // deadline passed, either of them interrupted once the lock went stale (deadline + 30 s).
  const decided = Date.parse(outcome.decided_at)
  const deadline = Date.parse(c.admission.deadline)
  const byClock = outcome.step === 'admit' || outcome.step === 'receipt'
  if (outcome.outcome === 'interrupted') {
    if (!byClock) f.add('OUTCOME_MISMATCH', `${outcome.step} decided interrupted: only admit (breaking a stale lock) and receipt seal decide an interruption`, 'outcome.json')
    if (decided <= deadline + STALE_GRACE_MS) f.add('OUTCOME_MISMATCH', `interrupted was decided at ${outcome.decided_at}, before the deadline ${c.admission.deadline} had passed by 30 s: the attempt could still be running`, 'outcome.json')
    return
  }
  if (byClock) {
    if (outcome.step !== 'receipt' || outcome.outcome !== 'timed_out') f.add('OUTCOME_MISMATCH', `${outcome.step} decided ${outcome.outcome}: it decides only ${outcome.step === 'admit' ? 'interrupted' : 'timed_out and interrupted'}, from the clock`, 'outcome.json')
    else if (decided <= deadline) f.add('OUTCOME_MISMATCH', `receipt decided timed_out at ${outcome.decided_at}, before the deadline ${c.admission.deadline}`, 'outcome.json')
    return
  }
  const baseline = docs.get('baseline.json') as { reproduced: boolean, timed_out: boolean, fault?: { code: string }, checks?: CheckResult[] } | undefined
  // A baseline that did not reproduce ends the attempt in reproduce: nothing after it may decide.
  if (baseline !== undefined && !baseline.reproduced && outcome.step !== 'reproduce' && outcome.outcome !== 'timed_out') {
    f.add('OUTCOME_MISMATCH', `${outcome.step} decided ${outcome.outcome}, but baseline.json says the case was not reproduced: reproduce decides such an attempt`, 'outcome.json')
  }
  if (outcome.outcome === 'timed_out') {
    if (Date.parse(outcome.decided_at) >= Date.parse(c.admission.deadline)) return
    const verify = docs.get('verify.json') as { classification: string } | undefined
    const own = outcome.step === 'reproduce' ? baseline === undefined ? undefined : baseline.timed_out || checksTimedOut(baseline.checks) : outcome.step === 'verify' ? verify === undefined ? undefined : verify.classification === 'timed_out' : undefined
    if (own === false) f.add('OUTCOME_MISMATCH', `${outcome.step} decided timed_out at ${outcome.decided_at}, before the deadline ${c.admission.deadline}, but its record says the run was not timed out`, 'outcome.json')
    return
  }
  const missing = (file: string): void => { f.add('OUTCOME_MISMATCH', `${outcome.step} decided ${outcome.outcome}, but ${file}, the record that decides it, is missing`, 'outcome.json') }
  switch (outcome.step) {
    case 'reproduce': {
      if (baseline === undefined) {
        // Only a sandbox that could not be set up ends reproduce without a baseline.
        if (outcome.outcome !== 'fault' && !files.has('baseline.json')) missing('baseline.json')
        return
      }
      // A reproduced baseline still ends the attempt when a check command could not run on it
      // (fault, before any provider call) or the deadline stopped one (timed_out).
      const broken = baseline.reproduced ? firstCheck(baseline.checks, 'fault') : undefined
      const decided = baseline.timed_out ? 'timed_out' : baseline.fault !== undefined ? 'fault' : baseline.reproduced ? checksTimedOut(baseline.checks) ? 'timed_out' : broken !== undefined ? 'fault' : undefined : 'not_reproduced'
      const faultCode = baseline.fault?.code ?? broken?.code
      if (decided !== outcome.outcome) f.add('OUTCOME_MISMATCH', `reproduce decided ${outcome.outcome}, but baseline.json gives ${decided ?? 'no outcome (the case was reproduced)'}`, 'outcome.json')
      else if (decided === 'fault' && faultCode !== outcome.reason.code) f.add('OUTCOME_MISMATCH', `reproduce decided fault ${outcome.reason.code}, but baseline.json records ${faultCode ?? 'none'}`, 'outcome.json')
      return
    }
    case 'gate-patch': {
      const gate = docs.get('gate.json') as { passed: boolean } | undefined
      if (gate === undefined) { if (!files.has('gate.json')) missing('gate.json'); return }
      if (gate.passed || outcome.outcome !== 'rejected') f.add('OUTCOME_MISMATCH', `gate-patch decided ${outcome.outcome}, but gate.json ${gate.passed ? 'passed' : 'rejects the proposal'}`, 'outcome.json')
      return
    }
    case 'verify': {
      const verify = docs.get('verify.json') as { classification: string, fault?: { code: string }, checks?: CheckResult[] } | undefined
      // scoped_test_verified needs every stage: a missing verify.json is the stage check's finding.
      if (verify === undefined) { if (!files.has('verify.json') && outcome.outcome !== 'scoped_test_verified') missing('verify.json'); return }
      // A fault is the test run's own, else the first check that could not run.
      const faultCode = verify.fault?.code ?? firstCheck(verify.checks, 'fault')?.code
      if (verify.classification !== outcome.outcome) f.add('OUTCOME_MISMATCH', `verify decided ${outcome.outcome}, but verify.json says ${verify.classification}`, 'outcome.json')
      else if (outcome.outcome === 'fault' && faultCode !== outcome.reason.code) f.add('OUTCOME_MISMATCH', `verify decided fault ${outcome.reason.code}, but verify.json records ${faultCode ?? 'none'}`, 'outcome.json')
      return
    }
    default:
  }
}

/** What the outcome claims must be backed by the files. */
function checkOutcomeClaims (c: CheckContext): void {
  const { outcome, docs, findings: f } = c
  checkDecidingRecord(c)
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

/**
 * Each check with the code it reports. A check that cannot run to its end on the retained
 * files (one too large to read, a read that fails) reports that under its own code: what it
 * vouches for is then not established, and the other checks still run.
 */
const CHECKS: ReadonlyArray<[string, (c: CheckContext) => void | Promise<void>]> = [
  ['ATTEMPT_BINDING_MISMATCH', checkBinding],
  ['STAGE_ORDER', checkTimeOrder],
  ['DIGEST_MISMATCH', checkInnerDigests],
  ['TREE_ARCHIVE_MISMATCH', checkTree],
  ['TEST_VERDICT_MISMATCH', checkTestVerdicts],
  ['PROVIDER_ANSWER_MISMATCH', checkProviderAnswer],
  ['VALIDATION_MISMATCH', checkValidations],
  ['RERENDER_MISMATCH', checkRendered],
  ['GATE_MISMATCH', checkGate],
  [CANDIDATE_CODE, checkCandidate],
  [OPERATOR_WORK_CODE, checkOperatorWork],
  [INSTRUCTIONS_CODE, checkRepository],
  ['COMMAND_MISALIGNED', checkCommands],
  [CHECK_RESULT_MISMATCH, checkCheckResults],
  ['VALIDATION_MISMATCH', checkReceiptValidations],
  ['OUTCOME_MISMATCH', checkOutcomeClaims],
  ['REPAIR_CHAIN_MISMATCH', checkRepairChain],
]

export async function runContentChecks (c: CheckContext): Promise<void> {
  for (const [code, check] of CHECKS) {
    try {
      await check(c)
    } catch (e) {
      c.findings.add(code, `the check cannot run on the retained files: ${(e as Error).message}`)
    }
  }
}
