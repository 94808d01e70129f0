// Reading the extracted tree in later steps. tree-manifest.json is the index and the
// digest list; tree.tar holds the bytes. Every reader verifies what it returns against the
// manifest: a file's sha256 (readTreeFile), or every byte of the archive and every header
// (materializeTree). Nothing here reads the source repository again.

import { hash } from 'node:crypto'
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import type { TreeManifest, TreeManifestEntry } from '@repairline/schemas'
import { ensureDir } from '../atomic.ts'
import { readJsonFile, stateRootOf } from '../attempt-dir.ts'
import { readFileNoFollow } from '../read-file.ts'
import { gitBlobId } from '../digest.ts'
import { hasErrno, isToolError, toolError } from '../errors.ts'
import { PathCollisions } from '../tree-rules/collisions.ts'
import { isInNodeModules } from '../tree-rules/node-modules.ts'
import { unsafePathReason } from '../tree-rules/path-safety.ts'
import { isEndOfArchive, parseTarEntry, tarLayout, writeEntryHeaders, type TarLayout } from './tar-format.ts'

export const TREE_TAR = 'tree.tar'
export const TREE_MANIFEST = 'tree-manifest.json'

/** Upper bound of tree.tar: 16 MiB of content plus, per file, headers and padding with a 4 KiB PAX path. */
const MAX_TAR_BYTES = 16 * 1024 * 1024 + 20_000 * (512 + 5120 + 512) + 1024

/**
 * Reads and validates `<attempt>/tree-manifest.json`: its schema, and that it is one
 * consistent index — entries strictly sorted by path bytes, every path safe, counts and
 * sums and the archive size as the entries imply. Missing → ATTEMPT_INCOMPLETE; anything
 * inconsistent → FILE_INVALID. Paths that collide (equal, case or file/directory) are
 * refused too, so a manifest can never make materializeTree write outside its tree.
 */
export function readTreeManifest (attemptDir: string): TreeManifest {
  const path = join(attemptDir, TREE_MANIFEST)
  const m = readJsonFile('tree-manifest', path)
  const bad = (detail: string): Error => toolError('FILE_INVALID', `${path}: ${detail}`, { path })
  if (m.entry_count !== m.entries.length) throw bad(`entry_count is ${m.entry_count} but there are ${m.entries.length} entries`)
  let total = 0
  const collisions = new PathCollisions()
  for (const e of m.entries) {
    const reason = unsafePathReason(e.path)
    if (reason !== undefined) throw bad(`unsafe path ${JSON.stringify(e.path)}: ${reason}`)
    if (isInNodeModules(e.path)) throw bad(`${e.path} is inside node_modules`)
    const clash = collisions.add(e.path)[0]
    if (clash !== undefined) throw bad(clash.message)
    total += e.bytes
  }
  if (total !== m.total_bytes) throw bad(`total_bytes is ${m.total_bytes} but the entries sum to ${total}`)
  const size = tarLayout(m.entries.map(e => ({ path: e.path, mode: e.mode, size: e.bytes }))).size
  if (size !== m.tar_bytes) throw bad(`tar_bytes is ${m.tar_bytes} but the entries lay out to ${size}`)
  return m
}

function layoutOf (m: TreeManifest): TarLayout {
  return tarLayout(m.entries.map(e => ({ path: e.path, mode: e.mode, size: e.bytes })))
}

function archiveMismatch (detail: string, path?: string): Error {
  return toolError('TREE_ARCHIVE_MISMATCH', `tree.tar does not match tree-manifest.json: ${detail}`, { ...(path === undefined ? {} : { path }), hint: 'a retained file was changed after extraction; rerun extract-tree --check' })
}

function checkHeader (e: TreeManifestEntry, got: { path: string, mode: string, size: number }): void {
  if (got.path !== e.path || got.mode !== e.mode || got.size !== e.bytes) {
    throw archiveMismatch(`the archive holds ${JSON.stringify(got.path)} (${got.mode}, ${got.size} bytes) where the manifest lists ${JSON.stringify(e.path)} (${e.mode}, ${e.bytes} bytes)`, e.path)
  }
}

function preadExact (fd: number, length: number, position: number): Buffer {
  const buf = Buffer.alloc(length)
  let off = 0
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, position + off)
    if (n === 0) throw archiveMismatch(`tree.tar ends before offset ${position + length}`)
    off += n
  }
  return buf
}

/** The extracted tree of one attempt, its manifest read and validated once. */
export interface ExtractedTree {
  manifest: TreeManifest
  /** One file's content, verified against its sha256 (see readTreeFile). */
  readFile: (path: string) => Buffer
}

/**
 * Opens the extracted tree for several reads: the manifest is read and validated once (at
 * 20,000 entries that is the expensive part), each file is then read from tree.tar at its
 * offset and verified. Use this rather than readTreeFile in a loop.
 */
