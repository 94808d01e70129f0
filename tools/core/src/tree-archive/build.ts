// Building tree.tar and tree-manifest.json from a commit (DESIGN §8, §14). The listing
// from `ls-tree -r -z --long` fixes every path, mode and size first; the bounds are checked
// on it before git is started, and every path rule before any of git's output is read.
// Then ONE hermetic `git cat-file --batch --buffer` streams every blob, in archive order,
// and each body lands straight in its final place in the archive (every offset is known from
// the listing): in one buffer of the whole archive (buildTreeArchive), or in a window of a
// few MiB that slides over it (streamTreeArchive). Each blob is rehashed as soon as its last
// byte is in place — sha1("blob <n>\0" + bytes) must equal its id, else
// TREE_OBJECT_MISMATCH — and its sha256 is taken at the same time. Each finished stretch of
// the archive is hashed, and given to the caller's sink (tree.tar's temp file), while git
// still works.
//
// By default git writes its stream into a spool: an unnamed O_TMPFILE (never linked into any
// directory, gone when closed), whose records are scattered into the archive by readv, up to
// 1,024 records a call, while git writes (readSpoolInPlace). Reading the same 17 MB from a pipe costs Node ~10,000 small
// reads and, measured on the 20,000-file bench commit, roughly as much again as git's own
// work; the spool removes that. Where O_TMPFILE is not supported the pipe is used, with the
// generic parser (cat-file-batch.ts). Never `git archive` (export attributes, export-subst)
// and never the working tree: uncommitted and untracked files cannot reach the archive.

import { createHash, hash } from 'node:crypto'
import { closeSync, fstatSync, readSync, readvSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { TreeManifest, TreeManifestEntry } from '@repairline/schemas'
import { toolError } from '../errors.ts'
import { GIT_TIMEOUT_MS, gitFailure, gitStreaming, gitToFd } from '../git.ts'
import type { StreamExit, ToFdResult } from '../spawn.ts'
import { assertNoViolations, type TreeEntry, type TreeViolation } from '../tree.ts'
import { boundViolations } from '../tree-rules/bounds.ts'
import { compareUtf8 } from '../tree-rules/collisions.ts'
import { entryKindViolation } from '../tree-rules/entry-kind.ts'
import { CatFileBatchParser } from './cat-file-batch.ts'
import { openUnnamedFile, unnamedFileWith } from '../unnamed-file.ts'
import { BLOCK, padded, tarLayout, writeEntryHeaders, type FileMode, type TarLayout } from './tar-format.ts'

/** An archive built in memory, not yet written anywhere. */
export interface TreeArchive {
  /** The exact bytes of tree.tar. */
  tar: Buffer
  /** One per file, in archive order (sorted by path bytes). */
  entries: TreeManifestEntry[]
  /** Summed file bytes. */
  totalBytes: number
  /** The archive's size. */
  tarBytes: number
  tarSha256: string
}

/** An archive whose bytes went to a sink as they were built. */
export type StreamedTreeArchive = Omit<TreeArchive, 'tar'>

/** Sorts entries by the bytes of their UTF-8 paths (not by UTF-16 code units). */
export function sortByPathBytes<T extends { path: string }> (entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => compareUtf8(a.path, b.path))
}

export interface BuildOptions {
  /**
   * Directory for the unnamed spool of cat-file's output (default: the OS temp directory);
   * `false` streams through a pipe instead.
   */
  spool?: string | false
  /**
   * The caller's own checks of the listing (extract-tree's path rules), run once git is
   * working and before any of its output is read; what it throws ends the build, git's
   * output unread.
   */
  whileGitRuns?: () => void
  /**
   * Where cat-file's request may be written, in order (default: /dev/shm, then the OS temp
   * directory); when none takes it, it is piped.
   */
  requestDirs?: readonly string[]
}

export interface StreamArchiveOptions extends BuildOptions {
  /** Bytes of archive held at once (default WINDOW_BYTES; never less than the largest entry needs). */
  windowBytes?: number
}

