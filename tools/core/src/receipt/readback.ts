// Readback (DESIGN §12): revalidates one retained attempt from its bytes alone. It recomputes
// every digest, recomputes the attempt key from the retained inputs, re-resolves the route
// and both register tuples, checks the stage records form a contiguous prefix complete for
// the outcome, and reruns the current checkers where the attempt retains what they need
// (readback/checks.ts). Each finding has its own code; any finding of severity error makes
// the attempt invalid. `admit status` uses the same code.

import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Admission, OutcomeFile, Receipt, ReadbackFinding, SchemaName, SchemaTypes } from '@repairline/schemas'
import { parseJsonBytes } from '../json.ts'
import { schemaErrors } from '../contracts.ts'
import { ATTEMPT_JSON_FILES, loadAttempt, readJsonFile, stateRootOf, type Attempt, type JsonFileReader } from '../attempt-dir.ts'
import { readFileNoFollow } from '../read-file.ts'
import { sha256File, sha256Hex } from '../digest.ts'
import { printableLine } from '../printable-line.ts'
import { holdsOnlyAdmission, listAttemptFiles, RECEIPT_FILE } from './files.ts'
import { ATTEMPT_FILES, checkStagePrefix } from './stages.ts'
import { compareUtf8 } from '../tree-rules/collisions.ts'
import { runContentChecks } from './checks.ts'
import { checkBundleAgainstSource } from './candidate-check.ts'
import { CANDIDATE_BUNDLE } from '../candidate/candidate.ts'
import { statedLimitsFor } from './seal.ts'
import { isLockStale, lockNamesDirectory, readLock, STALE_GRACE_MS } from '../lock.ts'
import { hasErrno } from '../errors.ts'

export interface ReadbackOptions {
  /** Report test hooks as a notice instead of an error (crash-matrix tests). */
  allowTestHooks?: boolean
  /**
   * `dir` is an entry of a state root's attempts/ (not a path the operator named): it must be
   * a real directory, since admit makes nothing else there, and a symlink is not followed.
   */
  stateRootEntry?: boolean
  /**
   * The clock (`receipt readback`'s). An attempt with no outcome and no receipt that may
   * still be worked on (isAttemptRunning: within its deadline and grace, the state lock naming
   * it) is reported running (a notice), and its files are not judged while they may still
   * change. Without a clock every unsealed attempt is NOT_SEALED.
   */
  now?: Date
  /**
   * The source repository (`receipt readback --source`): candidate.bundle is also checked
   * there with `git bundle verify` (BUNDLE_UNVERIFIED), which reads only. Without it the
   * bundle's header and digest are checked, and its commit recomputed, from the attempt alone.
   */
  source?: string
}

export interface ReadbackResult {
  attemptDir: string
  attemptKey?: string
  outcome?: OutcomeFile['outcome']
  valid: boolean
  findings: ReadbackFinding[]
}

/** Collects findings; `error` unless said otherwise. */
export class Findings {
  readonly list: ReadbackFinding[] = []
  add (code: string, message: string, path?: string, severity: 'error' | 'notice' = 'error'): void {
    this.list.push({ code, severity, message: printableLine(message, 2000), ...(path === undefined ? {} : { path }) })
  }

  has (code: string): boolean { return this.list.some(f => f.code === code) }
}

/**
 * Whether attempt `dir`, admitted as `admission` and without an outcome, may still be worked on
 * at `now`: its own deadline (admission.json's) with the 30 s grace has not passed, and the
 * lock of its state root names it — its key, and its directory by real path — and is not
 * stale. The lock's own deadline never extends the attempt's: anyone who can write the state
 * root can write a lock, and seal decides from admission.json's deadline alone. Readback's
 * ATTEMPT_RUNNING and admit status's `running` both mean this.
 */
export function isAttemptRunning (dir: string, admission: Admission, now: Date): boolean {
  if (now.getTime() > Date.parse(admission.deadline) + STALE_GRACE_MS) return false
  try {
    const lock = readLock(stateRootOf(dir))
    return lock !== undefined && lock.attempt_key === admission.attempt_key && lockNamesDirectory(lock, dir) && !isLockStale(lock, now)
  } catch {
    return false
  }
}

