// The benchmarks docs/performance.md reports must still run: each module once, on small inputs
// (REPAIRLINE_BENCH_SMOKE=1). A contract change once made the extract-tree module fail with
// TEST_HOOKS_MISMATCH, unnoticed until the next measurement. No figure is judged here: the
// machine running the suite is busy, and only the rows' presence and shape are asserted.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { run } from '@repairline/core'
import { ROOT } from '../helpers/bin.ts'

/** One row per measurement each module reports, by its `area` column. */
const EXPECTED_ROWS: Record<string, number> = { attempt: 3, chain: 4, 'extract-tree': 4, 'go-cache': 5, ndjson: 3, provider: 2, sandbox: 4, startup: 8 }

test('every benchmark module runs to a full table in smoke mode', { timeout: 900_000 }, async () => {
  const r = await run(process.execPath, [join(ROOT, 'scripts', 'run-ts.mjs'), join(ROOT, 'scripts', 'bench.ts')], {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C', REPAIRLINE_BENCH_SMOKE: '1' },
    cwd: ROOT,
  })
  assert.equal(r.exitCode, 0, r.stderr.toString().slice(-2000))
  const rows = r.stdout.toString().split('\n').filter(l => l.startsWith('| ') && !l.startsWith('| area') && !l.startsWith('|---'))
  const byArea = new Map<string, number>()
  for (const row of rows) {
    const cells = row.split(' | ')
    const area = (cells[0] ?? '').replace(/^\| /, '')
    const ratio = Number.parseFloat(cells[3] ?? '')
    assert.ok(Number.isFinite(ratio) && ratio > 0, `a row without a ratio: ${row}`)
    byArea.set(area, (byArea.get(area) ?? 0) + 1)
  }
  assert.deepEqual(Object.fromEntries(byArea), EXPECTED_ROWS)
})
