// Threat group V (threat-matrix §6, §9.7; DESIGN §12): the readback fixture corpus, in the
// style of sigstore-conformance (one directory per case, pass/fail in its name, at least 70 %
// negative) with slsa-verifier's discipline (each negative case names the one exact code it
// must produce). Six real attempts are sealed once through the driver against the local HTTPS
// Responses server — go and node scoped_test_verified, not_reproduced, rejected, a retryable
// provider_error and an interrupted attempt sealed after a kill — and every fixture is a copy
// of one of them with one mutation named after the threat.
//
// A negative fixture asserts its code is among the error findings; where the mutation is
// designed to trip one check, the set of error codes must be exactly {code} plus the codes
// listed in `alsoFires`, which are the second lines of defence that fire by construction (a
// flipped job.txt is both a digest mismatch and a re-render mismatch). "Resealing" recomputes
// receipt.json's `files` entries for the changed files, as a careful forger would, so the
// check under test is the one that fires.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { appendFileSync, chmodSync, closeSync, cpSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: mkfifo, a fixture primitive
import { basename, dirname, join } from 'node:path'
import { OPERATOR_WORK_NOTES, readbackAttempt, renderSummaryText, run, sha256Hex, STATED_LIMITS, statedLimitsFor, type ReadbackResult } from '@repairline/core'
import { startProvider, type Provider } from '../helpers/chain.ts'
import { runBin, ROOT } from '../helpers/bin.ts'
import { tempDir } from '../helpers/tmp.ts'
import {
  copyAttempt, editJson, editReceipt, flipByte, flipByteAt, flipJsonWhitespace, readJson, reseal, rewriteEvents, sealSources,
  type Source, type SourceName,
} from '../helpers/corpus.ts'

type Sources = Record<SourceName, Source>

/** The parts of a sandbox run record the A4 fixtures change. */
interface SandboxRecord { argv: string[], namespaces: Array<{ host: string, sandbox: string }>, mounts: Array<{ source: string, dest: string, mode: string }>, limits: Array<{ name: string, want: string, got: string }>, samples: Array<{ mem_available_bytes: number }> }

interface CorpusFixture {
  /** `<what>_pass` or `<what>_fail`. */
  name: string
  from: SourceName
  /** The threat, in one line (threat-matrix ids where there is one). */
  threat: string
  mutate?: (dir: string, s: Sources) => void
  /** The one code a `_fail` fixture must produce. */
  expect?: string
  /** Other error codes that fire by construction; the error codes must be exactly these plus `expect`. */
  alsoFires?: readonly string[]
  /** false: the mutation trips several checks at once; only require `expect` among them. */
  exclusive?: boolean
  allowTestHooks?: boolean
  /** Notice codes a `_pass` fixture must report. */
  notices?: readonly string[]
  /** Read back with the wall clock as readback's clock (`receipt readback` always has one). */
  withClock?: boolean
  /** Read back given the source's repository (`receipt readback --source`). */
  withSource?: boolean
}

const D = 'DIGEST_MISMATCH'
const RR = 'RERENDER_MISMATCH'
const GM = 'GATE_MISMATCH'
const TV = 'TEST_VERDICT_MISMATCH'
const PA = 'PROVIDER_ANSWER_MISMATCH'
// The candidate commit's message is built from the proposal summary (issue 37).
const CC = 'CANDIDATE_COMMIT_MISMATCH'

/** One byte flipped in each kind of sealed file, chosen so that the file still parses. */
const FLIPS: Array<[string, string, (dir: string) => void, string[]?]> = [
  ['inputs_execution', 'go_verified', d => flipJsonWhitespace(d, 'inputs/execution.json')],
  ['inputs_routing_policy', 'go_verified', d => flipJsonWhitespace(d, 'inputs/routing-policy.json')],
  ['inputs_registers', 'go_verified', d => flipJsonWhitespace(d, 'inputs/registers.json')],
  ['inputs_case', 'go_verified', d => flipJsonWhitespace(d, 'inputs/case.json')],
  ['admission', 'go_verified', d => flipJsonWhitespace(d, 'admission.json')],
  ['started', 'go_verified', d => flipJsonWhitespace(d, 'started.json')],
  // The archive's end-of-archive zero blocks: every member still reads back intact.
  ['tree_tar', 'go_verified', d => flipByteAt(d, 'tree.tar', -1)],
  // A byte of calc.go inside the archive: the member no longer has its manifest digest, so
  // neither the re-render nor the gate can read the baseline.
  ['tree_tar_member', 'go_verified', d => flipByte(d, 'tree.tar', 'package calc', 'package cAlc'), [RR, GM]],
  ['tree_manifest', 'go_verified', d => flipJsonWhitespace(d, 'tree-manifest.json')],
  ['baseline_events', 'go_verified', d => flipByte(d, 'baseline.events.ndjson', '"Time":"2', '"Time":"3')],
  ['baseline', 'go_verified', d => flipJsonWhitespace(d, 'baseline.json')],
  ['job', 'go_verified', d => flipByte(d, 'job.txt', 'task: repair', 'task: rePair'), [RR]],
  ['prompt', 'go_verified', d => flipByte(d, 'prompt.txt', 'This input', 'This inPut'), [RR]],
  ['request', 'go_verified', d => flipJsonWhitespace(d, 'request.json'), [RR]],
  ['dispatch', 'go_verified', d => flipJsonWhitespace(d, 'dispatch.json')],
  ['response', 'go_verified', d => flipJsonWhitespace(d, 'response.json')],
  // gate.json binds proposal.json's digest, so the gate's rerun differs too.
  ['proposal', 'go_verified', d => flipJsonWhitespace(d, 'proposal.json'), [GM]],
  ['usage', 'go_verified', d => flipJsonWhitespace(d, 'usage.json')],
  ['validation_job_instructions', 'go_verified', d => flipJsonWhitespace(d, 'validation/job_instructions.json'), [RR]],
  ['validation_prompt', 'go_verified', d => flipJsonWhitespace(d, 'validation/prompt.json'), [RR]],
  ['validation_request_instructions', 'go_verified', d => flipJsonWhitespace(d, 'validation/request_instructions.json'), [RR]],
  ['validation_summary', 'go_verified', d => flipJsonWhitespace(d, 'validation/summary.json')],
  ['candidate_patch', 'go_verified', d => flipByte(d, 'candidate.patch', 'diff --git', 'diff --gIt'), [GM]],
  ['gate', 'go_verified', d => flipJsonWhitespace(d, 'gate.json'), [GM]],
  ['candidate_events', 'go_verified', d => flipByte(d, 'candidate.events.ndjson', '"Time":"2', '"Time":"3')],
  ['verify', 'go_verified', d => flipJsonWhitespace(d, 'verify.json')],
  ['outcome', 'go_verified', d => flipJsonWhitespace(d, 'outcome.json')],
  // The pack's last byte (its checksum): the header still parses.
  ['candidate_bundle', 'go_verified', d => flipByteAt(d, 'candidate.bundle', -1)],
  ['candidate_json', 'go_verified', d => flipJsonWhitespace(d, 'candidate.json')],
  // The same on the other sources.
  ['node_candidate_patch', 'node_verified', d => flipByte(d, 'candidate.patch', 'diff --git', 'diff --gIt'), [GM]],
  ['node_baseline_events', 'node_verified', d => flipByte(d, 'baseline.events.ndjson', '"Package":"test/', '"Package":"tesT/')],
  ['node_verify', 'node_verified', d => flipJsonWhitespace(d, 'verify.json')],
  ['not_reproduced_baseline', 'not_reproduced', d => flipJsonWhitespace(d, 'baseline.json')],
  ['not_reproduced_outcome', 'not_reproduced', d => flipJsonWhitespace(d, 'outcome.json')],
  ['rejected_gate', 'rejected', d => flipJsonWhitespace(d, 'gate.json'), [GM]],
  ['rejected_proposal', 'rejected', d => flipByte(d, 'proposal.json', 'subtracts', 'subtrActs'), [GM, PA]],
  ['provider_error_request', 'provider_error', d => flipJsonWhitespace(d, 'request.json'), [RR]],
  ['provider_error_response', 'provider_error', d => flipJsonWhitespace(d, 'response.json')],
  ['interrupted_dispatch', 'interrupted', d => flipJsonWhitespace(d, 'dispatch.json')],
]

/** The timing of a run record (baseline.json's or verify.json's). */
const runTiming = (dir: string, file: string): { started_at: string, ended_at: string } => readJson<{ run: { timing: { started_at: string, ended_at: string } } }>(dir, file).run.timing

/** An ISO timestamp `seconds` after another. */
const laterBy = (at: string, seconds: number): string => new Date(Date.parse(at) + seconds * 1000).toISOString()

/**
 * The end of an attempt moved an hour past its deadline, every digest recomputed: the outcome
 * decided then and the receipt sealed after; with `runToo` the candidate run ending just
 * before; with `timedOut` the outcome relabelled timed_out, as verify writes it that late.
 */
function lateEnd (d: string, o: { runToo: boolean, timedOut: boolean }): void {
  const deadline = readJson<{ deadline: string }>(d, 'admission.json').deadline
  if (o.runToo) editJson(d, 'verify.json', v => { v.run.timing.ended_at = laterBy(deadline, 3599) })
  if (o.timedOut) relabel(d, { outcome: 'timed_out', step: 'verify', code: 'DEADLINE_PASSED' })
  editJson(d, 'outcome.json', x => { x.decided_at = laterBy(deadline, 3600) })
  reseal(d, 'verify.json', 'outcome.json')
  editReceipt(d, r => { r.sealed_at = laterBy(deadline, 3601) })
}

/** A run record as sealed before the kernel-state steps: no keyring step, covered key files or filter in its argv, no readings of them. */
function beforeKernelState (r: SandboxRecord): void {
  const k = r.argv.indexOf('/usr/bin/keyctl')
  if (k !== -1) r.argv.splice(k, 3)
  for (const f of ['/proc/keys', '/proc/key-users']) { const i = r.argv.indexOf(f); if (i !== -1) r.argv.splice(i - 2, 3) }
  const s = r.argv.indexOf('--seccomp')
  if (s !== -1) r.argv.splice(s, 2)
  r.limits = r.limits.filter(l => l.name !== 'seccomp filter' && l.name !== 'session keyring')
}

/** The summary record a forger would write for a proposal whose summary they changed. */
function setCause (dir: string, cause: string): void {
  editJson(dir, 'proposal.json', p => { p.summary.cause = cause })
}

/**
 * candidate.bundle's header rewritten (issue 37): `edit` changes its header lines; the pack
 * is kept, and candidate.json, receipt.json's candidate and its files entry are made to
 * match, as a careful forger would.
 */
function rewriteBundleHeader (d: string, edit: (lines: string[]) => string[]): void {
  const bytes = readFileSync(join(d, 'candidate.bundle'))
  const end = bytes.indexOf('\n\n') + 2
  const lines = bytes.subarray(0, end - 2).toString('utf8').split('\n')
  writeFileSync(join(d, 'candidate.bundle'), Buffer.concat([Buffer.from(edit(lines).join('\n') + '\n\n'), bytes.subarray(end)]))
  resealCandidate(d)
}

/** candidate.json's bundle digest, receipt.json's candidate and the files entries made to match the files. */
function resealCandidate (d: string): void {
  const sha256 = sha256Hex(readFileSync(join(d, 'candidate.bundle')))
  editJson(d, 'candidate.json', c => { c.bundle = { bytes: statSync(join(d, 'candidate.bundle')).size, sha256 } })
  const c = readJson<{ ref: string, commit: string, tree: string, committed_at: string }>(d, 'candidate.json')
  reseal(d, 'candidate.bundle', 'candidate.json')
  editReceipt(d, r => { r.candidate = { ref: c.ref, commit: c.commit, tree: c.tree, committed_at: c.committed_at, bundle_sha256: sha256 } })
}

const OTHER_COMMIT = '0123456789abcdef0123456789abcdef01234567'

