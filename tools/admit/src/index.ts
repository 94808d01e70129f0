// admit: the first step. `admit run` validates the config, report, routing policy and
// register manifest, picks the first eligible unconsumed case, takes the lock and writes
// inputs/, admission.json, then started.json (which consumes the key). `admit status`
// prints one case-status record per case and never writes. `admit report` turns test
// events on stdin into a suite report.

import { existsSync, readdirSync, realpathSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Admission, Case, Lock, SuiteReport, UnmetItems } from '@repairline/schemas'
import {
  acquireLock, acquireStepLock, assertAttemptsRoot, assertNoHostileEnvironment, writeReceipt, isToolError, liveStepHolder, loadAttempt, assertSandboxReady, attemptKey, releaseLock, readLock, isLockStale, readbackAttempt, EXIT, ensureDir, existingAncestor, faultPoint, jsonFileBytes, keyInputsFor, readOutcome, resolvePromptRegister,
  resolveTaskRegister, testHooksEnabled, REPAIR_INPUT_FILE, attemptDirFor, repairCaseFor, unmetItemsOf, toolError, writeFileAtomic, writeJsonAtomic, writeOutcome, readJsonFile, readLockFile, fsyncDir,
  type ToolIo, type ToolResult,
} from '@repairline/core'
import { readOperatorWork } from '@repairline/core'
import { loadConfig, loadManifest, loadPolicy, loadReport, loadSource } from './inputs.ts'
import { assessCase } from './rules/case-eligibility.ts'
import { selectNext } from './rules/next-case.ts'
import { keyState, MAX_RETAINED_ATTEMPTS, retainedAttempts } from './state.ts'

export { admitReport } from './report.ts'
export { admitInit } from './init.ts'

export interface AdmitOptions { config: string, report: string }

/** admit status: `next` prints only the case `admit run` would admit now (NOTHING_ELIGIBLE when none). */
export interface StatusOptions extends AdmitOptions { next?: boolean }

interface Candidate { c: Case, admission: Omit<Admission, 'admitted_at' | 'deadline'> }

/** The config, checkout, policy and manifest: everything every admission reads but the report. Writes nothing. */
async function loadInputs (configPath: string, requireClean: boolean) {
  const { config, configBytes } = loadConfig(configPath)
  assertAttemptsRoot(config.state_dir)
  const source = await loadSource(config, { requireClean })
  const { policy, policyBytes } = loadPolicy(config)
  const { manifest, manifestBytes } = await loadManifest(config, source, policy)
  return { config, configBytes, source, policy, policyBytes, manifest, manifestBytes }
}

type Inputs = Awaited<ReturnType<typeof loadInputs>>

/** One case under the inputs: whether it is eligible, its key, what the state root says of the key, and its admission when eligible. */
function assess (p: Inputs, c: Case, now: Date, io: ToolIo) {
  const { config, policy, manifest, source } = p
  const eligibility = assessCase(config, policy, c)
  const keyInputs = keyInputsFor(config, policy, manifest, c)
  const key = attemptKey(keyInputs)
  const state = keyState(config.state_dir, key, now)
  let candidate: Candidate | undefined
  if (eligibility.eligible) {
    candidate = {
      c,
      admission: {
        v: 1,
        attempt_key: key,
        key_inputs: keyInputs,
        case: c,
        route: eligibility.route,
        task_register: resolveTaskRegister(manifest, eligibility.route.task_label),
        prompt_register: resolvePromptRegister(manifest),
        timeout_seconds: config.timeout_seconds,
        test_hooks: testHooksEnabled(io.env),
        source: { root: config.source_root, sha: config.source_sha, clean: true, tree_entries: source.blobCount, tree_bytes: source.blobBytes },
      },
    }
  }
  return { c, eligibility, key, state, candidate }
}

type Assessed = ReturnType<typeof assess>

