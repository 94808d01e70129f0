// Building tree.tar and tree-manifest.json from a commit (DESIGN §8, §14). The listing
// from `ls-tree -r -z --long` (core's listTree) fixes every path, mode and size first; the
// bounds and path rules are checked on it again here, so nothing unchecked is ever read.
// Then ONE hermetic `git cat-file --batch --buffer` streams every blob, in archive order,
// straight into its final place in a single preallocated buffer (the archive's size is known
// from the listing). Each blob is rehashed as soon as its last byte arrives —
// sha1("blob <n>\0" + bytes) must equal its id, else TREE_OBJECT_MISMATCH — and its sha256
// is taken at the same time. Never `git archive` (export attributes, export-subst) and never
// the working tree: uncommitted and untracked files cannot reach the archive.

import { hash } from 'node:crypto'
import type { TreeManifest, TreeManifestEntry } from '@repairline/schemas'
import { toolError } from '../errors.ts'
import { gitStreaming } from '../git.ts'
import { assertNoViolations, type TreeEntry, type TreeViolation } from '../tree.ts'
import { boundViolations } from '../tree-rules/bounds.ts'
import { compareUtf8 } from '../tree-rules/collisions.ts'
import { entryKindViolation } from '../tree-rules/entry-kind.ts'
import { CatFileBatchParser } from './cat-file-batch.ts'
import { tarLayout, writeEntryHeaders, type FileMode } from './tar-format.ts'

/** An archive built in memory, not yet written anywhere. */
export interface TreeArchive {
  /** The exact bytes of tree.tar. */
  tar: Buffer
  /** One per file, in archive order (sorted by path bytes). */
  entries: TreeManifestEntry[]
  /** Summed file bytes. */
  totalBytes: number
  tarSha256: string
}

/** Sorts entries by the bytes of their UTF-8 paths (not by UTF-16 code units). */
export function sortByPathBytes<T extends { path: string }> (entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => compareUtf8(a.path, b.path))
}

/** A listing as core's listTree returns it: entries and every violation found in them. */
export interface CheckedListing {
  entries: readonly TreeEntry[]
  violations: readonly TreeViolation[]
}

const MAX_STDERR = 64 << 10

/**
 * Streams every listed blob of `sourceRoot` through one `cat-file --batch --buffer` and
 * returns the deterministic archive. `listing` is listTree's result for the commit to
 * extract: any violation it carries is thrown (its TREE_* code), and the bounds and entry
 * kinds are recounted from the entries themselves, before any blob is requested. Throws TREE_OBJECT_MISMATCH for a blob that does not hash to its id or whose
 * size or type differs from the listing, GIT_FAILED when git fails or the store is incomplete.
 */
export async function buildTreeArchive (sourceRoot: string, listing: CheckedListing): Promise<TreeArchive> {
  assertNoViolations(listing.violations)
  let count = 0
  let bytes = 0
  for (const e of listing.entries) {
    const kind = entryKindViolation(e)
    if (kind !== undefined) throw toolError(kind.code, kind.message, { path: e.path })
    if (!Number.isSafeInteger(e.size) || e.size < 0) throw toolError('INTERNAL', `${e.path}: listed without a size`)
    count++
    bytes += e.size
  }
  const bound = boundViolations(count, bytes)[0]
  if (bound !== undefined) throw toolError(bound.code, bound.message)
  const files = sortByPathBytes(listing.entries).map(e => ({ path: e.path, mode: e.mode as FileMode, size: e.size, oid: e.oid }))
  const layout = tarLayout(files)
  const tar = Buffer.alloc(layout.size)
  const entries: TreeManifestEntry[] = new Array<TreeManifestEntry>(files.length)
  let written = 0
  const parser = new CatFileBatchParser(files, {
    body (i, piece) {
      const slot = layout.slots[i]
      if (slot === undefined) throw toolError('INTERNAL', `no slot for object ${i}`)
      piece.copy(tar, slot.data + written)
      written += piece.length
    },
    end (i) {
      const f = files[i]
      const slot = layout.slots[i]
      if (f === undefined || slot === undefined) throw toolError('INTERNAL', `no slot for object ${i}`)
      const content = tar.subarray(slot.data, slot.data + f.size)
      // The blob's git header goes, for a moment, into the bytes just before its content
      // (its tar header block, written for real right after), so sha1 runs over one
      // contiguous region without copying the content.
      const gitHeader = Buffer.from(`blob ${f.size}\0`, 'latin1')
      gitHeader.copy(tar, slot.data - gitHeader.length)
      const oid = hash('sha1', tar.subarray(slot.data - gitHeader.length, slot.data + f.size), 'hex')
      if (oid !== f.oid) {
        throw toolError('TREE_OBJECT_MISMATCH', `${f.path}: blob ${f.oid} hashes to ${oid}: the object store was tampered with`, { path: f.path, hint: 'run git fsck in source_root; repairline never extracts from a store whose objects do not match their ids' })
      }
      entries[i] = { path: f.path, mode: f.mode, blob: f.oid, sha256: hash('sha256', content, 'hex'), bytes: f.size }
      writeEntryHeaders(tar, slot, f)
      written = 0
    },
  })
  if (files.length > 0) await streamBlobs(sourceRoot, files.map(f => f.oid), parser)
  let totalBytes = 0
  for (const f of files) totalBytes += f.size
  return { tar, entries, totalBytes, tarSha256: hash('sha256', tar, 'hex') }
}

/** Runs one hermetic `cat-file --batch --buffer`, asks for `oids` in order, feeds the parser. */
async function streamBlobs (sourceRoot: string, oids: readonly string[], parser: CatFileBatchParser): Promise<void> {
  const proc = gitStreaming(sourceRoot, ['cat-file', '--batch', '--buffer'])
  const { stdin, stdout, stderr } = proc
  if (stdin === null || stdout === null || stderr === null) throw toolError('INTERNAL', 'cat-file was started without pipes')
  // git exiting early closes its stdin: the exit status reports it, not an EPIPE here.
  stdin.on('error', () => {})
  let errText = ''
  stderr.on('data', (b: Buffer) => { if (errText.length < MAX_STDERR) errText += b.toString('utf8') })
  stdin.end(oids.join('\n') + '\n')
  let failure: unknown
  try {
    for await (const chunk of stdout) parser.push(chunk as Buffer)
  } catch (e) {
    failure = e
    proc.kill('SIGKILL')
  }
  const r = await proc
  if (failure !== undefined) throw failure
  if (r.exitCode !== 0) {
    const first = errText.trim().split('\n')[0] ?? ''
    throw toolError('GIT_FAILED', `git cat-file --batch failed (${r.signal ?? `exit ${String(r.exitCode)}`})${first === '' ? '' : `: ${first}`}`)
  }
  parser.finish()
}

/** The manifest of an archive for an attempt. Deterministic: same archive, same bytes. */
export function treeManifestFor (archive: TreeArchive, attemptKey: string, sourceSha: string): TreeManifest {
  return {
    v: 1,
    attempt_key: attemptKey,
    source_sha: sourceSha,
    entries: archive.entries,
    entry_count: archive.entries.length,
    total_bytes: archive.totalBytes,
    tar_sha256: archive.tarSha256,
    tar_bytes: archive.tar.length,
  }
}
