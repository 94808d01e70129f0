// Readback of the candidate commit (issue 37): candidate.json and candidate.bundle exist
// exactly when the gate passed (required from receipt version 2 on; a version-1 receipt was
// sealed before them); candidate.json's tree and commit are what tree.tar with the retained
// proposal's edits and the fixed fields give, recomputed from bytes without the source
// repository; the bundle has candidate.json's digest, source_sha as its one prerequisite and
// one reference, refs/heads/repairline/<key16>, naming that commit; and the receipt's
// `candidate` is what candidate.json says. With the source repository at hand,
// checkBundleAgainstSource runs `git bundle verify` and unpacks the bundle against it.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CandidateCommit, ExecutionConfig, GateReport, Proposal, Receipt, TreeManifest } from '@repairline/schemas'
import { jcs } from '../digest.ts'
import { readFileNoFollow } from '../read-file.ts'
import { git, gitFailure } from '../git.ts'
import { openTreeReader } from '../tree-archive/index.ts'
import { applyEdits } from '../gate/rules/exact-application.ts'
import { CANDIDATE_BUNDLE, CANDIDATE_JSON, candidateRef, expectedCandidate, parseBundleHeader } from '../candidate/candidate.ts'
import { candidateClause } from './seal.ts'
import type { CheckContext } from './checks.ts'
import type { Findings } from './readback.ts'

export const CANDIDATE_CODE = 'CANDIDATE_COMMIT_MISMATCH'

export function checkCandidate (c: CheckContext): void {
  const { docs, files, findings: f, admission } = c
  const receipt = docs.get('receipt.json') as Receipt | undefined
  const gate = docs.get('gate.json') as GateReport | undefined
  const cand = docs.get(CANDIDATE_JSON) as CandidateCommit | undefined
  const present = [CANDIDATE_BUNDLE, CANDIDATE_JSON].filter(x => files.has(x))
  if (receipt !== undefined && !(files.has(CANDIDATE_JSON) && cand === undefined)) {
    const want = cand === undefined ? undefined : candidateClause(cand)
    if (jcs(receipt.candidate ?? null) !== jcs(want ?? null)) f.add(CANDIDATE_CODE, `receipt.json's candidate ${receipt.candidate === undefined ? 'is missing, but candidate.json exists' : want === undefined ? 'exists, but candidate.json does not' : 'is not what candidate.json says'}`, 'receipt.json')
  }
  if (present.length === 0) {
    if (receipt !== undefined && receipt.v >= 2 && gate?.passed === true) {
      for (const x of [CANDIDATE_BUNDLE, CANDIDATE_JSON]) f.add('MISSING_STAGE_RECORD', `${x} is missing, but the gate passed: gate-patch writes it with every candidate`, x)
    }
    return
  }
  // A gate.json that does not parse is MALFORMED already; one not yet written is a gate stage
  // cut short (gate-patch writes the candidate before gate.json), which the stage checks judge.
  if (gate === undefined) return
  if (!gate.passed) {
    f.add(CANDIDATE_CODE, `${present.join(' and ')} ${present.length > 1 ? 'exist' : 'exists'}, but the gate did not pass: gate-patch makes a candidate commit only of a gate that passed`, present[0])
    return
  }
  for (const x of [CANDIDATE_BUNDLE, CANDIDATE_JSON]) if (!files.has(x)) f.add('MISSING_STAGE_RECORD', `${x} is missing, but ${present.join()} exists: gate-patch writes both`, x)
  if (cand === undefined) return
  if (cand.attempt_key !== admission.attempt_key || cand.source_sha !== admission.key_inputs.source_sha) f.add('ATTEMPT_BINDING_MISMATCH', 'candidate.json names another attempt or commit', CANDIDATE_JSON)
  checkCommitTime(c, cand)
  const ref = candidateRef(admission.attempt_key)
  if (cand.ref !== ref) f.add('BUNDLE_REF_MISMATCH', `candidate.json names ${cand.ref}; the candidate's branch is ${ref}`, CANDIDATE_JSON)

  // The commit, recomputed from tree.tar, the proposal's edits and the fixed fields.
  const recomputed = recomputeCommit(c, cand)
  if (recomputed === undefined) { /* an input is malformed: its own finding says so */ } else if (typeof recomputed === 'string') f.add(CANDIDATE_CODE, recomputed, CANDIDATE_JSON)
  else if (recomputed.tree !== cand.tree || recomputed.commit !== cand.commit) f.add(CANDIDATE_CODE, `candidate.json names commit ${cand.commit} (tree ${cand.tree}); tree.tar with the gated edits and the fixed fields give ${recomputed.commit} (tree ${recomputed.tree})`, CANDIDATE_JSON)
  const commit = recomputed === undefined || typeof recomputed === 'string' ? cand.commit : recomputed.commit

  if (!files.has(CANDIDATE_BUNDLE)) return
  if (c.digestOf(CANDIDATE_BUNDLE) !== cand.bundle.sha256) {
    f.add('DIGEST_MISMATCH', 'candidate.bundle does not hash to candidate.json bundle.sha256', CANDIDATE_BUNDLE)
    return
  }
  const header = parseBundleHeader(readFileNoFollow(join(c.dir, CANDIDATE_BUNDLE), 1 << 30))
  if (typeof header === 'string') {
    f.add(CANDIDATE_CODE, `candidate.bundle is not a git bundle: ${header}`, CANDIDATE_BUNDLE)
    return
  }
  const prereq = header.prerequisites.map(x => x.id)
  if (prereq.length !== 1 || prereq[0] !== admission.key_inputs.source_sha) f.add('BUNDLE_PREREQUISITE_MISMATCH', `candidate.bundle's prerequisites are [${prereq.join(', ')}]; its one prerequisite must be source_sha ${admission.key_inputs.source_sha}`, CANDIDATE_BUNDLE)
  if (header.refs.length !== 1 || header.refs[0]?.name !== ref) f.add('BUNDLE_REF_MISMATCH', `candidate.bundle's references are [${header.refs.map(r => r.name).join(', ')}]; its one reference must be ${ref}`, CANDIDATE_BUNDLE)
  else if (header.refs[0].id !== commit) f.add(CANDIDATE_CODE, `candidate.bundle's ${ref} names ${header.refs[0].id}, not the candidate commit ${commit}`, CANDIDATE_BUNDLE)
}