/** Everything up to choosing a case; shared by run and status. Writes nothing. */
async function plan (o: AdmitOptions, io: ToolIo, requireClean: boolean) {
  const inputs = await loadInputs(o.config, requireClean)
  const report: SuiteReport = loadReport(o.report)
  const now = io.now()
  return { ...inputs, assessed: report.cases.map(c => assess(inputs, c, now, io)) }
}

/**
 * How to try a case again: every outcome consumes its attempt key, and the key changes only
 * with one of its inputs (DESIGN §1).
 */
const RETRY_HINT = 'admit status shows each case. A consumed case runs again only under a new attempt key: give it a new id in the suite report (or change its test, the source commit, the execution config or the routing policy)'

/**
 * LOCK_HELD for a live holder: until when (its deadline + 30 s, when a crashed attempt is
 * broken) and what ends it sooner — its remaining steps, which the driver's --until leaves
 * to be run by hand, and receipt seal.
 */
function lockHeld (holder: Lock): Error {
  const until = new Date(Date.parse(holder.deadline) + 30_000).toISOString()
  return toolError('LOCK_HELD', `attempt ${holder.attempt_key.slice(0, 16)} (${holder.attempt_dir}) holds the lock until ${until} at the latest (its deadline ${holder.deadline} + 30 s)`, {
    hint: `wait until then, or end that attempt sooner: run its remaining steps with --attempt ${holder.attempt_dir} (the last one, receipt seal, releases the lock); admit status shows it`,
  })
}

/** NOTHING_ELIGIBLE (exit 1), saying for each case why it was not chosen. */
function nothingEligible (assessed: Array<{ c: Case, eligibility: { eligible: true } | { eligible: false, code: string, message: string }, state: { state: string } }>): Error {
  const why = assessed.map(a => `${a.c.id}: ${a.eligibility.eligible ? a.state.state : `${a.eligibility.code}: ${a.eligibility.message}`}`)
  return toolError('NOTHING_ELIGIBLE', `no eligible, unconsumed case: ${why.join('; ')}`, { hint: RETRY_HINT })
}

/** admit run: admits the first eligible, unconsumed case. */
export async function admitRun (o: AdmitOptions, io: ToolIo): Promise<ToolResult> {
  // ask-provider refuses this environment; found there, the key would already be spent.
  assertNoHostileEnvironment(io.env, 'run admit again (nothing was consumed); the driver passes its steps only PATH and LC_ALL, so `pnpm attempt` is not affected')
  const p = await plan(o, io, true)
  assertLockFree(p.config.state_dir, io)
  const chosen = selectNext(p.assessed)
  if (chosen?.candidate === undefined) throw nothingEligible(p.assessed)
  return await admitChosen(p, chosen, chosen.candidate, io)
}

/**
 * Refuses while the lock is live (75). A stale lock whose attempt has no outcome is broken by
 * admitChosen only if no step still works on that attempt: its step lock is taken here and
 * held until admit ends, so no step of it can start between this check and the break (the
 * preflight takes hundreds of ms).
 */
function assertLockFree (stateDir: string, io: ToolIo): void {
  const holder = readLock(stateDir)
  if (holder !== undefined && !isLockStale(holder, io.now())) {
    throw lockHeld(holder)
  }
  if (holder !== undefined && readOutcome(holder.attempt_dir, holder.attempt_key) === undefined) {
    try {
      acquireStepLock(stateDir, holder.attempt_key, 'admit')
    } catch (e) {
      const working = isToolError(e) && e.code === 'LOCK_HELD' ? liveStepHolder(stateDir, holder.attempt_key) : undefined
      if (working === undefined) throw e
      throw toolError('LOCK_HELD', `attempt ${holder.attempt_key.slice(0, 16)} is past its deadline ${holder.deadline}, but ${working.step} (pid ${working.pid}) still works on it; nothing was broken`, {
        hint: `wait for pid ${working.pid} to end, or stop it, then run admit again`,
      })
    }
  }
}