/** A listing as core's listTree returns it: entries and every violation found in them. */
export interface CheckedListing {
  entries: readonly TreeEntry[]
  violations: readonly TreeViolation[]
}

const MAX_STDERR = 64 << 10

/**
 * Streams every listed blob of `sourceRoot` through one `cat-file --batch --buffer` and
 * returns the deterministic archive. `listing` is the commit's listing (listTree's, or
 * readTreeListing's with the rules left to `whileGitRuns`): any violation it carries is
 * thrown (its TREE_* code); the bounds are recounted from the entries before git is started,
 * and the entry kinds and order before any of git's output is read. Throws
 * TREE_OBJECT_MISMATCH for a blob that does not hash to its id or whose size or type differs
 * from the listing, GIT_FAILED when git fails or the store is incomplete.
 */
export async function buildTreeArchive (sourceRoot: string, listing: CheckedListing, o: BuildOptions = {}): Promise<TreeArchive> {
  const { archive, window } = await archiveTree(sourceRoot, listing, o, undefined)
  return { ...archive, tar: window }
}

/**
 * buildTreeArchive without holding the archive: its bytes go to `sink` in order, each
 * stretch once it is final, while git still works (extract-tree writes them to tree.tar's
 * temp file), through a window of about WINDOW_BYTES that slides over the archive. The
 * bytes the sink gets are a view of that window: valid only during the call (copy to keep).
 * What the sink throws ends the build. Same checks, same errors, the same bytes.
 */
export async function streamTreeArchive (sourceRoot: string, listing: CheckedListing, sink: (bytes: Buffer) => void, o: StreamArchiveOptions = {}): Promise<StreamedTreeArchive> {
  const windowBytes = o.windowBytes ?? WINDOW_BYTES
  if (!Number.isSafeInteger(windowBytes) || windowBytes < 0) throw toolError('INTERNAL', `windowBytes must be a non-negative integer, got ${String(windowBytes)}`)
  return (await archiveTree(sourceRoot, listing, o, { sink, windowBytes })).archive
}

/**
 * Bytes of archive a streamed build holds at once. Holding all of it (33 MB for the bench
 * commit) cost ~8,000 first-touched pages, and the external memory made V8 run a
 * mark-compact and an extra scavenge (traced) in the middle of the build.
 */
const WINDOW_BYTES = 4 << 20