/** A sealed JSON file, parsed strictly and validated; a finding (MALFORMED) and undefined if not. */
export function readSealedJson<N extends SchemaName> (dir: string, rel: string, schema: N, f: Findings, read?: (bytes: Buffer) => void): unknown {
  let bytes: Buffer
  try {
    bytes = readFileNoFollow(join(dir, rel))
  } catch (e) {
    f.add('MALFORMED', hasErrno(e, 'ELOOP') ? `${rel} is a symlink` : `${rel} cannot be read: ${(e as Error).message}`, rel)
    return undefined
  }
  read?.(bytes)
  const parsed = parseJsonBytes(bytes)
  if (!parsed.ok) {
    f.add('MALFORMED', `${rel} is not strict JSON: ${parsed.message}`, rel)
    return undefined
  }
  const errs = schemaErrors(schema, parsed.value)
  if (errs.length > 0) {
    f.add('MALFORMED', `${rel} breaks its schema: ${errs.slice(0, 3).join('; ')}`, rel)
    return undefined
  }
  return parsed.value
}

/**
 * Revalidates one attempt directory. Never writes, and never throws: whatever the directory
 * holds, the answer is a result, and an error nothing below foresaw is a finding of its own
 * (MALFORMED) that makes this attempt invalid without ending a readback of many.
 */
export async function readbackAttempt (dir: string, o: ReadbackOptions = {}): Promise<ReadbackResult> {
  const f = new Findings()
  let seen: { admission?: Admission, outcome?: OutcomeFile } = {}
  const done = (admission?: Admission, outcome?: OutcomeFile): ReadbackResult => ({
    attemptDir: dir,
    ...(admission === undefined ? {} : { attemptKey: admission.attempt_key }),
    ...(outcome === undefined ? {} : { outcome: outcome.outcome }),
    valid: !f.list.some(x => x.severity === 'error'),
    findings: f.list,
  })
  try {
    return await readbackInto(dir, o, f, done, s => { seen = s })
  } catch (e) {
    f.add('MALFORMED', `readback could not finish on this attempt: ${(e as Error).message}`)
    return done(seen.admission, seen.outcome)
  }
}