/**
 * Admits one chosen case: retention, the sandbox preflight, the lock, then inputs/ (with a
 * repair's unmet items), admission.json and started.json, which consumes the key.
 */
async function admitChosen (p: Inputs, chosen: Assessed, candidate: Candidate, io: ToolIo, unmet?: UnmetItems): Promise<ToolResult> {
  const { config } = p
  if (retainedAttempts(config.state_dir).length >= MAX_RETAINED_ATTEMPTS) {
    throw toolError('RETENTION_FULL', `${MAX_RETAINED_ATTEMPTS} attempts are retained in ${config.state_dir}; nothing is deleted automatically`, { hint: 'archive or remove attempts you no longer need, then run admit again' })
  }
  // The sandbox preflight (DESIGN §11): every primitive is proven on this host before
  // anything is written, so a host that cannot run the baseline never consumes a key (77).
  // Free disk is sampled where the steps will write (the state filesystem) and in the temp
  // directory: a state_dir below the floor is refused here (75), not after the key is spent.
  // A state_dir not made yet is sampled on its nearest existing ancestor, where admit makes it.
  const preflight = await assertSandboxReady({ runner: config.runner.kind, diskPaths: [existingAncestor(config.state_dir), tmpdir()] })
  io.stderr.write(`admit: sandbox preflight passed: ${preflight.limits.length} limits read back\n`)
  // From here on we write.
  const stateRoot = config.state_dir
  ensureDir(stateRoot, stateRoot, 0o711)

  const now = io.now()
  const deadline = new Date(now.getTime() + config.timeout_seconds * 1000)
  const dir = chosen.state.dir
  const lock: Lock = { v: 1, attempt_key: chosen.key, attempt_dir: dir, deadline: deadline.toISOString() }
  const got = acquireLock(stateRoot, lock, now)
  if (!got.acquired) {
    throw lockHeld(got.holder)
  }
  // Every broken lock's attempt is settled by whoever holds the lock next, not only by the
  // admit that broke it: two admits racing for a stale lock, the breaker may lose it to one
  // that merely found it gone.
  await settleGraves(stateRoot, now, io)
  faultPoint(io.env, 'lock')
  let started = false
  try {
    // Under the lock: the key may have been consumed, or retention filled, since we looked.
    if (keyState(config.state_dir, chosen.key, now).state !== 'none') throw toolError('LOCK_HELD', 'another admit took this case while we waited; run admit again')
    if (retainedAttempts(config.state_dir).length >= MAX_RETAINED_ATTEMPTS) throw toolError('RETENTION_FULL', `${MAX_RETAINED_ATTEMPTS} attempts are retained in ${config.state_dir}`)
    ensureDir(stateRoot, join(stateRoot, 'attempts'), 0o711)
    ensureDir(stateRoot, dir, 0o711)
    ensureDir(stateRoot, join(dir, 'inputs'), 0o711)
    writeFileAtomic(join(dir, 'inputs', 'execution.json'), p.configBytes, { stateRoot })
    writeFileAtomic(join(dir, 'inputs', 'routing-policy.json'), p.policyBytes, { stateRoot })
    writeFileAtomic(join(dir, 'inputs', 'registers.json'), p.manifestBytes, { stateRoot })
    writeJsonAtomic('case', join(dir, 'inputs', 'case.json'), candidate.c, { stateRoot })
    if (unmet !== undefined) writeJsonAtomic('unmet', join(dir, REPAIR_INPUT_FILE), unmet, { stateRoot })
    // The operator's work as it is now: seal reads it again, and the receipt says whether it changed.
    const admission: Admission = { ...candidate.admission, admitted_at: now.toISOString(), deadline: deadline.toISOString(), operator_work: await readOperatorWork(config.source_root) }
    writeJsonAtomic('admission', join(dir, 'admission.json'), admission, { stateRoot })
    faultPoint(io.env, 'admission')
    started = writeFileAtomic(join(dir, 'started.json'), jsonFileBytes({ v: 1, attempt_key: chosen.key, started_at: now.toISOString() }), { stateRoot, exclusive: true })
    if (!started) throw toolError('LOCK_HELD', `${dir}/started.json appeared while we held the lock`)
    // The attempt record only once the key is consumed: a reader of it (the driver, the next
    // tool of a pipe) never works in a directory that admit may still reuse.
    io.out.write({ v: 1, kind: 'attempt', path: dir, key: chosen.key })
    faultPoint(io.env, 'started.json')
  } finally {
    if (!started) releaseLock(stateRoot, lock.attempt_key, lock.attempt_dir)
  }
  io.stderr.write(`admit: admitted case ${chosen.c.id} as attempt ${dir} (deadline ${deadline.toISOString()})\n`)
  return { exit: EXIT.OK }
}