async function archiveTree (sourceRoot: string, listing: CheckedListing, o: BuildOptions, stream: { sink: (bytes: Buffer) => void, windowBytes: number } | undefined): Promise<{ archive: StreamedTreeArchive, window: Buffer }> {
  assertNoViolations(listing.violations)
  const plan = planRequest(listing.entries)
  const bound = boundViolations(plan.count, plan.bytes)[0]
  if (bound !== undefined) throw toolError(bound.code, bound.message)
  // git starts first: its work overlaps with the caller's rules and laying out the archive.
  const spool = plan.request === '' || o.spool === false ? undefined : startSpool(sourceRoot, plan, o.spool ?? tmpdir(), o.requestDirs ?? ['/dev/shm', tmpdir()])
  try {
    o.whileGitRuns?.()
    // Every entry a regular file with a size (the first that is not was found by planRequest),
    // then all in canonical order (a canonical listing is already in archive order; anything
    // else is TREE_MALFORMED).
    const listed = listing.entries
    const refused = plan.firstRefused === undefined ? undefined : listed[plan.firstRefused]
    if (refused !== undefined) {
      const kind = entryKindViolation(refused)
      if (kind !== undefined) throw toolError(kind.code, kind.message, { path: refused.path })
      throw toolError('INTERNAL', `${refused.path}: listed without a size`)
    }
    let unordered: number | undefined
    for (let i = 1; i < listed.length && unordered === undefined; i++) {
      if (compareUtf8((listed[i - 1] as TreeEntry).path, (listed[i] as TreeEntry).path) >= 0) unordered = i
    }
    if (unordered !== undefined) {
      const a = listed[unordered - 1] as TreeEntry
      const b = listed[unordered] as TreeEntry
      throw toolError('TREE_MALFORMED', `${b.path} is listed after ${a.path}: the listing is not in git's canonical order`, { path: b.path })
    }
  } catch (e) {
    if (spool !== undefined) await abandonSpool(spool)
    throw e
  }
  // Every entry passed entryKindViolation, whose regular files are exactly the FileModes.
  const files = listing.entries as ReadonlyArray<TreeEntry & { mode: FileMode }>
  const layout = tarLayout(files)
  /** The end of the archive bytes entry j touches: its padded content, one past it for the record's newline, the end blocks after the last. */
  const reachOf = (j: number): number => {
    const f = files[j]
    if (f === undefined) throw toolError('INTERNAL', `no slot for object ${j}`)
    const data = layout.data[j] as number
    return j === files.length - 1 ? layout.size : Math.max(data + padded(f.size), data + f.size + 1)
  }
  let windowBytes = layout.size
  if (stream !== undefined) {
    // At least the end blocks (an archive of no file is only those), and every entry whole.
    windowBytes = Math.min(layout.size, Math.max(stream.windowBytes, 2 * BLOCK))
    for (let j = 0; j < layout.start.length; j++) windowBytes = Math.max(windowBytes, reachOf(j) - (layout.start[j] as number))
  }
  const tarHash = createHash('sha256')
  const window = new ArchiveWindow(Buffer.alloc(windowBytes), bytes => {
    tarHash.update(bytes)
    stream?.sink(bytes)
  })
  const entries: TreeManifestEntry[] = new Array<TreeManifestEntry>(files.length)
  // The archive's digest is taken, and its bytes go to the sink, in flight while git still
  // works: blobs finish in archive order, and once blob i is finished nothing before the end
  // of its content changes again (later records land at later offsets), so each finished
  // stretch is flushed once, when at least FLUSH_STEP bytes have gathered (one digest update
  // per blob was 20,000 calls), or when the window moves on.
  let finishedTo = 0
  let finished = 0
  /** Blob i's content is in place: rehash it, record it, write its tar header, flush the archive so far. */
  const finishBlob = (i: number): void => {
    const f = files[i]
    if (f === undefined) throw toolError('INTERNAL', `no slot for object ${i}`)
    const at = layout.data[i] as number
    window.reach(layout.start[i] as number, reachOf(i))
    const { buf, start } = window
    const data = at - start
    const content = buf.subarray(data, data + f.size)
    // The blob's git header goes, for a moment, into the bytes just before its content
    // (its tar header block, written for real right after), so sha1 runs over one
    // contiguous region without copying the content.
    const headerStart = writeGitBlobHeader(buf, data, f.size)
    const oid = hash('sha1', buf.subarray(headerStart, data + f.size), 'hex')
    if (oid !== f.oid) {
      throw toolError('TREE_OBJECT_MISMATCH', `${f.path}: blob ${f.oid} hashes to ${oid}: the object store was tampered with`, { path: f.path, hint: 'run git fsck in source_root; repairline never extracts from a store whose objects do not match their ids' })
    }
    entries[i] = { path: f.path, mode: f.mode, blob: f.oid, sha256: hash('sha256', content, 'hex'), bytes: f.size }
    writeEntryHeaders(buf, layout, i, f, start)
    if (at < finishedTo) throw toolError('INTERNAL', `object ${i} finished out of archive order`)
    finishedTo = at + f.size
    if (finishedTo - window.flushedTo >= FLUSH_STEP) window.flush(finishedTo)
    finished++
  }
  if (spool !== undefined) {
    await readSpoolInPlace(spool, files, layout, window, reachOf, finishBlob)
  } else if (files.length > 0) {
    let written = 0
    const parser = new CatFileBatchParser(files, {
      body (i, chunk, start, end) {
        if (i >= layout.start.length) throw toolError('INTERNAL', `no slot for object ${i}`)
        if (written === 0) window.reach(layout.start[i] as number, reachOf(i))
        chunk.copy(window.buf, (layout.data[i] as number) - window.start + written, start, end)
        written += end - start
      },
      end (i) {
        finishBlob(i)
        written = 0
      },
    })
    await streamBlobs(sourceRoot, plan.request, parser)
  }
  let totalBytes = 0
  for (const f of files) totalBytes += f.size
  if (finished !== files.length) throw toolError('INTERNAL', `${files.length - finished} objects were never finished`)
  window.flush(layout.size)
  return { archive: { entries, totalBytes, tarBytes: layout.size, tarSha256: tarHash.digest('hex') }, window: window.buf }
}

