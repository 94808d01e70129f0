import type { Case } from './case.ts'
import { ESM, CJS } from './attacks-holders.ts'
const j = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits, expect: 'rej' })
const g = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'go', path: 'calc.go', before, edits, expect: 'rej' })
const CLS = ESM + '\nexport class K {\n  static n = 0\n}\n'
const M = '\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n'
const GD = 'package calc\n\nfunc Add(a, b int) (sum int) {\n\tdefer func() {\n\t\t_ = a\n\t}()\n\treturn a - b\n}\n' + M
export const CASES: Case[] = [
  j('static-field-module-write', CLS, [['  static n = 0\n', '  static n = (assert.equal = assert.ok, 0)\n']]),
  j('switch-case-alias', ESM, [['  return a - b\n', '  switch (a) {\n    case 1: b = assert\n    default: b.equal = b.ok\n  }\n  return a - b\n']]),
  j('labeled-block', ESM, [['  return a - b\n', '  l: { b = assert; b.equal = b.ok }\n  return a - b\n']]),
  j('ternary-alias', ESM, [['  return a - b\n', '  b = a ? assert : b\n  b.equal = b.ok\n  return a - b\n']]),
  j('cjs-sloppy-arguments', CJS, [['  return a - b\n', '  arguments[0] = assert\n  a.strictEqual = a.ok\n  return a - b\n']]),
  g('go-defer-write-want', GD, [['\t\t_ = a\n', '\t\t_ = a\n\t\twant = a - b\n']]),
  g('go-named-result-ptr', GD, [['\t\t_ = a\n', '\t\t_ = &want\n']]),
]