export interface RepairOptions { config: string, attempt: string }

/**
 * admit repair: admits the repair of one sealed attempt of this config's state root, as its
 * own case (kind repair, id `<case id>#r<n>`, input = that attempt's key and the digest of its
 * unmet items) under its own key, consumed like any other. Refused, with nothing written or
 * consumed: an attempt that did not end rejected after a proposal or failed
 * (REPAIR_NOT_REPAIRABLE: a fault, timeout, provider error or not_reproduced says nothing
 * about the proposal), the second round's attempt (REPAIR_ROUNDS_SPENT), an attempt of
 * another state root or made under other inputs (REPAIR_INPUTS_CHANGED), one that does not
 * read back (REPAIR_SOURCE_INVALID), one already repaired (REPAIR_ALREADY_STARTED).
 */
export async function admitRepair (o: RepairOptions, io: ToolIo): Promise<ToolResult> {
  assertNoHostileEnvironment(io.env, 'run admit again (nothing was consumed); the driver passes its steps only PATH and LC_ALL, so `pnpm attempt` is not affected')
  const p = await loadInputs(o.config, true)
  const { config } = p
  let admission: Admission
  try {
    admission = readJsonFile('admission', join(o.attempt, 'admission.json'), 'INPUT_MISSING')
  } catch (e) {
    if (isToolError(e) && e.code === 'INPUT_MISSING') throw toolError('INPUT_MISSING', `${o.attempt} is not an attempt directory (no admission.json)`, { path: o.attempt, hint: 'name the attempt directory the driver or admit run printed (admit status shows each)' })
    throw e
  }
  const dir = attemptDirFor(config.state_dir, admission.attempt_key)
  if (!existsSync(dir) || realpathSync(o.attempt) !== realpathSync(dir)) {
    throw toolError('REPAIR_INPUTS_CHANGED', `${o.attempt} is not an attempt of state_dir ${config.state_dir}`, { path: o.attempt, hint: 'give the execution config the attempt was admitted under' })
  }
  const outcome = readOutcome(dir, admission.attempt_key)
  if (outcome === undefined) throw toolError('REPAIR_SOURCE_INVALID', `attempt ${dir} has no outcome yet`, { hint: 'run its remaining steps (the last, receipt seal, seals it), then repair it' })
  // Repairable, and not past the last round: decided from the attempt's own files, before
  // anything costly.
  const unmet = unmetItemsOf({ dir, admission, outcome })
  const c = repairCaseFor(admission.case, admission.attempt_key, unmet)
  const was = admission.key_inputs
  const now = keyInputsFor(config, p.policy, p.manifest, c)
  if (was.source_sha !== now.source_sha || was.config_sha256 !== now.config_sha256 || was.routing_policy_sha256 !== now.routing_policy_sha256 || was.register_manifest_sha256 !== now.register_manifest_sha256) {
    throw toolError('REPAIR_INPUTS_CHANGED', `attempt ${dir} was admitted under another source commit, execution config, routing policy or register manifest than --config gives now`, { hint: 'repair it under the config it was admitted under (its inputs/execution.json), or admit the case again under a new id' })
  }
  const rb = await readbackAttempt(dir, { allowTestHooks: testHooksEnabled(io.env), now: io.now() })
  if (!rb.valid) {
    const codes = [...new Set(rb.findings.filter(x => x.severity === 'error').map(x => x.code))]
    throw toolError('REPAIR_SOURCE_INVALID', `attempt ${dir} does not read back (${codes.join(', ')}): its unmet items are not evidence`, { hint: `receipt readback --attempt ${dir} says why` })
  }
  assertLockFree(config.state_dir, io)
  const a = assess(p, c, io.now(), io)
  if (a.state.state !== 'none') throw toolError('REPAIR_ALREADY_STARTED', `the repair of attempt ${dir} (case ${c.id}) was already admitted as ${a.state.dir} (${a.state.state})`, { hint: 'admit status shows it; receipt readback reads it back' })
  if (a.candidate === undefined) throw toolError('REPAIR_NOT_REPAIRABLE', `case ${c.id} is not eligible: ${a.eligibility.eligible ? '' : `${a.eligibility.code}: ${a.eligibility.message}`}`)
  return await admitChosen(p, a, a.candidate, io, unmet)
}