/**
 * The part of the archive being filled in: archive bytes [start, start + buf.length). Built
 * in memory it is the whole archive and never moves; streamed, it slides forward, and every
 * byte before it is final and already flushed (hashed and given to the sink).
 */
class ArchiveWindow {
  /** The archive offset of buf[0]. */
  start = 0
  /** Archive bytes before this one were flushed. */
  flushedTo = 0
  /** Window bytes written since the window last moved are all below this. */
  private used = 0

  constructor (readonly buf: Buffer, private readonly out: (bytes: Buffer) => void) {}

  /** Whether archive bytes up to `to` lie inside the window as it is. */
  fits (to: number): boolean {
    return to <= this.start + this.buf.length
  }

  /**
   * Makes archive bytes [from, to) addressable. When `to` lies past the window, everything
   * before `from` must be final: it is flushed and the window moves to start at `from`, zeroed.
   */
  reach (from: number, to: number): void {
    if (!this.fits(to)) {
      if (from < this.flushedTo || to - from > this.buf.length) throw toolError('INTERNAL', `the archive window cannot move to [${from}, ${to})`)
      this.flush(from)
      this.buf.fill(0, 0, this.used)
      this.start = from
      this.used = 0
    }
    this.used = Math.max(this.used, to - this.start)
  }

  /** Flushes archive bytes [flushedTo, to). */
  flush (to: number): void {
    if (to <= this.flushedTo) return
    if (to - this.start > this.buf.length) throw toolError('INTERNAL', `archive bytes up to ${to} lie past the window [${this.start}, ${this.start + this.buf.length})`)
    this.out(this.buf.subarray(this.flushedTo - this.start, to - this.start))
    this.flushedTo = to
  }
}

/** Bytes of finished archive gathered before they are hashed and given to the sink. */
const FLUSH_STEP = 256 << 10

/** What cat-file is asked for, worked out in one pass over the listing before git starts. */
interface RequestPlan {
  /** Blobs and their bytes, counted as checkTreeListing counts them (the bounds). */
  count: number
  bytes: number
  /**
   * cat-file's input: the regular files' ids, one per line, in archive order ('' for none).
   * Anything else is refused before a byte of git's output is read, and never asked for.
   */
  request: string
  /** The exact length of cat-file's output for that input: "<oid> blob <size>\n", the content, "\n". */
  expected: number
  /** The first entry that is not a regular file with a size (refused once the caller's rules pass). */
  firstRefused: number | undefined
}

function planRequest (entries: readonly TreeEntry[]): RequestPlan {
  let count = 0
  let bytes = 0
  let expected = 0
  let firstRefused: number | undefined
  const oids: string[] = []
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry
    if (e.type === 'blob' && e.size >= 0) {
      count++
      bytes += e.size
    }
    if (entryKindViolation(e) !== undefined) {
      firstRefused ??= i
      continue
    }
    if (!Number.isSafeInteger(e.size) || e.size < 0) firstRefused ??= i
    oids.push(e.oid)
    expected += e.oid.length + ' blob '.length + String(e.size).length + 1 + e.size + 1
  }
  return { count, bytes, request: oids.length === 0 ? '' : `${oids.join('\n')}\n`, expected, firstRefused }
}

interface Spool { fd: number, dir: string, child: Promise<ToFdResult>, expected: number }

/**
 * Starts one hermetic `cat-file --batch --buffer` with its stdout on an unnamed O_TMPFILE in
 * `dir`, or returns undefined when `dir` cannot hold one (the caller then streams).
 * `expected` is the exact output the listing implies.
 */
