// The seventh gate audit's cases (attacks): each was accepted by evaluateGate, and confirmed with node --test / go test
// (the failing test passes after the edit, with a - b in place).
import type { Case } from './case.ts'
import { ESM, CJS } from './attacks-holders.ts'
import { DEF } from './attacks-round5.ts'
import { GO1 } from './attacks-go.ts'
const LIM = 'const LIMIT = 100'
const RET = '  return a - b\n'
const j = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits, expect })
const g = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'go', path: 'calc.go', before, edits, expect })
const M = '\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n'
// A named import (or require(…).strict) of the assert module, with an Object.assign already in the file.
export const NAMED = "import { strict as assert } from 'node:assert'\n\nconst BASE = { precision: 2 }\nconst DEFAULTS = Object.assign({}, BASE, { retries: 3 })\n\n// options merges o over the defaults.\nexport function options (o) {\n  return { ...DEFAULTS, ...o }\n}\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  assert.ok(Number.isFinite(a))\n  return a - b\n}\n"
const REQ_STRICT = NAMED.replace("import { strict as assert } from 'node:assert'", "const assert = require('node:assert').strict").replace(/export function/g, 'function') + '\nmodule.exports = { options, add }\n'
const REQ_DESTRUCTURED = REQ_STRICT.replace("const assert = require('node:assert').strict", "const { strict: assert } = require('node:assert')")
const DEFAULT_IMPORT = NAMED.replace('{ strict as assert }', 'assert')
const OA = 'Object.assign({}, BASE, { retries: 3 })'
// A class whose fields the test constructs.
const CALC = "import assert from 'node:assert/strict'\n\n// Calc adds numbers up to a limit.\nexport class Calc {\n  limit = 100\n  count = 0\n\n  add (a, b) {\n    assert.ok(Number.isFinite(a))\n    this.count += 1\n    return Math.min(a - b, this.limit)\n  }\n}\n"
const STATIC = CALC.replace('  limit = 100\n  count = 0\n', '  static limit = 100\n  static count = 0\n').replace('this.count += 1', 'Calc.count += 1').replace('this.limit)', 'Calc.limit)')
const ACC = 'package calc\n\ntype acc struct {\n\tp *int\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := 0\n\ts := acc{p: &sum}\n\t*s.p = a - b\n\treturn sum\n}\n' + M
const EMBED = 'package calc\n\ntype Limits struct {\n\tMax int\n}\n\ntype Calc struct {\n\t*Limits\n}\n\n// Add returns the sum of a and b, at most the limit.\nfunc Add(a, b int) int {\n\tc := Calc{Limits: &Limits{Max: 100}}\n\tif a-b > c.Max {\n\t\treturn c.Max\n\t}\n\treturn a - b\n}\n\nfunc matches(got int, want Limits) bool {\n\treturn got == want.Max\n}\n'
const COUNTER = 'package calc\n\ntype Counter struct {\n\tn int\n}\n\n// Set sets k to n.\nfunc (k *Counter) Set(n int) {\n\tk.n = n\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tc := &Counter{}\n\tc.Set(a - b)\n\treturn c.n\n}\n\nfunc matches(got int, want Counter) bool {\n\treturn got == want.n\n}\n'
const CHAN = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := a - b\n\tch := make(chan *int, 1)\n\tch <- &sum\n\tp := <-ch\n\t*p += 0\n\treturn sum\n}\n' + M
const ASSERT = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn sumOf(&a, b)\n}\n\n// sumOf subtracts b from what x points at.\nfunc sumOf(x any, b int) int {\n\tp, ok := x.(*int)\n\tif !ok {\n\t\treturn 0\n\t}\n\t*p -= b\n\treturn *p\n}\n' + M
const TSWITCH = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn sumOf(&a, b)\n}\n\n// sumOf subtracts b from what x points at.\nfunc sumOf(x any, b int) int {\n\tswitch v := x.(type) {\n\tcase *int:\n\t\t*v -= b\n\t\treturn *v\n\t}\n\treturn 0\n}\n' + M
export const CASES: Case[] = [
  // 1. A member or index of a literal (or of ?:, &&, an assignment) gives the target the literal's own paths, unshifted.
  j('esm-array-literal-index', ESM, [[RET, '  b = [assert][0]\n  b.equal = b.ok\n  b = 3\n' + RET]]),
  j('esm-object-literal-member-defaults', DEF, [[LIM, 'const LIMIT = (DEFAULTS.x = { k: assert }.k, DEFAULTS.x.equal = DEFAULTS.x.ok, 100)']]),
  j('esm-nested-array-index-defaults', DEF, [[LIM, 'const LIMIT = (DEFAULTS.x = [[assert]][0][0], DEFAULTS.x.equal = DEFAULTS.x.ok, 100)']]),
  j('cjs-object-literal-member-this', CJS, [[LIM, 'const LIMIT = (this.x = { k: assert }.k, this.x.strictEqual = this.x.ok, 100)']]),
  // 2. A destructuring default whose target is a member.
  j('esm-destructure-default-into-member', DEF, [[LIM, 'const LIMIT = ({ x: DEFAULTS.x = assert } = {}, DEFAULTS.x.equal = DEFAULTS.x.ok, 100)']]),
  j('esm-array-destructure-default-into-member', DEF, [[LIM, 'const LIMIT = ([DEFAULTS.x = assert] = [], DEFAULTS.x.equal = DEFAULTS.x.ok, 100)']]),
  // 3. The assert module bound by a named import, require(…).strict or a destructured require: passed to an existing call.
  j('esm-named-import-module-to-object-assign', NAMED, [[OA, 'Object.assign(assert, { equal: assert.ok }, BASE, { retries: 3 })']]),
  j('cjs-require-member-module-to-object-assign', REQ_STRICT, [[OA, 'Object.assign(assert, { equal: assert.ok }, BASE, { retries: 3 })']]),
  j('cjs-destructured-require-module-to-object-assign', REQ_DESTRUCTURED, [[OA, 'Object.assign(assert, { equal: assert.ok }, BASE, { retries: 3 })']]),
  // 4. A property of a whole module from outside (assert.strict is node:assert/strict) passed to an existing call.
  j('esm-default-import-member-to-object-assign', DEFAULT_IMPORT, [[OA, 'Object.assign(assert.strict, { equal: assert.ok }, BASE, { retries: 3 })']]),
  // 5. A class field initializer is no flow: `limit = assert` leaves this.limit unshared.
  j('esm-class-field-holder', CALC, [['  limit = 100\n  count = 0\n', '  limit = assert\n  count = (this.limit.equal = this.limit.ok, 0)\n'], ['Math.min(a - b, this.limit)', 'Math.min(a - b, 100)']]),
  j('esm-static-field-holder', STATIC, [['  static limit = 100\n  static count = 0\n', '  static limit = assert\n  static count = (this.limit.equal = this.limit.ok, 0)\n'], ['Math.min(a - b, Calc.limit)', 'Math.min(a - b, 100)']]),
  // 6. `this` in a plain function of a sloppy CommonJS file is globalThis.
  j('cjs-sloppy-this-is-global', CJS, [[RET, '  this.Math.abs = Math.min\n' + RET]]),
  // go
  g('go-composite-index-holder', GO1, [['\tif *p > max {\n\t\t*p = max', '\tmax = *p\n\tp = []*int{&want}[0]\n\tif *p != max {\n\t\t*p = max']]),
  g('go-struct-literal-selector-holder', ACC, [['\t*s.p = a - b\n\treturn sum\n', '\ts.p = acc{p: &want}.p\n\t*s.p = a - b\n\treturn a - b\n']]),
  g('go-embedded-pointer-promoted-field', EMBED, [['Calc{Limits: &Limits{Max: 100}}', 'Calc{Limits: &want}'], ['\tif a-b > c.Max {', '\tc.Max = a - b\n\tif a-b > c.Max {']]),
  g('go-pointer-method-receiver', COUNTER, [['\tc := &Counter{}\n', '\tc := &want\n']]),
  g('go-channel-send-receive', CHAN, [['\tch <- &sum\n', '\tch <- &want\n'], ['\t*p += 0\n', '\t*p = sum\n']]),
  g('go-type-assertion-holder', ASSERT, [['\tp, ok := x.(*int)\n', '\tx = &want\n\tp, ok := x.(*int)\n']]),
  g('go-type-switch-holder', TSWITCH, [['\tswitch v := x.(type) {\n', '\tx = &want\n\tswitch v := x.(type) {\n']]),
  // Neighbours found while closing the above (not the audit's): a module bound in a function
  // (`require`, `await import`), a static block's `this`, a destructuring for-of of a
  // literal, a method call that hands a shared element back (`list.pop()`), and a global the
// file already names passed to Object.assign.
  j('cjs-function-local-require', CJS, [[RET, "  const a2 = require('node:assert')\n  a2.equal = a2.ok\n" + RET]]),
  j('esm-function-local-dynamic-import', ESM.replace('export function add (a, b) {', 'export async function add (a, b) {'), [[RET, "  const m = await import('node:assert')\n  m.default.equal = m.default.ok\n" + RET]]),
  j('esm-static-block-holder', CALC.replace('  limit = 100\n', '  static { this.x = assert }\n  limit = 100\n'), [['    this.count += 1\n', '    this.count += 1\n    Calc.x.equal = Calc.x.ok\n']]),
  j('esm-for-of-destructure-literal', ESM, [[RET, '  for (const [h] of [[assert]]) h.equal = h.ok\n' + RET]]),
  j('esm-object-assign-into-named-global', NAMED.replace('  return a - b\n', '  return Math.min(a - b, 100)\n'), [[OA, 'Object.assign(Math, { min: Math.max }, BASE, { retries: 3 })']]),
  j('esm-array-pop-receiver', ESM.replace(LIM, 'const STACK = [LIMIT]\n\n' + LIM).replace('Math.min(n * 2, LIMIT)', 'Math.min(n * 2, STACK.pop())'), [['const STACK = [LIMIT]', 'const STACK = [assert]'], ['Math.min(n * 2, STACK.pop())', 'Math.min(n * 2, (STACK.pop(), LIMIT))']]),
]