/**
 * The attempt of a broken stale lock, once started, ends sealed (DESIGN §7): without an outcome
 * it is marked interrupted, and without a receipt it is sealed here, as `receipt seal` would,
 * so no crashed chain is left unsealed. Both under the attempt's step lock, as every step
 * decides: if a step started on it since admit looked, it keeps the attempt and admit leaves it.
 * A seal that fails is reported and left for `receipt seal`: it never stops this admission.
 */
async function settleBrokenAttempt (stateRoot: string, broken: Lock, now: Date, io: ToolIo): Promise<boolean> {
  const dir = broken.attempt_dir
  try {
    readJsonFile('started', join(dir, 'started.json'))
  } catch {
    return true
  }
  if (existsSync(join(dir, 'receipt.json'))) return true
  try {
    acquireStepLock(stateRoot, broken.attempt_key, 'admit')
  } catch (e) {
    if (isToolError(e) && e.code === 'LOCK_HELD') return false
    throw e
  }
  if (readOutcome(dir, broken.attempt_key) === undefined) {
    writeOutcome(stateRoot, dir, broken.attempt_key, 'admit', {
      outcome: 'interrupted',
      code: 'ATTEMPT_INTERRUPTED',
      message: `no outcome was written and the deadline ${broken.deadline} passed by more than 30 s; the lock was broken by a later admit`,
    }, now, d => readOutcome(d, broken.attempt_key))
  }
  if (existsSync(join(dir, 'receipt.json'))) return true
  try {
    const receipt = await writeReceipt({ attempt: loadAttempt(dir), now, testHooks: testHooksEnabled(io.env) })
    io.stderr.write(`admit: sealed ${dir} (${receipt.outcome.outcome}), whose lock was stale\n`)
  } catch (e) {
    if (!isToolError(e)) throw e
    io.stderr.write(`admit: could not seal ${dir}, whose lock was stale: ${e.code}: ${e.message.replace(/[\r\n]+/g, ' ')}; run receipt seal --attempt on it\n`)
  }
  return true
}

/**
 * Settles the attempt of every broken lock (`lock.broken.<nonce>`, what acquireLock renames a
 * stale lock to) and removes the grave once its attempt is settled; a grave whose attempt a
 * live step still holds is kept for the next admit. Called with the state lock held, so one
 * admit at a time does this. A grave that is not a valid lock is left for the operator.
 */
