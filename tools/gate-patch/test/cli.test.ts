// The gate-patch bin on real admitted and extracted attempts (go and node fixtures): the fix
// is accepted and its candidate.patch reproduces the candidate through `git apply`; each
// adversarial proposal of issue 5 is rejected by its rule, with every failing rule named in
// the outcome; --check recomputes byte for byte and catches a forged patch or gate.json.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import type { GateReport, OutcomeFile, ProposalEdit } from '@repairline/schemas'
import { readOutcome, writeOutcome } from '@repairline/core'
import { BASE_ENV, ROOT, runBin, errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { applyToCleanWorktree, assertSameTree, candidateTree, fixture, gateReady } from './helpers.ts'

const RULES = ['path-tricks', 'allowlist', 'classifier', 'no-new-files', 'modes-unchanged', 'exact-application', 'diff-size', 'parses', 'imports-preserved', 'declarations-preserved', 'exports-preserved', 'signatures-preserved', 'calls-preserved', 'names-preserved', 'no-init-hook', 'no-test-framing', 'directives-preserved']

async function gate (dir: string, extra: string[] = [], env: Record<string, string> = {}): Promise<BinResult> {
  return await runBin('gate-patch', ['--attempt', dir, ...extra], { env })
}

function readJson<T> (path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

test('go: the one-line fix passes every rule; candidate.patch applied with git apply to a clean worktree of source_sha reproduces the candidate byte for byte', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  const r = await gate(a.dir)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', ...RULES.map(() => 'rule'), 'result'])
  assert.deepEqual(r.records.filter(x => x.kind === 'rule').map(x => x.kind === 'rule' && `${x.rule}:${x.status}`), RULES.map(id => `${id}:pass`))
  assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'gate-patch', exit: 0 })
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false, 'a passing gate decides no outcome')
  const report = readJson<GateReport>(join(a.dir, 'gate.json'))
  assert.equal(report.passed, true)
  assert.deepEqual(report.failed_rules, [])
  assert.deepEqual(report.changed_files.map(c => c.path), ['calc.go'])
  const patch = readFileSync(join(a.dir, 'candidate.patch'))
  assert.equal(report.patch?.bytes, patch.length)
  assert.match(patch.toString(), /^diff --git a\/calc\.go b\/calc\.go\n/)
  const want = candidateTree(a, new Map([['calc.go', readFileSync(join(f.repo, 'calc.go'), 'utf8').replace('return a - b', 'return a + b')]]))
  assertSameTree(await applyToCleanWorktree(t, a), want)
})

test('node: the one-line fix passes and applies on source_sha byte for byte', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const a = await gateReady(f, [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b' }])
  const r = await gate(a.dir)
  assert.equal(r.exitCode, 0, r.stderr)
  const want = candidateTree(a, new Map([['src/calc.js', readFileSync(join(f.repo, 'src/calc.js'), 'utf8').replace('return a - b', 'return a + b')]]))
  assertSameTree(await applyToCleanWorktree(t, a), want)
})

test('go: an added if with a return passes', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: '\treturn a - b\n', replace: '\tif b == 0 {\n\t\treturn a\n\t}\n\treturn a + b\n' }])
  const r = await gate(a.dir)
  assert.equal(r.exitCode, 0, r.stderr)
})

interface Adversary { name: string, edits: ProposalEdit[], fails: string[] }

