// Spawning the real, built tool binaries the way an operator does: argv arrays, no shell,
// a tiny explicit environment (nothing inherited), stdout parsed as strict NDJSON records.

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine, type AnyRecord } from '@repairline/core'

export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..')

export const BASE_ENV: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent', LC_ALL: 'C' }

export interface BinResult {
  exitCode: number
  records: AnyRecord[]
  stdout: string
  stderr: string
}

export function binPath (tool: string): string {
  return join(ROOT, 'node_modules', '.bin', tool)
}

/** Runs `tool args` with BASE_ENV plus `env`; parses stdout as records (strictly). */
export async function runBin (tool: string, args: string[], o: { input?: string, env?: Record<string, string>, cwd?: string, timeoutMs?: number } = {}): Promise<BinResult> {
  const r = await execa(binPath(tool), args, {
    env: { ...BASE_ENV, ...o.env },
    extendEnv: false,
    reject: false,
    input: o.input ?? '',
    cwd: o.cwd ?? ROOT,
    timeout: o.timeoutMs ?? 120_000,
    stripFinalNewline: false,
  })
  const stdout = String(r.stdout)
  const lines = stdout.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const records = lines.map((l, i) => parseRecordLine(l, `${tool} stdout:${i + 1}`))
  return { exitCode: r.exitCode ?? -1, records, stdout, stderr: String(r.stderr) }
}

/** The error record of a run, if any. */
export function errorOf (r: BinResult): Extract<AnyRecord, { kind: 'error' }> | undefined {
  return r.records.find((x): x is Extract<AnyRecord, { kind: 'error' }> => x.kind === 'error')
}
