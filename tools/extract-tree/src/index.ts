// extract-tree: the second step. It reads the admitted commit's tree with hermetic git
// plumbing — never `git archive`, never the working tree — and writes tree.tar and
// tree-manifest.json into the attempt directory, or ends the attempt `rejected` (the tree
// breaks a rule) or `fault` (git or the repository failed). With --check it recomputes both
// files, never writing them, and reports whether the retained ones match (size and sha256).

import { join } from 'node:path'
import {
  EXIT, faultPoint, finishAttempt, hasErrno, jsonFileBytes, loadAttempt, openAtomicFile, openStep, readFileNoFollow, sha256Hex, streamTreeArchive,
  assertValid, printableLine, readOutcome, sha256Text, toolError, treeManifestFor, TREE_MANIFEST, TREE_TAR,
  type Attempt, type ToolIo, type ToolResult, type StreamedTreeArchive,
} from '@repairline/core'
import type { CheckRecord, TreeManifest } from '@repairline/schemas'
import { readSourceListing } from './rules/source-repository.ts'
import { assertListingObeysRules } from './rules/tree-listing.ts'
import { verdictOf } from './rules/verdict.ts'

export interface ExtractTreeOptions {
  /** The attempt directory (absolute). */
  attempt: string
  /** Recompute and compare; never write. */
  check?: boolean
}

/** The files of the step, as they would be written (tree.tar's bytes went to the sink). */
interface ComputedTree {
  archive: StreamedTreeArchive
  manifest: TreeManifest
  /** tree-manifest.json's text: written, and hashed, as UTF-8 a piece at a time (sha256Text). */
  manifestText: string
}

/**
 * Everything extraction decides: rules, listing, streamed and rehashed blobs. `sink` takes
 * tree.tar's bytes in order while git works (writeTree's temp file; --check only hashes).
 */
async function computeTree (attempt: Attempt, sink: (bytes: Buffer) => void): Promise<ComputedTree> {
  const { source_root: root, source_sha: sha } = attempt.config
  const listing = await readSourceListing(root, sha)
  // cat-file's output is spooled to an unnamed O_TMPFILE in the attempt directory: on the
  // filesystem that will hold tree.tar, and never linked, so --check still writes no file.
  // The path rules run while git works; nothing git wrote is read unless they pass.
  const archive = await streamTreeArchive(root, listing, sink, { spool: attempt.dir, whileGitRuns: () => assertListingObeysRules(listing, attempt.dir) })
  const manifest = treeManifestFor(archive, attempt.key, sha)
  return { archive, manifest, manifestText: jsonFileBytes(manifest) }
}

export async function extractTree (o: ExtractTreeOptions, io: ToolIo): Promise<ToolResult> {
  return o.check === true ? await checkTree(o.attempt, io) : await writeTree(o.attempt, io)
}

