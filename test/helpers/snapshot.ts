// "Nothing was written" for tests: a listing of every file and directory under a directory,
// each file with its size and mtime, sorted, so two snapshots compare with deepEqual.

import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Every entry under `dir`: `sub/` for a directory, `path size mtimeMs` for anything else. */
export function snapshot (dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap(d => {
    const p = rel === '' ? d.name : `${rel}/${d.name}`
    const st = statSync(join(dir, p))
    return d.isDirectory() ? [`${p}/`, ...snapshot(dir, p)] : [`${p} ${st.size} ${st.mtimeMs}`]
  }).sort()
}
