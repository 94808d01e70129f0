// What a tool loads before it knows what it will do (its start-up, and all of `--help`): the
// bundle's static import graph. The 480 KB file validators, tree-sitter and undici must stay
// behind the dynamic import of the tool's logic (a regression here once took start-up from
// 1.6× to 1.9× `node -e 0`). Checked on the built bundles, not timed.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ROOT } from '../helpers/bin.ts'
import { TOOL_NAMES as TOOLS } from '@repairline/core'

/** Text that exists only in the module it names. */
const MARKERS: Record<string, string> = {
  'the file validators': 'urn:repairline:receipt:v1',
  'web-tree-sitter': 'tree_sitter_progress_callback',
  undici: 'UND_ERR_SOCKET',
}

/** Which tools' logic loads a heavy package (so its marker must be found there). */
const LOADS: Record<string, string> = { 'gate-patch': 'web-tree-sitter', verify: 'web-tree-sitter', receipt: 'web-tree-sitter', 'ask-provider': 'undici' }

/** The modules reachable from `entry`: through static imports only, or through dynamic ones too. */
function reachable (entry: string, dynamic: boolean): Map<string, string> {
  const seen = new Map<string, string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    const text = readFileSync(file, 'utf8')
    seen.set(file, text)
    const specs = [...text.matchAll(/(?:from|import)\s*"(\.{1,2}\/[^"]+\.mjs)"/g)].map(m => m[1])
    if (dynamic) specs.push(...[...text.matchAll(/import\(\s*"(\.{1,2}\/[^"]+\.mjs)"\s*\)/g)].map(m => m[1]))
    for (const s of specs) if (s !== undefined) visit(join(dirname(file), s))
  }
  visit(entry)
  return seen
}

for (const tool of TOOLS) {
  test(`${tool}: start-up loads none of the file validators, tree-sitter or undici; its logic, loaded on demand, does`, () => {
    const entry = join(ROOT, 'tools', tool, 'dist', `${tool}.mjs`)
    const statically = [...reachable(entry, false).values()]
    for (const [what, marker] of Object.entries(MARKERS)) {
      assert.equal(statically.some(text => text.includes(marker)), false, `${tool} loads ${what} at start-up`)
    }
    // Positive control: the marker is found where the logic does load it (every tool validates files).
    const all = [...reachable(entry, true).values()]
    assert.ok(all.length > statically.length, `${tool} has a dynamically loaded part`)
    assert.ok(all.some(text => text.includes(MARKERS['the file validators'] ?? '')), `${tool}: the file validators are found through the dynamic import`)
    if (LOADS[tool] !== undefined) assert.ok(all.some(text => text.includes(MARKERS[LOADS[tool] ?? ''] ?? '')), `${tool}: ${LOADS[tool] ?? ''} is found through the dynamic import`)
  })
}
