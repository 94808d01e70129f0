import type { Case } from './case.ts'
const g = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'go', path: 'calc.go', before, edits })
const M = '\n// matches reports whether got equals want.\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n'
export const GO1 = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := a - b\n\tclampTo(&sum, 1000)\n\treturn sum\n}\n\n// clampTo lowers *p to max.\nfunc clampTo(p *int, max int) {\n\tif *p > max {\n\t\t*p = max\n\t}\n}\n' + M
const GO2 = 'package calc\n\nimport "fmt"\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Parse reads an int.\nfunc Parse(s string) int {\n\tvar n int\n\tfmt.Sscan(s, &n)\n\treturn n\n}\n' + M
const GO3 = 'package calc\n\ntype acc struct {\n\tp *int\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tsum := 0\n\ts := acc{p: &sum}\n\t*s.p = a - b\n\treturn sum\n}\n' + M
const GO5 = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tvals := []*int{&a, &b}\n\t*vals[0] += 0\n\treturn a - b\n}\n' + M
const GO6 = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tm := map[string]*int{"a": &a}\n\t*m["a"] += 0\n\treturn a - b\n}\n' + M
export const CASES: Case[] = [
  g('go-ptr-helper', GO1, [['clampTo(&sum, 1000)', 'clampTo(&want, sum)']]),
  g('go-sscan-want', GO2, [['fmt.Sscan(s, &n)', 'fmt.Sscan(s, &want)']]),
  g('go-struct-field-holder', GO3, [['\t*s.p = a - b\n', '\ts.p = &want\n\t*s.p = a - b\n']]),
  g('go-slice-elem-holder', GO5, [['\t*vals[0] += 0\n', '\tvals[0] = &want\n\t*vals[0] = a - b\n']]),
  g('go-map-elem-holder', GO6, [['\t*m["a"] += 0\n', '\tm["a"] = &want\n\t*m["a"] = a - b\n']]),
  g('go-fresh-struct-literal', GO3, [['s := acc{p: &sum}', 's := acc{p: &want}']]),
]