function startSpool (sourceRoot: string, plan: RequestPlan, dir: string, requestDirs: readonly string[]): Spool | undefined {
  let fd: number
  try {
    fd = openUnnamedFile(dir)
  } catch {
    return undefined
  }
  const request = Buffer.from(plan.request, 'latin1')
  // The request (820 KB for 20,000 ids) from an unnamed file in the first of requestDirs that
  // takes it (/dev/shm keeps it in memory), else piped. A pipe holds 64 KiB, and this process
  // refills it only when its event loop turns, which it does not while it checks the rules or
  // reads a run of records: measured on the 20,000-file bench commit, git waited for its input
  // and its part took ~520 ms instead of ~380. Never the attempt's filesystem: its space is
  // for the spool and the archive.
  const requestFd = unnamedFileWith(request, requestDirs)
  const child = gitToFd(sourceRoot, ['cat-file', '--batch', '--buffer'], requestFd ?? request, fd)
  return { fd, dir, child: requestFd === undefined ? child : child.finally(() => { closeSync(requestFd) }), expected: plan.expected }
}

/** Waits for git to finish its bounded work (no child outlives the step) and drops its output unread. */
async function abandonSpool (spool: Spool): Promise<void> {
  try {
    await spool.child
  } finally {
    closeSync(spool.fd)
  }
}

/** The header line cat-file prints for an expected blob. */
function batchHeader (f: { oid: string, size: number }): string {
  return `${f.oid} blob ${f.size}\n`
}

/**
 * Writes git's blob header ("blob <size>" and a NUL) into `buf` so that it ends at `end`;
 * returns where it starts. Byte by byte: 20,000 Buffer.write calls cost ~18 ms (profiled).
 */
function writeGitBlobHeader (buf: Buffer, end: number, size: number): number {
  let at = end - 1
  buf[at] = 0
  let n = size
  do {
    buf[--at] = 0x30 + (n % 10)
    n = Math.floor(n / 10)
  } while (n > 0)
  buf[--at] = 0x20
  for (let k = BLOB.length - 1; k >= 0; k--) buf[--at] = BLOB[k] as number
  return at
}

const BLOB = Buffer.from('blob', 'latin1')

/**
 * Follows the spool while git writes it and reads it straight into the archive. The listing
 * fixes every record's length ("<oid> blob <size>\n", the content, "\n"), so the complete
 * records git has written so far are read with one scattering readv per READV_RECORDS of
 * them, each to where its content belongs: its header line lands in the bytes just before
 * the content (the blob's tar header block, written over by `finishBlob`) and its newline
 * just after (zeroed again). Each header line and newline is then compared with what the
 * listing implies; at the first difference, or when git exits before every record arrived,
 * `spoolFailure` reads the rest with the generic parser to say exactly what went wrong.
 * More output than the listing implies is never read beyond a header line.
 */
async function readSpoolInPlace (spool: Spool, files: ReadonlyArray<{ oid: string, size: number }>, layout: TarLayout, window: ArchiveWindow, reachOf: (j: number) => number, finishBlob: (i: number) => void): Promise<void> {
  const { fd, expected } = spool
  let exited = false
  const child = spool.child.then(r => { exited = true; return r })
  const reader = new SpoolReader(fd, files, layout, window, reachOf, finishBlob)
  try {
    for (;;) {
      const last = exited
      const size = fstatSync(fd).size
      if (size > expected || !reader.readTo(size)) return await spoolFailure(spool, await child, files.slice(reader.next), reader.pos, expected)
      if (reader.next === files.length || last) break
      await new Promise(resolve => setTimeout(resolve, 1))
    }
    const r = await child
    // Every record matched; git may still have written more before it exited.
    if (reader.next < files.length || r.exitCode !== 0 || fstatSync(fd).size !== expected) return await spoolFailure(spool, r, files.slice(reader.next), reader.pos, expected)
  } catch (e) {
    // git's remaining work is bounded by the listing: let it finish so no child outlives the step.
    await child
    throw e
  } finally {
    closeSync(fd)
  }
}

