// Taking a sandbox primitive away from one tool run, for real: the tool runs in a private
// mount namespace (unshare -m, as root) where a fake program is bind-mounted over the real one
// or an empty tmpfs hides the cgroup hierarchies. The host is untouched.

import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine } from '@repairline/core'
import { BASE_ENV, ROOT, binPath, type BinResult } from './bin.ts'

const HELPER = join(fileURLToPath(new URL('.', import.meta.url)), 'in-mount-ns.mjs')

export interface Masks {
  /** [source, target]: bind-mount source over target. */
  binds?: Array<[string, string]>
  /** Mount an empty tmpfs over each. */
  tmpfs?: string[]
}

/** Runs a built tool with BASE_ENV plus `env` in a private mount namespace with `masks` applied. */
export async function runBinMasked (tool: string, args: string[], masks: Masks, o: { env?: Record<string, string>, input?: string } = {}): Promise<BinResult> {
  const env = { ...BASE_ENV, ...o.env }
  const r = await execa('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', process.execPath, HELPER, JSON.stringify({ ...masks, env, cwd: ROOT }), binPath(tool), ...args], {
    env, extendEnv: false, reject: false, input: o.input ?? '', cwd: ROOT, timeout: 120_000, stripFinalNewline: false,
  })
  const stdout = String(r.stdout)
  const lines = stdout.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return { exitCode: r.exitCode ?? -1, records: lines.map((l, i) => parseRecordLine(l, `${tool} stdout:${i + 1}`)), stdout, stderr: String(r.stderr) }
}

/** A fake bwrap that fails the way bwrap does where user namespaces are restricted (AppArmor). */
export function fakeBwrap (dir: string): string {
  const p = join(dir, 'fake-bwrap')
  writeFileSync(p, `#!${process.execPath}\nprocess.stderr.write('bwrap: setting up uid map: Permission denied\\n')\nprocess.exitCode = 1\n`)
  chmodSync(p, 0o755)
  return p
}
