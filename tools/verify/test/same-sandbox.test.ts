// The same-sandbox rule in-process: a candidate run is compared with baseline.json on the
// runner, toolchain, command (go's -timeout excepted), reporter digest, environment names,
// working directory, mount points and every limit asked for; mount sources are not compared.
// Each difference is one line; none means identical.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Baseline } from '@repairline/schemas'
import { sandboxDifferences, type TestRun } from '@repairline/core'
import { ROOT } from '../../../test/helpers/bin.ts'

const baseline = JSON.parse(readFileSync(join(ROOT, 'schemas', 'examples', 'baseline', 'valid', 'reproduced.json'), 'utf8')) as Baseline

/** The candidate run as the baseline's twin: another tree and scratch, another -timeout. */
function twin (): TestRun {
  const run = structuredClone(baseline.run)
  assert.ok(run !== undefined)
  run.mounts = run.mounts.map(m => ({ ...m, source: m.source.replace('/work/tree', '/work/candidate').replace('/work/scratch', '/work/candidate-run') }))
  const command = baseline.command.map(a => a.startsWith('-timeout=') ? '-timeout=17s' : a)
  run.command = command
  return { runner: baseline.runner, toolchain: baseline.toolchain, command, sandbox: run, events: [], summary: { identities: {}, failing: [], packages: {}, anomalies: [], ran: 0 }, timedOut: false, stderrTail: '' }
}

test('the twin run is identical: other mount sources and another go -timeout are not differences', () => {
  assert.deepEqual(sandboxDifferences(baseline, twin()), [])
})

test('each difference is named on one line', () => {
  const cases: Array<[string, (r: TestRun) => void, RegExp]> = [
    ['toolchain', r => { r.toolchain = 'go1.21.0' }, /^toolchain: baseline "go1\.19\.8", candidate "go1\.21\.0"$/],
    ['command', r => { r.command = [...r.command, './other'] }, /^command: /],
    ['go binary', r => { r.command = ['/usr/local/go/bin/go', ...r.command.slice(1)] }, /^command: /],
        ['reporter', r => { r.reporterSha256 = 'b'.repeat(64) }, /^reporter sha256: baseline undefined/],
    ['environment', r => { r.sandbox?.env_names.push('GOFLAGS_EXTRA') }, /^environment names: /],
    ['cwd', r => { if (r.sandbox !== undefined) r.sandbox.cwd = '/' }, /^working directory: /],
    ['mount mode', r => { if (r.sandbox !== undefined) r.sandbox.mounts = r.sandbox.mounts.map(m => ({ ...m, mode: 'rw' })) }, /^mount points: .*"\/src:rw"/],
    ['limit', r => { const l = r.sandbox?.limits.find(x => x.name === 'memory'); if (l !== undefined) l.want = '1' }, /^limit memory: baseline "4294967296", candidate "1"$/],
    ['no sandbox run', r => { delete r.sandbox }, /^sandbox run: baseline "present", candidate "absent"$/],
  ]
  for (const [what, change, want] of cases) {
    const r = twin()
    change(r)
    const d = sandboxDifferences(baseline, r)
    assert.equal(d.length, 1, `${what}: ${JSON.stringify(d)}`)
    assert.match(d[0] ?? '', want, what)
    assert.doesNotMatch(d[0] ?? '', /[\r\n]/)
  }
})

test('another runner is a difference, and its command is then compared without the go exception', () => {
  const r = twin()
  r.runner = 'node'
  assert.deepEqual(sandboxDifferences(baseline, r).map(x => x.split(':')[0]), ['runner', 'command'])
})

test('node: the command is compared byte for byte (no -timeout to except)', () => {
  const b: Baseline = { ...baseline, runner: 'node', command: ['/usr/bin/node', '--test', '-timeout=5s'] }
  const r = twin()
  r.runner = 'node'
  r.command = ['/usr/bin/node', '--test', '-timeout=6s']
  assert.deepEqual(sandboxDifferences(b, r).map(x => x.split(':')[0]), ['command'])
})
