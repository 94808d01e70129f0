// Temporary directories for tests, removed when the test ends (unless KEEP_TMP=1).

import { mkdtempSync, rmSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'

/** A fresh directory (realpath, so paths compare equal to what tools resolve). */
export function tempDir (t: TestContext | { after: (fn: () => void) => void }, prefix = 'rl-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  if (process.env.KEEP_TMP !== '1') t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