async function readbackInto (
  dir: string,
  o: ReadbackOptions,
  f: Findings,
  done: (admission?: Admission, outcome?: OutcomeFile) => ReadbackResult,
  saw: (s: { admission?: Admission, outcome?: OutcomeFile }) => void,
): Promise<ReadbackResult> {
  if (o.stateRootEntry === true) {
    // admit names each attempt directory with its key's first 16 hex digits (a name that is
    // not UTF-8 shows here with U+FFFD in it, so it is not one either).
    if (!/^[0-9a-f]{16}$/.test(basename(dir))) {
      f.add('NOT_AN_ATTEMPT', `${JSON.stringify(basename(dir))} under attempts/ is not named by an attempt key (16 hex digits): admit names every attempt directory so`)
      return done()
    }
    const kind = entryKind(dir)
    if (kind !== 'directory') {
      f.add('NOT_AN_ATTEMPT', `${basename(dir)} under attempts/ is ${kind}, not an attempt directory: admit makes only directories there`)
      return done()
    }
  }
  if (!existsSync(join(dir, 'admission.json'))) {
    // admit stopped while writing inputs/ or before admission.json's rename: as admit status
    // reads it, nothing was consumed and the next admit of the case reuses the directory.
    if (holdsOnlyAdmission(dir)) {
      for (const t of listAttemptFiles(dir).leftovers) f.add('LEFTOVER_TEMP_FILE', `${t} is the temp file of a write that was interrupted before its rename; it was never part of the attempt`, t, 'notice')
      f.add('NOT_STARTED', 'admit stopped before admission.json: the key is not consumed, and the next admit of this case reuses this directory', 'admission.json', 'notice')
      return done()
    }
    f.add('MISSING_STAGE_RECORD', 'admission.json is missing: this is not an admitted attempt', 'admission.json')
    return done()
  }
  const listing = listAttemptFiles(dir)
  // Each file is read and hashed once, however many digests name it.
  // A file that cannot be read (over 1 GiB, gone, unreadable) has no digest: one finding, and
  // a digest no sealed or stated digest can equal.
  const digests = new Map<string, { bytes: number, sha256: string }>()
  const digestOf = (rel: string): { bytes: number, sha256: string } => {
    let d = digests.get(rel)
    if (d === undefined) {
      try {
        // Hashed while read, 1 MiB at a time: memory stays bounded whatever the file's size.
        d = sha256File(join(dir, rel), 1 << 30)
      } catch (e) {
        f.add('DIGEST_MISMATCH', `${rel} cannot be read to hash it: ${(e as Error).message}`, rel)
        d = { bytes: -1, sha256: 'unreadable' }
      }
      digests.set(rel, d)
    }
    return d
  }
  // A JSON file read whole to parse it is hashed from those bytes, not read a second time.
  const hashed = (rel: string) => (bytes: Buffer): void => { digests.set(rel, { bytes: bytes.length, sha256: sha256Hex(bytes) }) }
  for (const s of listing.special) f.add('UNSEALED_FILE', `${s} is not a regular file`, s)
  for (const u of listing.unreachable) f.add('UNSEALED_FILE', `${u.path}: ${u.why}`, u.path)
  for (const m of listing.misplaced) f.add('UNSEALED_FILE', `${m.path} ${m.why}`, m.path)
  for (const t of listing.leftovers) f.add('LEFTOVER_TEMP_FILE', `${t} is the temp file of a write that was interrupted before its rename; it was never part of the attempt`, t, 'notice')
  for (const x of listing.exposed) {
    if (x.links > 1) f.add('SEALED_FILE_LINKED', `${x.path} has ${x.links} hard links: a write through another of them changes this attempt's file (its digest says whether it did)`, x.path, 'notice')
    if ((x.mode & 0o022) !== 0) f.add('SEALED_FILE_WRITABLE', `${x.path} has mode ${x.mode.toString(8).padStart(4, '0')}: users other than its owner can rewrite it (its digest says whether they did)`, x.path, 'notice')
  }

  // Every JSON file of ours must parse strictly and validate, sealed or not.
  const docs = new Map<string, unknown>()
  for (const rel of listing.files) {
    const schema = ATTEMPT_JSON_FILES[rel]
    if (schema !== undefined) docs.set(rel, readSealedJson(dir, rel, schema, f, hashed(rel)))
  }
  const admission = docs.get('admission.json') as Admission | undefined
  const outcome = docs.get('outcome.json') as OutcomeFile | undefined
  // An outcome.json that names another attempt (copied in) is no outcome of this one: it is
  // not reported as this attempt's, and the checks below call it ATTEMPT_BINDING_MISMATCH.
  const foreignOutcome = outcome !== undefined && admission !== undefined && outcome.attempt_key !== admission.attempt_key
  saw({ ...(admission === undefined ? {} : { admission }), ...(outcome === undefined || foreignOutcome ? {} : { outcome }) })
  if (admission === undefined) {
    // Malformed, it is already a finding; a directory (or anything not a regular file) in its
    // place must be one too, or nothing would make the attempt invalid.
    if (!listing.files.includes('admission.json')) f.add('MISSING_STAGE_RECORD', 'admission.json is not a regular file: this is not an admitted attempt', 'admission.json')
    return done()
  }
  // admit stopped between admission.json and started.json: nothing was consumed (DESIGN §7),
  // nothing ran, and the next admit of the case reuses the directory. Not an attempt to judge.
  if (holdsOnlyAdmission(dir)) {
    f.add('NOT_STARTED', 'admitted but never started (admit stopped before started.json): the key is not consumed, and the next admit of this case reuses this directory', 'started.json', 'notice')
    return done(admission)
  }

  // Running: no outcome yet, its deadline with the grace not passed, and the state lock, which
  // admit takes for the attempt and seal releases, still names it (isAttemptRunning). A
  // receipt removed from a sealed attempt is no running attempt: seal released the lock. A
  // decided attempt is sealed at once; one that is not is NOT_SEALED below.
  if (o.now !== undefined && outcome === undefined && !existsSync(join(dir, RECEIPT_FILE)) && isAttemptRunning(dir, admission, o.now)) {
    f.add('ATTEMPT_RUNNING', `no outcome and no receipt yet, and the state lock names this attempt until its deadline ${admission.deadline} (with its 30 s grace): it may still be running; read it back once it is sealed`, RECEIPT_FILE, 'notice')
    return done(admission)
  }

  // The receipt.
  let receipt: Receipt | undefined
  if (!existsSync(join(dir, RECEIPT_FILE))) {
    f.add('NOT_SEALED', outcome === undefined ? 'no outcome and no receipt: the attempt is running or was interrupted and not yet sealed' : foreignOutcome ? 'outcome.json names another attempt and receipt.json does not exist: seal refuses it (ATTEMPT_BINDING_MISMATCH) until it is removed' : 'outcome.json exists but receipt.json does not: run receipt seal', RECEIPT_FILE)
  } else {
    receipt = readSealedJson(dir, RECEIPT_FILE, 'receipt', f) as Receipt | undefined
    docs.set(RECEIPT_FILE, receipt)
  }

  if (receipt !== undefined) {
    if (receipt.attempt_key !== admission.attempt_key || receipt.attempt_dir_name !== basename(dir) || basename(dir) !== admission.attempt_key.slice(0, 16)) {
      f.add('ATTEMPT_BINDING_MISMATCH', `receipt.json names attempt ${receipt.attempt_dir_name} (key ${receipt.attempt_key.slice(0, 16)}…), but this is ${basename(dir)} (key ${admission.attempt_key.slice(0, 16)}…)`, RECEIPT_FILE)
    }
    for (const [field, a, b] of [
      ['key_inputs', receipt.key_inputs, admission.key_inputs],
      ['case', receipt.case, admission.case],
      ['route', receipt.route, admission.route],
    ] as const) {
      if (JSON.stringify(a) !== JSON.stringify(b)) f.add('ATTEMPT_BINDING_MISMATCH', `receipt.json's ${field} differs from admission.json's`, RECEIPT_FILE)
    }
    if (receipt.checkout.root !== admission.source.root || receipt.checkout.sha !== admission.source.sha) {
      f.add('ATTEMPT_BINDING_MISMATCH', `receipt.json's checkout (${receipt.checkout.sha.slice(0, 12)} in ${receipt.checkout.root}) is not the checkout admission.json admitted (${admission.source.sha.slice(0, 12)} in ${admission.source.root})`, RECEIPT_FILE)
    }
    if (JSON.stringify(receipt.task_register) !== JSON.stringify(admission.task_register) || JSON.stringify(receipt.prompt_register) !== JSON.stringify(admission.prompt_register)) {
      f.add('REGISTER_TUPLE_MISMATCH', "receipt.json's register tuples differ from admission.json's", RECEIPT_FILE)
    }
    // Files: every sealed file present with its digest; nothing unsealed outside work/ and logs/.
    const sealed = new Map<string, { bytes: number, sha256: string }>()
    let previous: string | undefined
    for (const s of receipt.files) {
      if (sealed.has(s.path)) f.add('DUPLICATE_STAGE_RECORD', `receipt.json lists ${s.path} twice`, s.path)
      // Seal lists them sorted by path bytes (the receipt schema's order); a list in another
      // order was not written by seal.
      else if (previous !== undefined && compareUtf8(previous, s.path) > 0) f.add('STAGE_ORDER', `receipt.json lists ${s.path} after ${previous}: its files are not sorted by path`, RECEIPT_FILE)
      sealed.set(s.path, s)
      previous = s.path
    }
    const present = new Set(listing.files)
    for (const [path, s] of sealed) {
      if (!present.has(path)) {
        f.add('SEALED_FILE_MISSING', `${path} is sealed but missing`, path)
        continue
      }
      const d = digestOf(path)
      if (d.bytes !== s.bytes || d.sha256 !== s.sha256) f.add('DIGEST_MISMATCH', `${path} does not match its sealed digest`, path)
    }
    for (const path of listing.files) if (!sealed.has(path)) f.add('UNSEALED_FILE', `${path} is not covered by the receipt`, path)
    // What is sealed is what the steps write: a file no step writes says nothing the attempt did.
    for (const path of sealed.keys()) if (!ATTEMPT_FILES.has(path)) f.add('FOREIGN_FILE', `${path} is sealed, but no step writes it`, path)
    if (outcome !== undefined) {
      const r = receipt.outcome
      if (r.outcome !== outcome.outcome || r.step !== outcome.step || r.code !== outcome.reason.code || r.retryable !== outcome.retryable) {
        f.add('OUTCOME_MISMATCH', `receipt.json says ${r.outcome} (${r.code}), outcome.json says ${outcome.outcome} (${outcome.reason.code})`, RECEIPT_FILE)
      }
    }
    if (receipt.test_hooks !== admission.test_hooks && !receipt.test_hooks) f.add('ATTEMPT_BINDING_MISMATCH', 'admission.json says test hooks were enabled, receipt.json says not', RECEIPT_FILE)
    // What the receipt does not prove is part of what it says: a receipt that drops a limit
    // (or states the other test-hooks line) claims more than seal would.
    const limits = statedLimitsFor(receipt.test_hooks)
    if (JSON.stringify(receipt.stated_limits) !== JSON.stringify(limits)) {
      const missing = limits.filter(l => !receipt.stated_limits.includes(l))
      const extra = receipt.stated_limits.filter(l => !limits.includes(l))
      f.add('STATED_LIMITS_MISMATCH', `receipt.json's stated_limits are not the ones seal states${missing.length > 0 ? `; missing: ${missing.join(' | ')}` : ''}${extra.length > 0 ? `; not ours: ${extra.join(' | ')}` : ''}`, RECEIPT_FILE)
    }
  }

  if (outcome === undefined && receipt !== undefined) f.add('MISSING_STAGE_RECORD', listing.files.includes('outcome.json') ? 'receipt.json exists, but outcome.json cannot be read (its MALFORMED finding says why)' : 'receipt.json exists without outcome.json', 'outcome.json')
  for (const s of checkStagePrefix(new Set(listing.files), outcome)) f.add(s.code, s.message, s.path)

  if (admission.test_hooks || receipt?.test_hooks === true) {
    f.add('TEST_HOOKS_ENABLED', 'the attempt ran with REPAIRLINE_TEST_HOOKS=1 (test clock and fault hook): evidence of a test, not of a repair', 'admission.json', o.allowTestHooks === true ? 'notice' : 'error')
  }

  // The checks load the attempt as the steps do, but from the documents read above: a JSON
  // file that parsed and validated under the schema asked for is not read again.
  const readJson: JsonFileReader = (name, path, missingCode) => {
    const rel = path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : undefined
    const doc = rel === undefined || ATTEMPT_JSON_FILES[rel] !== name ? undefined : docs.get(rel)
    return doc === undefined ? readJsonFile(name, path, missingCode) : doc as SchemaTypes[typeof name]
  }
  let loaded: { attempt: Attempt } | { error: unknown } | undefined
  const attempt = (): Attempt => {
    if (loaded === undefined) {
      try { loaded = { attempt: loadAttempt(dir, { inStateRoot: false, readJson }) } } catch (e) { loaded = { error: e } }
    }
    if ('error' in loaded) throw loaded.error
    return loaded.attempt
  }
  await runContentChecks({ dir, admission, outcome, docs, files: new Set(listing.files), findings: f, digestOf: rel => digestOf(rel).sha256, attempt, ...(o.now === undefined ? {} : { now: o.now }) })
  if (o.source !== undefined && listing.files.includes(CANDIDATE_BUNDLE)) await checkBundleAgainstSource(dir, o.source, f)
  return done(admission, foreignOutcome ? undefined : outcome)
}

/**
 * Every entry of a state root's attempts/, in byte order: the attempt directories and anything
 * else planted there, so that readback has a record for each (readbackAttempt with
 * stateRootEntry refuses what is not a directory).
 */
export function attemptDirsOf (stateDir: string): string[] {
  const root = join(stateDir, 'attempts')
  if (!existsSync(root)) return []
  return readdirSync(root).sort(compareUtf8).map(n => join(root, n))
}

/** What a state-root entry is, by lstat: "directory", or a phrase for the message. */
function entryKind (path: string): string {
  let st
  try { st = lstatSync(path) } catch (e) { return `unreadable (${(e as NodeJS.ErrnoException).code ?? 'error'})` }
  if (st.isDirectory()) return 'directory'
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.isFile()) return 'a regular file'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return 'a socket'
  return 'a device'
}
