// Which files of an attempt are sealed: every regular file except receipt.json and the
// unsealed scratch directories work/ and logs/. Leftover temp files from a crash are sealed
// too: they are evidence, and readback must not have a class of files it ignores.

import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const UNSEALED_DIRS = ['work', 'logs'] as const
export const RECEIPT_FILE = 'receipt.json'

export interface AttemptListing {
  /** Regular files, relative to the attempt directory, sorted by path bytes. */
  files: string[]
  /** Entries that are neither regular files nor directories (symlinks, FIFOs, sockets, devices). */
  special: string[]
}

function byBytes (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** Lists the sealable files of an attempt directory without following any symlink. */
export function listAttemptFiles (dir: string): AttemptListing {
  const files: string[] = []
  const special: string[] = []
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel === '' ? name : `${rel}/${name}`
      if (rel === '' && ((UNSEALED_DIRS as readonly string[]).includes(name) || name === RECEIPT_FILE)) continue
      const st = lstatSync(join(dir, r))
      if (st.isDirectory()) walk(r)
      else if (st.isFile()) files.push(r)
      else special.push(r)
    }
  }
  walk('')
  return { files: files.sort(byBytes), special: special.sort(byBytes) }
}