/**
 * The commit's date is the gate's decision (whole seconds): not before the answer it gates was
 * received, not after the candidate run began (STAGE_ORDER, as time-order.ts). Not judged under
 * test hooks, whose steps' clock is set at will.
 */
function checkCommitTime (c: CheckContext, cand: CandidateCommit): void {
  if (c.admission.test_hooks) return
  const at = Date.parse(cand.committed_at)
  const received = (c.docs.get('response.json') as { received_at?: string } | undefined)?.received_at
  const ran = (c.docs.get('verify.json') as { run?: { timing?: { started_at?: string } } } | undefined)?.run?.timing?.started_at
  if (received !== undefined && at < Math.floor(Date.parse(received) / 1000) * 1000) c.findings.add('STAGE_ORDER', `candidate.json says the candidate was committed at ${cand.committed_at}, before the provider's answer was received (${received}, response.json): time runs backwards`, CANDIDATE_JSON)
  if (ran !== undefined && at > Date.parse(ran)) c.findings.add('STAGE_ORDER', `candidate.json says the candidate was committed at ${cand.committed_at}, after the candidate run started (${ran}, verify.json): time runs backwards`, CANDIDATE_JSON)
}

/**
 * The candidate's tree and commit from tree.tar and proposal.json, or why they cannot be had;
 * undefined when an input is there but malformed or tree.tar is not the manifest's (those
 * have findings of their own).
 */
