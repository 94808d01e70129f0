// Fixture repositories built in code with real git plumbing. Files are written into a fresh
// work tree and committed with a fixed identity and date, so the same files give the same
// commit id.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { run } from '@repairline/core'

export const TEST_GIT_ENV: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  LC_ALL: 'C',
}

/** Runs git in `cwd` for a test; throws with stderr on failure; returns stdout. */
export async function gitT (cwd: string, args: string[], input?: string | Uint8Array): Promise<string> {
  const r = await run('/usr/bin/git', ['-C', cwd, ...args], { env: TEST_GIT_ENV, ...(input === undefined ? {} : { input }) })
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed (${String(r.exitCode)}): ${r.stderr.toString()}`)
  return r.stdout.toString('utf8')
}

export type FileSpec = string | { content: string | Uint8Array, mode?: number }

/** Writes files (path → content, or {content, mode}) under `root`. */
export function writeFiles (root: string, files: Record<string, FileSpec>): void {
  for (const [rel, spec] of Object.entries(files)) {
    const p = join(root, rel)
    mkdirSync(dirname(p), { recursive: true })
    const { content, mode } = typeof spec === 'string' ? { content: spec, mode: 0o644 } : { content: spec.content, mode: spec.mode ?? 0o644 }
    writeFileSync(p, content)
    chmodSync(p, mode)
  }
}

/** Creates a repository at `root` with `files` committed; returns the commit id. */
export async function createRepo (root: string, files: Record<string, FileSpec>): Promise<string> {
  mkdirSync(root, { recursive: true })
  await gitT(root, ['init', '-q', '-b', 'main'])
  writeFiles(root, files)
  return await commitAll(root, 'fixture')
}

/** Stages everything and commits; returns the new commit id. */
export async function commitAll (root: string, message: string): Promise<string> {
  await gitT(root, ['add', '-A'])
  await gitT(root, ['commit', '-q', '--allow-empty', '-m', message])
  return (await gitT(root, ['rev-parse', 'HEAD'])).trim()
}
