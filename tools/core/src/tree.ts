// The tree at source_sha as `git ls-tree -r -z --long` lists it, and the bounds and path
// rules of DESIGN §8 checked from that listing alone — before any blob body is read. admit
// runs this cheap check so most unsafe trees are refused before the key is consumed;
// extract-tree runs it again and then rehashes every blob it streams.

import { isUtf8 } from 'node:buffer'
import { toolError, type ErrorCode } from './errors.ts'
import { closeSync, fstatSync, readSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { git, gitFailure, gitToFd } from './git.ts'
import { openUnnamedFileIn } from './unnamed-file.ts'
import { boundViolations, MAX_TREE_ENTRIES } from './tree-rules/bounds.ts'
import { PathCollisions } from './tree-rules/collisions.ts'
import { entryKindViolation } from './tree-rules/entry-kind.ts'
import { isInNodeModules } from './tree-rules/node-modules.ts'
import { unsafePathReason } from './tree-rules/path-safety.ts'

export { MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './tree-rules/bounds.ts'
export { compareUtf8, foldPath } from './tree-rules/collisions.ts'
export { isDotGitAlias, LONGEST_WORK_ROOT, MAX_COMPONENT_BYTES, MAX_PATH_BYTES, maxTreePathBytes, PATH_MAX, unsafePathReason } from './tree-rules/path-safety.ts'

export interface TreeEntry {
  /** Octal mode as git prints it: 100644 or 100755 for the files we accept. */
  mode: string
  type: string
  oid: string
  /** Blob size in bytes; -1 for entries without one (gitlinks). */
  size: number
  path: string
}

export interface TreeListing {
  entries: TreeEntry[]
  blobCount: number
  blobBytes: number
}

export interface TreeViolation { code: ErrorCode, path: string, message: string }

const SIZE = /^ *([0-9]{1,15})$/

/** Parses `ls-tree -r -z --long` output. Paths that are not valid UTF-8 become violations. */
export function parseLsTree (out: Buffer): { entries: TreeEntry[], violations: TreeViolation[] } {
  const parser = new LsTreeParser()
  parser.push(out)
  return parser.finish()
}

/**
 * Parses `ls-tree -r -z --long` output in pieces, as git writes it: each piece's complete
 * records when it comes, the same entries, violations and errors as the whole output at once.
 * A piece is not kept (its caller may reuse the buffer): only an unfinished record is copied.
 */
export class LsTreeParser {
  readonly entries: TreeEntry[] = []
  readonly violations: TreeViolation[] = []
  /** The bytes of a record whose NUL has not come yet. */
  private rest: Buffer | undefined

  /** Complete records parsed so far. */
  get records (): number {
    return this.entries.length + this.violations.length
  }

  push (piece: Buffer): void {
    const data = this.rest === undefined ? piece : Buffer.concat([this.rest, piece])
    const last = data.lastIndexOf(0)
    if (last === -1) {
      this.rest = Buffer.from(data)
      return
    }
    this.rest = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : undefined
    this.parse(data.subarray(0, last + 1))
  }

  /** The whole listing; a last record without its NUL is parsed too. */
  finish (): { entries: TreeEntry[], violations: TreeViolation[] } {
    if (this.rest !== undefined) this.parse(this.rest)
    this.rest = undefined
    return { entries: this.entries, violations: this.violations }
  }

  private parse (out: Buffer): void {
    // Almost always the whole stretch is valid UTF-8: decode it once and slice strings, which
    // is several times faster than decoding records one by one.
    if (isUtf8(out)) {
      parseRecords(out.toString('utf8'), this.entries)
      return
    }
    let start = 0
    while (start < out.length) {
      let end = out.indexOf(0, start)
      if (end === -1) end = out.length
      const raw = out.subarray(start, end)
      start = end + 1
      const tab = raw.indexOf(9)
      if (tab !== -1 && !isUtf8(raw.subarray(tab + 1))) {
        const shown = raw.subarray(tab + 1).toString('latin1')
        this.violations.push({ code: 'TREE_PATH_UNSAFE', path: shown, message: `path ${JSON.stringify(shown)} is not valid UTF-8` })
        continue
      }
      parseRecords(raw.toString('utf8'), this.entries)
    }
  }
}

/**
 * One record: <mode> SP <type> SP <oid> SP <size, padded> TAB <path>, then NUL (or the end).
 * Sticky: each match starts where the last record ended. One match per record instead of five
 * searches and three expressions: 20,000 records in a cold process in ~21 ms instead of ~25
 * (the same entries and the same refusals, compared on 300,000 generated listings).
 */
const RECORD = /([0-7]{5,6}) ([^ \t\0]*) ([0-9a-f]{40}) ([^\t\0]*)\t([^\0]*)(?:\0|$)/y

/** Parses decoded records into `entries`. */
function parseRecords (text: string, entries: TreeEntry[]): void {
  RECORD.lastIndex = 0
  while (RECORD.lastIndex < text.length) {
    const start = RECORD.lastIndex
    const r = RECORD.exec(text)
    if (r === null) {
      const end = text.indexOf('\0', start)
      throw toolError('GIT_FAILED', `unexpected ls-tree output: ${JSON.stringify(text.slice(start, Math.min(end === -1 ? text.length : end, start + 120)))}`)
    }
    // Digits, or "-" for entries without a size (gitlinks); git prints "BAD" for a blob it cannot read.
    const m = SIZE.exec(r[4] as string)
    entries.push({ mode: r[1] as string, type: r[2] as string, oid: r[3] as string, size: m === null ? -1 : Number(m[1]), path: r[5] as string })
  }
}

/** How the listing is read. */
export interface ListingOptions {
  /**
   * Where ls-tree's output may be spooled, in order (default /dev/shm, then the OS temp
   * directory); where none takes an unnamed file, it is piped.
   */
  spoolDirs?: readonly string[]
}

/** Where the tree will be written, when the caller knows it. */
export interface TreeRuleOptions {
  /** The longest path accepted, in bytes (default MAX_PATH_BYTES): maxTreePathBytes of the attempt directory. */
  maxPathBytes?: number
}

/**
 * Checks a listing against every rule of DESIGN §8 (one rule per file in tree-rules/);
 * returns all violations, bounds first, then listing order.
 */
export function checkTreeListing (entries: readonly TreeEntry[], o: TreeRuleOptions = {}): { violations: TreeViolation[], blobCount: number, blobBytes: number } {
  const violations: TreeViolation[] = []
  const collisions = new PathCollisions()
  let blobCount = 0
  let blobBytes = 0
  for (const e of entries) {
    const reason = unsafePathReason(e.path, o.maxPathBytes)
    if (reason !== undefined) violations.push({ code: 'TREE_PATH_UNSAFE', path: e.path, message: `unsafe path ${JSON.stringify(e.path)}: ${reason}` })
    const kind = entryKindViolation(e)
    if (kind !== undefined) violations.push({ ...kind, path: e.path })
    if (isInNodeModules(e.path)) violations.push({ code: 'TREE_NODE_MODULES', path: e.path, message: `${e.path} is tracked inside node_modules, the dependency mount point` })
    const clashes = collisions.add(e.path)
    if (clashes.length > 0) violations.push(...clashes)
    if (e.type === 'blob' && e.size >= 0) {
      blobCount++
      blobBytes += e.size
    }
  }
  violations.unshift(...boundViolations(blobCount, blobBytes).map(v => ({ ...v, path: '' })))
  return { violations, blobCount, blobBytes }
}

/** The most ls-tree output read: beyond it the tree is refused (TREE_TOO_MANY_ENTRIES). */
const LS_TREE_MAX_BYTES = 256 << 20

/**
 * The commit's tree as ls-tree lists it, parsed, with only the violations parsing finds (paths
 * that are not UTF-8); the path rules are not applied (checkTreeListing does that). A blob
 * whose size git cannot read is GIT_FAILED. No blob body is read.
 */
export async function readTreeListing (root: string, sha: string, o: ListingOptions = {}): Promise<{ entries: TreeEntry[], violations: TreeViolation[] }> {
  const args = ['ls-tree', '-r', '-z', '--long', '--full-tree', sha]
  // git is stopped once entry 20,001 is read (through the spool, at the end of the 1 MiB piece
  // that holds it): with -r only blobs and gitlinks are listed, and a gitlink is refused
  // anyway, so the tree is over its bound whichever they are, and a tree bomb (one tree named
  // a million times) costs no more than that to refuse.
  // A listing over the byte cap (paths over the length bound) is refused the same way.
  const listed = await listedThroughSpool(root, args, o.spoolDirs ?? ['/dev/shm', tmpdir()]) ?? await listedThroughPipe(root, args)
  if (listed === 'over') return { entries: [], violations: [{ code: 'TREE_TOO_MANY_ENTRIES', path: '', message: `the tree at ${sha.slice(0, 12)} lists more than ${MAX_TREE_ENTRIES} entries (or more than ${LS_TREE_MAX_BYTES >> 20} MiB of them)` }] }
  const { git: r, parsed } = listed
  if (r.exitCode !== 0) throw toolError(r.timedOut ? 'GIT_FAILED' : 'SOURCE_SHA_UNKNOWN', `ls-tree ${sha}: git ls-tree failed: ${gitFailure(r)}`)
  const listing = parsed()
  // A blob whose size ls-tree could not read: the store is incomplete.
  const unreadable = listing.entries.find(e => e.type === 'blob' && e.size < 0)
  if (unreadable !== undefined) {
    throw toolError('GIT_FAILED', `blob ${unreadable.oid} of ${unreadable.path} is missing from the repository`, { path: unreadable.path, hint: 'the object store is incomplete; run git fsck in source_root' })
  }
  return listing
}

/**
 * How ls-tree ended, and its listing (which throws what parsing found, asked only once git
 * succeeded); 'over' past the bounds.
 */
type Listed = 'over' | { git: Parameters<typeof gitFailure>[0], parsed: () => { entries: TreeEntry[], violations: TreeViolation[] } }

/**
 * The pipe, where no unnamed file can be made or git could not write the one it had: git's
 * output is held whole and parsed when it exits.
 */
async function listedThroughPipe (root: string, args: string[]): Promise<Listed> {
  const r = await git(root, args, { maxBuffer: LS_TREE_MAX_BYTES, stopAfter: { byte: 0, max: MAX_TREE_ENTRIES } })
  return r.truncated ? 'over' : { git: r, parsed: () => parseLsTree(r.stdout) }
}

/** Bytes read from the spool at once. */
const SPOOL_PIECE = 1 << 20

/**
 * ls-tree writes into an unnamed file (/dev/shm, else the temp directory), never blocking on
 * this process, which reads and parses what is there every millisecond while git works on the
 * other core, and stops git past the bounds. Through a pipe the two took turns on one core (git
 * blocked on the full pipe while the parse ran): on the 20,000-file bench commit ls-tree and
 * its parse took ~60 ms in a cold step, one after the other. Undefined where no unnamed file
 * can be made, or when git failed (the pipe lists the tree again).
 */
async function listedThroughSpool (root: string, args: string[], dirs: readonly string[]): Promise<Listed | undefined> {
  const fd = openUnnamedFileIn(dirs)
  if (fd === undefined) return undefined
  const stop = new AbortController()
  let exited = false
  const child = gitToFd(root, args, '', fd, { signal: stop.signal }).then(r => { exited = true; return r })
  const reader = new ListingSpoolReader(fd)
  try {
    for (;;) {
      const last = exited
      reader.readTo(fstatSync(fd).size)
      if (reader.over) stop.abort()
      if (reader.over || last) break
      await new Promise(resolve => setTimeout(resolve, 1))
    }
    const r = await child
    if (reader.over) return 'over'
    // A failed run is listed again through the pipe, which needs no space, and that run
    // decides: git exits 128 alike for a spool it could not write (its filesystem full, a
    // quota, EIO), which is not the repository's failure, and for a commit it cannot read,
    // which fails the same way again. A run stopped at GIT_TIMEOUT_MS is not run twice.
    if (r.exitCode !== 0 && !r.timedOut) return undefined
    return { git: r, parsed: () => reader.finish() }
  } catch (e) {
    // No git outlives the step.
    stop.abort()
    await child
    throw e
  } finally {
    closeSync(fd)
  }
}

/**
 * listedThroughSpool's synchronous part: reads and parses what git has written so far. Kept
 * out of the async function for the reason SpoolReader is (tree-archive/build.ts): a hot loop
 * there made V8 optimize the whole resumable function with the parser inlined into it.
 */
class ListingSpoolReader {
  private readonly parser = new LsTreeParser()
  private readonly piece = Buffer.allocUnsafe(SPOOL_PIECE)
  private pos = 0
  private records = 0
  /** What parsing threw: it counts only once git succeeded (its output may be cut short). */
  private failure: unknown
  /** Past the bounds: git is stopped and nothing more is read. */
  over = false

  constructor (private readonly fd: number) {}

  readTo (size: number): void {
    const { piece } = this
    while (this.pos < size && !this.over) {
      const n = readSync(this.fd, piece, 0, Math.min(SPOOL_PIECE, size - this.pos), this.pos)
      if (n <= 0) break
      const bytes = piece.subarray(0, n)
      this.pos += n
      if (this.failure === undefined) {
        try {
          this.parser.push(bytes)
        } catch (e) {
          this.failure = e
        }
      }
      // Every complete record became an entry or a violation; once parsing failed, NULs are
      // counted (from there on: a malformed bomb is stopped at most one piece later).
      this.records = this.failure === undefined ? this.parser.records : countRecords(bytes, this.records)
      this.over = this.records > MAX_TREE_ENTRIES || this.pos > LS_TREE_MAX_BYTES
    }
  }

  finish (): { entries: TreeEntry[], violations: TreeViolation[] } {
    if (this.failure !== undefined) throw this.failure
    return this.parser.finish()
  }
}

/** `records` plus the NULs in `bytes`, counted no further than one past the entry bound. */
function countRecords (bytes: Buffer, records: number): number {
  for (let i = bytes.indexOf(0); i !== -1 && records <= MAX_TREE_ENTRIES; i = bytes.indexOf(0, i + 1)) records++
  return records
}

/** Lists the commit's tree; returns entries and all violations (sizes only, no blob read). A blob whose size git cannot read is GIT_FAILED. */
export async function listTree (root: string, sha: string, o: TreeRuleOptions & ListingOptions = {}): Promise<TreeListing & { violations: TreeViolation[] }> {
  const parsed = await readTreeListing(root, sha, o)
  const checked = checkTreeListing(parsed.entries, o)
  return { entries: parsed.entries, blobCount: checked.blobCount, blobBytes: checked.blobBytes, violations: [...parsed.violations, ...checked.violations] }
}

/** Throws the first violation as a typed error that also says how many there are. */
export function assertNoViolations (violations: readonly TreeViolation[], exit?: 1): void {
  const first = violations[0]
  if (first === undefined) return
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''
  throw toolError(first.code, `${first.message}${more}`, { path: first.path, ...(exit === undefined ? {} : { exit }) })
}
