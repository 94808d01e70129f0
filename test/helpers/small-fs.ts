// Running a bin with one directory on a private tmpfs that has only a few MiB left, in a
// mount namespace of its own (in-full-fs.mjs mounts it and lists the directory afterwards):
// the disk-floor tests of admit, reproduce and verify. Needs root to mount.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine } from '@repairline/core'
import { BASE_ENV, ROOT, binPath } from './bin.ts'

const IN_FULL_FS = fileURLToPath(new URL('./in-full-fs.mjs', import.meta.url))

/** Why the disk-floor tests skip: mounting a private tmpfs needs root. */
export const SMALL_FS_SKIP = process.geteuid?.() === 0 ? false : 'mounting a private tmpfs needs root'

export interface SmallFsRun { exitCode: number, code: string | undefined, kinds: string[], stderr: string, names: string[] }

/** Runs `bin` with directory `dir` on a private tmpfs that has `freeBytes` left; `names` lists `dir` after the run. */
export async function onSmallFs (dir: string, freeBytes: number, scratch: string, bin: string, args: string[]): Promise<SmallFsRun> {
  const listing = join(scratch, `listing-${bin}.json`)
  const spec = { dir, freeBytes, env: BASE_ENV, cwd: ROOT, listing }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, IN_FULL_FS, JSON.stringify(spec), binPath(bin), ...args], { env: BASE_ENV, extendEnv: false, reject: false, cwd: ROOT, input: '' })
  const records = String(r.stdout).split('\n').filter(l => l !== '').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`))
  const error = records.find(x => x.kind === 'error')
  const { names } = JSON.parse(readFileSync(listing, 'utf8')) as { names: string[] }
  return { exitCode: r.exitCode ?? -1, code: error?.kind === 'error' ? error.code : undefined, kinds: records.map(x => x.kind), stderr: String(r.stderr), names }
}