async function writeTree (dir: string, io: ToolIo): Promise<ToolResult> {
  const step = openStep('extract-tree', dir, io, ['inputs/execution.json', 'admission.json', 'started.json'])
  if (step.done) return step.result
  const { attempt } = step
  const stateRoot = attempt.stateRoot
  // tree.tar is written while git works, into a temp file that only a complete, verified
  // archive replaces tree.tar with; a crash leaves the temp file, never a partial tree.tar.
  const tarFile = openAtomicFile(join(attempt.dir, TREE_TAR), { stateRoot })
  let tree: ComputedTree
  try {
    tree = await computeTree(attempt, bytes => { tarFile.write(bytes) })
  } catch (e) {
    tarFile.discard()
    const v = verdictOf(e)
    if (v === undefined) throw e
    const result = finishAttempt('extract-tree', attempt, io, { outcome: v.outcome, code: v.code, message: v.message })
    // The outcome is durable; the error record tells a reader of stdout which rule decided it.
    io.out.write({ v: 1, kind: 'error', code: v.code, message: oneLine(v.message), ...(v.path === undefined || v.path === '' ? {} : { path: v.path.slice(0, 4096) }) })
    io.stderr.write(`extract-tree: ${v.outcome}: ${v.code}: ${oneLine(v.message)}\n`)
    return result
  }
  // tree.tar first, the manifest last: a step that finds the manifest finds its archive too.
  tarFile.commit()
  faultPoint(io.env, 'extraction')
  // Validated, then the very bytes --check and the tree record hash are written.
  assertValid('tree-manifest', tree.manifest, `refusing to write ${TREE_MANIFEST}`, 'INTERNAL')
  const manifestFile = openAtomicFile(join(attempt.dir, TREE_MANIFEST), { stateRoot })
  let written: { sha256: string, bytes: number }
  try {
    written = sha256Text(tree.manifestText, piece => { manifestFile.write(piece) })
  } catch (e) {
    manifestFile.discard()
    throw e
  }
  manifestFile.commit()
  io.out.write({
    v: 1,
    kind: 'tree',
    source_sha: tree.manifest.source_sha,
    entries: tree.manifest.entry_count,
    bytes: tree.manifest.total_bytes,
    tar_bytes: tree.manifest.tar_bytes,
    tar_sha256: tree.manifest.tar_sha256,
    manifest_sha256: written.sha256,
  })
  io.stderr.write(`extract-tree: extracted ${tree.manifest.entry_count} files (${tree.manifest.total_bytes} bytes) at ${tree.manifest.source_sha.slice(0, 12)} into ${attempt.dir}/${TREE_TAR}\n`)
  return { exit: EXIT.OK }
}

/** The retained bytes of an attempt file, or undefined when it does not exist. */
function retained (path: string): Buffer | undefined {
  try {
    return readFileNoFollow(path, 512 << 20)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined
    if (hasErrno(e, 'ELOOP')) throw toolError('STATE_UNSAFE', `${path} is a symlink`, { path })
    throw e
  }
}

/** The check of one file: the retained bytes against the recomputed file's size and sha256. */
function checkRecord (file: string, kept: Buffer | undefined, now: { bytes: number, sha256: string }): CheckRecord {
  const retainedSha256 = kept === undefined ? undefined : sha256Hex(kept)
  return {
    v: 1,
    kind: 'check',
    file,
    match: kept !== undefined && kept.length === now.bytes && retainedSha256 === now.sha256,
    ...(retainedSha256 === undefined ? {} : { retained_sha256: retainedSha256 }),
    recomputed_sha256: now.sha256,
  }
}

/**
 * --check: recomputes tree.tar and tree-manifest.json from the repository and compares them
 * with the retained files. Takes no lock and writes nothing, so it also audits a sealed
 * attempt. Exit 0 when both match, 1 when either differs or is missing; a tree that now
 * breaks a rule, or git failing, is an error with its own code and exit status.
 */
async function checkTree (dir: string, io: ToolIo): Promise<ToolResult> {
  const attempt = loadAttempt(dir)
  io.out.write({ v: 1, kind: 'attempt', path: attempt.dir, key: attempt.key })
  // An outcome.json copied from another attempt is refused here as by every step (65).
  readOutcome(attempt.dir, attempt.key)
  const keptTar = retained(join(attempt.dir, TREE_TAR))
  const keptManifest = retained(join(attempt.dir, TREE_MANIFEST))
  // The archive is recomputed without being held or written: its digest is what is compared.
  const tree = await computeTree(attempt, () => {})
  const records = [
    checkRecord(TREE_TAR, keptTar, { bytes: tree.archive.tarBytes, sha256: tree.archive.tarSha256 }),
    checkRecord(TREE_MANIFEST, keptManifest, sha256Text(tree.manifestText)),
  ]
  for (const r of records) {
    io.out.write(r)
    io.stderr.write(`extract-tree: check: ${r.file} ${r.match ? 'matches' : r.retained_sha256 === undefined ? 'is missing' : `differs (retained ${r.retained_sha256}, recomputed ${r.recomputed_sha256 ?? '-'})`}\n`)
  }
  return { exit: records.every(r => r.match) ? EXIT.OK : EXIT.NO }
}

const oneLine = (s: string): string => printableLine(s, 8000)