async function settleGraves (stateRoot: string, now: Date, io: ToolIo): Promise<void> {
  for (const name of readdirSync(stateRoot).filter(n => /^lock\.broken\.[0-9a-f]+$/.test(n)).sort()) {
    const path = join(stateRoot, name)
    let broken: Lock | undefined
    try {
      broken = readLockFile('lock', path)?.doc
    } catch (e) {
      if (!isToolError(e)) throw e
      io.stderr.write(`admit: ${path} is not a lock (${e.code}); left in place\n`)
      continue
    }
    if (broken !== undefined && await settleBrokenAttempt(stateRoot, broken, now, io)) {
      unlinkSync(path)
      fsyncDir(stateRoot)
    }
  }
}

/** One case-status record. */
async function writeStatus (a: Assessed, io: ToolIo): Promise<void> {
  const base = { v: 1 as const, kind: 'case-status' as const, case_id: a.c.id, attempt_key: a.key }
  const dir = a.state.state === 'none' ? {} : { attempt_dir: a.state.dir }
  if (a.state.state === 'consumed') {
    // A consumed attempt is a success only if it reads back (as `receipt readback` reads it,
    // with the clock): otherwise consumed but invalid.
    const rb = await readbackAttempt(a.state.dir, { allowTestHooks: testHooksEnabled(io.env), now: io.now() })
    const codes = [...new Set(rb.findings.filter(x => x.severity === 'error').map(x => x.code))]
    io.out.write({ ...base, ...dir, status: 'consumed', ...(a.state.outcome === undefined ? {} : { outcome: a.state.outcome.outcome }), readback: rb.valid ? { valid: true } : { valid: false, codes } })
  }
  else if (a.state.state === 'running' || a.state.state === 'interrupted') io.out.write({ ...base, ...dir, status: a.state.state })
  else if (!a.eligibility.eligible) io.out.write({ ...base, status: 'ineligible', reason: { code: a.eligibility.code, message: a.eligibility.message } })
  else io.out.write({ ...base, status: 'eligible' })
}

/**
 * The repair admitted for a consumed, repairable attempt (its key started), else undefined: a
 * repair not admitted is not listed (admit repair makes it), and an attempt whose files do not
 * give unmet items has none.
 */
function repairOfConsumed (p: Inputs, a: Assessed, now: Date, io: ToolIo): Assessed | undefined {
  if (a.state.state !== 'consumed' || a.state.outcome === undefined) return undefined
  let c: Case
  try {
    const admission = readJsonFile('admission', join(a.state.dir, 'admission.json'))
    c = repairCaseFor(admission.case, admission.attempt_key, unmetItemsOf({ dir: a.state.dir, admission, outcome: a.state.outcome }))
  } catch (e) {
    if (isToolError(e)) return undefined
    throw e
  }
  const r = assess(p, c, now, io)
  return r.state.state === 'none' ? undefined : r
}

/**
 * admit status: one case-status record per case, in report order, each followed by the repairs
 * admitted for it (`<case id>#r1`, `#r2`). Never writes. With `next`,
 * only the record of the case `admit run` would admit now (selectNext), or NOTHING_ELIGIBLE:
 * what a timer asks before it starts the driver. It does not look at the lock: a live holder
 * makes the driver's admit exit 75 (LOCK_HELD), which is harmless.
 */
export async function admitStatus (o: StatusOptions, io: ToolIo): Promise<ToolResult> {
  const p = await plan(o, io, false)
  if (o.next === true) {
    const chosen = selectNext(p.assessed)
    if (chosen === undefined) throw nothingEligible(p.assessed)
    io.out.write({ v: 1, kind: 'case-status', case_id: chosen.c.id, attempt_key: chosen.key, status: 'eligible' })
    return { exit: EXIT.OK }
  }
  const now = io.now()
  for (const a of p.assessed) {
    await writeStatus(a, io)
    // Each repair admitted for the case follows it: <case id>#r1, then #r2.
    for (let at: Assessed | undefined = repairOfConsumed(p, a, now, io); at !== undefined; at = repairOfConsumed(p, at, now, io)) await writeStatus(at, io)
  }
  return { exit: EXIT.OK }
}
