// The gate's parts one at a time: exact application, the mode and file-set rules on forged
// contexts (a proposal cannot carry a mode, so the rule is driven directly), framing
// patterns and literal decoding, and the grammar files' resolution from source.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import {
  ANY_TEXT, applyEdits, buildGateContext, buildUnifiedDiff, countOccurrences, decodeGo, decodeJs, framingIn, runGateRules, stringsOf, parseSource, wasmPath, WASM_FILES,
  type GateContext,
} from '@repairline/core/gate/index'
import { checkModesUnchanged } from '../../src/gate/rules/modes-unchanged.ts'
import { checkNoNewFiles, fileSetHeaders } from '../../src/gate/rules/no-new-files.ts'
import { checkPathTricks } from '../../src/gate/rules/path-tricks.ts'
import { GO_BASELINE, gateInput, type Baseline } from './fixtures.ts'

const mode = () => '100644' as const

test('occurrences are counted with overlaps: "aa" occurs twice in "aaa"', () => {
  assert.equal(countOccurrences('aaa', 'aa'), 2)
  assert.equal(countOccurrences('abc', 'b'), 1)
  assert.equal(countOccurrences('abc', 'd'), 0)
})

test('exact application: an overlapping second occurrence makes the search ambiguous', () => {
  const b: Baseline = { runner: 'go', files: { 'a.go': { text: 'package a\n\nvar s = "aaa"\n' } }, allowed: ['a.go'] }
  const r = applyEdits(gateInput(b, [{ path: 'a.go', search: 'aa', replace: 'b' }]), mode)
  assert.equal(r.ok, false)
  assert.match(r.ok ? '' : r.findings[0] ?? '', /occurs more than once/)
})

test('exact application keeps CRLF, a BOM and a missing final newline byte for byte', () => {
  const text = '\ufeffpackage a\r\n\r\nfunc F() int {\r\n\treturn 1\r\n}'
  const b: Baseline = { runner: 'go', files: { 'a.go': { text } }, allowed: ['a.go'] }
  const r = applyEdits(gateInput(b, [{ path: 'a.go', search: 'return 1', replace: 'return 2' }]), mode)
  assert.ok(r.ok)
  assert.equal(r.files[0]?.after, text.replace('return 1', 'return 2'))
  // A search written with LF where the file has CRLF is not folded into a match.
  const lf = applyEdits(gateInput(b, [{ path: 'a.go', search: 'return 1\n}', replace: 'return 2\n}' }]), mode)
  assert.equal(lf.ok, false)
})

test('exact application refuses a file that is not UTF-8 and an edit with a lone surrogate', () => {
  const bin: Baseline = { runner: 'go', files: { 'a.go': { text: Buffer.from([0x70, 0xff, 0xfe, 0x0a]) } }, allowed: ['a.go'] }
  const r1 = applyEdits(gateInput(bin, [{ path: 'a.go', search: 'p', replace: 'q' }]), mode)
  assert.deepEqual(r1.ok ? [] : r1.findings, ['edit 1 (a.go): a.go is not UTF-8 text'])
  const r2 = applyEdits(gateInput(GO_BASELINE, [{ path: 'calc.go', search: 'a - b', replace: 'a + b \ud800' }]), mode)
  assert.match(r2.ok ? '' : r2.findings[0] ?? '', /lone UTF-16 surrogate/)
})

async function fixCtx (): Promise<GateContext> {
  return await buildGateContext(gateInput(GO_BASELINE, [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }]))
}

test('modes-unchanged: a candidate whose mode flips fails on the mode and on the diff header; the same context unflipped passes', async () => {
  const ctx = await fixCtx()
  assert.equal(checkModesUnchanged(ctx).status, 'pass')
  const changed = (ctx.changed ?? []).map(f => ({ ...f, mode: '100755' as const }))
  const flipped: GateContext = { ...ctx, changed, patch: buildUnifiedDiff(changed) }
  const r = checkModesUnchanged(flipped)
  assert.equal(r.status, 'fail')
  assert.deepEqual(r.findings, ['calc.go: mode 100644 would become 100755', 'diff header "old mode 100644"', 'diff header "new mode 100755"'])
  // The whole gate fails on it too, and on nothing else.
  assert.deepEqual(runGateRules(flipped).rules.filter(x => x.status !== 'pass').map(x => x.rule), ['modes-unchanged'])
})