const GO_ADVERSARIES: Adversary[] = [
  { name: 'a test-file edit', edits: [{ path: 'calc_test.go', search: 'got != 5', replace: 'got != -1' }], fails: ['allowlist', 'classifier'] },
  { name: 'a new call', edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b + Add(0, 0)' }], fails: ['calls-preserved'] },
  { name: 'a builtin (no call: DESIGN §15) beside a string --- PASS: TestX', edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b + len("--- PASS: TestX")*0' }], fails: ['no-test-framing'] },
  { name: 'a new local :=', edits: [{ path: 'calc.go', search: '\treturn a - b\n', replace: '\tsum := a + b\n\treturn sum\n' }], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'a renamed parameter', edits: [{ path: 'calc.go', search: 'func Add(a, b int) int {\n\treturn a - b', replace: 'func Add(x, b int) int {\n\treturn x + b' }], fails: ['signatures-preserved', 'names-preserved'] },
  { name: 'func init', edits: [{ path: 'calc.go', search: '// Add returns', replace: 'func init() {\n}\n\n// Add returns' }], fails: ['declarations-preserved', 'signatures-preserved', 'names-preserved', 'no-init-hook'] },
  { name: 'TestMain calling os.Exit(0)', edits: [{ path: 'calc.go', search: 'package calc\n', replace: 'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n' }], fails: ['imports-preserved', 'declarations-preserved', 'signatures-preserved', 'calls-preserved', 'names-preserved', 'no-init-hook'] },
  { name: 'a path with ..', edits: [{ path: '../calc.go', search: 'return a - b', replace: 'return a + b' }], fails: ['path-tricks', 'allowlist', 'classifier', 'no-new-files'] },
  { name: 'a search text that occurs twice', edits: [{ path: 'calc.go', search: 'return', replace: 'return' }], fails: ['exact-application'] },
  { name: 'a file that no longer parses', edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a -' }], fails: ['parses'] },
]

const NODE_ADVERSARIES: Adversary[] = [
  { name: 'new X() in JavaScript', edits: [{ path: 'src/calc.js', search: 'return a - b', replace: 'return new Number(a + b) * 1' }], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'a new local const', edits: [{ path: 'src/calc.js', search: '  return a - b\n', replace: '  const sum = a + b\n  return sum\n' }], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'a template literal ok 1 - x', edits: [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b + `ok 1 - x`.length * 0' }], fails: ['no-test-framing'] },
  { name: 'a test-file edit', edits: [{ path: 'test/calc.test.js', search: 'add(2, 3), 5', replace: 'add(2, 3), -1' }], fails: ['allowlist', 'classifier'] },
]

for (const [runner, list] of [['go', GO_ADVERSARIES], ['node', NODE_ADVERSARIES]] as const) {
  test(`${runner}: each adversarial proposal is rejected by its rule, every failing rule named, exit 1`, async (t) => {
    const f = await fixture(t, { runner })
    let i = 0
    for (const adv of list) {
      // One fixture, one attempt per proposal (a rejected attempt's outcome makes the lock stale).
      const a = await gateReady(f, adv.edits, ++i)
      const r = await gate(a.dir)
      assert.equal(r.exitCode, 1, `${adv.name}: ${r.stderr}`)
      assert.equal(errorOf(r), undefined, adv.name)
      const failed = r.records.filter(x => x.kind === 'rule' && x.status === 'fail').map(x => x.kind === 'rule' ? x.rule : '')
      assert.deepEqual(failed, adv.fails, adv.name)
      assert.deepEqual(r.records.at(-1), { v: 1, kind: 'result', tool: 'gate-patch', exit: 1, outcome: 'rejected' }, adv.name)
      const outcome = readJson<OutcomeFile>(join(a.dir, 'outcome.json'))
      assert.equal(outcome.outcome, 'rejected')
      assert.equal(outcome.step, 'gate-patch')
      assert.equal(outcome.reason.code, 'GATE_REJECTED')
      for (const rule of adv.fails) assert.ok(outcome.reason.message.includes(rule), `${adv.name}: outcome names ${rule}: ${outcome.reason.message}`)
      assert.match(r.stderr, new RegExp(`^gate-patch: rejected by ${adv.fails.join(', ')}\\n$`))
      const report = readJson<GateReport>(join(a.dir, 'gate.json'))
      assert.equal(report.passed, false)
      assert.deepEqual(report.failed_rules, adv.fails)
      // A candidate exists (and is retained for review) exactly when the edits applied.
      const applied = report.rules.find(x => x.rule === 'exact-application')?.status === 'pass'
      assert.equal(existsSync(join(a.dir, 'candidate.patch')), applied, adv.name)
      // A rejected attempt is done: a rerun does no work and repeats the outcome.
      const again = await gate(a.dir)
      assert.equal(again.exitCode, 1)
      assert.deepEqual(again.records.map(x => x.kind), ['start', 'attempt', 'result'])
    }
  })
}

test('--check: recomputes candidate.patch and gate.json byte for byte and writes nothing; a forged mode flip or gate.json is a mismatch (exit 1)', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  assert.equal((await gate(a.dir)).exitCode, 0)
  const patchPath = join(a.dir, 'candidate.patch')
  const gatePath = join(a.dir, 'gate.json')
  const patch = readFileSync(patchPath)
  const gateBytes = readFileSync(gatePath)
  const ok = await gate(a.dir, ['--check'])
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.deepEqual(ok.records.map(x => x.kind === 'check' ? `${x.file}:${String(x.match)}` : x.kind), ['start', 'attempt', 'candidate.patch:true', 'gate.json:true', 'result'])
  // A candidate.patch forged to flip the file's mode.
  writeFileSync(patchPath, patch.toString().replace(/^index (\S+) 100644\n/m, 'old mode 100644\nnew mode 100755\nindex $1\n'))
  const forged = await gate(a.dir, ['--check'])
  assert.equal(forged.exitCode, 1)
  assert.deepEqual(forged.records.filter(x => x.kind === 'check').map(x => x.kind === 'check' && x.match), [false, true])
  assert.match(forged.stderr, /candidate\.patch differs/)
  writeFileSync(patchPath, patch)
  // A gate.json edited to claim another verdict.
  writeFileSync(gatePath, gateBytes.toString().replace('"passed": true', '"passed": false'))
  const lied = await gate(a.dir, ['--check'])
  assert.equal(lied.exitCode, 1)
  assert.deepEqual(lied.records.filter(x => x.kind === 'check').map(x => x.kind === 'check' && x.match), [true, false])
  writeFileSync(gatePath, gateBytes)
  // --check never wrote anything.
  assert.ok(readFileSync(patchPath).equals(patch))
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false)
})

test('--check works on a rejected attempt (with an outcome, lock stale) and on one where the edits never applied', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return', replace: 'return' }])
  assert.equal((await gate(a.dir)).exitCode, 1)
  assert.equal(existsSync(join(a.dir, 'candidate.patch')), false)
  const r = await gate(a.dir, ['--check'])
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.filter(x => x.kind === 'check'), [
    { v: 1, kind: 'check', file: 'candidate.patch', match: true },
    { v: 1, kind: 'check', file: 'gate.json', match: true, retained_sha256: (r.records[3] as { retained_sha256: string }).retained_sha256, recomputed_sha256: (r.records[3] as { retained_sha256: string }).retained_sha256 },
  ])
})

test('--check before gate-patch ran: both files are mismatches (missing), exit 1', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  const r = await gate(a.dir, ['--check'])
  assert.equal(r.exitCode, 1)
  assert.deepEqual(r.records.filter(x => x.kind === 'check').map(x => x.kind === 'check' && x.match), [false, false])
  assert.equal(existsSync(join(a.dir, 'gate.json')), false)
})

