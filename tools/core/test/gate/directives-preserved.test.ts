// directives-preserved one part at a time: which comments it keys and how (the header, each
// //go: directive with what it precedes, +build, #cgo lines, the cgo preamble however "C" is
// spelled), ordinary comments left free, and JavaScript files passing. The whole-gate
// fixtures are in fixtures.ts.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { directivesOf, evaluateGate, parseSource } from '@repairline/core/gate/index'
import { GO_BASELINE, GO_CGO_CALC, GO_DIRECTIVES_CALC, JS_BASELINE, gateInput, type Baseline } from './fixtures.ts'

test('directivesOf keys the header, each //go: directive with what it precedes, +build, and the cgo preamble', async () => {
  const show = (t: string[]): string[] => t.map(e => e.replace('\u0000', ': '))
  assert.deepEqual(show(directivesOf(await parseSource('go', GO_DIRECTIVES_CALC))), [
    'file header: //go:build !windows\n// +build !windows\n\n// Package calc adds.\n',
    'directive: //go:build !windows before package calc',
    'directive: // +build !windows',
    'directive: //go:noinline before func Add(a, b int) int',
  ])
  assert.deepEqual(show(directivesOf(await parseSource('go', GO_CGO_CALC))), [
    'file header: ',
    'cgo preamble:  ',
    'cgo preamble: \n\n/*\n#include <stdlib.h>\nstatic int twice(int n) { return 2 * n; }\n*/\n',
  ])
  assert.deepEqual(directivesOf(await parseSource('javascript', '//go:build ignore\nexport const a = 1\n')), [], 'JavaScript has no go directives')
})

test('an import of "C" spelled as a raw string or with an escape still has its preamble kept', async () => {
  for (const spelled of ['`C`', '"\\x43"', '"\\u0043"']) {
    const text = `package calc\n\n// static int one(void) { return 1; }\nimport ${spelled}\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n`
    const b: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text } } }
    const r = await evaluateGate(gateInput(b, [{ path: 'calc.go', search: '// static int one', replace: '// __attribute__((constructor)) static void rl(void) {}\n// static int one' }]))
    assert.deepEqual(r.rules.filter(x => x.status === 'fail').map(x => x.rule), ['directives-preserved'], spelled)
  }
})

test('ordinary comments that only look like directives are free text: // go: with a space, // lineage, // export later', async () => {
  const r = await evaluateGate(gateInput(GO_BASELINE, [{ path: 'calc.go', search: '\treturn a - b\n', replace: '\t// go: see issue 12; lineage of the bug: export later\n\treturn a + b\n' }]))
  assert.deepEqual(r.rules.filter(x => x.status !== 'pass').map(x => `${x.rule}: ${x.findings.join(' | ')}`), [])
})

test('directives-preserved passes a JavaScript change (nothing to compare) and is not_checked when the edits do not apply', async () => {
  const js = await evaluateGate(gateInput(JS_BASELINE, [{ path: 'src/calc.js', search: 'return a - b', replace: 'return a + b' }]))
  assert.equal(js.rules.find(x => x.rule === 'directives-preserved')?.status, 'pass')
  const none = await evaluateGate(gateInput(GO_BASELINE, [{ path: 'calc.go', search: 'absent', replace: 'x' }]))
  assert.equal(none.rules.find(x => x.rule === 'directives-preserved')?.status, 'not_checked')
})
