import type { Case } from './case.ts'
import { ESM, CJS } from './attacks-holders.ts'
const LIM = 'const LIMIT = 100'
const j = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits })
const g = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'go', path: 'calc.go', before, edits })
const DEF = ESM.replace(LIM, 'const DEFAULTS = { precision: 2 }\n\nconst LIMIT = 100')
const GO1 = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := a - b\n\tclampTo(&sum, 1000)\n\treturn sum\n}\n\n// clampTo lowers *p to max.\nfunc clampTo(p *int, max int) {\n\tif *p > max {\n\t\t*p = max\n\t}\n}\n'
const GO2 = 'package calc\n\nimport "fmt"\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Parse reads an int.\nfunc Parse(s string) int {\n\tvar n int\n\tfmt.Sscan(s, &n)\n\treturn n\n}\n'
const GO3 = 'package calc\n\ntype acc struct {\n\tp *int\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := 0\n\ts := acc{p: &sum}\n\t*s.p = a - b\n\treturn sum\n}\n'
const GO4 = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tdefer func() {\n\t\t_ = a\n\t}()\n\treturn a - b\n}\n'
export const CASES: Case[] = [
  j('cjs-this-holder-plus', CJS, [[LIM, 'const LIMIT = 100 + (this.x = assert, this.x.strictEqual = this.x.ok, 0)']]),
  j('esm-defaults-holder', DEF, [[LIM, 'const LIMIT = 100 + (DEFAULTS.x = assert, DEFAULTS.x.equal = DEFAULTS.x.ok, 0)']]),
  j('esm-defaults-holder-seq', DEF, [[LIM, 'const LIMIT = (DEFAULTS.x = assert, DEFAULTS.x.equal = DEFAULTS.x.ok, 100)']]),
  j('cjs-add-this-sloppy', CJS, [['  return a - b\n', '  this.x = assert\n  this.x.strictEqual = this.x.ok\n  return a - b\n']]),
  g('go-ptr-helper', GO1, [['clampTo(&sum, 1000)', 'clampTo(&want, sum)']]),
  g('go-sscan-want', GO2, [['fmt.Sscan(s, &n)', 'fmt.Sscan(s, &want)']]),
  g('go-struct-field-holder', GO3, [['\t*s.p = a - b\n', '\ts.p = &want\n\t*s.p = a - b\n']]),
  g('go-closure-write', GO4, [['\t\t_ = a\n', '\t\t_ = a\n\t\twant = a - b\n']]),
  g('go-closure-write-ptr', GO4, [['\t\t_ = a\n', '\t\tp := &want\n\t\t*p = a - b\n']]),
  g('go-bare-pass', GO1, [['clampTo(&sum, 1000)', 'clampTo(&sum, want)']]),
]
