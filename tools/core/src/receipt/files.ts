// Which files of an attempt are sealed: every regular file except receipt.json, the unsealed
// scratch directories work/ and logs/, and the temp files an atomic write leaves behind when
// it is killed before its rename (`.<name>.tmp-<12 hex>` beside a file a step writes there,
// never a finished file). Those are listed apart so seal never seals a half-written file and
// readback reports them; a file named so beside no such target is an ordinary file, which seal
// refuses as no step's and readback finds unsealed. So are the entries no receipt can name or
// no read can reach (a name that is not UTF-8, a path past PATH_MAX, a directory that cannot be
// listed), and the directories the attempt layout has no place for (DESIGN §7a): seal refuses
// them, readback reports them, and neither stops on them.

import { lstatSync, readdirSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { compareUtf8 } from '../tree-rules/collisions.ts'
import { ATTEMPT_FILES } from './stages.ts'

export const UNSEALED_DIRS = ['work', 'logs'] as const
export const RECEIPT_FILE = 'receipt.json'

/** Every directory of the attempt layout: those its sealed files live in (inputs/, validation/), and work/ and logs/. */
export const ATTEMPT_DIRS: ReadonlySet<string> = new Set([
  ...[...ATTEMPT_FILES].filter(f => f.includes('/')).map(f => f.slice(0, f.lastIndexOf('/'))),
  ...UNSEALED_DIRS,
])

export interface AttemptListing {
  /** Regular files, relative to the attempt directory, sorted by path bytes. */
  files: string[]
  /** Entries that are neither regular files nor directories (symlinks, FIFOs, sockets, devices). */
  special: string[]
  /** Leftover temp files of interrupted atomic writes. */
  leftovers: string[]
  /** Entries that cannot be sealed or read: the path (bytes that are not UTF-8 as \xNN) and why. */
  unreachable: Array<{ path: string, why: string }>
  /** Entries the attempt layout has no place for: a directory no step makes, or work/ or logs/ that is not a real directory; the path and why. */
  misplaced: Array<{ path: string, why: string }>
  /**
   * Files of `files` whose bytes can change without a write to this path: another hard link
   * to them (nlink > 1), or write permission for group or others. The steps write every file
   * by rename with mode 0644, so neither is theirs; a backup made with hard links (rsync
   * --link-dest, cp -al) is the common honest cause. The digests still say whether they changed.
   */
  exposed: Array<{ path: string, links: number, mode: number }>
}

/** The name atomic.ts gives a temp file: `.<target name>.tmp-<12 hex>`. */
export const TEMP_FILE = /^\.[^/]+\.tmp-[0-9a-f]{12}$/

/**
 * Whether `rel` (attempt-relative) is the temp file of a write of one of `targets` killed
 * before its rename: named as atomic.ts names it, in the directory of the file it was to become.
 */
export function isTempFileOf (rel: string, targets: ReadonlySet<string>): boolean {
  const slash = rel.lastIndexOf('/')
  const name = rel.slice(slash + 1)
  if (!TEMP_FILE.test(name)) return false
  return targets.has(`${rel.slice(0, slash + 1)}${name.slice(1, -'.tmp-000000000000'.length)}`)
}

/** The files whose interrupted writes leave a temp file readback reports and seal leaves unsealed: every file a step writes, and receipt.json. */
const TEMP_TARGETS: ReadonlySet<string> = new Set([...ATTEMPT_FILES, RECEIPT_FILE])

/** A name's bytes as text: UTF-8 as is, any byte of an invalid sequence as \xNN. */
function shownName (b: Buffer): string {
  let out = ''
  for (const c of b) out += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`
  return out
}

const errnoOf = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message

/** Lists the sealable files of an attempt directory without following any symlink. Never throws on its entries. */
export function listAttemptFiles (dir: string): AttemptListing {
  const files: string[] = []
  const special: string[] = []
  const leftovers: string[] = []
  const unreachable: Array<{ path: string, why: string }> = []
  const misplaced: Array<{ path: string, why: string }> = []
  const exposed: Array<{ path: string, links: number, mode: number }> = []
  const walk = (rel: string): void => {
    let names: Buffer[]
    try {
      names = readdirSync(join(dir, rel), { encoding: 'buffer' })
    } catch (e) {
      // The attempt directory itself is the caller's to check; below it, a finding.
      if (rel === '') throw e
      unreachable.push({ path: rel, why: `cannot be listed (${errnoOf(e)})` })
      return
    }
    for (const raw of names) {
      const name = raw.toString('utf8')
      if (!Buffer.from(name, 'utf8').equals(raw)) {
        unreachable.push({ path: rel === '' ? shownName(raw) : `${rel}/${shownName(raw)}`, why: 'its name is not UTF-8, so no receipt can name it' })
        continue
      }
      const r = rel === '' ? name : `${rel}/${name}`
      if (r === RECEIPT_FILE) continue
      let st
      try {
        st = lstatSync(join(dir, r))
      } catch (e) {
        unreachable.push({ path: r, why: `cannot be read (${errnoOf(e)})` })
        continue
      }
      // work/ and logs/ are never sealed, so nothing in them is read; they must still be the
      // real directories the steps make (a symlink there could lead anywhere).
      if ((UNSEALED_DIRS as readonly string[]).includes(r)) {
        if (!st.isDirectory()) misplaced.push({ path: r, why: `is ${kindOf(st)}, not the directory the steps make` })
        continue
      }
      if (st.isDirectory()) {
        if (!ATTEMPT_DIRS.has(r)) misplaced.push({ path: r, why: 'is a directory no step makes' })
        walk(r)
      } else if (st.isFile()) {
        if (isTempFileOf(r, TEMP_TARGETS)) leftovers.push(r)
        else {
          files.push(r)
          if (st.nlink > 1 || (st.mode & 0o022) !== 0) exposed.push({ path: r, links: st.nlink, mode: st.mode & 0o7777 })
        }
      } else special.push(r)
    }
  }
  walk('')
  const byPath = (a: { path: string }, b: { path: string }): number => compareUtf8(a.path, b.path)
  return { files: files.sort(compareUtf8), special: special.sort(compareUtf8), leftovers: leftovers.sort(compareUtf8), unreachable: unreachable.sort(byPath), misplaced: misplaced.sort(byPath), exposed: exposed.sort(byPath) }
}

/** What a non-directory entry is, for a message. */
function kindOf (st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.isFile()) return 'a regular file'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return 'a socket'
  return 'a device'
}

/** What admit writes at the top of an attempt directory before started.json is durable. */
const BEFORE_STARTED: ReadonlySet<string> = new Set(['admission.json', 'started.json'])

/**
 * Whether an attempt directory holds nothing but what admit writes before started.json
 * (DESIGN §7): inputs/, admission.json, and the temp file of admission.json or started.json
 * that a write killed before its rename leaves; and logs/, which only the driver writes and
 * which is never evidence of work (an earlier driver kept a failed admit's streams there).
 * Only such a directory (or none at all) is not started: its key is not consumed and the next
 * admit reuses it. Anything more — started.json, outcome.json, a receipt, work/, a stray file —
 * is work on a consumed key, and readback judges it.
 */
export function holdsOnlyAdmission (dir: string): boolean {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT'
  }
  return names.every(n => n === 'admission.json' || n === 'inputs' || n === 'logs' || isTempFileOf(n, BEFORE_STARTED))
}
