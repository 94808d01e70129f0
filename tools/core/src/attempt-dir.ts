// The attempt directory (DESIGN §7a): where each file lives, how a step finds its attempt
// (--attempt, or the attempt record on stdin), and the checks every step makes before work:
// an existing outcome ends the step at once; the lock must name the attempt; a passed
// deadline is timed_out; every earlier step's files must exist and validate.

import { existsSync, lstatSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import type { Admission, ExecutionConfig, OutcomeFile, SchemaName, SchemaTypes } from '@repairline/schemas'
import { parseDocument } from './contracts.ts'
import { hasErrno, toolError, type ErrorCode } from './errors.ts'
import { readFileNoFollow } from './read-file.ts'
import { outcomeExit, writeOutcome, type DecidedOutcome, type StepName } from './outcome.ts'
import { assertLockNames, STALE_GRACE_MS } from './lock.ts'
import { acquireStepLock } from './step-lock.ts'
import { testHooksEnabled, type Env } from './hooks.ts'
import { STAGES } from './receipt/stages.ts'
import type { ToolIo, ToolResult } from './run-cli.ts'

/** Attempt directories are named by the first 16 hex digits of the key. */
export function attemptDirFor (stateDir: string, key: string): string {
  return join(stateDir, 'attempts', key.slice(0, 16))
}

/** state_dir of an attempt directory (state_dir/attempts/<16 hex>). */
export function stateRootOf (attemptDir: string): string {
  return dirname(dirname(attemptDir))
}

/** Every sealed JSON file of an attempt and its schema. Later steps add theirs here. */
export const ATTEMPT_JSON_FILES: Partial<Record<string, SchemaName>> = {
  'inputs/execution.json': 'execution',
  'inputs/routing-policy.json': 'routing-policy',
  'inputs/registers.json': 'register-manifest',
  'inputs/case.json': 'case',
  'inputs/unmet.json': 'unmet',
  'admission.json': 'admission',
  'started.json': 'started',
  'outcome.json': 'outcome',
  'tree-manifest.json': 'tree-manifest',
  'baseline.json': 'baseline',
  'request.json': 'request',
  'proposal.json': 'proposal',
  'validation/job_instructions.json': 'validation',
  'validation/prompt.json': 'validation',
  'validation/request_instructions.json': 'validation',
  'validation/summary.json': 'validation',
  'dispatch.json': 'dispatch',
  'response.json': 'response',
  'usage.json': 'usage',
  'gate.json': 'gate',
  'verify.json': 'verify',
  'candidate.json': 'candidate',
}


/** Reads and validates one of our JSON files. Missing → `missingCode`; invalid → FILE_INVALID. */
export function readJsonFile<N extends SchemaName> (name: N, path: string, missingCode: ErrorCode = 'ATTEMPT_INCOMPLETE'): SchemaTypes[N] {
  let bytes: Buffer
  try {
    bytes = readFileNoFollow(path)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw toolError(missingCode, `${path} is missing`, { path })
    if (hasErrno(e, 'ELOOP')) throw toolError('STATE_UNSAFE', `${path} is a symlink`, { path })
    if (hasErrno(e, 'ENOTDIR')) throw toolError('STATE_UNSAFE', `${path}: a component of its path is not a directory`, { path })
    throw e
  }
  return parseDocument(name, bytes, path, 'FILE_INVALID')
}

/**
 * The attempt's outcome.json, or undefined when there is none. One that names another
 * attempt's key (copied in from elsewhere) is refused (ATTEMPT_BINDING_MISMATCH, 65): it
 * would end this attempt with an outcome no step of it decided.
 */
export function readOutcome (attemptDir: string, attemptKey: string): OutcomeFile | undefined {
  const p = join(attemptDir, 'outcome.json')
  if (!existsSync(p)) return undefined
  const outcome = readJsonFile('outcome', p)
  if (outcome.attempt_key !== attemptKey) {
    throw toolError('ATTEMPT_BINDING_MISMATCH', `${p} names another attempt (${outcome.attempt_key.slice(0, 16)}), not ${attemptKey.slice(0, 16)}`, { path: p, hint: 'an outcome.json copied from another attempt is never used; remove it, then rerun the step' })
  }
  return outcome
}


/** An admitted attempt as every step sees it. */
export interface Attempt {
  dir: string
  stateRoot: string
  key: string
  admission: Admission
  config: ExecutionConfig
  /**
   * How the attempt's other JSON files are read by what loads from it (the render inputs):
   * readJsonFile unless loadAttempt was given a reader. Readback gives one that answers from
   * the documents it has already read, parsed and validated.
   */
  readJson?: JsonFileReader
}

/** Reads and validates one of our JSON files, as readJsonFile does (its errors too). */
export type JsonFileReader = <N extends SchemaName>(name: N, path: string, missingCode?: ErrorCode) => SchemaTypes[N]

/**
 * Refuses a path named as an attempt that is no directory, for every step and readback alike:
 * missing, or leading through a regular file or a symlink loop (INPUT_MISSING), a regular
 * file (INPUT_MISSING), or a symlink, which would be worked on or read back under another
 * attempt's name (STATE_UNSAFE).
 */
export function assertAttemptDirectory (dir: string): void {
  let st
  try {
    st = lstatSync(dir)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw toolError('INPUT_MISSING', `attempt directory ${dir} does not exist`, { path: dir })
    if (hasErrno(e, 'ENOTDIR')) throw toolError('INPUT_MISSING', `attempt directory ${dir} does not exist: a component of its path is not a directory`, { path: dir })
    if (hasErrno(e, 'ELOOP')) throw toolError('INPUT_MISSING', `attempt directory ${dir} cannot be reached: its path loops through symlinks`, { path: dir })
    throw e
  }
  if (st.isSymbolicLink()) throw toolError('STATE_UNSAFE', `${dir} is a symlink; pass the attempt directory itself`, { path: dir })
  if (!st.isDirectory()) throw toolError('INPUT_MISSING', `${dir} is not an attempt directory: it is not a directory`, { path: dir })
}

/**
 * Loads admission.json, started.json and the config copy; refuses an attempt that was never
 * started. The steps work on an attempt in its state root (state_dir/attempts/<16 hex of the
 * key>); readback passes `inStateRoot: false` to read one wherever it lies (an archived copy),
 * since whether its directory is its key's is the binding check's own finding.
 */
export function loadAttempt (dir: string, o: { inStateRoot?: boolean, readJson?: JsonFileReader } = {}): Attempt {
  if (!isAbsolute(dir)) throw toolError('USAGE', `attempt directory must be absolute: ${dir}`)
  assertAttemptDirectory(dir)
  const read = o.readJson ?? readJsonFile
  const admission = read('admission', join(dir, 'admission.json'), 'INPUT_MISSING')
  const started = read('started', join(dir, 'started.json'), 'ATTEMPT_INCOMPLETE')
  if (started.attempt_key !== admission.attempt_key) throw toolError('FILE_INVALID', `${dir}: started.json names another key`)
  if (o.inStateRoot !== false && attemptDirFor(stateRootOf(dir), admission.attempt_key) !== dir) {
    throw toolError('FILE_INVALID', `${dir}: admission.json names key ${admission.attempt_key.slice(0, 16)}…, which does not own this directory`)
  }
  const config = read('execution', join(dir, 'inputs', 'execution.json'))
  return { dir, stateRoot: stateRootOf(dir), key: admission.attempt_key, admission, config, ...(o.readJson === undefined ? {} : { readJson: o.readJson }) }
}

export type StepOpen =
  | { done: true, result: ToolResult, attempt: Attempt }
  | { done: false, attempt: Attempt }

/**
 * Test hooks steer deadlines and crash points, so they may only be on for an attempt admitted
 * with them: otherwise its receipt would state a wall clock that a step did not use.
 */
export function assertTestHooksMatch (attempt: Attempt, env: Env): void {
  if (testHooksEnabled(env) && !attempt.admission.test_hooks) {
    throw toolError('TEST_HOOKS_MISMATCH', `REPAIRLINE_TEST_HOOKS=1, but attempt ${attempt.key.slice(0, 16)} was admitted without test hooks: its deadline is read from the wall clock`, {
      hint: 'unset REPAIRLINE_TEST_HOOKS for this attempt',
    })
  }
}

/**
 * The first file of a stage after `step`'s that exists: once a later step has used this
 * step's files, rerunning it would change (or decide) what the later stage was made from.
 */
function laterStageFile (step: StepName, dir: string): string | undefined {
  const at = STAGES.findIndex(s => s.step === step)
  if (at === -1) return undefined
  for (const s of STAGES.slice(at + 1)) for (const f of s.files) if (existsSync(join(dir, f))) return f
  return undefined
}

/**
 * Refuses a state root whose attempts/ is anything but a directory of its own (a symlink, a
 * file): admit status, admit run and readback all refuse it (STATE_UNSAFE, 73), rather than
 * one following it, one refusing and one calling the state root empty. Returns whether
 * attempts/ exists (a state_dir that is no directory, ENOTDIR, is the caller's to report).
 */
export function assertAttemptsRoot (stateDir: string): boolean {
  const path = join(stateDir, 'attempts')
  let st
  try { st = lstatSync(path, { throwIfNoEntry: false }) } catch { return false }
  if (st === undefined) return false
  if (!st.isDirectory()) throw toolError('STATE_UNSAFE', `${path} is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'}: attempts are never read or written through it`, { path, hint: 'move the attempts directory itself under state_dir' })
  return true
}

/**
 * For a `--check` mode: the attempt's outcome when it ended before `step` ever ran (none of
 * the step's files exist), so there is nothing of the step's to recompute; else undefined.
 * The caller then does no work and exits with that outcome's status, as a step would.
 */
export function endedBefore (attempt: Attempt, step: StepName): OutcomeFile | undefined {
  const stage = STAGES.find(s => s.step === step)
  if (stage === undefined || stage.files.some(f => existsSync(join(attempt.dir, f)))) return undefined
  return readOutcome(attempt.dir, attempt.key)
}

/** The first file of a stage before `step`'s that exists and is not a regular file. */
function earlierStageEntry (step: StepName, dir: string): { file: string, kind: string } | undefined {
  const at = STAGES.findIndex(s => s.step === step)
  for (const s of STAGES.slice(0, at === -1 ? 0 : at)) {
    for (const file of s.files) {
      let st
      try { st = lstatSync(join(dir, file), { throwIfNoEntry: false }) } catch { return { file, kind: 'unreachable (a component of its path is not a directory)' } }
      if (st !== undefined && !st.isFile()) return { file, kind: st.isDirectory() ? 'a directory' : st.isSymbolicLink() ? 'a symlink' : 'not a regular file' }
    }
  }
  return undefined
}

/**
 * The checks every step after admit makes, in order: print the attempt record; an existing
 * outcome ends the step with that outcome; test hooks only on an attempt admitted with them
 * (78); the lock must name this attempt (75); the step lock is taken (75 while another
 * process works on the attempt), and the outcome checked again under it; no later step's file
 * may exist (65); past the deadline the step writes timed_out; the files in `requires` must
 * exist and validate.
 */
export function openStep (step: StepName, dir: string, io: ToolIo, requires: readonly string[]): StepOpen {
  const attempt = loadAttempt(dir)
  io.out.write({ v: 1, kind: 'attempt', path: attempt.dir, key: attempt.key })
  const done = (): StepOpen | undefined => {
    const existing = readOutcome(attempt.dir, attempt.key)
    return existing === undefined ? undefined : { done: true, attempt, result: { exit: outcomeExit(existing.outcome, existing.retryable), outcome: existing.outcome } }
  }
  const before = done()
  if (before !== undefined) return before
  assertTestHooksMatch(attempt, io.env)
  assertLockNames(attempt.stateRoot, attempt.key, attempt.dir)
  acquireStepLock(attempt.stateRoot, attempt.key, step)
  // The process that held the step lock until now may have decided.
  const decided = done()
  if (decided !== undefined) return decided
  const later = laterStageFile(step, attempt.dir)
  if (later !== undefined) {
    throw toolError('LATER_STAGE_EXISTS', `${step} has already run for this attempt: ${later} of a later step exists, and a rerun would change what it was made from`, {
      path: join(attempt.dir, later),
      hint: 'run the first step that has not run yet, or receipt seal',
    })
  }
  // An earlier stage's file that is there must be a regular file: a directory, symlink or
  // FIFO in its place would be read as missing by some step and sealed as missing.
  const odd = earlierStageEntry(step, attempt.dir)
  if (odd !== undefined) throw toolError('STATE_UNSAFE', `${join(attempt.dir, odd.file)} is ${odd.kind} where a stage file of an earlier step belongs`, { path: join(attempt.dir, odd.file) })
  const now = io.now()
  if (now.getTime() > Date.parse(attempt.admission.deadline)) {
    const message = `${step} found the attempt past its deadline ${attempt.admission.deadline}`
    const o = finishAttempt(step, attempt, io, { outcome: 'timed_out', code: 'DEADLINE_PASSED', message })
    io.stderr.write(`${step}: timed_out: DEADLINE_PASSED: ${message}\n`)
    return { done: true, attempt, result: o }
  }
  for (const rel of requires) {
    const schema = ATTEMPT_JSON_FILES[rel]
    const p = join(attempt.dir, rel)
    if (schema !== undefined) readJsonFile(schema, p)
    else if (!existsSync(p)) throw toolError('ATTEMPT_INCOMPLETE', `${p} is missing: run the earlier step first`, { path: p })
  }
  return { done: false, attempt }
}

/**
 * Writes the outcome a step decided (or finds the one already there) and returns the step's
 * result. A step that decides after the deadline had passed by the 30 s grace (a machine
 * suspended mid-step, say) writes timed_out instead, whatever it found: by then the lock was
 * stale, status called the attempt interrupted, and another admit could have broken the lock.
 * Readback holds every attempt to this (receipt/time-order.ts).
 */
export function finishAttempt (step: StepName, attempt: Attempt, io: ToolIo, decided: DecidedOutcome): ToolResult {
  const now = io.now()
  const late = now.getTime() > Date.parse(attempt.admission.deadline) + STALE_GRACE_MS && decided.outcome !== 'timed_out' && decided.outcome !== 'interrupted'
  const d: DecidedOutcome = late
    ? { outcome: 'timed_out', code: 'DEADLINE_PASSED', message: `${step} found ${decided.outcome} (${decided.code}) at ${now.toISOString()}, after the deadline ${attempt.admission.deadline} had passed by 30 s; by then the attempt counted as interrupted` }
    : decided
  if (late) io.stderr.write(`${step}: timed_out: DEADLINE_PASSED: ${d.message}\n`)
  const file = writeOutcome(attempt.stateRoot, attempt.dir, attempt.key, step, d, now, dir => readOutcome(dir, attempt.key))
  return { exit: outcomeExit(file.outcome, file.retryable), outcome: file.outcome }
}