test('modes-unchanged: a retained patch that only carries a mode line is caught from the patch alone', async () => {
  const ctx = await fixCtx()
  const forged: GateContext = { ...ctx, patch: `diff --git a/calc.go b/calc.go\nold mode 100644\nnew mode 100755\n${ctx.patch ?? ''}` }
  assert.equal(checkModesUnchanged(forged).status, 'fail')
})

test('no-new-files: diff headers that create, delete, rename or copy a file are findings; hunk lines are not', async () => {
  const ctx = await fixCtx()
  assert.deepEqual(fileSetHeaders(ctx.patch ?? ''), [])
  const forged = 'diff --git a/x.go b/x.go\nnew file mode 100644\n--- /dev/null\n+++ b/x.go\n@@ -0,0 +1 @@\n+--- /dev/null\ndiff --git a/a.go b/b.go\nrename from a.go\nrename to b.go\n'
  assert.deepEqual(fileSetHeaders(forged), ['new file mode 100644', '--- /dev/null', 'rename from a.go', 'rename to b.go'])
  assert.equal(checkNoNewFiles({ ...ctx, patch: forged }).status, 'fail')
  assert.equal(checkNoNewFiles(ctx).status, 'pass')
})

test('path-tricks: each trick is named; plain tree paths pass', async () => {
  const ctx = await fixCtx()
  const tricks: Record<string, RegExp> = {
    '../calc.go': /"\.\." component/,
    '/calc.go': /absolute path/,
    'CALC.GO': /case or normalization variant of calc\.go/,
    ':(top)calc.go': /pathspec magic/,
    '*.go': /glob character/,
    'calc[1].go': /glob character/,
    '-calc.go': /leading "-"/,
    'calc.go.': /ends in a dot or space/,
    'a\\calc.go': /backslash/,
    'a//calc.go': /empty component/,
    '.GIT/config': /\.git component/,
    'calc\u202e.go': /bidirectional/,
    'calc\n.go': /control character/,
  }
  for (const [path, why] of Object.entries(tricks)) {
    const r = checkPathTricks({ ...ctx, input: { ...ctx.input, edits: [{ path, search: 'x', replace: 'y' }] } })
    assert.equal(r.status, 'fail', path)
    assert.match(r.findings[0] ?? '', why, path)
  }
  for (const path of ['calc.go', 'run.go']) {
    assert.equal(checkPathTricks({ ...ctx, input: { ...ctx.input, edits: [{ path, search: 'x', replace: 'y' }] } }).status, 'pass', path)
  }
})

test('framing: every pattern is found; near misses are not', () => {
  const hits: Array<[string, string]> = [
    ['=== RUN   TestX', '=== RUN'], ['=== PAUSE TestX', '=== PAUSE'], ['=== CONT  TestX', '=== CONT'],
    ['--- PASS: TestX (0.00s)', '--- PASS'], ['    --- FAIL: TestX/sub', '--- FAIL'], ['--- SKIP: TestX', '--- SKIP'],
    ['x\nPASS\n', 'a line that is PASS or FAIL'], ['FAIL', 'a line that is PASS or FAIL'], ['PASS\r\n', 'a line that is PASS or FAIL'],
    ['ok  \texample.com/calc\t0.01s', 'ok  \\t'], ['FAIL\texample.com/calc', 'FAIL\\t'], ['{"Action":"pass"}', '"Action":'],
    ['TAP version 13', 'TAP version'], ['ok 1 - add', 'ok <n>'], ['not ok 2 - add', 'not ok <n>'], ['# pass 3', '# pass'], ['# fail 0', '# fail'],
  ]
  for (const [s, name] of hits) assert.ok(framingIn(s).includes(name), `${JSON.stringify(s)} should match ${name}`)
  // A TAP result starts a line (after indentation, or a substitution counted as 0).
  for (const [s, name] of [['x\nok 1', 'ok <n>'], ['  ok 1', 'ok <n>'], [`${ANY_TEXT}ok 1`, 'ok <n>'], ['\tnot ok 3', 'not ok <n>'], [`x\r${ANY_TEXT}not ok 3`, 'not ok <n>']]) assert.ok(framingIn(s as string).includes(name as string), `${JSON.stringify(s)} should match ${name as string}`)
  for (const s of ['took 5 ms', 'PASSED', 'a FAIL b', 'ok', 'ok then', 'book 1', '--PASS', 'tap version', '#pass', 'status ok 200', 'all ok 1 by 1', 'is not ok 2', '0ok 1', 'x FAIL\tpkg']) assert.deepEqual(framingIn(s), [], s)
})