/** The candidate commit and its bundle (issue 37), each mutation named after what it forges. */
const CANDIDATE_FIXTURES: CorpusFixture[] = [
  {
    name: 'receipt_v1_without_candidate_pass',
    from: 'go_verified',
    threat: 'control: a verified attempt sealed before candidate.bundle existed (receipt v1) reads back as it did',
    mutate: d => {
      for (const f of ['candidate.bundle', 'candidate.json']) rmSync(join(d, f))
      editJson(d, 'admission.json', a => { delete a.operator_work })
      reseal(d, 'candidate.bundle', 'candidate.json', 'admission.json')
      editReceipt(d, r => { r.v = 1; delete r.candidate; delete r.operator_work; delete r.repository })
    },
  },
  {
    name: 'owners_rule_not_the_tree_fail',
    from: 'go_verified',
    threat: "the receipt names a CODEOWNERS rule for calc.go that the tree at source_sha does not have (it has no CODEOWNERS file)",
    mutate: d => { editReceipt(d, r => { const p = r.repository?.paths[0]; if (p !== undefined) p.owners = { file: 'CODEOWNERS', line: 1, pattern: '*', owners: ['@someone-else'] } }) },
    expect: 'OWNERS_RULE_MISMATCH',
  },
  {
    name: 'owners_unowned_hidden_fail',
    from: 'node_verified',
    threat: 'a receipt that claims a CODEOWNERS file the tree does not hold',
    mutate: d => { editReceipt(d, r => { if (r.repository !== undefined) r.repository.codeowners = { path: '.github/CODEOWNERS', sha256: 'c'.repeat(64) } }) },
    expect: 'OWNERS_RULE_MISMATCH',
  },
  {
    name: 'instruction_digest_not_the_tree_fail',
    from: 'go_verified',
    threat: 'an AGENTS.md digest the tree at source_sha does not have, listed for calc.go',
    mutate: d => { editReceipt(d, r => { r.repository?.paths[0]?.instructions.push({ path: 'AGENTS.md', sha256: 'a'.repeat(64) }) }) },
    expect: 'INSTRUCTION_DIGEST_MISMATCH',
  },
  {
    name: 'repository_path_dropped_fail',
    from: 'node_verified',
    threat: 'the changed path left out of the repository clause (its instructions and owners unsaid)',
    mutate: d => { editReceipt(d, r => { if (r.repository !== undefined) r.repository.paths = [] }) },
    expect: 'INSTRUCTION_DIGEST_MISMATCH',
    alsoFires: ['OWNERS_RULE_MISMATCH'],
  },
  {
    name: 'repository_clause_dropped_fail',
    from: 'not_reproduced',
    threat: 'a version 2 receipt without its repository clause',
    mutate: d => { editReceipt(d, r => { delete r.repository }) },
    expect: 'INSTRUCTION_DIGEST_MISMATCH',
  },
  {
    name: 'operator_work_changed_pass',
    from: 'go_verified',
    threat: 'control: the operator edited an untracked file during the attempt: the receipt names it, readback reports a notice, the candidate stays valid',
    mutate: d => {
      editReceipt(d, r => {
        const w = r.operator_work
        if (w === undefined) throw new Error('no operator_work')
        Object.assign(w, { status: 'changed', sealed_sha256: 'f'.repeat(64), changed_paths: ['notes.txt'], changed_path_count: 1, note: OPERATOR_WORK_NOTES.changed })
      })
    },
    notices: ['OPERATOR_WORK_CHANGED'],
  },
  {
    name: 'operator_work_change_hidden_fail',
    from: 'go_verified',
    threat: 'a receipt that says unchanged although its two readings of the checkout differ',
    mutate: d => { editReceipt(d, r => { if (r.operator_work !== undefined) r.operator_work.sealed_sha256 = 'f'.repeat(64) }) },
    expect: 'OPERATOR_WORK_MISMATCH',
  },
  {
    name: 'operator_work_other_admission_fail',
    from: 'node_verified',
    threat: "the receipt's reading at admission is not admission.json's (taken from another attempt)",
    mutate: d => { editReceipt(d, r => { if (r.operator_work !== undefined) { r.operator_work.admitted_sha256 = 'e'.repeat(64); r.operator_work.sealed_sha256 = 'e'.repeat(64) } }) },
    expect: 'OPERATOR_WORK_MISMATCH',
  },
  {
    name: 'operator_work_dropped_fail',
    from: 'rejected',
    threat: 'a version 2 receipt without its operator_work clause',
    mutate: d => { editReceipt(d, r => { delete r.operator_work }) },
    expect: 'OPERATOR_WORK_MISMATCH',
  },
  {
    name: 'candidate_bundle_missing_fail',
    from: 'go_verified',
    threat: 'a v2 receipt of a gate that passed, without the candidate commit (bundle and record removed, receipt resealed)',
    mutate: d => {
      for (const f of ['candidate.bundle', 'candidate.json']) rmSync(join(d, f))
      reseal(d, 'candidate.bundle', 'candidate.json')
      editReceipt(d, r => { delete r.candidate })
    },
    expect: 'MISSING_STAGE_RECORD',
  },
  {
    name: 'candidate_bundle_other_commit_fail',
    from: 'go_verified',
    threat: "a bundle whose branch names another commit than the one tree.tar and the gated edits give",
    mutate: d => { rewriteBundleHeader(d, ls => ls.map(l => l.startsWith('-') || l.startsWith('#') ? l : `${OTHER_COMMIT}${l.slice(40)}`)) },
    expect: 'CANDIDATE_COMMIT_MISMATCH',
  },
  {
    name: 'candidate_json_commit_forged_fail',
    from: 'go_verified',
    threat: 'candidate.json and the receipt name another commit, and so does the bundle (all consistent, none recomputable)',
    mutate: d => {
      editJson(d, 'candidate.json', c => { c.commit = OTHER_COMMIT })
      rewriteBundleHeader(d, ls => ls.map(l => l.startsWith('-') || l.startsWith('#') ? l : `${OTHER_COMMIT}${l.slice(40)}`))
    },
    expect: 'CANDIDATE_COMMIT_MISMATCH',
  },
  {
    name: 'candidate_committed_at_moved_fail',
    from: 'go_verified',
    threat: "the commit's date moved a second in candidate.json and the receipt: the commit it names is no longer the one those fields make",
    mutate: d => {
      // A second later, unless that passes the candidate run's start; then a second earlier
      // (still not before the answer's second): the date stays in order, only the id breaks.
      const ran = Date.parse((JSON.parse(readFileSync(join(d, 'verify.json'), 'utf8')) as { run: { timing: { started_at: string } } }).run.timing.started_at)
      editJson(d, 'candidate.json', c => { const at = Date.parse(c.committed_at); c.committed_at = new Date(at + 1000 <= ran ? at + 1000 : at - 1000).toISOString() })
      resealCandidate(d)
    },
    expect: 'CANDIDATE_COMMIT_MISMATCH',
  },
  {
    name: 'candidate_committed_before_answer_fail',
    from: 'node_verified',
    threat: "the commit dated an hour before the provider's answer arrived (the commit id then differs too: its date is in it)",
    mutate: d => {
      editJson(d, 'candidate.json', c => { c.committed_at = new Date(Date.parse(c.committed_at) - 3600_000).toISOString() })
      resealCandidate(d)
    },
    expect: 'STAGE_ORDER',
    alsoFires: [CC],
  },
  {
    name: 'candidate_bundle_wrong_ref_fail',
    from: 'go_verified',
    threat: "a bundle whose one reference is the operator's main branch: fetching it as the README says would fail, or name another branch",
    mutate: d => { rewriteBundleHeader(d, ls => ls.map(l => /^[0-9a-f]{40} refs\//.test(l) ? `${l.slice(0, 40)} refs/heads/main` : l)) },
    expect: 'BUNDLE_REF_MISMATCH',
  },
  {
    name: 'candidate_bundle_missing_prerequisite_fail',
    from: 'go_verified',
    threat: 'a bundle that claims no prerequisite: it would have to carry the whole history, and says nothing of source_sha',
    mutate: d => { rewriteBundleHeader(d, ls => ls.filter(l => !l.startsWith('-'))) },
    expect: 'BUNDLE_PREREQUISITE_MISMATCH',
  },
  {
    name: 'candidate_bundle_source_pass',
    from: 'go_verified',
    threat: 'control: given the source repository, git bundle verify accepts the bundle',
    withSource: true,
  },
  {
    name: 'candidate_bundle_pack_cut_fail',
    from: 'go_verified',
    threat: "a bundle whose pack lost its last object (header intact, every digest recomputed): only the source's git bundle verify can tell",
    mutate: d => {
      const path = join(d, 'candidate.bundle')
      truncateSync(path, statSync(path).size - 40)
      resealCandidate(d)
    },
    withSource: true,
    expect: 'BUNDLE_UNVERIFIED',
  },
  {
    name: 'candidate_on_rejected_fail',
    from: 'rejected',
    threat: "a go_verified attempt's candidate commit copied into a rejected attempt: the gate that passed it is not this one",
    mutate: (d, s) => {
      for (const f of ['candidate.bundle', 'candidate.json']) cpSync(join(s.go_verified.dir, f), join(d, f))
      resealCandidate(d)
    },
    expect: 'CANDIDATE_COMMIT_MISMATCH',
  },
  {
    name: 'candidate_receipt_clause_dropped_fail',
    from: 'node_verified',
    threat: "receipt.json without its candidate clause while candidate.json is sealed: the receipt does not say what the bundle holds",
    mutate: d => { editReceipt(d, r => { delete r.candidate }) },
    expect: 'CANDIDATE_COMMIT_MISMATCH',
  },
]

// The checks' results (seed 004): node_checks holds the results of a source_absent, a contains
// and a command clause, all pass, on the baseline (the command) and the candidate. Each
// forgery reseals as seal would (the receipt's files, commands and checks), so the check that
// re-derives the results is the one that fires.
const CR = 'CHECK_RESULT_MISMATCH'
type CheckDoc = { checks: Array<{ clause: string, index: number, status: string, code: string, detail: string, command?: { exit_code: number | null, run: SandboxRecord & { exit: { code: number | null } } } }> }
const CHECK_FIXTURES: CorpusFixture[] = [
  { name: 'checks_verified_pass', from: 'node_checks', threat: 'positive control: every clause of checks recorded as it ran, the receipt\'s copy equal' },
  { name: 'check_detail_forged_fail', from: 'node_checks', threat: 'seed 004: a content clause\'s detail rewritten (what a repair prompt would read), resealed', mutate: d => { editJson(d, 'verify.json', (v: CheckDoc) => { const r = v.checks[1]; if (r !== undefined) r.detail = 'src/calc.js contains text "return a + b" (line 1)' }); reseal(d, 'verify.json') }, expect: CR },
  { name: 'check_clause_dropped_fail', from: 'node_checks', threat: 'seed 004: the contains clause\'s result removed from verify.json and the receipt (a failing check hidden), resealed', mutate: d => { editJson(d, 'verify.json', (v: CheckDoc) => { v.checks.splice(1, 1) }); reseal(d, 'verify.json') }, expect: CR },
  { name: 'check_failure_hidden_fail', from: 'node_checks', threat: 'seed 004: a content clause the candidate passes recorded as failing, classification kept verified, resealed', mutate: d => { editJson(d, 'verify.json', (v: CheckDoc) => { const r = v.checks[0]; if (r !== undefined) { r.status = 'fail'; r.code = 'CHECK_PATTERN_PRESENT' } }); reseal(d, 'verify.json') }, expect: CR, alsoFires: [TV] },
  { name: 'check_command_exit_forged_fail', from: 'node_checks', threat: 'seed 004: a command that exited 1 recorded as passing: its exit code and its verdict disagree, resealed', mutate: d => { editJson(d, 'verify.json', (v: CheckDoc) => { const c = v.checks[2]?.command; if (c !== undefined) { c.exit_code = 1; c.run.exit.code = 1 } }); reseal(d, 'verify.json') }, expect: CR },
  { name: 'check_command_other_sandbox_fail', from: 'node_checks', threat: 'seed 004: the command ran under another tasks limit than the tests (not the same sandbox), resealed', mutate: d => { editJson(d, 'verify.json', (v: CheckDoc) => { const l = v.checks[2]?.command?.run.limits.find(x => x.name === 'tasks'); if (l !== undefined) { l.want = '100000'; l.got = '100000' } }); reseal(d, 'verify.json') }, expect: CR },
  { name: 'check_baseline_commands_dropped_fail', from: 'node_checks', threat: 'seed 004: the command\'s baseline run removed from baseline.json (a verifier never proven to run before the provider call), resealed', mutate: d => { editJson(d, 'baseline.json', (b: Partial<CheckDoc>) => { delete b.checks }); reseal(d, 'baseline.json') }, expect: CR },
  { name: 'check_receipt_status_fail', from: 'node_checks', threat: 'seed 004: receipt.json\'s copy says the verify command faulted', mutate: d => editReceipt(d, r => { const c = r.checks?.at(-1); if (c !== undefined) { c.status = 'fault'; c.code = 'CHECK_FAULT_EXIT' } }), expect: 'CHECK_RECEIPT_MISMATCH' },
  { name: 'check_receipt_dropped_fail', from: 'node_checks', threat: 'seed 004: receipt.json\'s checks removed', mutate: d => editReceipt(d, r => { delete r.checks }), expect: 'CHECK_RECEIPT_MISMATCH' },
]

const FIXTURES: CorpusFixture[] = [
  // Positive: every real attempt reads back, and so do a few harmless changes.
  { name: 'go_verified_pass', from: 'go_verified', threat: 'control: a sealed go scoped_test_verified attempt' },
  { name: 'node_verified_pass', from: 'node_verified', threat: 'control: a sealed node scoped_test_verified attempt' },
  {
    name: 'node_chain_before_address_space_pass',
    from: 'node_verified',
    threat: 'control: a node attempt sealed before the launch chain set the address space unlimited (the option absent from both runs\' argv, and so are the later kernel-state steps)',
    mutate: d => {
      for (const f of ['baseline.json', 'verify.json']) editJson(d, f, x => { const r = x.run as SandboxRecord; beforeKernelState(r); r.argv = r.argv.filter(a => a !== '--as=unlimited:unlimited') })
      reseal(d, 'baseline.json', 'verify.json')
    },
  },
  ...(['go_verified', 'node_verified'] as const).map((from): CorpusFixture => ({
    name: `${from.split('_')[0] ?? ''}_chain_before_kernel_state_pass`,
    from,
    threat: 'control: an attempt sealed before the launch chain joined a new session keyring, covered /proc/keys and applied the seccomp filter (none of them in either run\'s argv or readings)',
    mutate: d => {
      for (const f of ['baseline.json', 'verify.json']) editJson(d, f, x => { beforeKernelState(x.run as SandboxRecord) })
      reseal(d, 'baseline.json', 'verify.json')
    },
  })),
  { name: 'not_reproduced_pass', from: 'not_reproduced', threat: 'control: an early outcome retains a contiguous prefix' },
  { name: 'rejected_pass', from: 'rejected', threat: 'control: a gate rejection' },
  { name: 'provider_error_pass', from: 'provider_error', threat: 'control: a retryable provider_error (429)' },
  { name: 'interrupted_pass', from: 'interrupted', threat: 'control: killed after dispatch, sealed past deadline + 30 s', allowTestHooks: true, notices: ['TEST_HOOKS_ENABLED'] },
  { name: 'symlinked_attempt_fail', from: 'go_verified', threat: 'the attempt moved out of attempts/ and a symlink left in its place', mutate: d => { renameSync(d, join(d, '..', '..', 'moved')); symlinkSync(join(d, '..', '..', 'moved'), d) }, expect: 'NOT_AN_ATTEMPT' },
  { name: 'file_as_attempt_fail', from: 'go_verified', threat: 'a regular file where an attempt directory was', mutate: d => { rmSync(d, { recursive: true }); writeFileSync(d, '{}\n') }, expect: 'NOT_AN_ATTEMPT' },
  {
    name: 'admitted_not_started_pass',
    from: 'go_verified',
    threat: 'admit stopped between admission.json and started.json: not consumed, nothing to judge, reported as a notice',
    mutate: d => { for (const n of readdirSync(d)) if (n !== 'inputs' && n !== 'admission.json') rmSync(join(d, n), { recursive: true }) },
    notices: ['NOT_STARTED'],
  },
  {
    name: 'admit_killed_before_admission_pass',
    from: 'go_verified',
    threat: 'admit killed after inputs/ and before admission.json\'s rename: what admit status calls not started (the next admit reuses the directory), never invalid',
    mutate: d => { for (const n of readdirSync(d)) if (n !== 'inputs') rmSync(join(d, n), { recursive: true }); writeFileSync(join(d, '.admission.json.tmp-0123456789ab'), '{"v":') },
    notices: ['NOT_STARTED', 'LEFTOVER_TEMP_FILE'],
  },
  { name: 'logs_extra_file_pass', from: 'go_verified', threat: 'logs/ is unsealed by design', mutate: d => appendFileSync(join(d, 'logs', 'verify.stderr'), 'appended after sealing\n') },
  { name: 'work_scratch_pass', from: 'go_verified', threat: 'work/ is unsealed by design', mutate: d => { mkdirSync(join(d, 'work', 'x'), { recursive: true }); writeFileSync(join(d, 'work', 'x', 'f'), 'scratch') } },
  {
    name: 'leftover_temp_file_pass',
    from: 'go_verified',
    threat: 'the temp file of an interrupted atomic write is reported, never read as part of the attempt',
    mutate: d => writeFileSync(join(d, '.usage.json.tmp-0123456789ab'), '{"v":'),
    notices: ['LEFTOVER_TEMP_FILE'],
  },
  {
    name: 'leftover_temp_file_nested_pass',
    from: 'go_verified',
    threat: 'control: the temp file of an interrupted write of a validation record, in validation/ where that record is written',
    mutate: d => writeFileSync(join(d, 'validation', '.prompt.json.tmp-0123456789ab'), '{"v":'),
    notices: ['LEFTOVER_TEMP_FILE'],
  },
  {
    // V2, the receipt's stated limit: digests are not signatures. A forger who rewrites the
    // server's own report in response.json and usage.json to match, and recomputes both
    // sealed digests, is not caught by readback.
    name: 'consistent_forgery_usage_pass',
    from: 'go_verified',
    threat: 'V2: a fully consistent forgery (the usage in response.json and usage.json rewritten alike, digests recomputed) is undetectable without a signature',
    mutate: d => { forgeInputTokens(d, true); reseal(d, 'response.json', 'usage.json') },
  },
  // D2: usage.json and proposal.json are what response.json's answer gives, decided again.
  { name: 'forge_usage_fail', from: 'go_verified', threat: 'D2: usage.json token counts rewritten and resealed, response.json untouched', mutate: d => { forgeInputTokens(d, false); reseal(d, 'usage.json') }, expect: PA },
  {
    name: 'forge_proposal_everywhere_fail',
    from: 'go_verified',
    threat: 'D2: proposal.json rewritten within the attempt, and every digest of it (gate.json, verify.json, the summary record) refreshed: only response.json still holds the real answer',
    mutate: d => {
      setCause(d, 'Add has a wrong operator.')
      const sha = sha256Hex(readFileSync(join(d, 'proposal.json')))
      editJson(d, 'gate.json', g => { g.proposal_sha256 = sha })
      editJson(d, 'verify.json', v => { v.candidate.proposal_sha256 = sha })
      const summary = readJson<{ summary: unknown }>(d, 'proposal.json').summary
      editJson(d, 'validation/summary.json', v => { v.input_sha256 = sha256Hex(Buffer.from(renderSummaryText(summary as never))) })
      reseal(d, 'proposal.json', 'gate.json', 'verify.json', 'validation/summary.json')
      editReceipt(d, r => { r.validation = r.validation.map(x => x.stage === 'summary_validation' ? { ...x, input_sha256: readJson<{ input_sha256: string }>(d, 'validation/summary.json').input_sha256 } : x) })
    },
    expect: PA,
    exclusive: false,
  },
  { name: 'outcome_code_relabelled_fail', from: 'go_verified', threat: 'D2: scoped_test_verified given the code GATE_REJECTED, outcome and receipt resealed (an audit found it read back valid)', mutate: d => relabel(d, { outcome: 'scoped_test_verified', step: 'verify', code: 'GATE_REJECTED' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_not_reproduced_code_relabelled_fail', from: 'not_reproduced', threat: 'D2: not_reproduced given the code SCOPED_TEST_VERIFIED, resealed', mutate: d => relabel(d, { outcome: 'not_reproduced', step: 'reproduce', code: 'SCOPED_TEST_VERIFIED' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_rate_limited_relabelled_fail', from: 'provider_error', threat: 'D2: a 429 relabelled a server error (another code, same retryability) while response.json holds the 429', mutate: d => relabel(d, { outcome: 'provider_error', step: 'ask-provider', code: 'PROVIDER_SERVER_ERROR', retryable: true }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_answer_relabelled_failed_fail', from: 'rejected', threat: 'D2: an attempt whose answer held a proposal relabelled a failed response at ask-provider', mutate: d => relabel(d, { outcome: 'provider_error', step: 'ask-provider', code: 'PROVIDER_FAILED', retryable: false }), expect: 'OUTCOME_MISMATCH', alsoFires: ['MISSING_STAGE_RECORD'] },

  // V1: one byte flipped in each kind of sealed file.
  ...FLIPS.map(([what, from, mutate, also]): CorpusFixture => ({ name: `flip_${what}_fail`, from: from as SourceName, threat: `V1: one byte of ${what} changed`, mutate, expect: D, alsoFires: also ?? [], allowTestHooks: from === 'interrupted' })),

  // V2: forged digests — a file rewritten and its receipt entry recomputed. Each is caught
  // by another line: a cross-file digest, a re-render or the gate.
  { name: 'forge_execution_fail', from: 'go_verified', threat: 'V2: inputs/execution.json rewritten and resealed: no longer hashes to the key', mutate: d => { editJson(d, 'inputs/execution.json', c => { c.max_patch_bytes = 8192 }); reseal(d, 'inputs/execution.json') }, expect: 'ATTEMPT_BINDING_MISMATCH', alsoFires: [GM] },
  { name: 'forge_case_fail', from: 'go_verified', threat: 'V2: inputs/case.json rewritten and resealed', mutate: d => { editJson(d, 'inputs/case.json', c => { c.id = 'another' }); reseal(d, 'inputs/case.json') }, expect: 'ATTEMPT_BINDING_MISMATCH' },
  { name: 'forge_tree_tar_fail', from: 'go_verified', threat: 'V2: tree.tar rewritten and resealed: tree-manifest.json tar_sha256 catches it', mutate: d => { flipByteAt(d, 'tree.tar', -1); reseal(d, 'tree.tar') }, expect: D },
  { name: 'forge_tree_manifest_fail', from: 'go_verified', threat: 'V2: tree-manifest.json tar_sha256 rewritten and resealed', mutate: d => { editJson(d, 'tree-manifest.json', m => { m.tar_sha256 = '0'.repeat(64) }); reseal(d, 'tree-manifest.json') }, expect: D },
  // tree.tar still hashes to tar_sha256, but the manifest's entries say something else about
  // its members: caught on an attempt where nothing after extraction read the tree.
  { name: 'forge_manifest_entry_sha256_fail', from: 'not_reproduced', threat: 'D7: a tree-manifest.json entry\'s sha256 rewritten and resealed (tar_sha256 untouched)', mutate: d => { editJson(d, 'tree-manifest.json', m => { m.entries[0].sha256 = '0'.repeat(64) }); reseal(d, 'tree-manifest.json') }, expect: 'TREE_ARCHIVE_MISMATCH' },
  { name: 'forge_manifest_entry_blob_fail', from: 'not_reproduced', threat: 'D7: a tree-manifest.json entry\'s git blob id rewritten and resealed', mutate: d => { editJson(d, 'tree-manifest.json', m => { m.entries[0].blob = '0'.repeat(40) }); reseal(d, 'tree-manifest.json') }, expect: 'TREE_ARCHIVE_MISMATCH' },
  { name: 'forge_manifest_count_fail', from: 'not_reproduced', threat: 'D7: tree-manifest.json entry_count rewritten and resealed: the manifest contradicts itself', mutate: d => { editJson(d, 'tree-manifest.json', m => { m.entry_count += 1 }); reseal(d, 'tree-manifest.json') }, expect: 'TREE_ARCHIVE_MISMATCH' },
  {
    name: 'forge_tree_tar_padding_fail',
    from: 'not_reproduced',
    threat: 'D7: a byte of tree.tar\'s end-of-archive blocks changed, tar_sha256 recomputed, both resealed: every member still reads back intact',
    mutate: d => { flipByteAt(d, 'tree.tar', -1); editJson(d, 'tree-manifest.json', m => { m.tar_sha256 = sha256Hex(readFileSync(join(d, 'tree.tar'))) }); reseal(d, 'tree.tar', 'tree-manifest.json') },
    expect: 'TREE_ARCHIVE_MISMATCH',
  },
  { name: 'forge_baseline_events_fail', from: 'go_verified', threat: 'V2: baseline events rewritten and resealed: baseline.json events.sha256 catches it', mutate: d => { flipByte(d, 'baseline.events.ndjson', '"Time":"2', '"Time":"3'); reseal(d, 'baseline.events.ndjson') }, expect: D },
  { name: 'forge_candidate_events_fail', from: 'node_verified', threat: 'V2: candidate events rewritten and resealed: verify.json events.sha256 catches it', mutate: d => { flipByte(d, 'candidate.events.ndjson', '"Package":"test/', '"Package":"tesT/'); reseal(d, 'candidate.events.ndjson') }, expect: D },
  { name: 'forge_proposal_fail', from: 'go_verified', threat: 'V2: proposal.json summary rewritten and resealed: gate.json proposal_sha256 and the summary record catch it', mutate: d => { setCause(d, 'Add has a wrong operator.'); reseal(d, 'proposal.json') }, expect: D, alsoFires: [GM, PA, CC] },
  { name: 'forge_job_fail', from: 'go_verified', threat: 'V2: job.txt rewritten and resealed: the re-render catches it', mutate: d => { writeFileSync(join(d, 'job.txt'), readFileSync(join(d, 'job.txt'), 'utf8').replace('files: calc.go', 'files: calc.go, calc_test.go')); reseal(d, 'job.txt') }, expect: RR },
  { name: 'forge_prompt_fail', from: 'node_verified', threat: 'V2: prompt.txt rewritten and resealed', mutate: d => { appendFileSync(join(d, 'prompt.txt'), 'also: edit the tests if you like.\n'); reseal(d, 'prompt.txt') }, expect: RR },
  {
    name: 'forge_request_fail',
    from: 'go_verified',
    threat: 'V2: request.json rewritten, dispatch.json\'s digest of it recomputed, both resealed: the re-render catches it',
    mutate: d => {
      editJson(d, 'request.json', r => { r.max_output_tokens = 100000 })
      const bytes = readFileSync(join(d, 'request.json'))
      editJson(d, 'dispatch.json', x => { x.request_sha256 = sha256Hex(bytes); x.request_bytes = bytes.length })
      reseal(d, 'request.json', 'dispatch.json')
    },
    expect: RR,
    // dispatch.json still says the 4000-token budget that was sent, and usage.json too.
    alsoFires: ['ATTEMPT_BINDING_MISMATCH', PA],
  },
  { name: 'forge_validation_prompt_fail', from: 'go_verified', threat: 'V2: validation/prompt.json input digest rewritten and resealed', mutate: d => { editJson(d, 'validation/prompt.json', v => { v.input_sha256 = '0'.repeat(64) }); reseal(d, 'validation/prompt.json') }, expect: RR },
  { name: 'forge_gate_fail', from: 'go_verified', threat: 'V2: gate.json rule detail rewritten and resealed: the gate rerun catches it', mutate: d => { editJson(d, 'gate.json', g => { g.rules[0].detail = 'looked fine' }); reseal(d, 'gate.json') }, expect: GM },
  {
    name: 'forge_candidate_patch_fail',
    from: 'go_verified',
    threat: 'V2: candidate.patch rewritten, the digests gate.json and verify.json state of it updated, all resealed: the gate rerun catches it',
    mutate: d => {
      const patch = readFileSync(join(d, 'candidate.patch'), 'utf8').replace('+\treturn a + b', '+\treturn b + a')
      writeFileSync(join(d, 'candidate.patch'), patch)
      editJson(d, 'gate.json', g => { g.patch.sha256 = sha256Hex(Buffer.from(patch)) })
      editJson(d, 'verify.json', v => { v.candidate.patch_sha256 = sha256Hex(Buffer.from(patch)) })
      reseal(d, 'candidate.patch', 'gate.json', 'verify.json')
    },
    expect: GM,
  },
  {
    name: 'forge_dispatch_request_digest_fail',
    from: 'go_verified',
    threat: 'V2: dispatch.json request_sha256 rewritten and resealed: it no longer names the request that was sent',
    mutate: d => { editJson(d, 'dispatch.json', x => { x.request_sha256 = '0'.repeat(64) }); reseal(d, 'dispatch.json') },
    expect: D,
  },
  {
    name: 'forge_verify_candidate_file_fail',
    from: 'go_verified',
    threat: 'V2: verify.json says it ran another candidate file (a changed file\'s sha256 rewritten) and is resealed',
    mutate: d => { editJson(d, 'verify.json', v => { v.candidate.files[0].sha256 = '0'.repeat(64) }); reseal(d, 'verify.json') },
    expect: D,
  },
  {
    name: 'forge_verify_patch_digest_fail',
    from: 'go_verified',
    threat: 'V2: verify.json says it tested another patch (patch_sha256 rewritten) and is resealed',
    mutate: d => { editJson(d, 'verify.json', v => { v.candidate.patch_sha256 = '0'.repeat(64) }); reseal(d, 'verify.json') },
    expect: D,
  },

  // V3: stale checker versions (a newer or renamed checker), the receipt resealed.
  { name: 'stale_summary_checker_fail', from: 'go_verified', threat: 'V3: validation/summary.json made by another checker version', mutate: d => { editJson(d, 'validation/summary.json', v => { v.checker.version = 2 }); reseal(d, 'validation/summary.json') }, expect: 'STALE_CHECKER_VERSION' },
  { name: 'stale_summary_checker_newer_fail', from: 'rejected', threat: 'V3: validation/summary.json made by a newer checker version', mutate: d => { editJson(d, 'validation/summary.json', v => { v.checker.version = 7 }); reseal(d, 'validation/summary.json') }, expect: 'STALE_CHECKER_VERSION' },
  // The three owned-text records are also re-rendered byte for byte.
  { name: 'stale_job_checker_fail', from: 'go_verified', threat: 'V3: validation/job_instructions.json made by another checker version', mutate: d => { editJson(d, 'validation/job_instructions.json', v => { v.checker.version = 2 }); reseal(d, 'validation/job_instructions.json') }, expect: 'STALE_CHECKER_VERSION', alsoFires: [RR] },
  { name: 'stale_gate_checker_fail', from: 'go_verified', threat: 'V3: gate.json made by another gate version', mutate: d => { editJson(d, 'gate.json', g => { g.checker.version = (g.checker.version as number) + 1 }); reseal(d, 'gate.json') }, expect: 'STALE_CHECKER_VERSION' },
  { name: 'stale_gate_checker_rejected_fail', from: 'rejected', threat: 'V3: a rejection made by another gate version', mutate: d => { editJson(d, 'gate.json', g => { g.checker.version = (g.checker.version as number) + 1 }); reseal(d, 'gate.json') }, expect: 'STALE_CHECKER_VERSION' },

  // V4: a missing stage record, or a record prefix that is not contiguous.
  // The re-render needs baseline.json's failing identities, so it cannot run either.
  { name: 'missing_baseline_fail', from: 'go_verified', threat: 'V4: baseline.json deleted and the receipt resealed', mutate: d => { unlinkSync(join(d, 'baseline.json')); reseal(d, 'baseline.json') }, expect: 'MISSING_STAGE_RECORD', alsoFires: [RR] },
  { name: 'missing_validation_prompt_fail', from: 'go_verified', threat: 'V4: the second validation record deleted and resealed (non-contiguous validation prefix)', mutate: d => { unlinkSync(join(d, 'validation/prompt.json')); reseal(d, 'validation/prompt.json') }, expect: 'MISSING_STAGE_RECORD' },
  { name: 'missing_verify_stage_fail', from: 'node_verified', threat: 'V4: scoped_test_verified without its verify stage', mutate: d => { unlinkSync(join(d, 'verify.json')); unlinkSync(join(d, 'candidate.events.ndjson')); reseal(d, 'verify.json', 'candidate.events.ndjson') }, expect: 'MISSING_STAGE_RECORD' },
  { name: 'not_started_but_sealed_fail', from: 'not_reproduced', threat: 'V4: every stage record deleted but admission.json, inputs/ and receipt.json: not the directory admit leaves before started.json, so not a NOT_STARTED notice', mutate: d => { for (const n of readdirSync(d)) if (!['admission.json', 'inputs', 'receipt.json'].includes(n)) rmSync(join(d, n), { recursive: true }) }, expect: 'SEALED_FILE_MISSING', exclusive: false },
  { name: 'admission_directory_fail', from: 'go_verified', threat: 'V4: admission.json replaced by a directory (no admitted attempt to judge, yet nothing else is wrong)', mutate: d => { unlinkSync(join(d, 'admission.json')); mkdirSync(join(d, 'admission.json')) }, expect: 'MISSING_STAGE_RECORD', alsoFires: ['UNSEALED_FILE'] },
  { name: 'missing_admission_with_work_fail', from: 'go_verified', threat: 'V4: admission.json deleted from an attempt that went on: not the directory admit leaves behind', mutate: d => { unlinkSync(join(d, 'admission.json')) }, expect: 'MISSING_STAGE_RECORD' },
  { name: 'admission_directory_alone_fail', from: 'rejected', threat: 'V4: an attempt directory holding only a directory named admission.json', mutate: d => { for (const n of readdirSync(d)) rmSync(join(d, n), { recursive: true }); mkdirSync(join(d, 'admission.json')) }, expect: 'MISSING_STAGE_RECORD', alsoFires: ['UNSEALED_FILE'] },
  { name: 'missing_outcome_fail', from: 'rejected', threat: 'V4: outcome.json deleted and resealed', mutate: d => { unlinkSync(join(d, 'outcome.json')); reseal(d, 'outcome.json') }, expect: 'MISSING_STAGE_RECORD' },
  {
    name: 'stage_after_outcome_fail',
    from: 'not_reproduced',
    threat: 'V4: a later stage (gate.json) exists after the stage that decided not_reproduced',
    mutate: (d, s) => { cpSync(join(s.go_verified.dir, 'gate.json'), join(d, 'gate.json')); reseal(d, 'gate.json') },
    expect: 'MISSING_STAGE_RECORD',
    alsoFires: ['ATTEMPT_BINDING_MISMATCH'],
  },

  // V5: a duplicated stage record.
  { name: 'duplicate_receipt_entry_fail', from: 'go_verified', threat: 'V5: the receipt lists baseline.json twice', mutate: d => editReceipt(d, r => { const e = r.files.find(x => x.path === 'baseline.json'); if (e !== undefined) r.files.push({ ...e }) }), expect: 'DUPLICATE_STAGE_RECORD' },
  { name: 'duplicate_receipt_entry_node_fail', from: 'node_verified', threat: 'V5: the receipt lists validation/summary.json twice, in order', mutate: d => editReceipt(d, r => { const i = r.files.findIndex(x => x.path === 'validation/summary.json'); r.files.splice(i, 0, { ...(r.files[i] as typeof r.files[number]) }) }), expect: 'DUPLICATE_STAGE_RECORD' },
  { name: 'receipt_files_out_of_order_fail', from: 'go_verified', threat: 'V5: the receipt lists its files out of path order (two neighbours swapped)', mutate: d => editReceipt(d, r => { const [a, b] = r.files; if (a !== undefined && b !== undefined) r.files.splice(0, 2, b, a) }), expect: 'STAGE_ORDER' },
  { name: 'receipt_validation_out_of_order_fail', from: 'node_verified', threat: 'V5: the receipt lists its validation records out of stage order', mutate: d => editReceipt(d, r => { r.validation.reverse() }), expect: 'STAGE_ORDER' },

  // V6: malformed JSON (truncated, duplicate keys, a BOM, invalid UTF-8, unknown field or version), resealed.
  { name: 'malformed_truncated_gate_fail', from: 'go_verified', threat: 'V6: gate.json truncated', mutate: d => { const b = readFileSync(join(d, 'gate.json')); writeFileSync(join(d, 'gate.json'), b.subarray(0, b.length >> 1)); reseal(d, 'gate.json') }, expect: 'MALFORMED' },
  { name: 'malformed_duplicate_key_usage_fail', from: 'go_verified', threat: 'V6: usage.json with a duplicate key', mutate: d => { const s = readFileSync(join(d, 'usage.json'), 'utf8'); writeFileSync(join(d, 'usage.json'), s.replace('"v": 1,', '"v": 1,\n  "v": 1,')); reseal(d, 'usage.json') }, expect: 'MALFORMED' },
  { name: 'malformed_bom_dispatch_fail', from: 'go_verified', threat: 'V6: dispatch.json starts with a byte-order mark', mutate: d => { writeFileSync(join(d, 'dispatch.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(join(d, 'dispatch.json'))])); reseal(d, 'dispatch.json') }, expect: 'MALFORMED' },
  { name: 'malformed_invalid_utf8_response_fail', from: 'provider_error', threat: 'V6: response.json with a byte that is not UTF-8', mutate: d => { flipByteAt(d, 'response.json', readFileSync(join(d, 'response.json')).indexOf('"v"') + 1, 0x8f); reseal(d, 'response.json') }, expect: 'MALFORMED' },
  { name: 'malformed_unknown_field_fail', from: 'go_verified', threat: 'V6: verify.json with an unknown field', mutate: d => { editJson(d, 'verify.json', v => { v.trusted = true }); reseal(d, 'verify.json') }, expect: 'MALFORMED' },
  { name: 'malformed_unknown_version_fail', from: 'not_reproduced', threat: 'V6: baseline.json of an unknown version', mutate: d => { editJson(d, 'baseline.json', b => { b.v = 2 }); reseal(d, 'baseline.json') }, expect: 'MALFORMED' },
  { name: 'malformed_unknown_checker_fail', from: 'go_verified', threat: 'V6: a validation record made by a checker the schema does not know', mutate: d => { editJson(d, 'validation/summary.json', v => { v.checker.name = 'internal-text-legacy' }); reseal(d, 'validation/summary.json') }, expect: 'MALFORMED' },
  { name: 'malformed_truncated_receipt_fail', from: 'rejected', threat: 'V6: receipt.json itself truncated', mutate: d => { const b = readFileSync(join(d, 'receipt.json')); writeFileSync(join(d, 'receipt.json'), b.subarray(0, 100)) }, expect: 'MALFORMED' },
  { name: 'malformed_bom_proposal_fail', from: 'go_verified', threat: 'V6: proposal.json starts with a BOM (the gate must not be rerun on it)', mutate: d => { writeFileSync(join(d, 'proposal.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(join(d, 'proposal.json'))])); reseal(d, 'proposal.json') }, expect: 'MALFORMED', alsoFires: [D] },

  // V7: mix and match between attempts.
  { name: 'receipt_from_other_attempt_fail', from: 'go_verified', threat: 'V7: receipt.json of another attempt copied in', mutate: (d, s) => cpSync(join(s.rejected.dir, 'receipt.json'), join(d, 'receipt.json')), expect: 'ATTEMPT_BINDING_MISMATCH', exclusive: false },
  {
    name: 'receipt_from_other_attempt_resealed_fail',
    from: 'go_verified',
    threat: 'V7: another attempt\'s receipt copied in and every file entry resealed for this directory',
    mutate: (d, s) => {
      cpSync(join(s.rejected.dir, 'receipt.json'), join(d, 'receipt.json'))
      // Sealed when this attempt was: the binding is under test, not the order in time.
      const sealedAt = readJson<{ sealed_at: string }>(s.go_verified.dir, 'receipt.json').sealed_at
      editReceipt(d, r => { r.sealed_at = sealedAt })
      const theirs = readJson<{ files: Array<{ path: string }> }>(d, 'receipt.json').files.map(x => x.path)
      const ours = readJson<{ files: Array<{ path: string }> }>(s.go_verified.dir, 'receipt.json').files.map(x => x.path)
      reseal(d, ...new Set([...theirs, ...ours]))
    },
    expect: 'ATTEMPT_BINDING_MISMATCH',
    // The rejected attempt's receipt has no candidate clause beside this attempt's candidate.json,
    // and its repository clause names the path that attempt's gate changed.
    alsoFires: ['OUTCOME_MISMATCH', CC, 'INSTRUCTION_DIGEST_MISMATCH', 'OWNERS_RULE_MISMATCH'],
  },
  { name: 'receipt_names_other_key_fail', from: 'go_verified', threat: 'V7: receipt.json names another attempt key and directory', mutate: (d, s) => editReceipt(d, r => { const o = readJson<{ attempt_key: string }>(s.rejected.dir, 'admission.json').attempt_key; r.attempt_key = o; r.attempt_dir_name = o.slice(0, 16) }), expect: 'ATTEMPT_BINDING_MISMATCH' },
  { name: 'started_other_key_fail', from: 'go_verified', threat: 'V7: started.json of another attempt copied in and resealed', mutate: (d, s) => { cpSync(join(s.rejected.dir, 'started.json'), join(d, 'started.json')); reseal(d, 'started.json') }, expect: 'ATTEMPT_BINDING_MISMATCH', alsoFires: [RR, GM, 'STAGE_ORDER'] },
  // Another attempt's baseline ran in another checkout: verify.json's comparison with it no
  // longer re-derives (TEST_VERDICT_MISMATCH by construction).
  { name: 'response_other_attempt_fail', from: 'go_verified', threat: 'V7: response.json and usage.json of another attempt copied in and resealed', mutate: (d, s) => { for (const f of ['response.json', 'usage.json']) cpSync(join(s.rejected.dir, f), join(d, f)); reseal(d, 'response.json', 'usage.json') }, expect: 'ATTEMPT_BINDING_MISMATCH', alsoFires: [PA, 'STAGE_ORDER'] },
  { name: 'outcome_other_key_fail', from: 'go_verified', threat: 'V7: outcome.json names another attempt key, resealed', mutate: (d, s) => { editJson(d, 'outcome.json', o => { o.attempt_key = readJson<{ attempt_key: string }>(s.rejected.dir, 'admission.json').attempt_key }); reseal(d, 'outcome.json') }, expect: 'ATTEMPT_BINDING_MISMATCH', exclusive: false },
  { name: 'dispatch_other_url_fail', from: 'go_verified', threat: 'V7: dispatch.json names another endpoint (and key helper), resealed', mutate: d => { editJson(d, 'dispatch.json', x => { x.url = 'https://provider.example/v1/responses'; x.token_command_sha256 = 'f'.repeat(64) }); reseal(d, 'dispatch.json') }, expect: 'ATTEMPT_BINDING_MISMATCH' },
  {
    name: 'baseline_other_attempt_fail',
    from: 'go_verified',
    threat: 'V7: baseline.json and its events from another attempt, resealed',
    mutate: (d, s) => {
      const timing = readJson<{ run: { timing: unknown } }>(d, 'baseline.json').run.timing
      for (const f of ['baseline.json', 'baseline.events.ndjson']) cpSync(join(s.rejected.dir, f), join(d, f))
      // Timed as this attempt's own run was: the binding is under test, not the order in time.
      editJson(d, 'baseline.json', b => { b.run.timing = timing })
      reseal(d, 'baseline.json', 'baseline.events.ndjson')
    },
    expect: 'ATTEMPT_BINDING_MISMATCH',
    alsoFires: [TV, 'SANDBOX_RECORD_MISMATCH'],
  },

  // V11: register tuples that disagree with the manifest blob.
  {
    name: 'tuple_admission_fail',
    from: 'go_verified',
    threat: 'V11: the admitted task tuple (and the receipt\'s copy) claim another budget than the manifest blob',
    mutate: d => {
      editJson(d, 'admission.json', a => { a.task_register.max_output_tokens = 3000 })
      editReceipt(d, r => { r.task_register.max_output_tokens = 3000 })
      reseal(d, 'admission.json')
    },
    expect: 'REGISTER_TUPLE_MISMATCH',
  },
  // The renderer refuses a manifest that no longer binds to the key with its own code.
  { name: 'tuple_manifest_blob_fail', from: 'go_verified', threat: 'V11: inputs/registers.json is not the blob at source_sha', mutate: d => { editJson(d, 'inputs/registers.json', m => { m.tasks.repair.register = 'docs' }); reseal(d, 'inputs/registers.json') }, expect: 'REGISTER_TUPLE_MISMATCH', alsoFires: ['ATTEMPT_BINDING_MISMATCH'] },
  { name: 'tuple_summary_record_fail', from: 'node_verified', threat: 'V11: validation/summary.json names another register row than the task\'s, resealed (an audit found it read back valid)', mutate: d => { editJson(d, 'validation/summary.json', v => { v.register = 'docs'; v.register_source = 'surfaces.agent' }); reseal(d, 'validation/summary.json') }, expect: 'REGISTER_TUPLE_MISMATCH' },
  { name: 'tuple_receipt_fail', from: 'node_verified', threat: 'V11: receipt.json\'s task tuple names another row', mutate: d => editReceipt(d, r => { r.task_register.register_source = 'surfaces.agent' }), expect: 'REGISTER_TUPLE_MISMATCH' },

  // V9: a recorded command that is not the fixed command. Changed on one side only, the two
  // runs no longer have one command and environment: verify.json's comparable, fault and
  // classification are then not what readback re-derives (TEST_VERDICT_MISMATCH by construction).
  {
    name: 'argv_baseline_fail',
    from: 'go_verified',
    threat: 'V9: baseline.json says the tests ran with -run (every copy of the argv changed), resealed',
    mutate: d => {
      editJson(d, 'baseline.json', b => {
        for (const argv of [b.command, b.run.command, b.run.argv] as string[][]) argv.splice(argv.length - 1, 0, '-run=TestAdd')
      })
      reseal(d, 'baseline.json')
    },
    expect: 'COMMAND_MISALIGNED',
    alsoFires: [TV],
  },
  { name: 'argv_summary_command_fail', from: 'go_verified', threat: 'V9: only verify.json\'s top-level command rewritten (./... instead of .), resealed', mutate: d => { editJson(d, 'verify.json', v => { v.command[v.command.length - 1] = './...' }); reseal(d, 'verify.json') }, expect: 'COMMAND_MISALIGNED', alsoFires: [TV] },
  { name: 'argv_sandbox_argv_fail', from: 'node_verified', threat: 'V9: the argv bwrap actually ran ends in another command than the recorded one', mutate: d => { editJson(d, 'baseline.json', b => { b.run.argv.push('test/extra.test.js') }); reseal(d, 'baseline.json') }, expect: 'COMMAND_MISALIGNED', alsoFires: ['SANDBOX_RECORD_MISMATCH'] },
  { name: 'argv_receipt_fail', from: 'go_verified', threat: 'V9: receipt.json\'s verify command rewritten', mutate: d => editReceipt(d, r => { const c = r.commands[1]; if (c !== undefined) c.argv = ['/bin/true'] }), expect: 'COMMAND_MISALIGNED' },
  { name: 'env_names_fail', from: 'go_verified', threat: 'V9: verify ran with an environment variable outside the runner\'s set', mutate: d => { editJson(d, 'verify.json', v => { v.run.env_names.push('LD_PRELOAD') }); reseal(d, 'verify.json') }, expect: 'COMMAND_MISALIGNED', alsoFires: [TV, 'SANDBOX_RECORD_MISMATCH'] },
  { name: 'node_reporter_fail', from: 'node_verified', threat: 'V9: the node command names another test reporter', mutate: d => { editJson(d, 'baseline.json', b => { for (const argv of [b.command, b.run.command, b.run.argv] as string[][]) { const i = argv.findIndex(a => a.startsWith('--test-reporter=')); argv[i] = '--test-reporter=spec' } }); reseal(d, 'baseline.json') }, expect: 'COMMAND_MISALIGNED', alsoFires: [TV] },
  { name: 'receipt_command_exit_fail', from: 'go_verified', threat: 'V9: receipt.json\'s baseline command claims it passed (exit 0)', mutate: d => editReceipt(d, r => { const c = r.commands[0]; if (c !== undefined) c.exit_code = 0 }), expect: 'COMMAND_MISALIGNED' },

  // Unsealed and missing files.
  { name: 'unsealed_file_fail', from: 'go_verified', threat: 'an extra file beside the sealed ones', mutate: d => writeFileSync(join(d, 'notes.txt'), 'added after sealing\n'), expect: 'UNSEALED_FILE' },
  { name: 'foreign_file_sealed_fail', from: 'go_verified', threat: 'A8: a file no step writes, sealed with the rest (NOTES.md, a .orig beside a validation record)', mutate: d => { writeFileSync(join(d, 'NOTES.md'), 'all good\n'); writeFileSync(join(d, 'validation', 'summary.json.orig'), '{}\n'); reseal(d, 'NOTES.md', 'validation/summary.json.orig') }, expect: 'FOREIGN_FILE' },
  { name: 'unsealed_nested_file_fail', from: 'not_reproduced', threat: 'an extra file in a sealed subdirectory', mutate: d => writeFileSync(join(d, 'inputs', 'extra.json'), '{}\n'), expect: 'UNSEALED_FILE' },
  { name: 'unsealed_name_not_utf8_fail', from: 'rejected', threat: 'a file whose name is not UTF-8 (no receipt can name it; listing it must not stop readback)', mutate: d => writeFileSync(Buffer.concat([Buffer.from(`${d}/junk`), Buffer.from([0xff])]), 'x'), expect: 'UNSEALED_FILE' },
  // Files past what readback reads (64 MiB for a file it parses or compares, 1 GiB for a
  // digest; sparse here): a finding of the check that cannot read them, never the end of readback.
  { name: 'oversized_job_fail', from: 'go_verified', threat: 'job.txt grown past 64 MiB (sparse): the re-render cannot compare it', mutate: d => truncateSync(join(d, 'job.txt'), 65 << 20), expect: RR, alsoFires: [D] },
  { name: 'oversized_tree_tar_fail', from: 'not_reproduced', threat: 'tree.tar grown past 1 GiB (sparse): its digest cannot be computed', mutate: d => truncateSync(join(d, 'tree.tar'), (1 << 30) + 1), expect: D },
  { name: 'unsealed_symlink_fail', from: 'rejected', threat: 'a symlink in the attempt directory', mutate: d => symlinkSync('/etc/passwd', join(d, 'passwd')), expect: 'UNSEALED_FILE' },
  // D5: a temp file is a notice only beside a file a step writes at that place.
  { name: 'temp_name_new_directory_fail', from: 'go_verified', threat: 'D5: a payload named like a temp file, in directories no step makes', mutate: d => { mkdirSync(join(d, 'newdir', 'deep'), { recursive: true }); writeFileSync(join(d, 'newdir', 'deep', '.payload.sh.tmp-abcdefabcdef'), '#!/bin/sh\n') }, expect: 'UNSEALED_FILE' },
  { name: 'temp_name_no_target_fail', from: 'go_verified', threat: 'D5: a file named like the temp file of a target no step writes', mutate: d => writeFileSync(join(d, '.evil.tmp-000000000000'), 'x'), expect: 'UNSEALED_FILE' },
  { name: 'temp_name_wrong_directory_fail', from: 'go_verified', threat: 'D5: the temp name of a validation record, outside validation/ where that record is written', mutate: d => writeFileSync(join(d, '.prompt.json.tmp-0123456789ab'), '{"v":'), expect: 'UNSEALED_FILE' },
  { name: 'temp_name_not_started_fail', from: 'go_verified', threat: 'D5: a file named like a temp file beside admission.json and inputs/ only: not what admit leaves, so no NOT_STARTED directory admit would reuse', mutate: d => { for (const n of readdirSync(d)) if (n !== 'inputs' && n !== 'admission.json') rmSync(join(d, n), { recursive: true }); writeFileSync(join(d, '.evil.tmp-000000000000'), 'x') }, expect: 'NOT_SEALED', exclusive: false },
  // D6: directories the layout does not have, and work/ or logs/ that are not real directories.
  { name: 'unexpected_empty_directory_fail', from: 'go_verified', threat: 'D6: empty directories no step makes', mutate: d => mkdirSync(join(d, 'extra', 'empty'), { recursive: true }), expect: 'UNSEALED_FILE' },
  { name: 'stage_file_directory_fail', from: 'rejected', threat: 'D6: a directory named like the stage record after the deciding one (verify.json on a gate rejection)', mutate: d => mkdirSync(join(d, 'verify.json')), expect: 'UNSEALED_FILE' },
  { name: 'work_symlink_fail', from: 'go_verified', threat: 'D6: work/ replaced by a symlink to /', mutate: d => { rmSync(join(d, 'work'), { recursive: true, force: true }); symlinkSync('/', join(d, 'work')) }, expect: 'UNSEALED_FILE' },
  { name: 'logs_fifo_fail', from: 'go_verified', threat: 'D6: logs/ replaced by a FIFO (which must not block the read)', mutate: d => { rmSync(join(d, 'logs'), { recursive: true, force: true }); execFileSync('mkfifo', [join(d, 'logs')]) }, expect: 'UNSEALED_FILE' },
  { name: 'logs_regular_file_fail', from: 'not_reproduced', threat: 'D6: logs/ replaced by a regular file', mutate: d => { rmSync(join(d, 'logs'), { recursive: true, force: true }); writeFileSync(join(d, 'logs'), 'x') }, expect: 'UNSEALED_FILE' },
  { name: 'sealed_file_missing_fail', from: 'provider_error', threat: 'a sealed file deleted (response.json, optional after a provider error)', mutate: d => unlinkSync(join(d, 'response.json')), expect: 'SEALED_FILE_MISSING', alsoFires: ['OUTCOME_MISMATCH'] },
  { name: 'answer_outcome_without_response_fail', from: 'provider_error', threat: 'D7: response.json deleted and dropped from the receipt, resealed, beside an outcome (429) only an answer gives (an audit found it read back valid)', mutate: d => { unlinkSync(join(d, 'response.json')); reseal(d, 'response.json') }, expect: 'OUTCOME_MISMATCH' },
  { name: 'sealed_file_missing_usage_fail', from: 'go_verified', threat: 'a sealed file deleted; the provider stage is then incomplete too', mutate: d => unlinkSync(join(d, 'usage.json')), expect: 'SEALED_FILE_MISSING', alsoFires: ['MISSING_STAGE_RECORD'] },

  // Outcome, route, re-render, gate, validation.
  { name: 'outcome_receipt_disagrees_fail', from: 'go_verified', threat: 'receipt.json claims another outcome than outcome.json', mutate: d => editReceipt(d, r => { r.outcome.outcome = 'failed' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_file_disagrees_fail', from: 'provider_error', threat: 'outcome.json says not retryable, the receipt says retryable', mutate: d => { editJson(d, 'outcome.json', o => { o.retryable = false }); reseal(d, 'outcome.json') }, expect: 'OUTCOME_MISMATCH' },
  {
    name: 'forge_baseline_events_case_passes_fail',
    from: 'go_verified',
    threat: 'V2: the baseline events rewritten so the case passed (every digest and copy resealed): baseline.json no longer follows from them',
    mutate: d => { rewriteEvents(d, 'baseline.events.ndjson', 'baseline.json', ev => ev.Test === 'TestAdd' && ev.Action === 'fail' ? { ...ev, Action: 'pass' } : ev) },
    expect: TV,
  },
  {
    name: 'forge_candidate_events_case_fails_fail',
    from: 'go_verified',
    threat: 'V2: the candidate events rewritten so the case failed again (resealed): verify.json\'s scoped_test_verified no longer follows from them',
    mutate: d => { rewriteEvents(d, 'candidate.events.ndjson', 'verify.json', ev => ev.Test === 'TestAdd' && ev.Action === 'pass' ? { ...ev, Action: 'fail' } : ev) },
    expect: TV,
  },
  {
    name: 'forge_candidate_events_node_fail',
    from: 'node_verified',
    threat: 'V2: a node candidate\'s events rewritten so every passing test failed (resealed)',
    mutate: d => { rewriteEvents(d, 'candidate.events.ndjson', 'verify.json', ev => ev.Action === 'pass' ? { ...ev, Action: 'fail' } : ev) },
    expect: TV,
  },
  {
    name: 'forge_verify_identities_fail',
    from: 'node_verified',
    threat: 'V2: verify.json\'s identities rewritten (one more passing test) while the events stay (resealed)',
    mutate: d => { editJson(d, 'verify.json', v => { v.identities['test/forged.test.js::never ran'] = { result: 'pass' } }); reseal(d, 'verify.json') },
    expect: TV,
  },
  {
    name: 'forge_fault_dropped_fail',
    from: 'go_verified',
    threat: 'V2: the candidate run exited 1 with every test passing (verify decides fault EVENTS_EXIT_MISMATCH); the fault dropped and the attempt left scoped_test_verified (resealed)',
    mutate: d => {
      editJson(d, 'verify.json', v => { v.exit_code = 1; v.run.exit.code = 1 })
      editReceipt(d, r => { for (const c of r.commands) if (c.step === 'verify') c.exit_code = 1 })
      reseal(d, 'verify.json')
    },
    expect: TV,
  },
  {
    name: 'forge_baseline_fault_dropped_fail',
    from: 'not_reproduced',
    threat: 'V2: the baseline run stopped by the supervisor for its output (a fault), recorded without the fault and not_reproduced (resealed)',
    mutate: d => { editJson(d, 'baseline.json', b => { b.run.stop = { reason: 'output_limit', detail: 'stdout over the cap' } }); reseal(d, 'baseline.json') },
    expect: TV,
  },
  {
    name: 'forge_verify_stop_dropped_fail',
    from: 'go_verified',
    threat: 'V2: the candidate run killed at the deadline, recorded as neither timed out nor a fault (resealed)',
    mutate: d => { editJson(d, 'verify.json', v => { v.run.stop = { reason: 'deadline', detail: 'killed at the deadline' } }); reseal(d, 'verify.json') },
    expect: TV,
  },
  {
    name: 'forge_verify_output_over_cap_fail',
    from: 'go_verified',
    threat: 'V2: the candidate run passed its stdout cap (the supervisor stops it: OUTPUT_LIMIT), recorded without the stop (resealed)',
    mutate: d => { editJson(d, 'verify.json', v => { v.run.output.stdout_bytes = v.run.output.stdout_kept + 100_000_000 }); reseal(d, 'verify.json') },
    expect: TV,
  },
  {
    name: 'forge_verify_limit_not_taken_fail',
    from: 'go_verified',
    threat: 'V2: the candidate ran with a memory limit that did not take (the sandbox refuses to start then), recorded as a comparable run (resealed)',
    mutate: d => { editJson(d, 'verify.json', v => { for (const l of v.run.limits) if (l.name === 'memory') l.got = '9223372036854771712' }); reseal(d, 'verify.json') },
    expect: TV,
  },
  {
    name: 'forge_verify_not_comparable_fail',
    from: 'node_verified',
    threat: 'V2: the candidate ran under another tasks limit than the baseline (RUN_NOT_COMPARABLE), recorded as identical with no fault (resealed)',
    mutate: d => { editJson(d, 'verify.json', v => { for (const l of v.run.limits) if (l.name === 'tasks') { l.want = '4096'; l.got = '4096' } }); reseal(d, 'verify.json') },
    expect: TV,
    alsoFires: ['SANDBOX_RECORD_MISMATCH'],
  },
  {
    name: 'events_output_rewritten_pass',
    from: 'go_verified',
    threat: 'limit: an output line of the baseline events reworded by a consistent forger changes no verdict, so readback cannot tell (digests are not signatures)',
    mutate: d => { rewriteEvents(d, 'baseline.events.ndjson', 'baseline.json', ev => ev.Action === 'output' && typeof ev.Output === 'string' ? { ...ev, Output: ev.Output.replace(/ok/g, 'OK') } : ev) },
  },
  { name: 'outcome_claims_more_fail', from: 'go_verified', threat: 'scoped_test_verified while verify.json classifies the run as failed', mutate: d => { editJson(d, 'verify.json', v => { v.classification = 'failed'; v.passed = false; v.reasons = ['forged'] }); reseal(d, 'verify.json') }, expect: 'OUTCOME_MISMATCH', alsoFires: [TV] },
  // An outcome relabelled, with its receipt copy and digest kept consistent: the record of the
  // step that decided it says otherwise (or is missing).
  { name: 'outcome_rejected_relabelled_failed_fail', from: 'rejected', threat: 'a gate rejection relabelled failed at verify, with no verify.json behind it', mutate: d => relabel(d, { outcome: 'failed', step: 'verify', code: 'VERIFY_FAILED' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_not_reproduced_relabelled_fault_fail', from: 'not_reproduced', threat: 'not_reproduced relabelled a fault of the environment, while baseline.json records no fault', mutate: d => relabel(d, { outcome: 'fault', step: 'reproduce', code: 'TOOLCHAIN_UNSUPPORTED' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_verified_relabelled_fault_fail', from: 'go_verified', threat: 'a verified attempt relabelled a verify fault, while verify.json classifies it scoped_test_verified', mutate: d => relabel(d, { outcome: 'fault', step: 'verify', code: 'RUN_NOT_COMPARABLE' }), expect: 'OUTCOME_MISMATCH' },
  // timed_out is exempt from its step's record only where the step found the deadline passed.
  { name: 'outcome_verified_relabelled_timed_out_fail', from: 'go_verified', threat: 'D7: a verified attempt relabelled timed_out at verify before the deadline, while verify.json says scoped_test_verified', mutate: d => relabel(d, { outcome: 'timed_out', step: 'verify', code: 'DEADLINE_PASSED' }), expect: 'OUTCOME_MISMATCH' },
  {
    name: 'outcome_timed_out_after_deadline_pass',
    from: 'go_verified',
    threat: 'control: verify rerun past the deadline (after a crash between verify.json and outcome.json) decides timed_out whatever verify.json says',
    mutate: d => {
      relabel(d, { outcome: 'timed_out', step: 'verify', code: 'DEADLINE_PASSED' })
      const deadline = readJson<{ deadline: string }>(d, 'admission.json').deadline
      editJson(d, 'outcome.json', o => { o.decided_at = new Date(Date.parse(deadline) + 1000).toISOString() })
      editReceipt(d, r => { r.sealed_at = new Date(Date.parse(deadline) + 2000).toISOString() })
      reseal(d, 'outcome.json')
    },
  },
  { name: 'forge_admission_deadline_fail', from: 'go_verified', threat: 'D7: admission.json deadline moved an hour later and resealed (the lock and every step obey it)', mutate: d => { editJson(d, 'admission.json', a => { a.deadline = new Date(Date.parse(a.deadline) + 3_600_000).toISOString() }); reseal(d, 'admission.json') }, expect: 'ATTEMPT_BINDING_MISMATCH' },
  {
    name: 'forge_admission_timeout_fail',
    from: 'go_verified',
    threat: 'D7: admission.json timeout_seconds and deadline changed together, resealed: not the config\'s timeout',
    mutate: d => { editJson(d, 'admission.json', a => { a.timeout_seconds = 300; a.deadline = new Date(Date.parse(a.admitted_at) + 300_000).toISOString() }); reseal(d, 'admission.json') },
    expect: 'ATTEMPT_BINDING_MISMATCH',
  },
  { name: 'forge_baseline_case_identity_fail', from: 'not_reproduced', threat: 'D7: baseline.json is about another test than the admitted case', mutate: d => { editJson(d, 'baseline.json', b => { b.case_identity = 'TestSomethingElse' }); reseal(d, 'baseline.json') }, expect: TV },
  { name: 'forge_verify_case_identity_fail', from: 'go_verified', threat: 'D7: verify.json is about another test than the admitted case', mutate: d => { editJson(d, 'verify.json', v => { v.case_identity = 'TestSomethingElse' }); reseal(d, 'verify.json') }, expect: TV },
  { name: 'forge_red_then_green_identities_fail', from: 'node_verified', threat: 'D7: verify.json red_then_green names another red identity', mutate: d => { editJson(d, 'verify.json', v => { v.red_then_green.identities[0].identity = 'test/other.test.js::forged' }); reseal(d, 'verify.json') }, expect: TV },
  { name: 'route_admission_fail', from: 'go_verified', threat: 'the admitted route (and the receipt\'s copy) is not the one the policy gives', mutate: d => { editJson(d, 'admission.json', a => { a.route.cost_ceiling_usd = 5 }); editReceipt(d, r => { r.route.cost_ceiling_usd = 5 }); reseal(d, 'admission.json') }, expect: 'ROUTE_MISMATCH', alsoFires: ['ATTEMPT_BINDING_MISMATCH'] },
  { name: 'route_admission_hooked_fail', from: 'interrupted', threat: 'the same on an attempt made with test hooks (the binding checks run whatever the clock)', mutate: d => { editJson(d, 'admission.json', a => { a.route.cost_ceiling_usd = 5 }); editReceipt(d, r => { r.route.cost_ceiling_usd = 5 }); reseal(d, 'admission.json') }, expect: 'ROUTE_MISMATCH', alsoFires: ['ATTEMPT_BINDING_MISMATCH'], allowTestHooks: true },
  { name: 'route_policy_fail', from: 'rejected', threat: 'inputs/routing-policy.json rewritten: another route and another key', mutate: d => { editJson(d, 'inputs/routing-policy.json', p => { p.cost_ceiling_usd = 5 }); reseal(d, 'inputs/routing-policy.json') }, expect: 'ROUTE_MISMATCH', alsoFires: ['ATTEMPT_BINDING_MISMATCH'] },
  { name: 'rerender_request_fail', from: 'provider_error', threat: 'request.json no longer what the retained inputs render', mutate: d => { editJson(d, 'request.json', r => { r.store = true }); reseal(d, 'request.json') }, expect: RR, alsoFires: ['MALFORMED'], exclusive: false },
  { name: 'rerender_job_fail', from: 'interrupted', threat: 'job.txt of an interrupted attempt rewritten and resealed', mutate: d => { appendFileSync(join(d, 'job.txt'), 'note: anything\n'); reseal(d, 'job.txt') }, expect: RR, allowTestHooks: true },
  { name: 'gate_mismatch_verdict_fail', from: 'rejected', threat: 'gate.json of a rejection rewritten to say it passed', mutate: d => { editJson(d, 'gate.json', g => { g.passed = true; g.failed_rules = []; for (const r of g.rules) r.status = 'pass' }); reseal(d, 'gate.json') }, expect: GM, alsoFires: ['OUTCOME_MISMATCH', 'MISSING_STAGE_RECORD'] },
  {
    name: 'summary_verdict_flipped_fail',
    from: 'rejected',
    threat: 'validation/summary.json says fail where the current checker passes the same bytes',
    mutate: d => { editJson(d, 'validation/summary.json', v => { v.status = 'fail'; v.findings = [{ rule: 'line-length', line: 1, detail: 'forged' }] }); reseal(d, 'validation/summary.json') },
    expect: 'VALIDATION_MISMATCH',
  },
  {
    // The other way a summary record stops matching: the proposal's summary changed (gate.json
    // carefully updated), so the record's input digest no longer names the summary: DIGEST_MISMATCH.
    name: 'summary_record_stale_fail',
    from: 'go_verified',
    threat: 'proposal.json summary rewritten, gate.json proposal_sha256 recomputed, both resealed',
    mutate: d => { setCause(d, 'Add has a wrong operator.'); editJson(d, 'gate.json', g => { g.proposal_sha256 = sha256Hex(readFileSync(join(d, 'proposal.json'))) }); reseal(d, 'proposal.json', 'gate.json') },
    expect: D,
    // proposal.json is no longer the proposal response.json holds, and its summary no longer the commit's message.
    alsoFires: [PA, CC],
  },
  {
    name: 'receipt_validation_block_fail',
    from: 'go_verified',
    threat: 'receipt.json\'s copy of a validation verdict disagrees with the record',
    mutate: d => editReceipt(d, r => { const v = r.validation[0]; if (v !== undefined) v.input_sha256 = '0'.repeat(64) }),
    expect: 'VALIDATION_MISMATCH',
  },

  // Not sealed, and test hooks.
  { name: 'not_sealed_fail', from: 'go_verified', threat: 'an attempt without a receipt', mutate: d => unlinkSync(join(d, 'receipt.json')), expect: 'NOT_SEALED' },
  { name: 'not_sealed_no_outcome_fail', from: 'interrupted', threat: 'a crashed attempt never sealed (no outcome, no receipt)', mutate: d => { unlinkSync(join(d, 'receipt.json')); unlinkSync(join(d, 'outcome.json')) }, expect: 'NOT_SEALED', allowTestHooks: true },
  { name: 'test_hooks_fail', from: 'interrupted', threat: 'test hooks enabled, read without --allow-test-hooks', expect: 'TEST_HOOKS_ENABLED' },
  { name: 'test_hooks_receipt_fail', from: 'go_verified', threat: 'a receipt that says test hooks were enabled', mutate: d => editReceipt(d, r => { r.test_hooks = true; r.stated_limits = statedLimitsFor(true) }), expect: 'TEST_HOOKS_ENABLED' },
  { name: 'test_hooks_hidden_fail', from: 'interrupted', threat: 'a receipt that hides that test hooks were enabled', mutate: d => editReceipt(d, r => { r.test_hooks = false; r.stated_limits = statedLimitsFor(false) }), expect: 'ATTEMPT_BINDING_MISMATCH', allowTestHooks: true },
  {
    name: 'stated_limits_dropped_fail',
    from: 'go_verified',
    threat: 'a receipt whose stated limits no longer say that digests are not signatures',
    mutate: d => editReceipt(d, r => { r.stated_limits = r.stated_limits.filter(l => !l.startsWith('Digests are not signatures')) }),
    expect: 'STATED_LIMITS_MISMATCH',
  },
  { name: 'stated_limits_hooks_line_fail', from: 'interrupted', threat: 'a receipt made with test hooks that states the no-hooks line', mutate: d => editReceipt(d, r => { r.stated_limits = r.stated_limits.map(l => l.startsWith('Test hooks were enabled') ? 'Test hooks were not enabled: deadlines used the wall clock.' : l) }), expect: 'STATED_LIMITS_MISMATCH', allowTestHooks: true },

  // A fourth audit (of readback itself): claims no retained file backs, or that contradict one.
  { name: 'receipt_command_without_summary_fail', from: 'not_reproduced', threat: 'A1: the receipt of an attempt that never verified records a passing verify command', mutate: d => editReceipt(d, r => { const c = r.commands[0]; if (c !== undefined) r.commands.push({ ...c, step: 'verify', exit_code: 0 }) }), expect: 'COMMAND_MISALIGNED' },
  { name: 'receipt_validation_without_record_fail', from: 'not_reproduced', threat: 'A1: the receipt of an attempt that never asked the provider records four passing validations', mutate: (d, s) => editReceipt(d, r => { r.validation = readJson<{ validation: typeof r.validation }>(s.go_verified.dir, 'receipt.json').validation }), expect: 'VALIDATION_MISMATCH' },
  { name: 'outcome_receipt_relabel_failed_fail', from: 'go_verified', threat: 'A2: a verified attempt relabelled failed, as if seal had decided it', mutate: d => relabel(d, { outcome: 'failed', step: 'receipt', code: 'CANDIDATE_FAILED' }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_receipt_retryable_fail', from: 'go_verified', threat: 'A2: a verified attempt relabelled a retryable provider_error (exit 69: retry), as if seal had decided it', mutate: d => relabel(d, { outcome: 'provider_error', step: 'receipt', code: 'PROVIDER_SERVER_ERROR', retryable: true }), expect: 'OUTCOME_MISMATCH' },
  { name: 'outcome_receipt_not_reproduced_fail', from: 'rejected', threat: 'A2: a reproduced attempt relabelled not_reproduced by seal', mutate: d => relabel(d, { outcome: 'not_reproduced', step: 'receipt', code: 'CASE_NOT_REPRODUCED' }), expect: 'OUTCOME_MISMATCH' },
  {
    name: 'outcome_receipt_timed_out_early_fail',
    from: 'go_verified',
    threat: 'A2: seal deciding timed_out before the deadline',
    mutate: d => {
      relabel(d, { outcome: 'timed_out', step: 'receipt', code: 'DEADLINE_PASSED' })
      // Just after the candidate run, in order with every other record: well before the deadline.
      const ended = runTiming(d, 'verify.json').ended_at
      editJson(d, 'outcome.json', o => { o.decided_at = laterBy(ended, 0.001) })
      reseal(d, 'outcome.json')
    },
    expect: 'OUTCOME_MISMATCH',
  },
  {
    name: 'outcome_interrupted_early_fail',
    from: 'interrupted',
    threat: 'A2: an interruption decided at admission time, when the attempt could still be running',
    mutate: d => {
      const admittedAt = readJson<{ admitted_at: string }>(d, 'admission.json').admitted_at
      editJson(d, 'outcome.json', o => { o.decided_at = admittedAt })
      reseal(d, 'outcome.json')
    },
    expect: 'OUTCOME_MISMATCH',
    allowTestHooks: true,
  },
  { name: 'receipt_checkout_other_commit_fail', from: 'go_verified', threat: 'A3: the receipt names another commit as the checkout', mutate: d => editReceipt(d, r => { r.checkout.sha = 'f'.repeat(40) }), expect: 'ATTEMPT_BINDING_MISMATCH' },
  { name: 'admission_source_counts_fail', from: 'node_verified', threat: 'A3: admission.json counts another tree than the manifest lists', mutate: d => { editJson(d, 'admission.json', a => { a.source.tree_entries += 1 }); reseal(d, 'admission.json') }, expect: 'ATTEMPT_BINDING_MISMATCH' },
  {
    name: 'dispatch_before_baseline_fail',
    from: 'go_verified',
    threat: 'A5: the provider asked before the baseline run ended (before the failure was reproduced)',
    mutate: d => {
      const started = readJson<{ run: { timing: { started_at: string } } }>(d, 'baseline.json').run.timing.started_at
      editJson(d, 'dispatch.json', x => { x.dispatched_at = started })
      reseal(d, 'dispatch.json')
    },
    expect: 'STAGE_ORDER',
  },
  { name: 'sealed_before_decided_fail', from: 'node_verified', threat: 'A5: a receipt sealed in 1999, before its outcome was decided', mutate: d => editReceipt(d, r => { r.sealed_at = '1999-01-01T00:00:00.000Z' }), expect: 'STAGE_ORDER' },
  // Consistent forgeries of time: every digest recomputed, only the clock's order gives them away.
  {
    name: 'decided_while_candidate_ran_fail',
    from: 'node_verified',
    threat: 'A5: scoped_test_verified decided when the candidate run had only started',
    mutate: d => { const t = runTiming(d, 'verify.json'); editJson(d, 'outcome.json', o => { o.decided_at = t.started_at }); reseal(d, 'outcome.json') },
    expect: 'STAGE_ORDER',
  },
  {
    name: 'answer_after_candidate_ran_fail',
    from: 'go_verified',
    threat: 'A5: the provider\'s answer received after the candidate it proposed had run',
    mutate: d => { const t = runTiming(d, 'verify.json'); editJson(d, 'response.json', x => { x.received_at = laterBy(t.ended_at, 1) }); reseal(d, 'response.json') },
    expect: 'STAGE_ORDER',
  },
  { name: 'verified_decided_past_deadline_fail', from: 'go_verified', threat: 'A5: scoped_test_verified decided an hour after the deadline (by then the lock was stale and the attempt interrupted)', mutate: d => { lateEnd(d, { runToo: false, timedOut: false }) }, expect: 'STAGE_ORDER' },
  { name: 'suspended_then_timed_out_pass', from: 'go_verified', threat: 'control: a machine suspended during the candidate run resumes an hour past the deadline; verify writes timed_out, and its late records claim nothing', mutate: d => { lateEnd(d, { runToo: true, timedOut: true }) } },
  { name: 'suspended_then_verified_fail', from: 'go_verified', threat: 'A5: the same late candidate run, still claimed scoped_test_verified', mutate: d => { lateEnd(d, { runToo: true, timedOut: false }) }, expect: 'STAGE_ORDER' },
  { name: 'sealed_in_2099_fail', from: 'node_verified', threat: 'A5: a receipt sealed in 2099, read back with a clock', mutate: d => editReceipt(d, r => { r.sealed_at = '2099-01-01T00:00:00.000Z' }), withClock: true, expect: 'STAGE_ORDER' },
  { name: 'sealed_in_2099_unclocked_pass', from: 'node_verified', threat: 'control: the same receipt read back without a clock has nothing to compare its time with', mutate: d => editReceipt(d, r => { r.sealed_at = '2099-01-01T00:00:00.000Z' }) },
  { name: 'sealed_an_hour_ahead_pass', from: 'node_verified', threat: 'control: a sealing machine whose clock ran an hour ahead of the reader\'s', mutate: d => editReceipt(d, r => { r.sealed_at = new Date(Date.now() + 3_600_000).toISOString() }), withClock: true },
  // Bytes that can change without a write to the attempt's own path: reported, and the digests still decide.
  { name: 'sealed_file_hard_linked_pass', from: 'go_verified', threat: 'tree.tar hard-linked from outside the attempt (a backup made with cp -al)', mutate: d => linkSync(join(d, 'tree.tar'), join(d, '..', '..', 'tree.tar.link')), notices: ['SEALED_FILE_LINKED'] },
  { name: 'sealed_file_group_writable_pass', from: 'go_verified', threat: 'verify.json made writable by its group', mutate: d => chmodSync(join(d, 'verify.json'), 0o664), notices: ['SEALED_FILE_WRITABLE'] },
  {
    name: 'sealed_file_hard_linked_then_changed_fail',
    from: 'go_verified',
    threat: 'control: a byte written through the other hard link is this attempt\'s byte changed',
    mutate: d => { const other = join(d, '..', '..', 'tree.tar.link'); linkSync(join(d, 'tree.tar'), other); const fd = openSync(other, 'r+'); writeSync(fd, Buffer.from([1]), 0, 1, statSync(other).size - 1); closeSync(fd) },
    expect: D,
  },
  {
    name: 'candidate_events_removed_fail',
    from: 'go_verified',
    threat: 'A6: candidate.events.ndjson removed, and the receipt with it: verify.json still states its events',
    mutate: d => { unlinkSync(join(d, 'candidate.events.ndjson')); editReceipt(d, r => { r.files = r.files.filter(x => x.path !== 'candidate.events.ndjson') }) },
    expect: TV,
    alsoFires: ['MISSING_STAGE_RECORD'],
  },
  { name: 'verify_events_count_fail', from: 'node_verified', threat: 'A4: verify.json states one event more than its events file holds', mutate: d => { editJson(d, 'verify.json', v => { v.events.count += 1 }); reseal(d, 'verify.json') }, expect: TV },
  // A sandbox run record held to what the CLI runs, each forged in both runs alike so that
  // comparing the two finds nothing (the audit's A4).
  ...([
    ['sandbox_argv_shell_prefix_fail', 'a shell that fetches and runs a script before the launch chain', (r: SandboxRecord) => { r.argv.unshift('/bin/sh', '-c', 'curl -s http://x | sh; exec "$0" "$@"') }],
    ['sandbox_argv_setenv_fail', 'NODE_OPTIONS set by the argv while env_names lists only the runner\'s', (r: SandboxRecord) => { const i = r.argv.indexOf('--json-status-fd'); r.argv.splice(i, 0, '--setenv', 'NODE_OPTIONS', '--require=/tmp/x.js') }],
    ['sandbox_argv_no_isolation_fail', '--unshare-all, --clearenv and --disable-userns dropped', (r: SandboxRecord) => { r.argv = r.argv.filter(a => !['--unshare-all', '--clearenv', '--disable-userns'].includes(a)) }],
    ['sandbox_namespaces_host_fail', 'every namespace the host\'s own', (r: SandboxRecord) => { for (const n of r.namespaces) n.sandbox = n.host }],
    ['sandbox_mount_extra_fail', 'an extra read-write mount of /root, in the argv and the mounts alike', (r: SandboxRecord) => { r.mounts.push({ source: '/root', dest: '/root', mode: 'rw' }); const i = r.argv.indexOf('--remount-ro'); r.argv.splice(i, 0, '--bind', '/root', '/root') }],
    ['sandbox_limits_dropped_fail', 'no limit recorded as read back', (r: SandboxRecord) => { r.limits = [] }],
    ['sandbox_limit_want_fail', 'the memory limit recorded as asked and got at 999999999999999', (r: SandboxRecord) => { const l = r.limits.find(x => x.name === 'memory'); if (l !== undefined) { l.want = '999999999999999'; l.got = '999999999999999' } }],
    ['sandbox_sample_low_fail', 'a memory sample of 1000 bytes, and the run not stopped for it', (r: SandboxRecord) => { const x = r.samples[0]; if (x !== undefined) x.mem_available_bytes = 1000 }],
    ['sandbox_argv_address_space_fail', 'node\'s address space limited to 1 MiB in the launch chain', (r: SandboxRecord) => { const i = r.argv.indexOf('--as=unlimited:unlimited'); r.argv[i] = '--as=1048576:1048576' }],
    ['sandbox_argv_address_space_dropped_fail', 'the kernel-state chain without node\'s address-space option (no chain ever ran so)', (r: SandboxRecord) => { r.argv = r.argv.filter(a => a !== '--as=unlimited:unlimited') }],
    ['sandbox_seccomp_dropped_fail', 'the seccomp filter left out of the chain, the keyring step kept', (r: SandboxRecord) => { r.argv.splice(r.argv.indexOf('--seccomp'), 2) }],
    ['sandbox_keyring_step_dropped_fail', 'the keyring step left out of the chain, the filter kept', (r: SandboxRecord) => { r.argv.splice(r.argv.indexOf('/usr/bin/keyctl'), 3) }],
    ['sandbox_seccomp_digest_fail', 'the filter recorded at a digest no version builds (an allow-all program)', (r: SandboxRecord) => { const l = r.limits.find(x => x.name === 'seccomp filter'); if (l !== undefined) { l.want = `x86_64 sha256:${'0'.repeat(64)}`; l.got = l.want } }],
    ['sandbox_keyring_reading_dropped_fail', 'the chain with every step, but no reading of the keyring join', (r: SandboxRecord) => { r.limits = r.limits.filter(x => x.name !== 'session keyring') }],
  ] as const).map(([name, threat, change]): CorpusFixture => ({
    name,
    from: 'node_verified',
    threat: `A4: ${threat}`,
    mutate: d => {
      for (const f of ['baseline.json', 'verify.json']) editJson(d, f, x => { change(x.run as SandboxRecord) })
      reseal(d, 'baseline.json', 'verify.json')
    },
    expect: 'SANDBOX_RECORD_MISMATCH',
    // The argv's command (after its last `--`) is still the fixed one, so only the shell's
    // arguments change what COMMAND_MISALIGNED reads: none of these reach it.
  })),
  { name: 'sandbox_reporter_digest_fail', from: 'node_verified', threat: 'A4: reporter_sha256 all zeros in both runs', mutate: d => { for (const f of ['baseline.json', 'verify.json']) editJson(d, f, x => { x.reporter_sha256 = '0'.repeat(64) }); reseal(d, 'baseline.json', 'verify.json') }, expect: 'SANDBOX_RECORD_MISMATCH' },
  {
    name: 'sandbox_run_after_deadline_fail',
    from: 'go_verified',
    threat: 'A4: both runs timed in 2099, long after the deadline, with no deadline stop',
    mutate: d => {
      for (const f of ['baseline.json', 'verify.json']) editJson(d, f, x => { x.run.timing.started_at = '2099-01-01T00:00:00.000Z'; x.run.timing.ended_at = '2099-01-01T00:00:01.000Z' })
      reseal(d, 'baseline.json', 'verify.json')
    },
    expect: 'STAGE_ORDER',
  },
  {
    name: 'events_duplicate_key_fail',
    from: 'go_verified',
    threat: 'A7: a candidate event with "Action" twice (fail, then pass): JSON.parse keeps the last',
    mutate: d => {
      const path = join(d, 'candidate.events.ndjson')
      const lines = readFileSync(path, 'utf8').split('\n')
      const at = lines.findIndex(l => l.includes('"Action":"pass"'))
      lines[at] = (lines[at] ?? '').replace('"Action":"pass"', '"Action":"fail","Action":"pass"')
      const bytes = Buffer.from(lines.join('\n'))
      writeFileSync(path, bytes)
      editJson(d, 'verify.json', v => { v.events = { ...v.events, bytes: bytes.length, sha256: sha256Hex(bytes) } })
      reseal(d, 'candidate.events.ndjson', 'verify.json')
    },
    expect: 'MALFORMED',
  },
  ...CANDIDATE_FIXTURES,
  ...CHECK_FIXTURES,
]

/** usage.json's input_tokens set to 1 (and, with `inResponse`, the server's own report in response.json). */
function forgeInputTokens (d: string, inResponse: boolean): void {
  editJson(d, 'usage.json', u => { u.input_tokens = 1; u.total_tokens = 1 + (u.output_tokens as number) })
  if (!inResponse) return
  editJson(d, 'response.json', r => {
    const body = JSON.parse(r.body as string) as { usage: { input_tokens: number, output_tokens: number, total_tokens: number } }
    body.usage.input_tokens = 1
    body.usage.total_tokens = 1 + body.usage.output_tokens
    r.body = JSON.stringify(body)
  })
}

/** outcome.json relabelled and resealed, with receipt.json's copy of the outcome to match. */
function relabel (d: string, o: { outcome: string, step: string, code: string, retryable?: boolean }): void {
  const retryable = o.retryable === undefined ? {} : { retryable: o.retryable }
  editJson(d, 'outcome.json', x => { x.outcome = o.outcome; x.step = o.step; x.reason = { code: o.code, message: 'relabelled' }; delete x.retryable; Object.assign(x, retryable) })
  reseal(d, 'outcome.json')
  editReceipt(d, r => { r.outcome = { outcome: o.outcome as never, step: o.step as never, code: o.code, ...retryable } })
}

// The corpus: one copy per fixture under one root, kept until the file ends.
const provider: Provider = await startProvider({ after })
const root = tempDir({ after }, 'rl-corpus-')
let sources: Sources
const built = new Map<string, string>()

// The sources' fixture directories are removed when the file ends (an `after` registered
// from inside the before hook would run as soon as the hook ends).
const cleanups: Array<() => void> = []
after(() => { for (const fn of cleanups) fn() })
before(async () => {
  sources = await sealSources(provider, fn => cleanups.push(fn))
})

const errorCodes = (r: ReadbackResult): string[] => [...new Set(r.findings.filter(f => f.severity === 'error').map(f => f.code))].sort()

for (const fx of FIXTURES) {
  test(`${fx.name}: ${fx.threat}`, async () => {
    const dir = copyAttempt(sources[fx.from].dir, root, fx.name)
    fx.mutate?.(dir, sources)
    built.set(fx.name, dir)
    // Every fixture is an entry of its own state root's attempts/, as readback --state-dir sees it.
    const r = await readbackAttempt(dir, { allowTestHooks: fx.allowTestHooks === true, stateRootEntry: true, ...(fx.withClock === true ? { now: new Date() } : {}), ...(fx.withSource === true ? { source: sources[fx.from].fixture.repo } : {}) })
    const why = JSON.stringify(r.findings, null, 1)
    if (fx.name.endsWith('_pass')) {
      assert.equal(fx.expect, undefined)
      assert.equal(r.valid, true, why)
      assert.deepEqual([...new Set(r.findings.map(f => f.code))].sort(), [...(fx.notices ?? [])].sort(), why)
      return
    }
    assert.ok(fx.name.endsWith('_fail') && fx.expect !== undefined, 'a fixture is *_pass or *_fail with an expected code')
    assert.equal(r.valid, false, why)
    const codes = errorCodes(r)
    assert.ok(codes.includes(fx.expect), `expected ${fx.expect}, got ${codes.join(', ')}: ${why}`)
    if (fx.exclusive !== false) assert.deepEqual(codes, [...new Set([fx.expect, ...(fx.alsoFires ?? [])])].sort(), why)
  })
}

test('the corpus is at least 70 % negative and covers every readback code the receipt README lists', t => {
  const negative = FIXTURES.filter(f => f.name.endsWith('_fail')).length
  const share = negative / FIXTURES.length
  t.diagnostic(`corpus: ${FIXTURES.length} fixtures, ${negative} negative (${(share * 100).toFixed(1)} %)`)
  assert.ok(share >= 0.7, `${negative}/${FIXTURES.length} negative`)
  assert.equal(new Set(FIXTURES.map(f => f.name)).size, FIXTURES.length, 'fixture names are unique')
  const readme = readFileSync(join(ROOT, 'tools', 'receipt', 'README.md'), 'utf8')
  const listed = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map(m => m[1] ?? '')
  assert.ok(listed.length >= 17, `the README lists ${listed.length} codes`)
  const expected = new Set(FIXTURES.map(f => f.expect))
  assert.deepEqual(listed.filter(c => !expected.has(c)), [], 'every listed code has a fixture expecting it')
  assert.deepEqual([...expected].filter(c => c !== undefined && !listed.includes(c)), [], 'every expected code is documented')
  // What every receipt says it does not prove, so consistent_forgery_usage_pass is a stated limit.
  assert.ok(STATED_LIMITS.some(l => l.startsWith('Digests are not signatures')))
})

// A sample through the real bin: exit 1, exactly one readback record, stderr names the code.
const BIN_SAMPLE = ['flip_verify_fail', 'stale_summary_checker_fail', 'missing_baseline_fail', 'duplicate_receipt_entry_fail', 'receipt_names_other_key_fail', 'argv_baseline_fail', 'unsealed_file_fail', 'malformed_duplicate_key_usage_fail', 'not_sealed_fail', 'test_hooks_fail']

test('receipt readback (the bin) on a sample of negative fixtures: exit 1, one readback record, the code on stderr', async () => {
  for (const name of BIN_SAMPLE) {
    const fx = FIXTURES.find(f => f.name === name)
    const dir = built.get(name)
    assert.ok(fx?.expect !== undefined && dir !== undefined, `${name} was built`)
    const r = await runBin('receipt', ['readback', '--attempt', dir])
    assert.equal(r.exitCode, 1, `${name}: ${r.stderr}`)
    const rb = r.records.filter(x => x.kind === 'readback')
    assert.equal(rb.length, 1, name)
    const rec = rb[0]
    assert.ok(rec?.kind === 'readback' && !rec.valid)
    assert.ok(rec.findings.some(f => f.code === fx.expect && f.severity === 'error'), `${name}: ${JSON.stringify(rec.findings)}`)
    assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'readback', 'result'], name)
    assert.match(r.stderr, new RegExp(`invalid: .*\\b${fx.expect}\\b`), name)
  }
  // The positive control through the same bin.
  const ok = await runBin('receipt', ['readback', '--attempt', built.get('go_verified_pass') ?? ''])
  assert.equal(ok.exitCode, 0, ok.stderr)
  // --state-dir: one record per attempt of the root.
  const all = await runBin('receipt', ['readback', '--state-dir', join(root, 'flip_gate_fail')])
  assert.equal(all.exitCode, 1, all.stderr)
  assert.equal(all.records.filter(x => x.kind === 'readback').length, 1)
})

// Whatever is planted under a state root's attempts/ gets its own record: a file, a FIFO (which
// must not block the read) and a symlink to a real attempt (not followed: readback of the root
// does not vouch for an attempt that lives elsewhere).
test('receipt readback --state-dir: a file, a FIFO and a symlink under attempts/ are each NOT_AN_ATTEMPT; the real attempt beside them reads back valid', async () => {
  const copy = copyAttempt(sources.go_verified.dir, root, '_planted_root')
  const state = join(root, '_planted_root')
  // Positive control: the root with only its real attempt reads back valid.
  const clean = await runBin('receipt', ['readback', '--state-dir', state])
  assert.equal(clean.exitCode, 0, clean.stderr)
  assert.deepEqual(clean.records.filter(x => x.kind === 'readback').map(x => x.kind === 'readback' && x.valid), [true])
  const attempts = dirname(copy)
  writeFileSync(join(attempts, '0000000000000000'), 'not an attempt\n')
  execFileSync('mkfifo', [join(attempts, '1111111111111111')])
  symlinkSync(copy, join(attempts, 'ffffffffffffffff'))
  // Directories admit never names so: an empty one, and one whose name is not UTF-8.
  mkdirSync(join(attempts, 'notes'))
  mkdirSync(Buffer.concat([Buffer.from(`${attempts}/x`), Buffer.from([0xff])]))
  const r = await runBin('receipt', ['readback', '--state-dir', state])
  assert.equal(r.exitCode, 1, r.stderr)
  const records = r.records.filter(x => x.kind === 'readback')
  // One record each, in byte order of the names (the real attempt's name is its key's prefix).
  const expected: Array<[string, boolean, string[]]> = [
    ['0000000000000000', false, ['NOT_AN_ATTEMPT']],
    ['1111111111111111', false, ['NOT_AN_ATTEMPT']],
    [basename(copy), true, []],
    ['ffffffffffffffff', false, ['NOT_AN_ATTEMPT']],
    ['notes', false, ['NOT_AN_ATTEMPT']],
    ['x\uFFFD', false, ['NOT_AN_ATTEMPT']],
  ]
  expected.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
  assert.deepEqual(records.map(x => x.kind === 'readback' ? [basename(x.attempt_dir), x.valid, x.findings.map(f => f.code)] : []), expected)
  assert.match(r.stderr, /read back 6 attempts, 5 invalid/)
  for (const name of ['notes', 'x\uFFFD']) {
    const rec = records.find(x => x.kind === 'readback' && basename(x.attempt_dir) === name)
    assert.ok(rec?.kind === 'readback' && rec.findings[0]?.message.includes('is not named by an attempt key'), `${name}: ${JSON.stringify(rec)}`)
  }
  for (const [name, kind] of [['0000000000000000', 'a regular file'], ['1111111111111111', 'a FIFO'], ['ffffffffffffffff', 'a symbolic link']] as const) {
    const rec = records.find(x => x.kind === 'readback' && basename(x.attempt_dir) === name)
    assert.ok(rec?.kind === 'readback' && rec.findings[0]?.message.includes(kind), `${name}: ${JSON.stringify(rec)}`)
  }
})

// One damaged attempt is one invalid record: readback --state-dir goes on to the attempts after
// it (a file readback will not read whole, a name that is not UTF-8).
test('receipt readback --state-dir: an attempt with an oversized job.txt and a non-UTF-8 name is one invalid record; the valid attempt after it still reads back', async () => {
  const state = join(root, '_damaged_root')
  const damaged = copyAttempt(sources.go_verified.dir, root, '_damaged_root')
  const attempts = dirname(damaged)
  // The valid attempt, under a name sorted after the damaged one: a copy of the not_reproduced source under its own name.
  const valid = join(attempts, basename(sources.not_reproduced.dir))
  cpSync(sources.not_reproduced.dir, valid, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  const clean = await runBin('receipt', ['readback', '--state-dir', state])
  assert.equal(clean.exitCode, 0, clean.stderr)
  truncateSync(join(damaged, 'job.txt'), 65 << 20)
  writeFileSync(Buffer.concat([Buffer.from(`${damaged}/junk`), Buffer.from([0xff])]), 'x')
  const r = await runBin('receipt', ['readback', '--state-dir', state])
  assert.equal(r.exitCode, 1, r.stderr)
  const records = r.records.filter(x => x.kind === 'readback')
  const got = records.map(x => x.kind === 'readback' ? [basename(x.attempt_dir), x.valid, [...new Set(x.findings.filter(f => f.severity === 'error').map(f => f.code))].sort()] : [])
  const expected: Array<[string, boolean, string[]]> = [[basename(damaged), false, [D, RR, 'UNSEALED_FILE'].sort()], [basename(valid), true, []]]
  expected.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
  assert.deepEqual(got, expected)
  assert.match(r.stderr, /read back 2 attempts, 1 invalid/)
})

// An operator archives attempts out of the state root (RETENTION_FULL's hint): a copy kept
// under its own name anywhere reads back valid; under another name it is bound to another key.
test('an attempt archived out of its state root reads back valid from anywhere under its own name; renamed, it is ATTEMPT_BINDING_MISMATCH', async () => {
  const src = sources.go_verified.dir
  const archived = join(root, '_archive', 'deep', basename(src))
  cpSync(src, archived, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  const r = await runBin('receipt', ['readback', '--attempt', archived])
  assert.equal(r.exitCode, 0, r.stderr)
  const renamed = join(root, '_archive', 'deep', 'ffffffffffffffff')
  cpSync(src, renamed, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  const other = await runBin('receipt', ['readback', '--attempt', renamed])
  assert.equal(other.exitCode, 1, other.stderr)
  assert.match(other.stderr, /invalid: .*ATTEMPT_BINDING_MISMATCH/)
})

// admit status uses the same readback: a source attempt mutated in place (its key is bound to
// its own state root) shows as consumed with readback.valid false and the same codes; the
// attempt is restored afterwards.
test('admit status shows a mutated attempt as consumed but invalid, with its codes', async () => {
  const src = sources.go_verified
  const pristine = copyAttempt(src.dir, root, '_pristine_go_verified')
  const status = async (env: Record<string, string> = {}): Promise<{ status: string, outcome?: string, readback?: { valid: boolean, codes?: string[] } }> => {
    const r = await runBin('admit', ['status', '--config', src.fixture.configPath, '--report', src.fixture.reportPath], { env })
    assert.equal(r.exitCode, 0, r.stderr)
    const s = r.records.filter(x => x.kind === 'case-status')
    assert.equal(s.length, 1)
    return s[0] as unknown as { status: string, outcome?: string, readback?: { valid: boolean, codes?: string[] } }
  }
  const restore = (): void => {
    rmSync(src.dir, { recursive: true, force: true })
    cpSync(pristine, src.dir, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  }
  // Positive control: the untouched attempt is consumed and valid.
  assert.deepEqual(await status(), { v: 1, kind: 'case-status', case_id: src.fixture.report.cases[0]?.id, attempt_key: readJson(src.dir, 'admission.json').attempt_key, attempt_dir: src.dir, status: 'consumed', outcome: 'scoped_test_verified', readback: { valid: true } })
  for (const name of ['flip_verify_fail', 'stale_summary_checker_fail', 'unsealed_file_fail', 'not_sealed_fail', 'argv_baseline_fail']) {
    const fx = FIXTURES.find(f => f.name === name)
    assert.ok(fx?.mutate !== undefined && fx.expect !== undefined && fx.from === 'go_verified')
    fx.mutate(src.dir, sources)
    try {
      const s = await status()
      const direct = await readbackAttempt(src.dir)
      assert.equal(s.status, 'consumed', name)
      assert.equal(s.outcome, 'scoped_test_verified', name)
      assert.equal(s.readback?.valid, false, name)
      assert.ok(s.readback?.codes?.includes(fx.expect), `${name}: ${JSON.stringify(s.readback)}`)
      assert.deepEqual([...(s.readback?.codes ?? [])].sort(), errorCodes(direct), name)
    } finally {
      restore()
    }
  }
  // The interrupted source: consumed, and invalid without test hooks in admit's environment.
  const i = sources.interrupted
  const r = await runBin('admit', ['status', '--config', i.fixture.configPath, '--report', i.fixture.reportPath])
  const s = r.records.find(x => x.kind === 'case-status') as unknown as { status: string, outcome: string, readback: { valid: boolean, codes?: string[] } }
  assert.deepEqual([s.status, s.outcome, s.readback], ['consumed', 'interrupted', { valid: false, codes: ['TEST_HOOKS_ENABLED'] }])
  assert.equal(basename(src.dir), basename(pristine))
})

// Readback hashes each sealed file while reading it, 1 MiB at a time (forge audit D8: it read
// each file whole, up to its 1 GiB cap, so four large files took 2 GB). A 900 MiB sparse
// tree.tar is under the cap, so it is hashed; the process's peak RSS stays far below it.
test('readback hashes a 900 MiB sealed file in bounded memory (DIGEST_MISMATCH, peak RSS under 300 MB)', async () => {
  const dir = copyAttempt(sources.not_reproduced.dir, root, '_large_tree_tar')
  truncateSync(join(dir, 'tree.tar'), 900 << 20)
  const rssFile = join(root, '_large_tree_tar.rss')
  const report = `data:text/javascript,import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)))`
  const r = await run(process.execPath, ['--import', report, join(ROOT, 'tools', 'receipt', 'dist', 'receipt.mjs'), 'readback', '--attempt', dir], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' } })
  assert.equal(r.exitCode, 1, r.stderr.toString())
  assert.match(r.stdout.toString(), /"code":"DIGEST_MISMATCH"[^}]*"path":"tree.tar"/)
  const peakMb = Number(readFileSync(rssFile, 'utf8')) / 1024
  assert.ok(peakMb < 300, `peak RSS ${peakMb.toFixed(0)} MB`)
})
