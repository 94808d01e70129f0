// Which files of an attempt are sealed: every regular file except receipt.json, the unsealed
// scratch directories work/ and logs/, and the temp files an atomic write leaves behind when
// it is killed before its rename (`.<name>.tmp-<12 hex>`, never a finished file). Those are
// listed apart so seal never seals a half-written file and readback reports them.

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
}

/** The name atomic.ts gives a temp file: `.<target name>.tmp-<12 hex>`. */
export const TEMP_FILE = /^\.[^/]+\.tmp-[0-9a-f]{12}$/

/** Lists the sealable files of an attempt directory without following any symlink. */
export function listAttemptFiles (dir: string): AttemptListing {
  const files: string[] = []
  const special: string[] = []
  const leftovers: string[] = []
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel === '' ? name : `${rel}/${name}`
      if (rel === '' && ((UNSEALED_DIRS as readonly string[]).includes(name) || name === RECEIPT_FILE)) continue
      const st = lstatSync(join(dir, r))
      if (st.isDirectory()) walk(r)
      else if (st.isFile()) (TEMP_FILE.test(name) ? leftovers : files).push(r)
      else special.push(r)
    }
  }
  walk('')
  return { files: files.sort(compareUtf8), special: special.sort(compareUtf8), leftovers: leftovers.sort(compareUtf8) }
}
