// Preparing an admitted attempt for the steps after admit: admission is real (admit run on a
// fixture, through the built bin); the files of the steps that are not under test are
// written here in their schema-valid shape. baseline.json is written by hand (what
// reproduce would write for a reproduced case), and tree files are read straight from the
// fixture repository's commit, so provider tests need neither the sandbox nor Go.

import { join } from 'node:path'
import type { Baseline } from '@repairline/schemas'
import { writeJsonAtomic } from '@repairline/core'
import type { Fixture } from './fixture.ts'
import { gitT } from './git.ts'
import { runBin, errorOf } from './bin.ts'

export interface Admitted {
  dir: string
  key: string
}

/** admit run on the fixture; throws with the error record unless it admitted a case. */
export async function admitFixture (f: Fixture, env: Record<string, string> = {}): Promise<Admitted> {
  const r = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath], { env })
  const attempt = r.records.find(x => x.kind === 'attempt')
  if (r.exitCode !== 0 || attempt?.kind !== 'attempt') throw new Error(`admit run failed (${r.exitCode}): ${JSON.stringify(errorOf(r))} ${r.stderr}`)
  return { dir: attempt.path, key: attempt.key }
}

/**
 * Writes the baseline.json reproduce would write for a reproduced case: the case identity
 * failed, every other identity passed.
 */
export function writeBaseline (f: Fixture, a: Admitted, o: { failing?: string[], reproduced?: boolean, caseIdentity?: string } = {}): Baseline {
  const caseIdentity = o.caseIdentity ?? f.report.cases[0]?.test.name ?? ''
  const failing = [...(o.failing ?? [caseIdentity])].sort()
  const baseline: Baseline = {
    v: 1,
    attempt_key: a.key,
    case_identity: caseIdentity,
    reproduced: o.reproduced ?? failing.includes(caseIdentity),
    identities: Object.fromEntries(failing.map(id => [id, { result: 'fail' as const }])),
    failing,
    anomalies: [],
  }
  writeJsonAtomic('baseline', join(a.dir, 'baseline.json'), baseline, { stateRoot: f.stateDir })
  return baseline
}

/** Every blob of the fixture's commit, by path (what the extracted tree holds). */
export async function repoFiles (f: Fixture): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  const list = (await gitT(f.repo, ['ls-tree', '-r', '-z', '--name-only', f.sha])).split('\0').filter(Boolean)
  for (const path of list) out.set(path, Buffer.from(await gitT(f.repo, ['show', `${f.sha}:${path}`]), 'utf8'))
  return out
}

/** A TreeReader over `files` that throws like a missing tree entry. */
export function mapReader (files: Map<string, Buffer>): (path: string) => Buffer {
  return (path: string) => {
    const b = files.get(path)
    if (b === undefined) throw new Error(`no ${path} in the tree`)
    return b
  }
}
