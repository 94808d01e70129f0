// receipt: `seal` writes outcome.json when the attempt has none (timed_out past the
// deadline, interrupted past deadline + 30 s) and receipt.json over every sealed file, then
// releases the lock if it names this attempt. `readback` revalidates retained attempts with
// core's readback (the code admit status uses) and prints one readback record each. `view`
// writes one attempt's page (view.ts) with readback's verdict on it.

import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Admission, Receipt } from '@repairline/schemas'
import {
  printableLine,
  acquireStepLock, assertAttemptDirectory, assertAttemptsRoot, assertTestHooksMatch, attemptDirsOf, EXIT, faultPoint, loadAttempt, outcomeExit, readbackAttempt, readLock, readOutcome, releaseLock,
  operatorWorkNotice, sealableListing, STALE_GRACE_MS, stateRootOf, testHooksEnabled, toolError, writeOutcome, writeReceipt, readJsonFile, writePlainFileAtomic, type ToolIo, type ToolResult,
} from '@repairline/core'
import { checkHtmlOut } from './rules/html-out.ts'
import { gatherAttemptPage, renderAttemptPage } from './view.ts'

export async function seal (dir: string, io: ToolIo): Promise<ToolResult> {
  const attempt = loadAttempt(dir)
  io.out.write({ v: 1, kind: 'attempt', path: attempt.dir, key: attempt.key })
  // No step may be deciding while seal reads the outcome and the files it seals (75 while one is).
  acquireStepLock(attempt.stateRoot, attempt.key, 'receipt')
  const receiptPath = join(attempt.dir, 'receipt.json')
  if (existsSync(receiptPath)) {
    const sealed: Receipt = readJsonFile('receipt', receiptPath)
    io.stderr.write(`receipt: ${attempt.dir} is already sealed (${sealed.outcome.outcome}); nothing written\n`)
    releaseLock(attempt.stateRoot, attempt.key, attempt.dir)
    return { exit: outcomeExit(sealed.outcome.outcome, sealed.outcome.retryable), outcome: sealed.outcome.outcome }
  }
  assertTestHooksMatch(attempt, io.env)
  const now = io.now()
  let outcome = readOutcome(attempt.dir, attempt.key)
  if (outcome === undefined) {
    const deadline = Date.parse(attempt.admission.deadline)
    if (now.getTime() <= deadline) {
      throw toolError('ATTEMPT_RUNNING', `${attempt.dir} has no outcome and its deadline ${attempt.admission.deadline} has not passed: a step is still due`, { hint: 'run the next step, or seal after the deadline' })
    }
    // An attempt seal could not seal gets no outcome from it either: a refusal decides nothing.
    sealableListing(attempt)
    const interrupted = now.getTime() > deadline + STALE_GRACE_MS
    outcome = writeOutcome(attempt.stateRoot, attempt.dir, attempt.key, 'receipt', interrupted
      ? { outcome: 'interrupted', code: 'ATTEMPT_INTERRUPTED', message: `no step wrote an outcome and the deadline ${attempt.admission.deadline} passed by more than 30 s (a crash)` }
      : { outcome: 'timed_out', code: 'DEADLINE_PASSED', message: `no step wrote an outcome and the deadline ${attempt.admission.deadline} passed` }, now, dir => readOutcome(dir, attempt.key))
  }
  faultPoint(io.env, 'seal')
  const receipt = await writeReceipt({ attempt, now, testHooks: testHooksEnabled(io.env) })
  const notice = receipt.operator_work === undefined ? undefined : operatorWorkNotice(receipt.operator_work)
  if (notice !== undefined) io.stderr.write(`receipt: ${notice}\n`)
  const released = releaseLock(attempt.stateRoot, attempt.key, attempt.dir)
  // The lock names this attempt's key in another directory (not this one by any path): not
  // ours to remove, and stale once its own directory has an outcome or its deadline passes;
  // said, so nobody waits on it.
  const kept = released ? undefined : readLock(attempt.stateRoot)
  const note = released ? '; lock released' : kept?.attempt_key === attempt.key ? `; the lock names this attempt at ${kept.attempt_dir} and was left (stale now: the next admit breaks it)` : ''
  io.stderr.write(`receipt: sealed ${attempt.dir} (${outcome.outcome}, ${receipt.files.length} files)${note}\n`)
  return { exit: outcomeExit(outcome.outcome, outcome.retryable), outcome: outcome.outcome }
}

export interface ReadbackOptions {
  stateDir?: string
  allowTestHooks: boolean
  /** The source repository: each candidate.bundle is also verified there (`git bundle verify`). */
  source?: string
}