/**
 * readSpoolInPlace's synchronous part: the records git has written so far, read into the
 * archive and finished. Kept out of the async function: V8 optimizes a hot loop inside an
 * async function as the whole resumable function with everything inlined into it, which
 * took a background compiler thread 40–60 ms per compile on the bench commit, CPU taken
 * from git on a 2-core machine.
 */
class SpoolReader {
  /** Every record's expected header line, all in one buffer (no string per record to compare). */
  private readonly heads: Buffer
  /** Where record j's header line starts in `heads` (j = files.length: its end). */
  private readonly headAt: Float64Array
  /** The next record to read. */
  next = 0
  /** Its offset in the spool. */
  pos = 0

  constructor (
    private readonly fd: number,
    private readonly files: ReadonlyArray<{ oid: string, size: number }>,
    private readonly layout: TarLayout,
    private readonly window: ArchiveWindow,
    private readonly reachOf: (j: number) => number,
    private readonly finishBlob: (i: number) => void,
  ) {
    const headText = files.map(batchHeader)
    this.heads = Buffer.from(headText.join(''), 'latin1')
    this.headAt = new Float64Array(files.length + 1)
    for (let j = 0; j < files.length; j++) this.headAt[j + 1] = (this.headAt[j] as number) + (headText[j] as string).length
  }

  /**
   * Reads and finishes every complete record within the spool's first `size` bytes; false at
   * the first record that is not what the listing implies (`next` and `pos` are where it starts).
   */
  readTo (size: number): boolean {
    const { files, window, heads, headAt } = this
    const { start: starts, data: datas } = this.layout
    while (this.next < files.length) {
      // The next run of complete records, each as the region of the archive it fills.
      const regions: Buffer[] = []
      let end = this.pos
      for (let j = this.next; j < files.length && regions.length < READV_RECORDS; j++) {
        const f = files[j]
        if (f === undefined || j >= datas.length) throw toolError('INTERNAL', `no slot for object ${j}`)
        const headLength = (headAt[j + 1] as number) - (headAt[j] as number)
        const record = headLength + f.size + 1
        if (end + record > size) break
        // A run of records is read into the window as it is; the window moves on between runs.
        const reach = this.reachOf(j)
        if (regions.length > 0 && !window.fits(reach)) break
        window.reach(starts[j] as number, reach)
        const at = (datas[j] as number) - window.start - headLength
        regions.push(window.buf.subarray(at, at + record))
        end += record
      }
      if (regions.length === 0) return true
      if (readvSync(this.fd, regions, this.pos) !== end - this.pos) return false
      for (const region of regions) {
        const i = this.next
        const f = files[i]
        if (f === undefined || i >= datas.length) throw toolError('INTERNAL', `no slot for object ${i}`)
        const headStart = headAt[i] as number
        const headEnd = headAt[i + 1] as number
        const { buf } = window
        const data = (datas[i] as number) - window.start
        if (buf.compare(heads, headStart, headEnd, data - (headEnd - headStart), data) !== 0 || buf[data + f.size] !== 0x0a) return false
        buf[data + f.size] = 0
        this.finishBlob(i)
        this.pos += region.length
        this.next++
      }
    }
    return true
  }
}

/** Records per readv: Linux's IOV_MAX. */
const READV_RECORDS = 1024

/**
 * The spool differs from the listing from offset `pos` on (where `rest` was expected), or
 * git failed: throws what the generic parser finds in the remaining bytes (a missing object,
 * another type or size, a broken record), else git's own failure, else an early end. Reads
 * no further than a header line past the `expected` length: every record up to there was
 * checked, so a deviation shows within it.
 */