test('--check on an attempt that ended before the gate has nothing to recompute: no check record, the outcome\'s exit', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  writeOutcome(f.stateDir, a.dir, a.key, 'ask-provider', { outcome: 'provider_error', retryable: true, code: 'X_TEST', message: 'decided by the test' }, new Date(), d => readOutcome(d, a.key))
  const before = readdirSync(a.dir).sort()
  const r = await gate(a.dir, ['--check'])
  assert.equal(r.exitCode, 69, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.match(r.stderr, /nothing to recompute: the attempt ended provider_error \(X_TEST\) at ask-provider/)
  assert.deepEqual(readdirSync(a.dir).sort(), before)
})

test('a crash at the gate fault point leaves no gate.json; the rerun completes with identical files', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  const crashed = await gate(a.dir, [], { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_FAULT_AT: 'gate' })
  assert.notEqual(crashed.exitCode, 0)
  assert.equal(existsSync(join(a.dir, 'gate.json')), false)
  assert.equal(existsSync(join(a.dir, 'outcome.json')), false)
  const patch = readFileSync(join(a.dir, 'candidate.patch'))
  const r = await gate(a.dir)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.ok(readFileSync(join(a.dir, 'candidate.patch')).equals(patch))
  // Positive control: the hook is inert without REPAIRLINE_TEST_HOOKS=1.
  const b = await fixture(t, { runner: 'go' })
  const a2 = await gateReady(b, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  assert.equal((await gate(a2.dir, [], { REPAIRLINE_FAULT_AT: 'gate' })).exitCode, 0)
})

test('the built bin loads its grammars from the .wasm files beside it: a copy of dist/ elsewhere works, and fails loudly (70) without them', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const dist = join(ROOT, 'tools', 'gate-patch', 'dist')
  const copy = join(tempDir(t), 'dist')
  cpSync(dist, copy, { recursive: true })
  // The gate's code is in a chunk loaded after argument parsing; its grammars sit beside it.
  assert.deepEqual(readdirSync(join(copy, 'chunks')).filter(n => n.endsWith('.wasm')).sort(), ['tree-sitter-go.wasm', 'tree-sitter-javascript.wasm', 'tree-sitter.wasm'])
  const run = async (dir: string) => await execa(process.execPath, [join(copy, 'gate-patch.mjs'), '--attempt', dir], { env: BASE_ENV, extendEnv: false, reject: false, cwd: copy })
  const a = await gateReady(f, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }], 1)
  const ok = await run(a.dir)
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.match(ok.stdout, /"rule":"calls-preserved","status":"pass"/)
  // Without the grammar beside it, nothing outside the copy is used in its place.
  for (const dir of [copy, join(copy, 'chunks')]) rmSync(join(dir, 'tree-sitter-go.wasm'), { force: true })
  const b = await fixture(t, { runner: 'go' })
  const a2 = await gateReady(b, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }])
  const missing = await run(a2.dir)
  assert.equal(missing.exitCode, 70)
  assert.match(missing.stderr, /^gate-patch: INTERNAL: cannot find tree-sitter-go\.wasm beside .*\ngate-patch: hint: run pnpm build/)
  assert.equal(existsSync(join(a2.dir, 'gate.json')), false)
})