export function openTreeReader (attemptDir: string): ExtractedTree {
  const manifest = readTreeManifest(attemptDir)
  const layout = layoutOf(manifest)
  const index = new Map(manifest.entries.map((e, i) => [e.path, i]))
  return {
    manifest,
    readFile: (path: string) => {
      const i = index.get(path)
      const e = i === undefined ? undefined : manifest.entries[i]
      if (i === undefined || e === undefined || i >= layout.start.length) throw toolError('TREE_FILE_MISSING', `${path} is not a file of the extracted tree`, { path })
      return readEntry(attemptDir, manifest, e, { start: layout.start[i] as number, data: layout.data[i] as number })
    },
  }
}

/**
 * The content of one file of the extracted tree, read from tree.tar at the offset the
 * manifest implies and verified against the manifest's sha256. A path that is not a file
 * of the tree → TREE_FILE_MISSING; any disagreement → TREE_ARCHIVE_MISMATCH.
 */
export function readTreeFile (attemptDir: string, path: string): Buffer {
  return openTreeReader(attemptDir).readFile(path)
}

/** `slot`: the archive offsets of the entry's first header and of its content. */
function readEntry (attemptDir: string, m: TreeManifest, e: TreeManifestEntry, slot: { start: number, data: number }): Buffer {
  const path = e.path
  const tarPath = join(attemptDir, TREE_TAR)
  let fd: number
  try {
    fd = openSync(tarPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    if (hasErrno(err, 'ENOENT')) throw toolError('ATTEMPT_INCOMPLETE', `${tarPath} is missing: run extract-tree first`, { path: tarPath })
    if (hasErrno(err, 'ELOOP')) throw toolError('STATE_UNSAFE', `${tarPath} is a symlink`, { path: tarPath })
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw toolError('STATE_UNSAFE', `${tarPath} is not a regular file`)
    if (st.size !== m.tar_bytes) throw archiveMismatch(`tree.tar has ${st.size} bytes, the manifest says ${m.tar_bytes}`)
    const headers = preadExact(fd, slot.data - slot.start, slot.start)
    const parsed = parseTarEntry(headers, 0)
    checkHeader(e, parsed)
    if (parsed.data !== slot.data - slot.start) throw archiveMismatch(`unexpected header layout for ${path}`, path)
    const content = preadExact(fd, e.bytes, slot.data)
    if (hash('sha256', content, 'hex') !== e.sha256) throw archiveMismatch(`${path} does not have the manifest's sha256`, path)
    return content
  } finally {
    closeSync(fd)
  }
}

/**
 * Checks that tree.tar is exactly the archive extract-tree writes for tree-manifest.json's
 * entries: each member's header as listed, its content with the listed sha256 and git blob
 * id, and every other byte (PAX records, padding, the end of the archive) as the writer
 * lays them out. For readers that never open the tree (readback of an attempt that ended
 * before anything read a file), so a manifest cannot list what the archive does not hold.
 * Throws TREE_ARCHIVE_MISMATCH, or the manifest's own FILE_INVALID.
 */
export function verifyTreeArchive (attemptDir: string): void {
  const m = readTreeManifest(attemptDir)
  const tar = readFileNoFollow(join(attemptDir, TREE_TAR), MAX_TAR_BYTES)
  if (tar.length !== m.tar_bytes) throw archiveMismatch(`tree.tar has ${tar.length} bytes, the manifest says ${m.tar_bytes}`)
  const layout = layoutOf(m)
  const again = Buffer.alloc(layout.size)
  for (let i = 0; i < m.entries.length; i++) {
    const e = m.entries[i]
    if (e === undefined || i >= layout.start.length) throw toolError('INTERNAL', `no slot for entry ${i}`)
    const data = layout.data[i] as number
    const parsed = parseTarEntry(tar, layout.start[i] as number)
    checkHeader(e, parsed)
    if (parsed.data !== data) throw archiveMismatch(`unexpected header layout for ${e.path}`, e.path)
    const content = tar.subarray(data, data + e.bytes)
    if (hash('sha256', content, 'hex') !== e.sha256) throw archiveMismatch(`${e.path} does not have the manifest's sha256`, e.path)
    if (gitBlobId(content) !== e.blob) throw archiveMismatch(`${e.path} is not the manifest's blob ${e.blob}`, e.path)
    content.copy(again, data)
    writeEntryHeaders(again, layout, i, { path: e.path, mode: e.mode, size: e.bytes })
  }
  if (!again.equals(tar)) throw archiveMismatch('a byte outside the members\' contents (a header field, padding or the end of the archive) is not what extract-tree writes')
}

/** A work tree written by materializeTree. */
export interface MaterializedTree {
  dir: string
  files: number
  bytes: number
  /** The files whose content came from `overrides`, in path order, with what was written. */
  overridden: Array<{ path: string, sha256: string, bytes: number }>
}

/** Creates `dir` with exactly `mode` (umask does not apply); EEXIST is the caller's business. */
function mkdirExact (dir: string, mode: number): void {
  mkdirSync(dir, { mode })
  chmodSync(dir, mode)
}

/**
 * Writes a work tree for the sandbox at `destDir`, which must be a directory directly inside
 * `<attempt>/work/` (created 0755 if missing) and must not exist yet: directories 0755, files 0644 or 0755 as git recorded them (readable by
 * the unprivileged sandbox user), plus an empty `node_modules/` at the root as the dependency
 * mount point. Every byte comes from tree.tar and is verified first: the archive's size and
 * sha256, and each entry's header and sha256, against the manifest. `overrides` replace the
 * content of existing files only (the candidate is the baseline plus patched files; modes are
 * kept); a path that is not a file of the tree → TREE_FILE_MISSING, before anything is
 * written. On any failure the partial tree is removed.
 */
export function materializeTree (attemptDir: string, destDir: string, overrides: ReadonlyMap<string, Buffer> = new Map()): MaterializedTree {
  if (!isAbsolute(attemptDir) || !isAbsolute(destDir)) throw toolError('INTERNAL', `materializeTree needs absolute paths, got ${attemptDir} and ${destDir}`)
  const workDir = join(attemptDir, 'work')
  if (dirname(destDir) !== workDir || destDir.endsWith('/..') || destDir.endsWith('/.')) {
    throw toolError('INTERNAL', `work trees live directly under ${workDir}/, not at ${destDir}`)
  }
  const m = readTreeManifest(attemptDir)
  const known = new Set(m.entries.map(e => e.path))
  for (const p of [...overrides.keys()].sort()) {
    if (!known.has(p)) throw toolError('TREE_FILE_MISSING', `override ${p} is not a file of the extracted tree (a candidate may only change existing files)`, { path: p })
  }
  ensureDir(stateRootOf(attemptDir), workDir, 0o755)
  const tar = readFileNoFollow(join(attemptDir, TREE_TAR), MAX_TAR_BYTES)
  if (tar.length !== m.tar_bytes) throw archiveMismatch(`tree.tar has ${tar.length} bytes, the manifest says ${m.tar_bytes}`)
  if (hash('sha256', tar, 'hex') !== m.tar_sha256) throw archiveMismatch('tree.tar does not have the manifest\'s tar_sha256')
  try {
    mkdirExact(destDir, 0o755)
  } catch (e) {
    if (hasErrno(e, 'EEXIST')) throw toolError('WRITE_FAILED', `${destDir} already exists; a work tree is written once`, { path: destDir })
    throw e
  }
  try {
    return writeTree(destDir, m, tar, overrides)
  } catch (e) {
    rmSync(destDir, { recursive: true, force: true })
    if (isToolError(e)) throw e
    throw toolError('WRITE_FAILED', `cannot write the work tree ${destDir}: ${(e as Error).message}`, { path: destDir, cause: e })
  }
}

function writeTree (destDir: string, m: TreeManifest, tar: Buffer, overrides: ReadonlyMap<string, Buffer>): MaterializedTree {
  const made = new Set<string>([''])
  const overridden: MaterializedTree['overridden'] = []
  let off = 0
  let bytes = 0
  for (const e of m.entries) {
    const parsed = parseTarEntry(tar, off)
    checkHeader(e, parsed)
    const content = tar.subarray(parsed.data, parsed.data + parsed.size)
    if (hash('sha256', content, 'hex') !== e.sha256) throw archiveMismatch(`${e.path} does not have the manifest's sha256`, e.path)
    off = parsed.next
    let cut = e.path.indexOf('/')
    while (cut !== -1) {
      const d = e.path.slice(0, cut)
      if (!made.has(d)) {
        mkdirExact(join(destDir, d), 0o755)
        made.add(d)
      }
      cut = e.path.indexOf('/', cut + 1)
    }
    const override = overrides.get(e.path)
    const data = override ?? content
    const mode = e.mode === '100755' ? 0o755 : 0o644
    const fd = openSync(join(destDir, e.path), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode)
    try {
      let w = 0
      while (w < data.length) w += writeSync(fd, data, w, data.length - w)
      fchmodSync(fd, mode)
    } finally {
      closeSync(fd)
    }
    bytes += data.length
    if (override !== undefined) overridden.push({ path: e.path, sha256: hash('sha256', override, 'hex'), bytes: override.length })
  }
  if (!isEndOfArchive(tar, off) || off + 1024 !== tar.length) throw archiveMismatch('unexpected bytes after the last entry')
  mkdirExact(join(destDir, 'node_modules'), 0o755)
  return { dir: destDir, files: m.entries.length, bytes, overridden }
}