async function spoolFailure (spool: Spool, git: ToFdResult, rest: ReadonlyArray<{ oid: string, size: number }>, pos: number, expected: number): Promise<never> {
  const { fd } = spool
  const size = fstatSync(fd).size
  const tail = Buffer.allocUnsafe(Math.max(0, Math.min(size, expected + MAX_HEADER_LINE) - pos))
  if (tail.length > 0) readSync(fd, tail, 0, tail.length, pos)
  const parser = new CatFileBatchParser(rest, { body () {}, end () {} })
  parser.push(tail)
  if (git.exitCode !== 0) {
    // A spool that filled its filesystem is this step's write failing (73, the step can run
    // again), not the repository's fault; git's own message does not say which.
    const fs = statfsSync(spool.dir)
    const free = fs.bavail * fs.bsize
    if (size < expected && free < expected - size) {
      throw toolError('WRITE_FAILED', `cannot write git cat-file's output to its spool in ${spool.dir}: ${free} bytes free, ${expected - size} more needed (ENOSPC)`, { path: spool.dir })
    }
    // So is a spool past this process's file-size limit, which git inherits: it kills git.
    if (git.signal === 'SIGXFSZ') {
      throw toolError('WRITE_FAILED', `cannot write git cat-file's output to its spool in ${spool.dir}: git was stopped by the file size limit (SIGXFSZ)`, { path: spool.dir })
    }
    const first = git.stderr.toString('utf8').trim().split('\n')[0] ?? ''
    if (git.timedOut) throw toolError('GIT_FAILED', `git cat-file --batch failed: ${gitFailure(git)}`)
    throw toolError('GIT_FAILED', `git cat-file --batch failed (${git.spawnError ?? git.signal ?? `exit ${String(git.exitCode)}`})${first === '' ? '' : `: ${first}`}`)
  }
  if (size > expected) throw toolError('GIT_FAILED', `git cat-file --batch wrote ${size} bytes; the listing implies ${expected}`)
  parser.finish()
  throw toolError('GIT_FAILED', `git cat-file --batch: output differs from the listing at byte ${pos}`)
}

/** More than the longest header line the parser accepts. */
const MAX_HEADER_LINE = 512

/** Runs one hermetic `cat-file --batch --buffer`, asks for `oids` in order, feeds the parser through a pipe. */
async function streamBlobs (sourceRoot: string, oids: string, parser: CatFileBatchParser): Promise<void> {
  const proc = gitStreaming(sourceRoot, ['cat-file', '--batch', '--buffer'])
  const { stdin, stdout, stderr } = proc
  if (stdin === null || stdout === null || stderr === null) throw toolError('INTERNAL', 'cat-file was started without pipes')
  // git exiting early closes its stdin: the exit status reports it, not an EPIPE here.
  stdin.on('error', () => {})
  let errText = ''
  stderr.on('data', (b: Buffer) => { if (errText.length < MAX_STDERR) errText += b.toString('utf8') })
  stdin.end(oids)
  // As every other git command: a git that blocks (a FIFO among its objects) is killed.
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; proc.kill('SIGKILL') }, GIT_TIMEOUT_MS)
  let failure: unknown
  let r: StreamExit
  try {
    try {
      for await (const chunk of stdout) parser.push(chunk as Buffer)
    } catch (e) {
      failure = e
      proc.kill('SIGKILL')
    }
    r = await proc
  } finally {
    clearTimeout(timer)
  }
  if (timedOut) throw toolError('GIT_FAILED', `git cat-file --batch failed: ${gitFailure({ ...r, stderr: Buffer.from(errText), timedOut })}`)
  if (failure !== undefined) throw failure
  if (r.exitCode !== 0) {
    const first = errText.trim().split('\n')[0] ?? ''
    throw toolError('GIT_FAILED', `git cat-file --batch failed (${r.spawnError ?? r.signal ?? `exit ${String(r.exitCode)}`})${first === '' ? '' : `: ${first}`}`)
  }
  parser.finish()
}

/** The manifest of an archive for an attempt. Deterministic: same archive, same bytes. */
export function treeManifestFor (archive: StreamedTreeArchive, attemptKey: string, sourceSha: string): TreeManifest {
  return {
    v: 1,
    attempt_key: attemptKey,
    source_sha: sourceSha,
    entries: archive.entries,
    entry_count: archive.entries.length,
    total_bytes: archive.totalBytes,
    tar_sha256: archive.tarSha256,
    tar_bytes: archive.tarBytes,
  }
}