test('framing: what the literal text does not fix (a substitution, another operand, a format verb) may be any text, the keyword must be literal', () => {
  const hits: Array<[string, string]> = [
    ['%c%c%c PASS: TestAdd', '--- PASS'], ['%s RUN   TestAdd', '=== RUN'], [`${ANY_TEXT} FAIL: TestAdd`, '--- FAIL'], ['ok %d - add', 'ok <n>'], [`ok ${ANY_TEXT} - add`, 'ok <n>'],
    [`${ANY_TEXT}\nPASS`, 'a line that is PASS or FAIL'], [`PASS${ANY_TEXT}`, 'a line that is PASS or FAIL'], ['%sPASS\n', 'a line that is PASS or FAIL'], [`FAIL${ANY_TEXT}`, 'FAIL\\t'], ['ok %s', 'ok  \\t'],
  ]
  for (const [s, name] of hits) assert.ok(framingIn(s).includes(name), `${JSON.stringify(s)} should match ${name}`)
  const misses = ['n=%d', '%cASS', `${ANY_TEXT}ASS`, `book${ANY_TEXT}`, `took ${ANY_TEXT} ms`, '100%% PASS rate', `${ANY_TEXT} pass`, `status: ${ANY_TEXT}`, `${ANY_TEXT}FAILED`, 'a %s PASSED']
  for (const s of misses) assert.deepEqual(framingIn(s), [], JSON.stringify(s))
})

test('literal values are decoded before matching: go escapes, raw strings, JS escapes and template substitutions', async () => {
  assert.equal(decodeGo('ok  \\t\\x41\\101\\u00e9\\U0001F600\\"\\\\'), 'ok  \tAA\u00e9\u{1F600}"\\')
  assert.equal(decodeJs('\\x20\\u0041\\u{1F600}\\n\\q\\\n'), ' A\u{1F600}\nq')
  // Legacy octal escapes, as a sloppy-mode (.cjs) file reads them: up to three digits from \0-\3, two from \4-\7.
  assert.equal(decodeJs('\\55-- PASS'), '--- PASS')
  assert.equal(decodeJs('\\157k 1'), 'ok 1')
  assert.equal(decodeJs('\\0x\\08\\377\\400\\8\\9'), '\0x\u00008\u00ff\u00200\u0038\u0039')
  const go = await parseSource('go', 'package a\n\nvar a = "x\\ty"\nvar b = `r\r\naw`\n')
  assert.deepEqual(stringsOf(go), ['x\ty', 'r\naw'])
  const js = await parseSource('javascript', "const a = 'x\\ty'; const b = `ok ${n} - ${'q'}\\n`\n")
  // A substitution of a literal is that literal's text (since checker version 9).
  assert.deepEqual(stringsOf(js), ['x\ty', `ok ${ANY_TEXT} - q\n`, 'q'])
})

test('the grammar files resolve from the packages under tsx, and parse errors are reported by line', async () => {
  for (const f of WASM_FILES) assert.ok(existsSync(wasmPath(f)), f)
  const bad = await parseSource('go', 'package a\n\nfunc F() {\n\treturn 1 +\n}\n')
  assert.ok(bad.errors.length > 0)
  assert.match(bad.errors[0] ?? '', /^line \d+: /)
  const good = await parseSource('javascript', 'export const a = 1\n')
  assert.deepEqual(good.errors, [])
})