function recomputeCommit (c: CheckContext, cand: CandidateCommit): { tree: string, commit: string } | string | undefined {
  const proposal = c.docs.get('proposal.json') as Proposal | undefined
  const manifest = c.docs.get('tree-manifest.json') as TreeManifest | undefined
  const config = c.docs.get('inputs/execution.json') as ExecutionConfig | undefined
  const inputs = ['proposal.json', 'tree-manifest.json', 'inputs/execution.json', 'tree.tar']
  if (inputs.some(x => c.files.has(x)) && (proposal === undefined || manifest === undefined || config === undefined || !c.files.has('tree.tar'))) {
    return inputs.every(x => c.files.has(x)) ? undefined : `the commit cannot be recomputed: ${inputs.filter(x => !c.files.has(x)).join(', ')} not retained`
  }
  if (proposal === undefined || manifest === undefined || config === undefined) return 'the commit cannot be recomputed: proposal.json, tree-manifest.json and inputs/execution.json are not retained'
  if (c.digestOf('tree.tar') !== manifest.tar_sha256) return undefined
  const ms = Date.parse(cand.committed_at)
  if (ms % 1000 !== 0) return `candidate.json committed_at ${cand.committed_at} is not whole seconds, as a commit date is`
  const tree = openTreeReader(c.dir)
  const modes = new Map(manifest.entries.map(e => [e.path, e.mode]))
  if (!proposal.edits.every(e => config.allowed_files.includes(e.path) && modes.has(e.path))) return 'the commit cannot be recomputed: the proposal edits a path outside the allowed files of the tree'
  const applied = applyEdits({ runner: config.runner.kind, allowedFiles: config.allowed_files, maxPatchBytes: config.max_patch_bytes, tree: manifest.entries, readBaseline: p => tree.readFile(p), edits: proposal.edits }, p => modes.get(p) ?? '100644')
  if (!applied.ok) return `the commit cannot be recomputed: the proposal's edits do not apply to tree.tar (${applied.findings[0] ?? ''})`
  const changed = applied.files.filter(x => x.before !== x.after).map(x => ({ path: x.path, mode: x.mode, bytes: Buffer.from(x.after, 'utf8') }))
  const want = expectedCandidate({ entries: manifest.entries, changed, sourceSha: c.admission.key_inputs.source_sha, summary: proposal.summary, key: c.admission.attempt_key, seconds: ms / 1000 })
  return { tree: want.tree, commit: want.commit }
}

/**
 * candidate.bundle against the source repository (readback's --source): `git bundle verify`
 * there (its prerequisites are in the repository), then the bundle unpacked into a scratch
 * repository in the temp directory that borrows the source's objects: index-pack checks
 * every object and the pack's checksum, and the commit must be there with everything it
 * reaches (`git bundle verify` alone reads only the header). Never writes into the source;
 * the scratch repository is removed.
 */
export async function checkBundleAgainstSource (dir: string, source: string, f: Findings): Promise<void> {
  const bundle = join(dir, CANDIDATE_BUNDLE)
  const verified = await git(source, ['bundle', 'verify', '-q', bundle])
  if (verified.exitCode !== 0) {
    f.add('BUNDLE_UNVERIFIED', `git bundle verify in ${source} failed: ${gitFailure(verified)}`, CANDIDATE_BUNDLE)
    return
  }
  const scratch = mkdtempSync(join(tmpdir(), 'repairline-bundle-'))
  try {
    const fail = (what: string, r: Parameters<typeof gitFailure>[0]): void => { f.add('BUNDLE_UNVERIFIED', `candidate.bundle does not unpack against ${source}: ${what}: ${gitFailure(r)}`, CANDIDATE_BUNDLE) }
    const init = await git(scratch, ['init', '-q', '--bare', '--template=', '--object-format=sha1'])
    if (init.exitCode !== 0) { fail('git init', init); return }
    const common = await git(source, ['rev-parse', '--path-format=absolute', '--git-common-dir'])
    if (common.exitCode !== 0) { fail('git rev-parse', common); return }
    writeFileSync(join(scratch, 'objects', 'info', 'alternates'), `${join(common.stdout.toString('utf8').trim(), 'objects')}\n`)
    const unbundled = await git(scratch, ['bundle', 'unbundle', bundle])
    if (unbundled.exitCode !== 0) { fail('git bundle unbundle', unbundled); return }
    const tips = unbundled.stdout.toString('utf8').split('\n').filter(Boolean).map(l => l.slice(0, 40))
    const walked = await git(scratch, ['rev-list', '--objects', ...tips, '--not', ...parseHeaderPrerequisites(bundle)], { maxBuffer: 1 << 26 })
    if (walked.exitCode !== 0) fail('git rev-list --objects', walked)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** The prerequisite ids of a bundle whose header already parsed (checkCandidate). */
function parseHeaderPrerequisites (bundle: string): string[] {
  const h = parseBundleHeader(readFileNoFollow(bundle, 1 << 30))
  return typeof h === 'string' ? [] : h.prerequisites.map(p => p.id)
}