export async function readback (dirs: readonly string[], o: ReadbackOptions, io: ToolIo): Promise<ToolResult> {
  // Linux's PATH_MAX: no longer path names an attempt (and none fits a readback record).
  const tooLong = dirs.find(d => Buffer.byteLength(d) > 4096)
  if (tooLong !== undefined) throw toolError('USAGE', `the attempt path is longer than the system allows (${Buffer.byteLength(tooLong)} bytes)`)
  if (dirs.length === 1 && o.stateDir === undefined) {
    const a = dirs[0] ?? ''
    assertAttemptDir(a)
    try {
      const admission = readJsonFile('admission', join(a, 'admission.json'))
      io.out.write({ v: 1, kind: 'attempt', path: a, key: admission.attempt_key })
    } catch {}
  }
  let invalid = 0
  for (const dir of dirs) {
    const r = await readbackAttempt(dir, { allowTestHooks: o.allowTestHooks, stateRootEntry: o.stateDir !== undefined, now: io.now(), ...(o.source === undefined ? {} : { source: o.source }) })
    if (!r.valid) invalid++
    io.out.write({
      v: 1,
      kind: 'readback',
      attempt_dir: r.attemptDir,
      ...(r.attemptKey === undefined ? {} : { attempt_key: r.attemptKey }),
      ...(r.outcome === undefined ? {} : { outcome: r.outcome }),
      valid: r.valid,
      findings: r.findings,
    })
    if (!r.valid) io.stderr.write(`receipt: ${printableLine(dir, 4096)}: invalid: ${codeCounts(r.findings.filter(x => x.severity === 'error').map(x => x.code))}\n`)
  }
  io.stderr.write(`receipt: read back ${dirs.length} attempt${dirs.length === 1 ? '' : 's'}, ${invalid} invalid\n`)
  return { exit: invalid === 0 ? EXIT.OK : EXIT.NO }
}

export interface ViewOptions { html: string, allowTestHooks: boolean }

/**
 * Writes the attempt page of `dir` to `o.html` (atomically: a temp file beside it, renamed),
 * after running readback on the attempt, whose verdict the page shows. Refuses an attempt
 * path that is none (INPUT_MISSING), an admission.json it cannot read (the page must know the
 * checkout to stay out of it), and an output in the checkout, the state root or the attempt,
 * or over a file that is not an attempt page (OUTPUT_UNSAFE). Exit 0 when the attempt reads
 * back valid, 1 when the page was written but readback found it invalid (as readback exits).
 */
export async function view (dir: string, o: ViewOptions, io: ToolIo): Promise<ToolResult> {
  assertAttemptDir(dir)
  const admission: Admission = readJsonFile('admission', join(dir, 'admission.json'), 'INPUT_MISSING')
  io.out.write({ v: 1, kind: 'attempt', path: dir, key: admission.attempt_key })
  const out = checkHtmlOut(o.html, [
    { what: 'the checkout', path: admission.source.root },
    { what: 'the state directory', path: stateRootOf(dir) },
    { what: 'the attempt', path: dir },
  ])
  const r = await readbackAttempt(dir, { allowTestHooks: o.allowTestHooks, now: io.now() })
  writePlainFileAtomic(out, renderAttemptPage(gatherAttemptPage(dir, { valid: r.valid, findings: r.findings })))
  const codes = codeCounts(r.findings.filter(x => x.severity === 'error').map(x => x.code))
  io.stderr.write(`receipt: wrote ${printableLine(out, 4096)} (${r.outcome ?? 'no outcome'}; ${r.valid ? 'reads back valid' : `invalid: ${codes}`})\n`)
  return { exit: r.valid ? EXIT.OK : EXIT.NO }
}

/**
 * Refuses (INPUT_MISSING) a path given as an attempt that is none: missing, not a directory,
 * or a directory with no admission.json outside any state root's attempts/. A directory under
 * attempts/ is read back whatever it lacks: a damaged attempt is invalid, not missing.
 */
function assertAttemptDir (dir: string): void {
  assertAttemptDirectory(dir)
  if (!existsSync(join(dir, 'admission.json')) && basename(dirname(dir)) !== 'attempts') {
    throw toolError('INPUT_MISSING', `${dir} is not an attempt directory: it holds no admission.json and is not under a state root's attempts/`, { path: dir, hint: 'pass state_dir/attempts/<key>, or --state-dir' })
  }
}

export function stateDirAttempts (stateDir: string): string[] {
  if (!existsSync(stateDir)) throw toolError('INPUT_MISSING', `state dir ${stateDir} does not exist`, { path: stateDir })
  // A typo must not read back as "0 attempts, all valid": a state root holds attempts/.
  if (!assertAttemptsRoot(stateDir)) throw toolError('INPUT_MISSING', `${stateDir} is not a state directory: it holds no attempts/ directory`, { path: stateDir, hint: 'pass the state_dir of the execution config' })
  return attemptDirsOf(stateDir)
}

/** Codes in first-seen order, a repeated one counted once (`MISSING_STAGE_RECORD ×15`). */
function codeCounts (codes: readonly string[]): string {
  const n = new Map<string, number>()
  for (const c of codes) n.set(c, (n.get(c) ?? 0) + 1)
  return [...n].map(([c, k]) => k === 1 ? c : `${c} ×${k}`).join(', ')
}
