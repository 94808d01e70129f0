// Which files of an attempt are sealed: every regular file except receipt.json, the unsealed
// scratch directories work/ and logs/, and the temp files an atomic write leaves behind when
// it is killed before its rename (`.<name>.tmp-<12 hex>`, never a finished file). Those are
// listed apart so seal never seals a half-written file and readback reports them. So are the
// entries no receipt can name or no read can reach (a name that is not UTF-8, a path past
// PATH_MAX, a directory that cannot be listed): seal refuses them, readback reports them, and
// neither stops on them.

import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { compareUtf8 } from '../tree-rules/collisions.ts'

export const UNSEALED_DIRS = ['work', 'logs'] as const
export const RECEIPT_FILE = 'receipt.json'

export interface AttemptListing {
  /** Regular files, relative to the attempt directory, sorted by path bytes. */
  files: string[]
  /** Entries that are neither regular files nor directories (symlinks, FIFOs, sockets, devices). */
  special: string[]
  /** Leftover temp files of interrupted atomic writes. */
  leftovers: string[]
  /** Entries that cannot be sealed or read: the path (bytes that are not UTF-8 as \xNN) and why. */
  unreachable: Array<{ path: string, why: string }>
}

/** The name atomic.ts gives a temp file: `.<target name>.tmp-<12 hex>`. */
export const TEMP_FILE = /^\.[^/]+\.tmp-[0-9a-f]{12}$/

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
      if (rel === '' && ((UNSEALED_DIRS as readonly string[]).includes(name) || name === RECEIPT_FILE)) continue
      let st
      try {
        st = lstatSync(join(dir, r))
      } catch (e) {
        unreachable.push({ path: r, why: `cannot be read (${errnoOf(e)})` })
        continue
      }
      if (st.isDirectory()) walk(r)
      else if (st.isFile()) (TEMP_FILE.test(name) ? leftovers : files).push(r)
      else special.push(r)
    }
  }
  walk('')
  return { files: files.sort(compareUtf8), special: special.sort(compareUtf8), leftovers: leftovers.sort(compareUtf8), unreachable: unreachable.sort((a, b) => compareUtf8(a.path, b.path)) }
}

/**
 * Whether an attempt directory holds nothing but what admit writes before started.json
 * (DESIGN §7): inputs/, admission.json, and temp files of writes killed before their rename;
 * and logs/, which only the driver writes and which is never evidence of work (an earlier
 * driver kept a failed admit's streams there).
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
  return names.every(n => n === 'admission.json' || n === 'inputs' || n === 'logs' || TEMP_FILE.test(n))
}
