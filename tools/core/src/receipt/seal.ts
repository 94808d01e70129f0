// Building receipt.json (DESIGN §12): the key and its inputs, route, register tuples, every
// sealed file by path, size and sha256, the sandboxed test commands, the validation records,
// the outcome, the checkout before and after, and what the receipt does not prove.

import { existsSync, lstatSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { CandidateCommit, Receipt, SealedCommand, SealedValidation, ValidationRecord } from '@repairline/schemas'
import { sha256File } from '../digest.ts'
import { readJsonFile, readOutcome, type Attempt } from '../attempt-dir.ts'
import { readFileNoFollow } from '../read-file.ts'
import { toolError } from '../errors.ts'
import { assertClean } from '../git.ts'
import { writeJsonAtomic } from '../atomic.ts'
import { listAttemptFiles, RECEIPT_FILE, type AttemptListing } from './files.ts'
import { ATTEMPT_FILES, STAGE_FILES, VALIDATION_FILES } from './stages.ts'
import { sealedChecks } from './check-results.ts'
import { CANDIDATE_JSON } from '../candidate/candidate.ts'
import { operatorWorkClause } from './operator-work-clause.ts'
import { sealRepositoryClause } from './repository-check.ts'

/**
 * What the gate lets through on purpose (tools/gate-patch/README.md): the rules that stopped
 * it rejected real upstream fixes, and no test run can tell it from a fix.
 */
export const GATE_STATED_LIMIT = 'The gate compares call expressions by their text: a candidate may change which existing function, object or method a call reaches through data (a receiver, a table or map entry, an alias, a field named like a called one), or keep state in its own variables, without any rule seeing a call change; that reaches only code the file could already call, and a red-then-green run cannot tell it from a fix.'

/** What every receipt says it does not prove. */
export const STATED_LIMITS: readonly string[] = [
  'Scoped tests only: the candidate passed the configured test_packages under the fixed command; nothing else about the code was tested.',
  'It does not claim the original failure corpus, other packages or other platforms are fixed.',
  'Digests are not signatures: anyone who can write the state directory can rewrite a file and recompute every digest consistently; readback catches inconsistent edits only.',
  'Test events are not proof of arbitrary semantics: a test that passes says only what its assertions check.',
  'The provider is trusted for nothing: its proposal passed the gates and the tests, and was never executed outside the sandbox.',
  GATE_STATED_LIMIT,
]

export const TEST_HOOKS_LIMIT = 'Test hooks were enabled (REPAIRLINE_TEST_HOOKS=1): the clock and crash points may have been driven by a test; this receipt is evidence of a test run, not of a repair.'
export const NO_TEST_HOOKS_LIMIT = 'Test hooks were not enabled: deadlines used the wall clock.'

interface RunLike { command?: string[], env_names?: string[], exit?: { code?: number | null, signal?: string | null }, timing?: { setup_ms?: number, run_ms?: number, teardown_ms?: number }, stop?: { reason?: string } }

/**
 * The sandboxed command of a baseline.json / verify.json, if it ran: what the receipt's
 * `commands` says about it (readback recomputes it and compares).
 */
export function commandOf (step: 'reproduce' | 'verify', doc: Record<string, unknown>): SealedCommand | undefined {
  const run = doc.run as RunLike | undefined
  const events = doc.events as { sha256?: string } | undefined
  const argv = run?.command ?? (doc.command as string[] | undefined)
  if (argv === undefined || argv.length === 0 || events?.sha256 === undefined) return undefined
  const code = run?.exit?.code ?? (doc.exit_code as number | null | undefined)
  const signal = run?.exit?.signal
  return {
    step,
    argv,
    env_names: run?.env_names ?? [],
    ...(typeof code === 'number' ? { exit_code: code } : {}),
    ...(typeof signal === 'string' ? { signal } : {}),
    timed_out: doc.timed_out === true || run?.stop?.reason === 'deadline',
    duration_ms: (run?.timing?.setup_ms ?? 0) + (run?.timing?.run_ms ?? 0) + (run?.timing?.teardown_ms ?? 0),
    events_sha256: events.sha256,
  }
}

/** What the receipt's `validation` says about one validation record (readback compares it). */
export function validationOf (r: ValidationRecord): SealedValidation {
  return { stage: r.stage, status: r.status, checker: { name: r.checker.name, version: r.checker.version }, input_sha256: r.input_sha256 }
}

/** The stated limits of a receipt made with or without test hooks (readback compares them). */
export function statedLimitsFor (testHooks: boolean): string[] {
  return [...STATED_LIMITS, testHooks ? TEST_HOOKS_LIMIT : NO_TEST_HOOKS_LIMIT]
}

/** A step's summary file, already validated by its step; read here only for its command. */
function readJsonLoose (path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined
  return JSON.parse(readFileNoFollow(path).toString('utf8')) as Record<string, unknown>
}

/**
 * The receipt format seal writes. Version 2 adds the repository clauses (issue 37): the
 * candidate commit, which readback then requires of an attempt whose gate passed, and the
 * operator work (operator-work-clause.ts) and the changed paths' instructions and owners
 * (repository-check.ts), which it requires of every receipt. A receipt of
 * version 1 was sealed before them and reads back as it did.
 */
export const RECEIPT_VERSION = 2

/** What the receipt's `candidate` says about candidate.json (readback compares them). */
export function candidateClause (c: CandidateCommit): NonNullable<Receipt['candidate']> {
  return { ref: c.ref, commit: c.commit, tree: c.tree, committed_at: c.committed_at, bundle_sha256: c.bundle.sha256 }
}

/** The receipt's `checks`: present when the steps recorded any (check-results.ts). */
function checksClause (dir: string): Pick<Receipt, 'checks'> {
  const checks = sealedChecks(dir)
  return checks.length === 0 ? {} : { checks }
}

export interface SealInputs {
  attempt: Attempt
  now: Date
  testHooks: boolean
}

/**
 * The attempt's files, when seal can seal them: refused (STATE_UNSAFE) while it holds an entry
 * that is not a regular file, cannot be read, sits where the layout has no place for it, or is
 * a file no step writes. Checked before seal writes anything, outcome.json included.
 */
export function sealableListing (attempt: Attempt): AttemptListing {
  const listing = listAttemptFiles(attempt.dir)
  if (listing.special.length > 0) throw toolError('STATE_UNSAFE', `${attempt.dir} holds entries that are not regular files: ${listing.special.join(', ')}`)
  if (listing.unreachable.length > 0) throw toolError('STATE_UNSAFE', `${attempt.dir} holds entries no receipt can seal: ${listing.unreachable.slice(0, 5).map(u => `${u.path} (${u.why})`).join(', ')}`)
  // A directory where a stage file belongs would be walked as a directory and sealed as
  // missing: no receipt is made for an attempt whose stage records were replaced.
  const dirs = [...STAGE_FILES].filter(f => lstatSync(join(attempt.dir, f), { throwIfNoEntry: false })?.isDirectory() === true)
  if (dirs.length > 0) throw toolError('STATE_UNSAFE', `${attempt.dir} holds a directory where a stage file belongs: ${dirs.slice(0, 5).join(', ')}`, { path: join(attempt.dir, dirs[0] ?? '') })
  // Readback finds any other directory, and work/ or logs/ that is not a real directory: none is sealed.
  if (listing.misplaced.length > 0) throw toolError('STATE_UNSAFE', `${attempt.dir} holds entries the attempt layout has no place for: ${listing.misplaced.slice(0, 5).map(m => `${m.path} (${m.why})`).join(', ')}`, { path: join(attempt.dir, listing.misplaced[0]?.path ?? ''), hint: 'move them out of the attempt directory, then seal again' })
  // Only what the steps write is sealed: anything else (an operator's notes) would be sealed
  // as part of the attempt, and readback refuses it. Said before anything is written.
  const foreign = listing.files.filter(f => !ATTEMPT_FILES.has(f))
  if (foreign.length > 0) throw toolError('STATE_UNSAFE', `${attempt.dir} holds files no step writes: ${foreign.slice(0, 5).join(', ')}`, { path: join(attempt.dir, foreign[0] ?? ''), hint: 'move them out of the attempt directory (logs/ and work/ are never sealed), then seal again' })
  return listing
}

/** Builds the receipt of an attempt that has an outcome. Reads only; the caller writes it. */
export async function buildReceipt ({ attempt, now, testHooks }: SealInputs): Promise<Receipt> {
  const outcome = readOutcome(attempt.dir, attempt.key)
  if (outcome === undefined) throw toolError('ATTEMPT_INCOMPLETE', `${attempt.dir} has no outcome.json to seal`)
  const listing = sealableListing(attempt)
  const files = listing.files.map(path => ({ path, ...sha256File(join(attempt.dir, path)) }))
  const commands: SealedCommand[] = []
  for (const [step, file] of [['reproduce', 'baseline.json'], ['verify', 'verify.json']] as const) {
    const doc = readJsonLoose(join(attempt.dir, file))
    const c = doc === undefined ? undefined : commandOf(step, doc)
    if (c !== undefined) commands.push(c)
  }
  const validation: SealedValidation[] = []
  for (const f of VALIDATION_FILES) {
    if (!existsSync(join(attempt.dir, f))) continue
    validation.push(validationOf(readJsonFile('validation', join(attempt.dir, f))))
  }
  let cleanAfter = true
  let afterDetail: string | undefined
  try {
    await assertClean(attempt.config.source_root)
  } catch (e) {
    cleanAfter = false
    afterDetail = (e as Error).message
  }
  const { admission } = attempt
  const hooks = testHooks || admission.test_hooks
  const operatorWork = await operatorWorkClause(admission)
  const repository = sealRepositoryClause(attempt.dir)
  const candidate = listing.files.includes(CANDIDATE_JSON) ? candidateClause(readJsonFile('candidate', join(attempt.dir, CANDIDATE_JSON))) : undefined
  return {
    v: RECEIPT_VERSION,
    attempt_key: attempt.key,
    attempt_dir_name: basename(attempt.dir),
    key_inputs: admission.key_inputs,
    case: admission.case,
    route: admission.route,
    task_register: admission.task_register,
    prompt_register: admission.prompt_register,
    outcome: { outcome: outcome.outcome, ...(outcome.retryable === undefined ? {} : { retryable: outcome.retryable }), step: outcome.step, code: outcome.reason.code },
    files,
    commands,
    validation,
    ...checksClause(attempt.dir),
    checkout: { root: admission.source.root, sha: admission.source.sha, clean_before: true, clean_after: cleanAfter, ...(afterDetail === undefined ? {} : { after_detail: afterDetail.slice(0, 2000) }) },
    ...(candidate === undefined ? {} : { candidate }),
    operator_work: operatorWork,
    repository,
    test_hooks: hooks,
    sealed_at: now.toISOString(),
    stated_limits: statedLimitsFor(hooks),
  }
}

/**
 * Builds the receipt of an attempt that has an outcome and writes receipt.json, write-once:
 * what `receipt seal` does, and `admit` for the attempt of a stale lock it breaks.
 */
export async function writeReceipt (inputs: SealInputs): Promise<Receipt> {
  const receipt = await buildReceipt(inputs)
  writeJsonAtomic('receipt', join(inputs.attempt.dir, RECEIPT_FILE), receipt, { stateRoot: inputs.attempt.stateRoot, exclusive: true })
  return receipt
}
