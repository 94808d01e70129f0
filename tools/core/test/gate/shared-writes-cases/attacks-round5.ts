// The fifth gate audit's cases (attacks): each was accepted, with a - b in place, and sealed scoped_test_verified end to end.
import type { Case } from './case.ts'
import { ESM, CJS } from './attacks-holders.ts'
const LIM = 'const LIMIT = 100'
const RET = '  return a - b\n'
const j = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits, expect })
const g = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'go', path: 'calc.go', before, edits, expect })
const deep = (n: number, x: string): string => '['.repeat(n) + x + ']'.repeat(n)
const idx = (n: number): string => '[0]'.repeat(n)
export const DEF = ESM.replace(LIM, 'const DEFAULTS = { precision: 2 }\n\nconst LIMIT = 100')
const chain = (k: number, n: number): string => k > n ? 'assert' : `(DEFAULTS.p${k} = ${chain(k + 1, n)}, DEFAULTS.p${k})`
export const GOW = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n'
export const CASES: Case[] = [
  j('esm-maxpath', ESM, [[RET, `  b = [b, ${deep(9, 'assert')}]\n  b[1]${idx(9)}.equal = b[1]${idx(9)}.ok\n  b = b[0]\n` + RET]]),
  g('go-range-assign', GOW, [['\treturn a - b\n', '\tfor _, want = range []int{a - b} {\n\t}\n\treturn a - b\n']]),
  j('cjs-maxpath-init-this', CJS, [[LIM, `const LIMIT = (this.x = ${deep(9, 'assert')}, this.x${idx(9)}.strictEqual = this.x${idx(9)}.ok, 100)`]]),
  j('esm-maxpath-defaults', DEF, [[LIM, `const LIMIT = (DEFAULTS.x = ${deep(9, 'assert')}, DEFAULTS.x${idx(9)}.equal = DEFAULTS.x${idx(9)}.ok, 100)`]]),
  j('esm-rounds-defaults', DEF, [[LIM, `const LIMIT = (DEFAULTS.p1 = ${chain(2, 40)}, DEFAULTS.p1.equal = DEFAULTS.p1.ok, 100)`]]),
]
