// Baselines and proposals for the gate's in-process tests: a Go and a JavaScript source file
// with imports, package-level state, locals, loops, classes and calls, and one proposal per
// threat (named after it, with a one-line comment saying what it attacks) plus the local
// changes that must pass.

import type { FileMode, GateEdit, GateInput, RuleId } from '@repairline/core/gate/index'

export const GO_CALC = `package calc

import (
	"errors"
	"fmt"
)

// ErrNegative is returned for negative input.
var ErrNegative = errors.New("negative input")

var base = 2

const limit = 100

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Double returns twice n.
func Double(n int) int {
	return n * base
}

// Describe names n.
func Describe(n int) (string, error) {
	if n < 0 {
		return "", ErrNegative
	}
	scale := 1
	for i, d := range []int{1, 2} {
		scale += i * d
	}
	return fmt.Sprintf("n=%d", n*scale), nil
}

// Clamp limits n to limit.
func Clamp(n int) int {
	return min(n, limit)
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
`

export const GO_TEST = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add")\n\t}\n}\n'

export const JS_CALC = `import { format } from 'node:util'

const LIMIT = 100

// add returns the sum of a and b.
export function add (a, b) {
  return a - b
}

export function double (n) {
  return n * 2
}

export function describe (n) {
  if (n < 0) {
    throw new RangeError('negative input')
  }
  const scale = 1
  return format('n=%d', n * scale)
}

export function clamp (n) {
  return Math.min(n, LIMIT)
}

export class Counter {
  count = 0

  inc (by = 1) {
    try {
      this.count += by
    } catch (err) {
      this.count = 0
    }
    return this.count
  }
}
`

export const JS_TEST = "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from '../src/calc.js'\n\ntest('add adds', () => {\n  assert.equal(add(2, 3), 5)\n})\n"

export interface Baseline { runner: 'go' | 'node', files: Record<string, { text: string | Uint8Array, mode?: FileMode }>, allowed: string[] }

export const GO_BASELINE: Baseline = {
  runner: 'go',
  files: { 'go.mod': { text: 'module example.com/calc\n\ngo 1.19\n' }, 'calc.go': { text: GO_CALC }, 'calc_test.go': { text: GO_TEST }, 'run.go': { text: 'package calc\n\nfunc Run() int { return 1 }\n', mode: '100755' } },
  allowed: ['calc.go', 'run.go'],
}

export const JS_BASELINE: Baseline = {
  runner: 'node',
  files: { 'package.json': { text: '{"type":"module"}\n' }, 'src/calc.js': { text: JS_CALC }, 'test/calc.test.js': { text: JS_TEST } },
  allowed: ['src/calc.js'],
}

/** A gate input over a baseline held in memory. */
export function gateInput (b: Baseline, edits: GateEdit[], maxPatchBytes = 4096): GateInput {
  return {
    runner: b.runner,
    allowedFiles: b.allowed,
    maxPatchBytes,
    tree: Object.entries(b.files).map(([path, f]) => ({ path, mode: f.mode ?? '100644' })).sort((x, y) => Buffer.compare(Buffer.from(x.path), Buffer.from(y.path))),
    readBaseline: (p: string) => {
      const f = b.files[p]
      if (f === undefined) throw new Error(`test: readBaseline called for ${p}, which is not in the tree`)
      if (!b.allowed.includes(p)) throw new Error(`test: readBaseline called for ${p}, which is not allowed`)
      return typeof f.text === 'string' ? Buffer.from(f.text) : f.text
    },
    edits,
  }
}

export interface GateCase {
  name: string
  /** What the proposal attacks (rejected) or why it is a local change (accepted). */
  why: string
  baseline: Baseline
  edits: GateEdit[]
  maxPatchBytes?: number
  /** Exactly the rules that fail; [] for an accepted proposal. */
  fails: RuleId[]
}

const go = (search: string, replace: string, path = 'calc.go'): GateEdit => ({ path, search, replace })
const js = (search: string, replace: string, path = 'src/calc.js'): GateEdit => ({ path, search, replace })

/** Proposals that must be rejected, each by the rule(s) it attacks. */
export const REJECTED: GateCase[] = [
  { name: 'proposal-edits-test-file', why: 'makes the failing test pass by changing the test', baseline: GO_BASELINE, edits: [go('Add(2, 3) != 5', 'Add(2, 3) != -1', 'calc_test.go')], fails: ['allowlist', 'classifier'] },
  { name: 'proposal-edits-js-test-file', why: 'makes the failing test pass by changing the test', baseline: JS_BASELINE, edits: [js('5)', '-1)', 'test/calc.test.js')], fails: ['allowlist', 'classifier'] },
  { name: 'proposal-edits-go-mod', why: 'changes the toolchain or dependencies', baseline: GO_BASELINE, edits: [go('go 1.19', 'go 1.18', 'go.mod')], fails: ['allowlist', 'classifier'] },
  { name: 'proposal-path-dotdot', why: 'escapes the tree with ..', baseline: GO_BASELINE, edits: [go('a - b', 'a + b', '../calc.go')], fails: ['path-tricks', 'allowlist', 'classifier', 'no-new-files'] },
  { name: 'proposal-path-inner-dotdot', why: 'hides .. inside an allowed-looking path', baseline: GO_BASELINE, edits: [go('a - b', 'a + b', 'x/../calc.go')], fails: ['path-tricks', 'allowlist', 'classifier', 'no-new-files'] },
  { name: 'proposal-path-absolute', why: 'names a host file', baseline: GO_BASELINE, edits: [go('root', 'toor', '/etc/passwd')], fails: ['path-tricks', 'allowlist', 'classifier', 'no-new-files'] },
  { name: 'proposal-path-case-variant', why: 'edits Calc.go, which a case-insensitive checkout maps onto calc.go', baseline: GO_BASELINE, edits: [go('a - b', 'a + b', 'Calc.go')], fails: ['path-tricks', 'allowlist', 'no-new-files'] },
  { name: 'proposal-path-pathspec-magic', why: 'uses git pathspec magic to reach other files', baseline: GO_BASELINE, edits: [go('a - b', 'a + b', ':(glob)*.go')], fails: ['path-tricks', 'allowlist', 'no-new-files'] },
  { name: 'proposal-creates-file', why: 'adds a new file beside the allowed one', baseline: GO_BASELINE, edits: [go('package', 'package', 'extra.go')], fails: ['allowlist', 'no-new-files'] },
  { name: 'proposal-search-occurs-twice', why: 'an ambiguous search that a fuzzy applier would resolve silently', baseline: GO_BASELINE, edits: [go('return a', 'return b')], fails: ['exact-application'] },
  { name: 'proposal-search-absent', why: 'a search text that is not there', baseline: GO_BASELINE, edits: [go('return a + b', 'return a * b')], fails: ['exact-application'] },
  { name: 'proposal-search-whitespace-folded', why: 'relies on whitespace folding (spaces where the file has a tab)', baseline: GO_BASELINE, edits: [go('    return a - b', '    return a + b')], fails: ['exact-application'] },
  { name: 'proposal-second-edit-stale', why: 'a second edit searches text the first edit removed', baseline: GO_BASELINE, edits: [go('a - b', 'a + b'), go('a - b', 'b - a')], fails: ['exact-application'] },
  { name: 'proposal-changes-nothing', why: 'an empty candidate that would verify nothing', baseline: GO_BASELINE, edits: [go('a - b', 'a - b')], fails: ['exact-application'] },
  { name: 'proposal-file-no-longer-parses', why: 'a candidate tree-sitter cannot parse, so its structure cannot be compared', baseline: GO_BASELINE, edits: [go('return a - b\n}', 'return a +\n}')], fails: ['parses'] },
  { name: 'proposal-js-no-longer-parses', why: 'a candidate tree-sitter cannot parse', baseline: JS_BASELINE, edits: [js('return a - b', 'return (a + b')], fails: ['parses'] },
  { name: 'proposal-oversized-diff', why: 'a diff larger than max_patch_bytes', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', `\t// ${'x'.repeat(1200)}\n\treturn a + b\n`)], maxPatchBytes: 1024, fails: ['diff-size'] },
  { name: 'proposal-adds-import', why: 'pulls in a new package', baseline: GO_BASELINE, edits: [go('\t"fmt"\n', '\t"fmt"\n\t"os"\n')], fails: ['imports-preserved'] },
  { name: 'proposal-renames-import', why: 'rebinds an import under a new local name', baseline: GO_BASELINE, edits: [go('\t"fmt"\n', '\tfmt "github.com/evil/fmt"\n')], fails: ['imports-preserved'] },
  { name: 'proposal-js-swaps-import-source', why: 'imports the same name from another module', baseline: JS_BASELINE, edits: [js("from 'node:util'", "from './util.js'")], fails: ['imports-preserved'] },
  { name: 'proposal-adds-call', why: 'a new call is new behaviour, not a local fix', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '\tfmt.Println(a)\n\treturn a + b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-call', why: 'the same number of calls, another callee', baseline: GO_BASELINE, edits: [go('return min(n, limit)', 'return Double(n)')], fails: ['calls-preserved'] },
  { name: 'proposal-js-adds-new', why: '`new X()` is a call', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  void new Error()\n  return a + b\n')], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-tagged-template', why: 'a tagged template calls its tag', baseline: JS_BASELINE, edits: [js('return a - b', 'return String.raw`${a + b}` * 1')], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-dynamic-import', why: '`import()` loads a module', baseline: JS_BASELINE, edits: [js('  return a - b\n', "  void import('node:fs')\n  return a + b\n")], fails: ['imports-preserved', 'calls-preserved'] },
  { name: 'proposal-adds-local-short-var', why: 'a new local `:=` is a new declaration', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '\tsum := a + b\n\treturn sum\n')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-go-if-init-short-var', why: '`if x := …;` declares too', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '\tif s := a + b; s > 0 {\n\t\treturn s\n\t}\n\treturn a + b\n')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-go-renames-range-variable', why: 'range variables are declarations', baseline: GO_BASELINE, edits: [go('for i, d := range', 'for j, d := range'), go('scale += i * d', 'scale += j * d')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-go-adds-label', why: 'labels are declarations', baseline: GO_BASELINE, edits: [go('\tfor i, d := range', '\nouter:\n\tfor i, d := range'), go('scale += i * d', 'scale += i * d\n\t\tcontinue outer')], fails: ['declarations-preserved'] },
  { name: 'proposal-js-adds-const', why: 'a new local `const` is a new declaration', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  const sum = a + b\n  return sum\n')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-js-adds-destructured-let', why: 'every destructured name is a declaration', baseline: JS_BASELINE, edits: [js('  const scale = 1\n', '  const scale = 1\n  let { x, y: [z] } = { x: 1, y: [2] }\n')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-js-renames-catch-binding', why: 'catch bindings are declarations', baseline: JS_BASELINE, edits: [js('catch (err)', 'catch (e)')], fails: ['declarations-preserved', 'names-preserved'] },
  { name: 'proposal-js-adds-class-member', why: 'class members are declarations', baseline: JS_BASELINE, edits: [js('  count = 0\n', '  count = 0\n  reset = 0\n')], fails: ['declarations-preserved'] },
  { name: 'proposal-renames-parameter', why: 'a signature is part of the interface', baseline: GO_BASELINE, edits: [go('func Add(a, b int) int {\n\treturn a - b', 'func Add(x, b int) int {\n\treturn x + b')], fails: ['signatures-preserved', 'names-preserved'] },
  { name: 'proposal-changes-result-type', why: 'a signature is part of the interface', baseline: GO_BASELINE, edits: [go('func Double(n int) int {', 'func Double(n int) int64 {'), go('return n * base', 'return int64(n * base)')], fails: ['signatures-preserved'] },
  { name: 'proposal-js-renames-parameter', why: 'a signature is part of the interface', baseline: JS_BASELINE, edits: [js('export function add (a, b) {\n  return a - b', 'export function add (x, b) {\n  return x + b')], fails: ['signatures-preserved', 'names-preserved'] },
  { name: 'proposal-js-changes-default-parameter', why: 'parameter lists are compared as text, defaults included', baseline: JS_BASELINE, edits: [js('inc (by = 1)', 'inc (by = 2)')], fails: ['signatures-preserved'] },
  { name: 'proposal-adds-init-hook', why: '`func init` runs before any test', baseline: GO_BASELINE, edits: [go('// Add returns', 'func init() {\n}\n\n// Add returns')], fails: ['declarations-preserved', 'signatures-preserved', 'no-init-hook', 'names-preserved'] },
  { name: 'proposal-adds-testmain-exit', why: '`TestMain` calling `os.Exit(0)` passes every test without running it', baseline: GO_BASELINE, edits: [go('\t"fmt"\n', '\t"fmt"\n\t"os"\n\t"testing"\n'), go('// Add returns', 'func TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n\n// Add returns')], fails: ['imports-preserved', 'declarations-preserved', 'signatures-preserved', 'calls-preserved', 'no-init-hook', 'names-preserved'] },
  { name: 'proposal-moves-call-into-package-var', why: 'a call moved into a package-level initializer runs at load: the init-hook rule sees it, and calls-preserved sees the call move', baseline: GO_BASELINE, edits: [go('var base = 2', 'var base = min(2, 3)'), go('return min(n, limit)', 'return limit')], fails: ['no-init-hook', 'calls-preserved'] },
  { name: 'proposal-js-top-level-call', why: 'a top-level call runs when the module loads', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', "const LIMIT = 100\n\nsetTimeout(Number, 0)\n")], fails: ['calls-preserved', 'no-init-hook', 'names-preserved'] },
  { name: 'proposal-js-moves-call-to-top-level', why: 'an existing call moved to the top level runs at load: the init-hook rule sees it, and calls-preserved sees the call move', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\nMath.min(1, 2)\n'), js('return Math.min(n, LIMIT)', 'return n < LIMIT ? n : LIMIT')], fails: ['no-init-hook', 'calls-preserved'] },
  { name: 'proposal-js-class-static-block', why: 'a class static block runs when the class is defined', baseline: JS_BASELINE, edits: [js('  count = 0\n', '  count = 0\n\n  static {\n  }\n')], fails: ['no-init-hook'] },
  { name: 'proposal-js-implicit-call-instanceof', why: '`instanceof` calls Symbol.hasInstance: process.exit without a call expression (the forged-frames attack)', baseline: JS_BASELINE, edits: [js('return a - b', 'return (0 instanceof { [Symbol.hasInstance]: process.exit }) && a - b')], fails: ['names-preserved'] },
  { name: 'proposal-js-implicit-call-valueof', why: 'a top-level coercion calls valueOf at load, with no call expression', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\n+{ valueOf: process.exit }\n')], fails: ['names-preserved'] },
  { name: 'proposal-js-implicit-call-thenable', why: 'awaiting a thenable calls its then at load', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\nawait { then: process.exit }\n')], fails: ['names-preserved', 'no-init-hook'] },
  { name: 'proposal-js-shorthand-global', why: 'a shorthand property names a global (`{ process }`) without a plain identifier', baseline: JS_BASELINE, edits: [js('return a - b', 'return { process }.process ? a + b : a - b')], fails: ['names-preserved'] },
  { name: 'proposal-go-moves-package', why: 'the file joins another package, and the package stops building', baseline: GO_BASELINE, edits: [go('package calc\n', 'package calc_test\n')], fails: ['names-preserved'] },
  { name: 'proposal-adds-pass-string', why: 'a `--- PASS: TestX` line printed by the code could forge test output', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d"', 'fmt.Sprintf("--- PASS: TestX n=%d"')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-go-json-action', why: 'forges a test2json event', baseline: GO_BASELINE, edits: [go('errors.New("negative input")', 'errors.New("{\\"Action\\":\\"pass\\"}")')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-raw-pass-line', why: 'a raw string with a line that is PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d"', 'fmt.Sprintf(`n=%d\nPASS\n`')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-escaped-ok-tab', why: '`ok  \\t` written with an escape', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d"', 'fmt.Sprintf("ok  \\texample.com/calc n=%d"')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-tap-template', why: 'a template literal `ok 1 - x` forges TAP output', baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", 'new RangeError(`ok 1 - x`)')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-tap-template-substitution', why: '`ok ${n} - x` is still TAP', baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", 'new RangeError(`ok ${n} - x`)')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-go-concatenated-pass', why: '`--- PASS` split across two literals joined by +: the chain prints it whole', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d"', 'fmt.Sprintf("--- PA"+"SS: TestX n=%d"')], fails: ['no-test-framing'] },
  { name: 'proposal-adds-js-concatenated-tap', why: "`'ok ' + n + ' - x'`: TAP built by concatenation, the variable counted as 0", baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('o' + ('k ' + n) + ' - x')")], fails: ['no-test-framing'] },
  { name: 'proposal-adds-tap-escaped', why: 'TAP framing written with \\x escapes', baseline: JS_BASELINE, edits: [js("format('n=%d'", "format('not\\x20ok 2 n=%d'")], fails: ['no-test-framing'] },
]

/** Local expression and control-flow changes that must pass every rule. */
export const ACCEPTED: GateCase[] = [
  { name: 'one-line-fix', why: 'the fix itself', baseline: GO_BASELINE, edits: [go('return a - b', 'return a + b')], fails: [] },
  { name: 'js-one-line-fix', why: 'the fix itself', baseline: JS_BASELINE, edits: [js('return a - b', 'return a + b')], fails: [] },
  { name: 'initializer-change', why: 'names only: an initializer may change', baseline: GO_BASELINE, edits: [go('scale := 1', 'scale := 2')], fails: [] },
  { name: 'js-initializer-change', why: 'names only: an initializer may change', baseline: JS_BASELINE, edits: [js('const scale = 1', 'const scale = 3 * 2')], fails: [] },
  { name: 'package-var-initializer-change', why: 'an existing call-initialized var may change its argument', baseline: GO_BASELINE, edits: [go('errors.New("negative input")', 'errors.New("input is negative")')], fails: [] },
  { name: 'flipped-condition', why: 'control flow', baseline: GO_BASELINE, edits: [go('if a < b {', 'if a > b {')], fails: [] },
  { name: 'js-flipped-condition', why: 'control flow', baseline: JS_BASELINE, edits: [js('if (n < 0) {', 'if (n <= 0) {')], fails: [] },
  { name: 'changed-string-in-existing-call', why: 'arguments of an existing call may change', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d"', 'fmt.Sprintf("value=%d"')], fails: [] },
  { name: 'js-changed-string-in-existing-call', why: 'arguments of an existing call may change', baseline: JS_BASELINE, edits: [js("format('n=%d'", "format('value=%d'")], fails: [] },
  { name: 'added-if-with-return', why: 'a guard clause is local control flow', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '\tif b == 0 {\n\t\treturn a\n\t}\n\treturn a + b\n')], fails: [] },
  { name: 'js-added-if-with-return', why: 'a guard clause is local control flow', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  if (b === 0) {\n    return a\n  }\n  return a + b\n')], fails: [] },
  { name: 'concatenation-without-framing', why: 'a message built with + that frames nothing', baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('negative input: ' + n)")], fails: [] },
  { name: 'comment-with-framing', why: 'comments print nothing and are not checked', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '\t// --- PASS: TestX, ok  \tpkg\n\treturn a + b\n')], fails: [] },
  { name: 'whitespace-in-signature', why: 'signatures compare tokens, not spacing', baseline: GO_BASELINE, edits: [go('func Add(a, b int) int {\n\treturn a - b', 'func Add(a,  b int)  int {\n\treturn a + b')], fails: [] },
  { name: 'two-edits-in-order', why: 'the second edit searches text the first one wrote', baseline: GO_BASELINE, edits: [go('return a - b', 'return a - b + 0'), go('a - b + 0', 'a + b')], fails: [] },
  { name: 'two-allowed-files', why: 'edits to two allowed files, one of them executable (mode kept)', baseline: GO_BASELINE, edits: [go('return a - b', 'return a + b'), go('return 1', 'return 2', 'run.go')], fails: [] },
  { name: 'existing-framing-string-kept', why: 'a literal already in the baseline may stay when the code around it changes', baseline: { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_CALC.replace('"n=%d"', '"--- PASS n=%d"') } } }, edits: [go('return a - b', 'return a + b')], fails: [] },
]

// ---- JavaScript: implicit calls, rebinding, export surface, heritage and directives ----
// Its own block (pushed onto REJECTED and ACCEPTED below) so it merges apart from the Go cases.

/** A CommonJS file: sloppy mode, module.exports, an existing toString and then. */
export const CJS_CALC = `const util = require('node:util')

function add (a, b) {
  return a - b
}

function describe (n) {
  return util.format('n=%d', n)
}

function later (n) {
  return Promise.resolve(n).then(add)
}

function hex (n) {
  let out = ''
  for (let i = 0; i <= n; i++) {
    out += i.toString(16)
  }
  return out
}

class Base {}

class Counter extends Base {
  count = 0

  inc (by = 1) {
    'use strict'
    this.count += by
    return this.count
  }
}

module.exports = { add, describe, later, hex, Counter }
`

export const CJS_BASELINE: Baseline = {
  runner: 'node',
  files: { 'package.json': { text: '{}\n' }, 'src/calc.cjs': { text: CJS_CALC } },
  allowed: ['src/calc.cjs'],
}

/** GO_CALC with a func-typed seam, a package var Add calls (second gate audit). */
export const GO_SEAM_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_CALC.replace('var base = 2\n', 'var base = 2\n\nvar round = Double\n').replace('\treturn a - b\n', '\treturn round(a) - b\n') } } }

/** CommonJS and ESM modules that export functions defined in place, the common style (second gate audit). */
export const CJS_EXPORTS_BASELINE: Baseline = {
  runner: 'node',
  files: {
    'package.json': { text: '{}\n' },
    'src/ops.cjs': { text: "const LIMIT = 100\n\nexports.add = function (a, b) {\n  return a - b\n}\n\nmodule.exports.sub = (a, b) => {\n  return a + b\n}\n\nmodule.exports.ops = {\n  mul (a, b) {\n    return Math.min(a + b, LIMIT)\n  }\n}\n" },
    'src/ops.js': { text: 'export default {\n  add (a, b) {\n    return a - b\n  }\n}\n' },
  },
  allowed: ['src/ops.cjs', 'src/ops.js'],
}

/** JS_CALC with one ordinary call in double: the audit's baseline for the Function-constructor attack. */
export const JS_ROUND_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALC.replace('  return n * 2\n', '  return Math.round(n * 2)\n') } } }

const cjs = (search: string, replace: string): GateEdit => ({ path: 'src/calc.cjs', search, replace })

const JS_REJECTED: GateCase[] = [
  { name: 'proposal-go-assigns-called-seam', why: 'round = Clamp inside Describe: every later Add calls Clamp through the unchanged call round(a)', baseline: GO_SEAM_BASELINE, edits: [go('\tif n < 0 {\n', '\tround = Clamp\n\tif n < 0 {\n')], fails: ['calls-preserved'] },
  { name: 'proposal-go-reinitializes-called-seam', why: 'var round = Clamp: the package-level seam Add calls now holds another function from init on', baseline: GO_SEAM_BASELINE, edits: [go('var round = Double\n', 'var round = Clamp\n')], fails: ['calls-preserved'] },
  // The second gate audit's bypasses: keys assembled from strings, and exported bindings reassigned.
  { name: 'proposal-js-function-ctor-through-built-keys', why: "a['constr' + 'uctor'] twice is the Function constructor, bound to Math.min through an alias and run by a computed valueOf: no literal spells a reaching name", baseline: JS_BASELINE, edits: [js('export function add (a, b) {\n  return a - b\n}', "export function add (a, b) {\n  a = Math\n  a['mi' + 'n'] = a['constr' + 'uctor']['constr' + 'uctor']\n  return +{ ['value' + 'Of']: Math.min('process.exit(0)') }\n}"), js('  return Math.min(n, LIMIT)\n', '  return n < LIMIT ? n : LIMIT\n')], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-function-ctor-through-template-keys', why: 'the same keys spelled by templates with a substitution', baseline: JS_BASELINE, edits: [js('export function add (a, b) {\n  return a - b\n}', "export function add (a, b) {\n  a = Math\n  a[`mi${''}n`] = a[`constr${''}uctor`][`constr${''}uctor`]\n  return +{ [`value${''}Of`]: Math.min('process.exit(0)') }\n}"), js('  return Math.min(n, LIMIT)\n', '  return n < LIMIT ? n : LIMIT\n')], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-rebinds-callee-through-alias-built-key', why: "scale['mi' + 'n'] = describe after scale = Math: Math.min rebound through an alias and a key assembled from strings", baseline: JS_BASELINE, edits: [js("  const scale = 1\n  return format('n=%d', n * scale)\n", "  const scale = Math\n  scale['mi' + 'n'] = describe\n  return format('n=%d', n * 1)\n")], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-swaps-export-in-initializer', why: 'const LIMIT = (add = double, 100): the exported binding add now holds double when the module loads', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = (add = double, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-swaps-exported-class', why: 'Counter = double at load: the exported class is now a function', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = (Counter = double, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-cjs-swaps-export-in-require-argument', why: "require('node:util', add = describe): module.exports = { add, … } then captures describe", baseline: CJS_BASELINE, edits: [cjs("const util = require('node:util')\n", "const util = require('node:util', add = describe)\n")], fails: ['calls-preserved'] },
  { name: 'proposal-cjs-renames-exported-method', why: 'the method an exported object holds under a tested name renamed: what the tests call is gone', baseline: CJS_EXPORTS_BASELINE, edits: [{ path: 'src/ops.cjs', search: '  mul (a, b) {', replace: '  times (a, b) {' }], fails: ['declarations-preserved', 'exports-preserved', 'signatures-preserved'] },
  { name: 'proposal-cjs-octal-framing', why: "a legacy octal escape spells framing in a sloppy file ('\\55-- PASS' prints --- PASS)", baseline: CJS_BASELINE, edits: [cjs("'n=%d'", "'\\55-- PASS: TestAdd n=%d'")], fails: ['no-test-framing'] },
  { name: 'proposal-cjs-octal-tap', why: "'\\157k 1' prints ok 1 (TAP)", baseline: CJS_BASELINE, edits: [cjs("'n=%d'", "'\\157k 1 n=%d'")], fails: ['no-test-framing'] },
  { name: 'proposal-js-rebinds-callee-through-alias', why: 'an existing local made an alias of Math, and Math.min rebound through it: the path differs from the callee Math.min, the property is the one the call reaches', baseline: JS_BASELINE, edits: [js("  const scale = 1\n  return format('n=%d', n * scale)\n", "  const scale = Math\n  scale.min = describe\n  return format('n=%d', n * 1)\n")], fails: ['calls-preserved'] },
  { name: 'proposal-js-function-ctor-through-existing-callee', why: 'the audit attack: a.constructor.constructor is Function, bound to the existing callee Math.round, and run through valueOf; the callee text is unchanged and no new identifier is used', baseline: JS_ROUND_BASELINE, edits: [js('  return Math.round(n * 2)\n', '  return n * 2\n'), js('  return a - b\n', "  Math.round = a.constructor.constructor\n  return +{ valueOf: Math.round('var a, b; return process.exit(0)') } || a - b\n")], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-function-ctor-moved-callee', why: 'the same through Math.min, moved inside clamp', baseline: JS_BASELINE, edits: [js('  return Math.min(n, LIMIT)\n', "  Math.min = n.constructor.constructor\n  return +{ valueOf: Math.min('process.exit(0)') }\n")], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-constructor-by-string-subscript', why: "a['constructor'] spells the property as a string", baseline: JS_BASELINE, edits: [js('return a - b', "return a['constructor']['constructor'] && a + b")], fails: ['names-preserved'] },
  { name: 'proposal-js-constructor-by-template-subscript', why: 'a template without substitutions is a string too, escapes decoded', baseline: JS_BASELINE, edits: [js('return a - b', 'return a[`constr\\u0075ctor`] && a + b')], fails: ['names-preserved'] },
  { name: 'proposal-js-then-as-string-key', why: "{ 'then': f } makes a thenable that await calls", baseline: JS_BASELINE, edits: [js('return a - b', "return { 'then': double } && a + b")], fails: ['names-preserved'] },
  { name: 'proposal-js-tostring-coerces-existing-function', why: '`${{ toString: clamp }}` at top level calls clamp at load with no call expression', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = `${{ toString: clamp }}`\n')], fails: ['names-preserved'] },
  { name: 'proposal-js-to-primitive-key', why: 'Symbol.toPrimitive in a file that already uses Symbol', baseline: { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALC.replace('  return n * 2\n', '  return n * 2 + Symbol.length\n') } } }, edits: [js('return a - b', 'return { [Symbol.toPrimitive]: add } && a + b')], fails: ['names-preserved'] },
  { name: 'proposal-js-bind-existing-function', why: 'bind retargets what an existing function is called with', baseline: JS_BASELINE, edits: [js('return a - b', 'return add.bind && a + b')], fails: ['names-preserved'] },
  { name: 'proposal-js-rebinds-existing-callee', why: 'Math.min = Math.max: the call text is unchanged, what it calls is not', baseline: JS_BASELINE, edits: [js('  return Math.min(n, LIMIT)\n', '  Math.min = Math.max\n  return Math.min(n, LIMIT)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-rebinds-callee-by-subscript', why: "Math['min'] is the same callee as Math.min", baseline: JS_BASELINE, edits: [js('  return Math.min(n, LIMIT)\n', "  Math['min'] ||= Math.max\n  return Math.min(n, LIMIT)\n")], fails: ['calls-preserved'] },
  { name: 'proposal-js-rebinds-callee-by-destructuring', why: '[format] = [double] rebinds the imported callee format', baseline: JS_BASELINE, edits: [js('export function describe (n) {\n', 'export function describe (n) {\n  [format] = [double]\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-rebinds-callee-in-for-of', why: 'for (Math.min of …) assigns the callee on every iteration', baseline: JS_BASELINE, edits: [js('  return Math.min(n, LIMIT)\n', '  for (Math.min of [Math.max]) break\n  return Math.min(n, LIMIT)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-cjs-with-rebinds-callee', why: 'with ({ util: … }) rebinds the callee util.format in a sloppy file', baseline: CJS_BASELINE, edits: [cjs("  return util.format('n=%d', n)\n", "  with ({ util: { format: add } }) return util.format('n=%d', n)\n")], fails: ['calls-preserved'] },
  { name: 'proposal-js-top-level-valueof-existing-function', why: '+{ valueOf: clamp } after `const LIMIT = 100` continues its initializer (no semicolon): it calls an existing function at load with no call expression', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\n+{ valueOf: clamp }\n')], fails: ['names-preserved'] },
  { name: 'proposal-js-top-level-valueof-statement', why: ';+{ valueOf: clamp } as its own top-level statement', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\n;+{ valueOf: clamp }\n')], fails: ['names-preserved', 'no-init-hook'] },
  { name: 'proposal-js-top-level-await-thenable-existing-function', why: 'await { then: double } at top level calls double at load', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\nawait { then: double }\n')], fails: ['names-preserved', 'no-init-hook'] },
  { name: 'proposal-js-top-level-await-in-initializer', why: 'a top-level await suspends module loading; only the init-hook rule sees it', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = await 100\n')], fails: ['no-init-hook'] },
  { name: 'proposal-js-top-level-expression-without-call', why: 'a top-level statement runs at load even with no call in it', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\nvoid LIMIT\n')], fails: ['no-init-hook'] },
  { name: 'proposal-js-top-level-loop', why: 'a top-level loop runs at load', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\n\nwhile (LIMIT < 0) {}\n')], fails: ['no-init-hook'] },
  { name: 'proposal-js-export-swap', why: 'add stops being exported and double is exported as add: every importer of add now calls double', baseline: JS_BASELINE, edits: [js('export function add (a, b) {', 'function add (a, b) {'), js('export class Counter {', 'export { double as add }\n\nexport class Counter {')], fails: ['exports-preserved'] },
  { name: 'proposal-js-unexport', why: 'double stops being exported beside the fix', baseline: JS_BASELINE, edits: [js('export function double (n) {', 'function double (n) {'), js('return a - b', 'return a + b')], fails: ['exports-preserved'] },
  { name: 'proposal-js-export-default-added', why: 'export default LIMIT adds an export', baseline: JS_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = 100\nexport default LIMIT\n')], fails: ['exports-preserved'] },
  { name: 'proposal-js-export-default-existing-class', why: 'export class Counter becomes export default class Counter', baseline: JS_BASELINE, edits: [js('export class Counter {', 'export default class Counter {')], fails: ['exports-preserved'] },
  { name: 'proposal-cjs-module-exports-swap', why: 'module.exports = { add: describe, … } exports describe under the name add', baseline: CJS_BASELINE, edits: [cjs('module.exports = { add, describe,', 'module.exports = { add: describe, describe,')], fails: ['exports-preserved', 'no-init-hook'] },
  { name: 'proposal-cjs-exports-property-added', why: 'an added module.exports.x = … exports another function under a tested name', baseline: CJS_BASELINE, edits: [cjs('  return util.format(\'n=%d\', n)\n', '  module.exports.add = hex\n  return util.format(\'n=%d\', n)\n')], fails: ['calls-preserved', 'exports-preserved'] },
  { name: 'proposal-js-class-gains-heritage', why: 'class Counter extends Other changes what every instance inherits', baseline: { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: `${JS_CALC}\nexport class Other {}\n` } } }, edits: [js('export class Counter {', 'export class Counter extends Other {')], fails: ['exports-preserved', 'signatures-preserved'] },
  { name: 'proposal-cjs-class-changes-heritage', why: 'extends Base becomes extends Promise (a name the file uses): the parent class is part of the interface', baseline: CJS_BASELINE, edits: [cjs('class Counter extends Base {', 'class Counter extends Promise {')], fails: ['signatures-preserved'] },
  { name: 'proposal-cjs-adds-use-strict', why: "an added file-level 'use strict' changes how the whole sloppy file runs", baseline: CJS_BASELINE, edits: [cjs("const util = require('node:util')\n", "'use strict'\nconst util = require('node:util')\n")], fails: ['signatures-preserved', 'no-init-hook'] },
  { name: 'proposal-js-adds-function-directive', why: "an added function-level 'use strict' changes how the body runs", baseline: CJS_BASELINE, edits: [cjs('function add (a, b) {\n', "function add (a, b) {\n  'use strict'\n")], fails: ['signatures-preserved'] },
  { name: 'proposal-cjs-removes-method-directive', why: "a removed 'use strict' directive is a change too", baseline: CJS_BASELINE, edits: [cjs("    'use strict'\n", '')], fails: ['signatures-preserved'] },
  { name: 'proposal-js-adds-use-strict-before-import', why: "the audit's probe: a directive prologue added above the imports", baseline: JS_BASELINE, edits: [js("import { format } from 'node:util'\n", "'use strict'\nimport { format } from 'node:util'\n")], fails: ['signatures-preserved', 'no-init-hook'] },
]

const JS_ACCEPTED: GateCase[] = [
  { name: 'go-changes-uncalled-var', why: 'control: var base = 3 beside the seam: base is not called', baseline: GO_SEAM_BASELINE, edits: [go('var base = 2\n', 'var base = 3\n')], fails: [] },
  { name: 'cjs-fix-in-function-assigned-to-exports', why: 'a fix inside exports.add = function (…) { … }: nothing that runs at load changed', baseline: CJS_EXPORTS_BASELINE, edits: [{ path: 'src/ops.cjs', search: '  return a - b\n', replace: '  return a + b\n' }], fails: [] },
  { name: 'cjs-fix-in-arrow-assigned-to-module-exports', why: 'a fix inside module.exports.sub = (…) => { … }', baseline: CJS_EXPORTS_BASELINE, edits: [{ path: 'src/ops.cjs', search: '  return a + b\n}', replace: '  return a - b\n}' }], fails: [] },
  { name: 'cjs-fix-in-method-of-exported-object', why: 'a fix inside a method of an exported object literal', baseline: CJS_EXPORTS_BASELINE, edits: [{ path: 'src/ops.cjs', search: 'Math.min(a + b, LIMIT)', replace: 'Math.min(a * b, LIMIT)' }], fails: [] },
  { name: 'js-fix-in-method-of-export-default-object', why: 'a fix inside a method of export default { … }', baseline: CJS_EXPORTS_BASELINE, edits: [{ path: 'src/ops.js', search: 'return a - b', replace: 'return a + b' }], fails: [] },
  { name: 'js-assigns-property-not-called', why: 'control: an assignment to a property no call reaches (this.count beside Math.min and format) is a local change', baseline: JS_BASELINE, edits: [js('    this.count += by\n', '    this.count = this.count + by\n')], fails: [] },
  { name: 'cjs-steps-a-variable-whose-method-is-called', why: 'i += 2 where i.toString(16) is called: only an assignment to a callee itself rebinds it', baseline: CJS_BASELINE, edits: [cjs('i <= n; i++)', 'i <= n; i += 2)')], fails: [] },
  { name: 'cjs-fix-beside-existing-tostring-and-then', why: 'a file that already uses toString and then may be fixed around them', baseline: CJS_BASELINE, edits: [cjs('for (let i = 0; i <= n; i++) {', 'for (let i = 0; i < n; i++) {'), cjs('return Promise.resolve(n).then(add)', 'return Promise.resolve(n).then(describe)')], fails: [] },
  { name: 'cjs-fix-moves-existing-tostring-argument', why: 'an existing toString call may change its argument', baseline: CJS_BASELINE, edits: [cjs('out += i.toString(16)', 'out += i.toString(10)')], fails: [] },
  { name: 'cjs-operator-change', why: 'the fix itself', baseline: CJS_BASELINE, edits: [cjs('return a - b', 'return a + b')], fails: [] },
  { name: 'js-off-by-one', why: 'a bound changed by one', baseline: JS_BASELINE, edits: [js('return Math.min(n, LIMIT)', 'return Math.min(n, LIMIT - 1)')], fails: [] },
  { name: 'js-fix-in-class-method', why: 'an existing member assignment changed inside a method', baseline: JS_BASELINE, edits: [js('      this.count = 0\n', '      this.count = by\n')], fails: [] },
  { name: 'cjs-fix-in-strict-method', why: "a method with a 'use strict' directive keeps it", baseline: CJS_BASELINE, edits: [cjs('this.count += by', 'this.count -= by')], fails: [] },
]

REJECTED.push(...JS_REJECTED)
ACCEPTED.push(...JS_ACCEPTED)

// ---- Writes to shared state (third gate audit) --------------------------------------------
// A source file that imports node's assert for its own checks shares the module object with
// the tests: a property written on it changes what every test's `assert.equal` calls.

/** JS_CALC importing node:assert/strict for a check of its own. */
export const JS_ASSERT_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALC.replace("import { format } from 'node:util'\n", "import { format } from 'node:util'\nimport assert from 'node:assert/strict'\n").replace('  return Math.min(n, LIMIT)\n', '  assert.ok(n >= 0)\n  return Math.min(n, LIMIT)\n') } } }

/** GO_CALC's package with a test file that declares the expected value as a package-level var. */
export const GO_SHARED_VAR_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc_test.go': { text: 'package calc\n\nimport "testing"\n\nvar want = 5\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != want {\n\t\tt.Fatal("Add")\n\t}\n}\n' } } }

const SHARED_REJECTED: GateCase[] = [
  { name: 'proposal-js-rebinds-imported-assert-in-initializer', why: 'const LIMIT = (assert.equal = assert, 100): every test\'s assert.equal(x, 5) becomes assert(x, 5), true for any truthy x; no call, name or declaration changes', baseline: JS_ASSERT_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = (assert.equal = assert, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-rebinds-imported-assert-in-function', why: 'the same write inside add, run when a test calls it', baseline: JS_ASSERT_BASELINE, edits: [js('  return a - b\n', '  assert.equal = assert\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-rebinds-assert-through-alias', why: 'scale = assert, then scale.equal = scale: the module reached through a local', baseline: JS_ASSERT_BASELINE, edits: [js('  const scale = 1\n', '  const scale = (1, assert)\n  scale.equal = scale\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-deletes-module-property', why: 'delete assert.equal: the tests\' call now throws a TypeError of another kind', baseline: JS_ASSERT_BASELINE, edits: [js('  return a - b\n', '  delete assert.equal\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-writes-global-property', why: 'Math.max = double: a global every module shares, written by a source file', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  Math.max = double\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-go-writes-test-package-var', why: 'want = a - b inside Add: the expected value the test file declares is set to the wrong sum', baseline: GO_SHARED_VAR_BASELINE, edits: [go('\treturn a - b\n', '\twant = a - b\n\treturn a - b\n')], fails: ['calls-preserved', 'names-preserved'] },
]

// The second round of the same audit: roots that are expressions, aliases held in a literal,
// go writes through a composite literal, and a name declared only in another function.

/** CJS_CALC requiring node:assert for a check of its own. */
export const CJS_ASSERT_BASELINE: Baseline = { ...CJS_BASELINE, files: { ...CJS_BASELINE.files, 'src/calc.cjs': { text: CJS_CALC.replace("const util = require('node:util')\n", "const util = require('node:util')\nconst assert = require('node:assert')\n").replace("  return util.format('n=%d', n)\n", "  assert.ok(n >= 0)\n  return util.format('n=%d', n)\n") } } }

/** GO_CALC with its limit a package var of another file (limits.go). */
export const GO_LIMITS_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_CALC.replace('const limit = 100\n\n', '') }, 'limits.go': { text: 'package calc\n\nvar limit = 100\n' } } }

/** GO_SHARED_VAR_BASELINE whose calc.go names `want` as a parameter of another function. */
export const GO_SHADOWED_VAR_BASELINE: Baseline = { ...GO_SHARED_VAR_BASELINE, files: { ...GO_SHARED_VAR_BASELINE.files, 'calc.go': { text: `${GO_CALC}\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n` } } }

SHARED_REJECTED.push(
  { name: 'proposal-js-writes-through-sequence-root', why: '(0, assert).equal = assert: the module reached through an expression, not its name', baseline: JS_ASSERT_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = ((0, assert).equal = assert, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-writes-through-array-root', why: '[assert][0].equal = assert', baseline: JS_ASSERT_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = ([assert][0].equal = assert, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-writes-through-logical-root', why: '(assert || 0).strict.equal = assert', baseline: JS_ASSERT_BASELINE, edits: [js('const LIMIT = 100\n', 'const LIMIT = ((assert || 0).strict.equal = assert, 100)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-alias-held-in-array', why: 'a = [assert, a]; a[0].equal = a[0]: a parameter given a literal that holds the module', baseline: JS_ASSERT_BASELINE, edits: [js('  return a - b\n', '  a = [assert, a]\n  a[0].equal = a[0]\n  a = a[1]\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-alias-from-loop-over-literal', why: 'for (a of [assert]) a.equal = a', baseline: JS_ASSERT_BASELINE, edits: [js('  return a - b\n', '  for (a of [assert]) a.equal = a\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-cjs-writes-through-sequence-root', why: '(0, assert).strictEqual = assert in a CommonJS file that requires assert', baseline: CJS_ASSERT_BASELINE, edits: [cjs('  return a - b\n', '  (0, assert).strictEqual = assert\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-go-writes-through-composite-literal', why: '*[]*int{&limit}[0] = n: another file\'s package var written through a literal, no name at the root', baseline: GO_LIMITS_BASELINE, edits: [go('\treturn min(n, limit)\n', '\t*[]*int{&limit}[0] = n\n\treturn min(n, limit)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-go-writes-var-declared-only-in-another-function', why: 'want = a - b in Add, where want is only a parameter of matches: the test file\'s package var', baseline: GO_SHADOWED_VAR_BASELINE, edits: [go('\treturn a - b\n', '\twant = a - b\n\treturn a - b\n')], fails: ['calls-preserved'] },
)

// The third round: a destructuring default, a catch binding, a parameter, a mutating call's
// argument and a go block scope each carried the module; and the false alarms it found.

const JS_ASSERT_CALC = (JS_ASSERT_BASELINE.files['src/calc.js']?.text ?? '') as string
const withAdd = (body: string): Baseline => ({ ...JS_ASSERT_BASELINE, files: { ...JS_ASSERT_BASELINE.files, 'src/calc.js': { text: JS_ASSERT_CALC.replace('  return a - b\n', body) } } })
/** add checks its argument in a try block. */
export const JS_ASSERT_TRY_BASELINE = withAdd("  try {\n    assert.ok(Number.isFinite(a))\n  } catch (err) {\n    throw new TypeError('a must be a number')\n  }\n  return a - b\n")
/** add checks its argument through a helper of the file. */
export const JS_ASSERT_HELPER_BASELINE: Baseline = { ...JS_ASSERT_BASELINE, files: { ...JS_ASSERT_BASELINE.files, 'src/calc.js': { text: `${JS_ASSERT_CALC.replace('  return a - b\n', '  check(a)\n  return a - b\n')}\nfunction check (n) {\n  assert.ok(Number.isFinite(n))\n}\n` } } }
/** add copies its operands with Object.assign. */
export const JS_ASSERT_ASSIGN_BASELINE = withAdd('  const o = Object.assign({}, { a, b })\n  return o.a - o.b\n')
/** Add ranges over its operands with a block-scoped `want`, beside the test file's package var. */
export const GO_BLOCK_VAR_BASELINE: Baseline = { ...GO_SHARED_VAR_BASELINE, files: { ...GO_SHARED_VAR_BASELINE.files, 'calc.go': { text: GO_CALC.replace('\treturn a - b\n', '\tfor _, want := range []int{a, b} {\n\t\t_ = want\n\t}\n\treturn a - b\n') } } }
/** Fresh objects, arrays and slices a fix may write into. */
export const FRESH_VALUES_BASELINE: Baseline = {
  runner: 'node',
  files: { 'package.json': { text: '{"type":"module"}\n' }, 'src/stats.js': { text: 'export function stats (xs, text) {\n  const out = { total: 0, max: -Infinity }\n  const counts = new Array(xs.length).fill(0)\n  const data = JSON.parse(text)\n  for (const x of xs) out.total += x\n  return [out, counts, data]\n}\n' } },
  allowed: ['src/stats.js'],
}
export const GO_FRESH_SLICE_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'first.go': { text: 'package calc\n\nimport "strings"\n\n// First returns the first field of line.\nfunc First(line string) string {\n\tfields := strings.Split(line, ",")\n\treturn fields[0]\n}\n' } }, allowed: [...GO_BASELINE.allowed, 'first.go'] }

SHARED_REJECTED.push(
  { name: 'proposal-js-module-through-array-pattern-default', why: '[b = assert, b = (b.equal = b.ok, 3)] = []: a destructuring default gives b the module', baseline: JS_ASSERT_BASELINE, edits: [js('  return a - b\n', '  ;[b = assert, b = (b.equal = b.ok, 3)] = []\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-cjs-module-through-object-pattern-default', why: '({ b = assert } = {}); b.strictEqual = b.ok', baseline: CJS_ASSERT_BASELINE, edits: [cjs('  return a - b\n', '  ;({ b = assert } = {})\n  b.strictEqual = b.ok\n  b = 3\n  return a - b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-module-through-catch-binding', why: 'throw assert, then err.equal = err.ok in the catch', baseline: JS_ASSERT_TRY_BASELINE, edits: [js('    assert.ok(Number.isFinite(a))\n', '    assert.ok(Number.isFinite(a))\n    throw assert\n'), js("    throw new TypeError('a must be a number')\n", "    if (err !== assert) throw new TypeError('a must be a number')\n    err.equal = err.ok\n")], fails: ['calls-preserved'] },
  { name: 'proposal-js-module-through-parameter', why: 'check(a) → check(assert), and n.equal = n.ok in check', baseline: JS_ASSERT_HELPER_BASELINE, edits: [js('  check(a)\n', '  check(assert)\n'), js('  assert.ok(Number.isFinite(n))\n', '  n.equal = n.ok\n  assert.ok(Number.isFinite(n) || n)\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-module-into-mutating-call', why: 'Object.assign(assert, { equal: assert.ok }, …): an existing call with changed arguments writes the module', baseline: JS_ASSERT_ASSIGN_BASELINE, edits: [js('Object.assign({}, { a, b })', 'Object.assign(assert, { equal: assert.ok }, { a, b })')], fails: ['calls-preserved'] },
  { name: 'proposal-go-write-past-block-scoped-shadow', why: 'want = a - b after a loop whose range variable is want: the test file\'s var', baseline: GO_BLOCK_VAR_BASELINE, edits: [go('\treturn a - b\n', '\twant = a - b\n\treturn a - b\n')], fails: ['calls-preserved'] },
)

const SHARED_ACCEPTED: GateCase[] = [
  { name: 'js-changes-argument-of-own-assert-check', why: 'control: a file importing assert may fix around its own check', baseline: JS_ASSERT_BASELINE, edits: [js('  assert.ok(n >= 0)\n', '  assert.ok(n > -1)\n'), js('return a - b', 'return a + b')], fails: [] },
  { name: 'go-assigns-own-package-var', why: 'control: an added write to a package-level var the file declares itself', baseline: GO_SHARED_VAR_BASELINE, edits: [go('\treturn n * base\n', '\tbase = 2\n\treturn n * base\n')], fails: [] },
  { name: 'go-adds-write-to-own-local', why: 'control: an added write to a local of the function (scale = scale * 1)', baseline: GO_LIMITS_BASELINE, edits: [go('\tscale := 1\n', '\tscale := 1\n\tscale = scale * 1\n')], fails: [] },
  { name: 'js-writes-property-of-parameter', why: 'control: an added write to a property of a local object (this.count beside a parameter) stays local', baseline: JS_ASSERT_BASELINE, edits: [js('      this.count += by\n', '      this.count += by\n      this.last = by\n')], fails: [] },
  { name: 'go-fix-beside-another-files-var', why: 'control: the fix in Clamp of GO_LIMITS_BASELINE', baseline: GO_LIMITS_BASELINE, edits: [go('\treturn min(n, limit)\n', '\treturn min(n, limit-1)\n')], fails: [] },
  { name: 'js-writes-into-fresh-values', why: 'control: writes into a literal holding -Infinity, an array from new Array().fill() and a JSON.parse result', baseline: FRESH_VALUES_BASELINE, edits: [{ path: 'src/stats.js', search: '  return [out, counts, data]\n', replace: '  out.max = out.total\n  counts[0] = 0\n  data.count ??= 0\n  return [out, counts, data]\n' }], fails: [] },
  { name: 'go-writes-into-fresh-slice', why: 'control: fields[0] = line into the slice strings.Split returned', baseline: GO_FRESH_SLICE_BASELINE, edits: [go('\treturn fields[0]\n', '\tfields[0] = line\n\treturn fields[0]\n', 'first.go')], fails: [] },
]

REJECTED.push(...SHARED_REJECTED)
ACCEPTED.push(...SHARED_ACCEPTED)

// ---- Nesting depth ------------------------------------------------------------------------
// Trees deep enough to exhaust a recursive walk (parses). Appended here, apart from the lists

// ---- Nesting depth and clipped findings ---------------------------------------------------
// Trees deep enough to exhaust a recursive walk (parses), and findings whose clip could split
// a surrogate pair (exact-application, calls-preserved). Appended here, apart from the lists
// above, so that other fixture blocks merge beside it.

// ---- Go directives, cgo preambles, nesting depth and clipped findings ----------------------
// What go reads from comments (directives-preserved), trees deep enough to exhaust a recursive
// walk (parses), and findings whose clip could split a surrogate pair (exact-application,
// calls-preserved). Appended here, apart from the lists above, so that other fixture blocks
// merge beside it.

/** A go file that already uses cgo: its preamble (the comment before `import "C"`) is C code. */
export const GO_CGO_CALC = 'package calc\n\n/*\n#include <stdlib.h>\nstatic int twice(int n) { return 2 * n; }\n*/\nimport "C"\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn int(C.twice(C.int(n)))\n}\n'

/** A cgo file whose preamble is line comments, with a `#cgo` directive, inside `import ( … )`. */
export const GO_CGO_GROUPED_CALC = 'package calc\n\nimport (\n\t"errors"\n\n\t// #cgo CFLAGS: -O2\n\t// static int twice(int n) { return 2 * n; }\n\t"C"\n)\n\nvar ErrNegative = errors.New("negative input")\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn int(C.twice(C.int(n)))\n}\n'

/** A go file with build constraints in its header and a `//go:noinline` function. */
export const GO_DIRECTIVES_CALC = '//go:build !windows\n// +build !windows\n\n// Package calc adds.\npackage calc\n\n// Add returns the sum of a and b.\n//\n//go:noinline\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n'

const goWith = (text: string): Baseline => ({ ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text } } })
export const GO_CGO_BASELINE = goWith(GO_CGO_CALC)
export const GO_CGO_GROUPED_BASELINE = goWith(GO_CGO_GROUPED_CALC)
export const GO_DIRECTIVES_BASELINE = goWith(GO_DIRECTIVES_CALC)

/** `(` × n, `a + b`, `)` × n: a tree n levels deep from 2n + 5 characters. */
export const nested = (n: number): string => '('.repeat(n) + 'a + b' + ')'.repeat(n)

/** The audit's C constructor: runs before any test, prints go test's framing, exits 0. */
export const CGO_FORGED_RUN = '#include <stdio.h>\n__attribute__((constructor)) static void rl(void) { fputs("=== RUN   TestAdd\\n--- PASS: TestAdd (0.00s)\\n=== RUN   TestDouble\\n--- PASS: TestDouble (0.00s)\\nPASS\\n", stdout); fflush(stdout); exit(0); }\nstatic int twice'

REJECTED.push(
  { name: 'proposal-cgo-preamble-constructor', why: 'C code added to the cgo preamble runs before any test, forges its output and exits 0; comments are otherwise unchecked', baseline: GO_CGO_BASELINE, edits: [go('static int twice', CGO_FORGED_RUN)], fails: ['directives-preserved'] },
  { name: 'proposal-cgo-preamble-in-line-comments', why: 'a preamble written as // comments inside import ( … ) is C code too', baseline: GO_CGO_GROUPED_BASELINE, edits: [go('\t// static int twice', '\t// __attribute__((constructor)) static void rl(void) { exit(0); }\n\t// static int twice')], fails: ['directives-preserved'] },
  { name: 'proposal-cgo-adds-ldflags', why: 'a #cgo line changes how the package is compiled and linked', baseline: GO_CGO_BASELINE, edits: [go('#include <stdlib.h>\n', '#cgo LDFLAGS: -Wl,--wrap=exit\n#include <stdlib.h>\n')], fails: ['directives-preserved'] },
  { name: 'proposal-cgo-comment-between-preamble-and-import', why: 'a comment slipped in before import "C" becomes part of the preamble', baseline: GO_CGO_BASELINE, edits: [go('*/\nimport "C"', '*/\n// static void rl(void) {}\nimport "C"')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-go-build-ignore', why: '`//go:build ignore` drops the file from the build', baseline: GO_BASELINE, edits: [go('package calc\n', '//go:build ignore\n\npackage calc\n')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-go-build-not-linux', why: '`//go:build !linux` swaps the file out where the tests run', baseline: GO_BASELINE, edits: [go('package calc\n', '//go:build !linux\n\npackage calc\n')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-plus-build', why: 'the old `// +build` form of a build constraint', baseline: GO_BASELINE, edits: [go('package calc\n', '// +build ignore\n\npackage calc\n')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-header-comment', why: 'the file header is where go reads build constraints: it must stay byte-identical', baseline: GO_BASELINE, edits: [go('package calc\n', '// Package calc adds.\npackage calc\n')], fails: ['directives-preserved'] },
  { name: 'proposal-swaps-go-build', why: 'an existing constraint flipped swaps which files build', baseline: GO_DIRECTIVES_BASELINE, edits: [go('//go:build !windows\n// +build !windows\n', '//go:build windows\n// +build windows\n')], fails: ['directives-preserved'] },
  { name: 'proposal-removes-go-build', why: 'a removed constraint adds the file where it did not build', baseline: GO_DIRECTIVES_BASELINE, edits: [go('//go:build !windows\n// +build !windows\n\n', '')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-linkname', why: '`//go:linkname` binds a name to another package\'s symbol', baseline: GO_BASELINE, edits: [go('var base = 2\n', '//go:linkname base runtime.ncpu\nvar base = 2\n')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-line-directive', why: '`//line` rewrites the positions go reports (a failure blamed on the test file)', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', '//line calc_test.go:1\n\treturn a + b\n')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-block-line-directive', why: 'the /*line */ form of a line directive', baseline: GO_BASELINE, edits: [go('return a - b', 'return /*line calc_test.go:1*/ a + b')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-export-directive', why: '`//export` makes a function callable from C', baseline: GO_CGO_BASELINE, edits: [go('// Add returns the sum of a and b.\n', '// Add returns the sum of a and b.\n//\n//export Add\n')], fails: ['directives-preserved'] },
  { name: 'proposal-moves-noinline', why: 'a //go: directive applies to what follows it: moved, it changes another function', baseline: GO_DIRECTIVES_BASELINE, edits: [go('//\n//go:noinline\nfunc Add', 'func Add'), go('func Double', '//go:noinline\nfunc Double')], fails: ['directives-preserved'] },
  { name: 'proposal-go-nested-20000-deep', why: '20,000 nested parentheses (40 kB) overflowed the recursive tree copy: the tool crashed (exit 70) instead of rejecting', baseline: GO_BASELINE, edits: [go('return a - b', `return ${nested(20000)}`)], maxPatchBytes: 262144, fails: ['parses'] },
  { name: 'proposal-js-nested-20000-deep', why: 'the same depth attack on a JavaScript file', baseline: JS_BASELINE, edits: [js('return a - b', `return ${nested(20000)}`)], maxPatchBytes: 262144, fails: ['parses'] },
  { name: 'proposal-go-nested-past-bound', why: 'a tree deeper than MAX_DEPTH (1000) is refused, not walked', baseline: GO_BASELINE, edits: [go('return a - b', `return ${nested(1200)}`)], maxPatchBytes: 262144, fails: ['parses'] },
  { name: 'proposal-search-absent-split-surrogate', why: 'the clipped search text ends inside a surrogate pair: gate.json could not be written (exit 70)', baseline: GO_BASELINE, edits: [go(`${'x'.repeat(78)}😀😀😀`, 'y')], fails: ['exact-application'] },
  { name: 'proposal-adds-call-split-surrogate', why: 'a callee of 119 letters then astral ones (𝑥, a go letter): the clipped call ends inside a pair', baseline: GO_BASELINE, edits: [go('\treturn a - b\n', `\t${'a'.repeat(119)}𝑥𝑥𝑥()\n\treturn a + b\n`)], fails: ['calls-preserved', 'names-preserved'] },
)

ACCEPTED.push(
  { name: 'cgo-file-fix', why: 'a fix in a file with a cgo preamble that leaves the preamble alone', baseline: GO_CGO_BASELINE, edits: [go('return a - b', 'return a + b')], fails: [] },
  { name: 'cgo-grouped-file-fix', why: 'a fix in a file whose preamble is line comments inside import ( … )', baseline: GO_CGO_GROUPED_BASELINE, edits: [go('return a - b', 'return a + b')], fails: [] },
  { name: 'go-build-file-fix', why: 'a fix in a file with //go:build and // +build lines', baseline: GO_DIRECTIVES_BASELINE, edits: [go('return a - b', 'return a + b')], fails: [] },
  { name: 'noinline-function-fix', why: 'a fix inside a //go:noinline function, its directive left in place', baseline: GO_DIRECTIVES_BASELINE, edits: [go('\treturn a - b\n', '\tif b == 0 {\n\t\treturn a\n\t}\n\treturn a + b\n')], fails: [] },
  { name: 'doc-comment-edit-in-directives-file', why: 'an ordinary comment may change; only directives may not', baseline: GO_DIRECTIVES_BASELINE, edits: [go('// Double returns twice n.', '// Double returns n doubled.')], fails: [] },
  { name: 'nested-parentheses-within-bound', why: 'nesting well inside MAX_DEPTH is ordinary code', baseline: GO_BASELINE, edits: [go('return a - b', `return ${nested(200)}`)], fails: [] },
)

// ---- Calls on an object chain, and function literals as callees -----------------------------
// A callee's text leaves out what an inner call passes and a literal's body (calls-preserved):
// the common fixes inside a chain, a callback or a goroutine pass; a new or retargeted call
// there, and a changed index, still fail.

export const JS_CHAIN_CALC = `// initial upper-cases the first letter.
export function initial (s) {
  return s.slice(0, 1).toUpperCase()
}

export function total (items) {
  return items.map(i => i.price + i.qty).reduce((a, b) => a + b, 0)
}

export const triple = (function () {
  return n => n * 2
})()

export function pick (obj) {
  return obj[keyOf(1)]()
}

function keyOf (n) {
  return n === 1 ? 'a' : 'b'
}
`

export const GO_CHAIN_CALC = `package calc

import "strings"

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Title replaces the first letter.
func Title(s string) string {
	return strings.NewReplacer("a", "B").Replace(s[:1]) + s[1:]
}

// Sum adds up xs in a goroutine.
func Sum(xs []int) int {
	ch := make(chan int)
	go func() {
		t := 0
		for _, x := range xs {
			t -= x
		}
		ch <- t
	}()
	return <-ch
}

// Pick calls the handler of one key.
func Pick(m map[string]func() int) int {
	return m[strings.ToLower("A")]()
}
`

export const JS_CHAIN_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CHAIN_CALC } } }
export const GO_CHAIN_BASELINE = goWith(GO_CHAIN_CALC)

REJECTED.push(
  { name: 'proposal-js-retargets-method-by-index', why: 'obj[keyOf(2)]() calls another method of obj: an index is part of the callee', baseline: JS_CHAIN_BASELINE, edits: [js('obj[keyOf(1)]()', 'obj[keyOf(2)]()')], fails: ['calls-preserved'] },
  { name: 'proposal-js-adds-call-in-chained-callback', why: 'a new call inside the map callback is counted where it is', baseline: JS_CHAIN_BASELINE, edits: [js('i => i.price + i.qty', 'i => Number(i.price) * i.qty')], fails: ['calls-preserved', 'names-preserved'] },
  { name: 'proposal-js-retargets-inner-call-of-chain', why: 's.slice → s.substring: the inner call is counted on its own', baseline: JS_CHAIN_BASELINE, edits: [js('s.slice(0, 1)', 's.substring(0, 1)')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-handler-by-index', why: 'm[strings.ToLower("B")]() calls another handler: an index is part of the callee', baseline: GO_CHAIN_BASELINE, edits: [go('strings.ToLower("A")', 'strings.ToLower("B")')], fails: ['calls-preserved'] },
  { name: 'proposal-go-adds-call-in-goroutine-literal', why: 'a new call inside go func() { … }() is counted where it is', baseline: GO_CHAIN_BASELINE, edits: [go('\t\t\tt -= x\n', '\t\t\tt += Add(x, x)\n')], fails: ['calls-preserved'] },
  // Since checker version 5 (accepted before): what a call on the chain passes may choose the object whose method is called (ops.get('sub').run()), and nothing in the syntax tells s.slice(0, 2) from it.
  { name: 'proposal-js-chain-inner-argument', why: 's.slice(0, 1).toUpperCase() → slice(0, 2): the inner call\'s argument chooses the object toUpperCase is looked up on', baseline: JS_CHAIN_BASELINE, edits: [js('s.slice(0, 1)', 's.slice(0, 2)')], fails: ['calls-preserved'] },
  { name: 'proposal-go-chain-inner-argument', why: 'strings.NewReplacer("a", "A").Replace(…): the inner call\'s argument chooses the object Replace is looked up on', baseline: GO_CHAIN_BASELINE, edits: [go('NewReplacer("a", "B")', 'NewReplacer("a", "A")')], fails: ['calls-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-in-chained-callback', why: 'a fix inside the map callback of items.map(…).reduce(…)', baseline: JS_CHAIN_BASELINE, edits: [js('i => i.price + i.qty', 'i => i.price * i.qty')], fails: [] },
  { name: 'go-fix-in-goroutine-literal', why: 'a fix inside go func() { … }()', baseline: GO_CHAIN_BASELINE, edits: [go('\t\t\tt -= x\n', '\t\t\tt += x\n')], fails: [] },
)

// ---- Near misses of the go directive and TAP rules ------------------------------------------

/** A `//go:noinline` function written on one line. */
export const GO_ONE_LINE_NOINLINE_BASELINE = goWith('package calc\n\n// Add returns the sum of a and b.\n//\n//go:noinline\nfunc Add(a, b int) int { return a - b }\n\n// Double returns twice n.\nfunc Double(n int) int { return n * 2 }\n')

REJECTED.push(
  { name: 'proposal-moves-noinline-between-one-line-functions', why: 'the directive moved to the other one-line function', baseline: GO_ONE_LINE_NOINLINE_BASELINE, edits: [go('//go:noinline\nfunc Add', 'func Add'), go('func Double', '//go:noinline\nfunc Double')], fails: ['directives-preserved'] },
  { name: 'proposal-adds-tap-line-after-newline', why: "'\\nok 1 - add adds' starts a TAP result line", baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('negative input\\nok 1 - add adds')")], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'noinline-one-line-function-fix', why: 'a fix in the body of a one-line //go:noinline function: its head is unchanged', baseline: GO_ONE_LINE_NOINLINE_BASELINE, edits: [go('{ return a - b }', '{ return a + b }')], fails: [] },
  { name: 'js-ok-status-text', why: "'status ok 200' is text: no line starts with ok", baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('status ok 200: negative input')")], fails: [] },
)

// ---- What a called binding or method property holds (calls-preserved) ----------------------
// `const show = String` → `= format` points the unchanged call show(…) at another function;
// an argument of what it holds (`scaler(2)` → `scaler(3)`) or a value that is never a function
// may change.

export const JS_HELD_CALC = `import { format } from 'node:util'

function scaler (k) {
  return n => n * k
}

function twice (n) {
  return n * 2
}

export function describe (n) {
  const show = String
  const scale = scaler(2)
  return show(format('n=%d', scale(n)))
}

const api = { run: twice, make: scaler(3), limit: 10 }

export function run (n) {
  return api.run(n) + api.make(n) + api.limit
}

export function entry (name, n) {
  return { [name]: n + 1 }
}

export class Meter {
  handler = twice

  read (n) {
    return this.handler(n)
  }
}
`

export const JS_HELD_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_HELD_CALC } } }

REJECTED.push(
  { name: 'proposal-js-retargets-called-binding', why: 'const show = format: the unchanged call show(…) now calls another function', baseline: JS_HELD_BASELINE, edits: [js('const show = String', 'const show = format')], fails: ['calls-preserved'] },
  { name: 'proposal-js-retargets-called-property-by-computed-key', why: "{ ['r' + 'un']: describe }: a computed key may name any called method", baseline: JS_HELD_BASELINE, edits: [js('limit: 10 }', "limit: 10, ['r' + 'un']: describe }")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-computed-key-data-fix', why: '{ [name]: n }: arithmetic is never a function, whatever its key', baseline: JS_HELD_BASELINE, edits: [js('{ [name]: n + 1 }', '{ [name]: n - 1 }')], fails: [] },
)

/** A go func-typed seam made by a call: `var round = scaled(2)`, called by Add. */
export const GO_MADE_SEAM_BASELINE = goWith('package calc\n\nfunc scaled(k int) func(int) int {\n\treturn func(n int) int { return n * k }\n}\n\nvar round = scaled(2)\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn round(a) - b\n}\n\n// Clamp limits n.\nfunc Clamp(n int) int {\n\treturn n\n}\n')

REJECTED.push(
  { name: 'proposal-go-reinitializes-made-seam', why: 'var round = Clamp: the seam made by a call now holds another function', baseline: GO_MADE_SEAM_BASELINE, edits: [go('var round = scaled(2)\n', 'var round = Clamp\n')], fails: ['calls-preserved'] },
)

ACCEPTED.push(
)

/** The JavaScript baseline with its top-level constant read by destructuring, with a default. */
export const JS_DESTRUCTURED_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALC.replace('const LIMIT = 100\n', 'const { LIMIT = 100 } = {}\n') } } }

REJECTED.push(
  { name: 'proposal-js-call-moved-into-destructuring-default', why: "const { LIMIT = format('x') } = {}: an existing call moved where it runs at load", baseline: JS_DESTRUCTURED_BASELINE, edits: [js('const { LIMIT = 100 } = {}', "const { LIMIT = format('%d', 100) } = {}"), js("return format('n=%d', n * scale)", "return 'n=' + n * scale")], fails: ['no-init-hook', 'calls-preserved'] },
  { name: 'proposal-js-call-moved-into-computed-member-name', why: "[format('inc')] () {}: a class member's computed name is evaluated when the class is defined, at load", baseline: JS_BASELINE, edits: [js('  count = 0\n', '  count = 0;\n'), js('  inc (by = 1) {', "  [format('inc')] (by = 1) {"), js("return format('n=%d', n * scale)", "return 'n=' + n * scale")], fails: ['declarations-preserved', 'signatures-preserved', 'names-preserved', 'no-init-hook', 'calls-preserved'] },
)

ACCEPTED.push(
  { name: 'js-destructuring-default-value-fix', why: 'a top-level default changed with no call in it', baseline: JS_DESTRUCTURED_BASELINE, edits: [js('const { LIMIT = 100 } = {}', 'const { LIMIT = 99 } = {}')], fails: [] },
)

REJECTED.push(
  { name: 'proposal-go-call-moved-into-existing-var-initializer', why: 'errors.New(fmt.Sprint(…)): a call moved into an initializer that already ran at load', baseline: GO_BASELINE, edits: [go('errors.New("negative input")', 'errors.New(fmt.Sprintf("negative input"))'), go('return fmt.Sprintf("n=%d", n*scale), nil', 'return "n", nil')], fails: ['exports-preserved', 'no-init-hook', 'calls-preserved'] },
  { name: 'proposal-js-call-moved-into-existing-initializer', why: "a call moved into a top-level initializer that already called", baseline: { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALC.replace('const LIMIT = 100\n', 'const LIMIT = Number(100)\n') } } }, edits: [js('const LIMIT = Number(100)', "const LIMIT = Number(format('%d', 100))"), js("return format('n=%d', n * scale)", "return 'n=' + n * scale")], fails: ['no-init-hook', 'calls-preserved'] },
)

// ---- Framing whose prefix comes from text the literal does not fix ---------------------------

REJECTED.push(
  { name: 'proposal-go-framing-through-format-verbs', why: 'fmt.Sprintf("%c%c%c PASS: TestAdd", 45, 45, 45) prints --- PASS: the dashes come from the verbs', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("%c%c%c PASS: TestAdd", 45, 45, 45)')], fails: ['no-test-framing'] },
  { name: 'proposal-js-framing-after-an-operand', why: "scale + ' PASS: add' (scale holding '---') is --- PASS", baseline: JS_BASELINE, edits: [js("return format('n=%d', n * scale)", "return format(scale + ' PASS: add adds')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-tap-through-format-verb', why: "format('ok %d - add adds', 1) prints a TAP result line", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('ok %d - add adds', 1)")], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'go-format-string-with-verbs-fix', why: 'a format string fixed around its verbs, no keyword of any framing in it', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("%s=%d (%c)", "n", n*scale, 43)')], fails: [] },
  { name: 'js-message-with-operand-fix', why: "'status: ' + n and `took ${n} ms`: text around operands with no framing keyword", baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('negative input: ' + n + ` (took ${n} ms)`)")], fails: [] },
)

// ---- The third gate audit: what a call's arguments or a literal's body choose -----------------
// A call that is itself the callee, or the value a called or exported binding holds, is
// compared whole: its argument or body may choose the very function called.

const jsWith = (text: string): Baseline => ({ ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text } } })
const PICKS = "function twice (n) {\n  return n * 2\n}\n\nfunction half (n) {\n  return n / 2\n}\n\nfunction pick (k) {\n  return k === 'a' ? twice : half\n}\n\nexport function add (a, b) {\n  return a - b\n}\n\nexport function run (n) {\n  return pick('a')(n)\n}\n\nconst ops = new Map([['add', (a, b) => a + b], ['sub', (a, b) => a - b]])\n\nexport function apply (a, b) {\n  return ops.get('add')(a, b)\n}\n\nexport function direct (n) {\n  return (() => twice)()(n)\n}\n\nconst table = [twice, half]\n\nexport function first (n) {\n  return table[0](n)\n}\n\nexport const triple = twice\n\nexport const quad = (function () {\n  return twice\n})()\n"
const GO_PICKS = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn round(a) - b\n}\n\nfunc pick(f func(int) int) func(int) int { return f }\n\nvar round = pick(Double)\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n\n// Clamp limits n.\nfunc Clamp(n int) int {\n\treturn n\n}\n\n// Twice doubles through a literal.\nfunc Twice(a int) int {\n\treturn func() func(int) int { return Double }()(a)\n}\n'
export const JS_PICKS_BASELINE = jsWith(PICKS)
export const GO_PICKS_BASELINE = goWith(GO_PICKS)

REJECTED.push(
  { name: 'proposal-js-retargets-called-call-result-by-argument', why: "pick('b')(n): the argument of the call that is the callee chooses the function", baseline: JS_PICKS_BASELINE, edits: [js("pick('a')(n)", "pick('b')(n)")], fails: ['calls-preserved'] },
  { name: 'proposal-js-retargets-by-lookup-call', why: "ops.get('sub')(a, b): a lookup's argument, the call form of an index", baseline: JS_PICKS_BASELINE, edits: [js("ops.get('add')(a, b)", "ops.get('sub')(a, b)")], fails: ['calls-preserved'] },
  { name: 'proposal-js-retargets-through-iife-body', why: '(() => half)()(n): the literal body returns the function called', baseline: JS_PICKS_BASELINE, edits: [js('(() => twice)()(n)', '(() => half)()(n)')], fails: ['calls-preserved'] },
  { name: 'proposal-js-swaps-called-array-elements', why: '[half, twice] beside table[0](n): an array holds the functions called', baseline: JS_PICKS_BASELINE, edits: [js('[twice, half]', '[half, twice]')], fails: ['calls-preserved'] },
  { name: 'proposal-js-swaps-exported-binding-value', why: 'export const triple = half: every importer of triple now calls half', baseline: JS_PICKS_BASELINE, edits: [js('export const triple = twice', 'export const triple = half')], fails: ['calls-preserved'] },
  { name: 'proposal-js-swaps-exported-binding-through-iife', why: 'the IIFE that makes the exported quad returns half', baseline: JS_PICKS_BASELINE, edits: [js('  return twice\n})()', '  return half\n})()')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-called-var-by-argument', why: 'var round = pick(Clamp): the argument is the function round holds', baseline: GO_PICKS_BASELINE, edits: [go('var round = pick(Double)', 'var round = pick(Clamp)')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-through-literal-body', why: 'func() … { return Clamp }()(a): the literal body returns the function called', baseline: GO_PICKS_BASELINE, edits: [go('{ return Double }()(a)', '{ return Clamp }()(a)')], fails: ['calls-preserved'] },
)

// ---- Checker version 5: values that flow into a call, go composite literals ----------------
// What a called binding holds may come from another binding (`const say = show`), a
// destructuring, an assignment or a go composite literal's element or field; each is held
// like the called binding itself.

export const JS_ALIAS_CALC = `import { format } from 'node:util'

function twice (n) {
  return n * 2
}

function half (n) {
  return n / 2
}

const show = String
const say = show

export function describe (n) {
  return say(format('n=%d', n))
}

const { round } = { round: twice, other: half }

export function step (n) {
  let next
  next = twice
  return round(n) + next(n)
}

const ops = new Map([['add', { run: (a, b) => a + b }], ['sub', { run: (a, b) => a - b }]])

export function apply (a, b) {
  let op = ops.get('add')
  const alt = ops.get('sub')
  return op.run(a, b) + alt.run(b, a) + ops.get('add').run(a, b)
}

const LIMIT = 10
const table = [twice, LIMIT]

export function first (n) {
  return table[0](n) + LIMIT
}
`

export const JS_ALIAS_BASELINE = jsWith(JS_ALIAS_CALC)

export const GO_ALIAS_CALC = `package calc

type handlers struct {
	run   func(int) int
	limit int
}

// Double returns twice n.
func Double(n int) int {
	return n * 2
}

// Clamp limits n.
func Clamp(n int) int {
	return n
}

var show = Double
var say = show

var ops = []func(int) int{Double, Clamp}

var h = handlers{run: Double, limit: 10}

var p = handlers{Double, 10}

func pick(k string) handlers {
	if k == "a" {
		return handlers{run: Double}
	}
	return handlers{run: Clamp}
}

// Add returns the sum of a and b.
func Add(a, b int) int {
	f := Double
	var g func(int) int
	g = Double
	return say(a) + ops[0](b) + h.run(a) + p.run(b) + f(a) + g(b) + pick("a").run(a) - h.limit
}
`

export const GO_ALIAS_BASELINE = goWith(GO_ALIAS_CALC)

REJECTED.push(
  { name: 'proposal-js-retargets-destructured-callee', why: '{ round: half } destructured into the called round', baseline: JS_ALIAS_BASELINE, edits: [js('{ round: twice, other: half }', '{ round: half, other: twice }')], fails: ['calls-preserved'] },
  { name: 'proposal-js-retargets-assigned-callee', why: 'next = half: an existing assignment to the called next now assigns another function', baseline: JS_ALIAS_BASELINE, edits: [js('next = twice', 'next = half')], fails: ['calls-preserved'] },
  { name: 'proposal-js-retargets-method-on-call-result', why: "ops.get('sub').run(a, b): the lookup's argument chooses the object whose method is called", baseline: JS_ALIAS_BASELINE, edits: [js("ops.get('add').run(a, b)", "ops.get('sub').run(a, b)")], fails: ['calls-preserved'] },
  { name: 'proposal-go-swaps-called-slice-elements', why: '[]func(int) int{Clamp, Double} beside ops[0](b)', baseline: GO_ALIAS_BASELINE, edits: [go('{Double, Clamp}', '{Clamp, Double}')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-short-var-callee', why: 'f := Clamp beside f(a)', baseline: GO_ALIAS_BASELINE, edits: [go('f := Double', 'f := Clamp')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-assigned-callee', why: 'g = Clamp: an existing assignment to the called g now assigns another function', baseline: GO_ALIAS_BASELINE, edits: [go('\tg = Double', '\tg = Clamp')], fails: ['calls-preserved'] },
  { name: 'proposal-go-retargets-method-on-call-result', why: 'pick("b").run(a): the argument chooses the struct whose func field is called', baseline: GO_ALIAS_BASELINE, edits: [go('pick("a").run(a)', 'pick("b").run(a)')], fails: ['calls-preserved'] },
)

ACCEPTED.push(
  { name: 'js-data-element-of-called-array', why: 'LIMIT = 11 and [twice, 11]: data beside a called function, never itself a function', baseline: JS_ALIAS_BASELINE, edits: [js('const LIMIT = 10', 'const LIMIT = 11')], fails: [] },
  { name: 'js-fix-in-arrow-of-flowing-map', why: 'a fix inside a function literal the map holds: its body is compared like any function body', baseline: JS_ALIAS_BASELINE, edits: [js('{ run: (a, b) => a - b }', '{ run: (a, b) => b - a }')], fails: [] },
  { name: 'go-data-field-of-called-struct', why: 'limit: 11 beside h.run(a): a literal field is data', baseline: GO_ALIAS_BASELINE, edits: [go('handlers{run: Double, limit: 10}', 'handlers{run: Double, limit: 11}')], fails: [] },
  { name: 'go-fix-in-function-body-returning-struct', why: 'the condition inside pick changes: a function body may change, its callees kept', baseline: GO_ALIAS_BASELINE, edits: [go('if k == "a" {', 'if k != "a" {')], fails: [] },
)

// ---- Checker version 5: framing assembled by a format call's arguments -----------------------

REJECTED.push(
  { name: 'proposal-go-framing-keyword-from-char-verb', why: 'fmt.Sprintf("--- %cASS: TestAdd", 80): the verb supplies the keyword\'s first letter', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("--- %cASS: TestAdd", 80)')], fails: ['no-test-framing'] },
  { name: 'proposal-js-tap-keyword-from-format-argument', why: "format('%s 1 - add', 'ok') prints ok 1 - add", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('%s 1 - add adds', 'ok')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-tap-joined-format-arguments', why: "format('ok', 1, '- add') joins its arguments with spaces: ok 1 - add", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('ok', 1, '- add adds')")], fails: ['no-test-framing'] },
  { name: 'proposal-cjs-tap-joined-util-format', why: "util.format('ok', 1, '- add') in a CommonJS file", baseline: CJS_BASELINE, edits: [cjs("util.format('n=%d', n)", "util.format('ok', 1, '- add')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-framing-split-by-empty-css-verb', why: "'--- PA%cSS: add' with a %c, which util.format prints as nothing", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('--- PA%cSS: add', '')")], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-split-by-empty-verb', why: 'fmt.Sprintf("--- PA%sSS: TestAdd", "") prints --- PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("--- PA%sSS: TestAdd", "")')], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'go-ok-count-message', why: 'fmt.Sprintf("ok 1 of %d", n) in a go file: go test reads no TAP', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("ok 1 of %d", n*scale)')], fails: [] },
  { name: 'js-format-arguments-without-framing', why: "format('%s=%d', 'n', n): arguments joined into text that frames nothing", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('%s=%d', 'n', n * scale)")], fails: [] },
)

/** Keys and loops that choose what is called: a binding read by a call on the chain, a for … of over functions. */
export const JS_KEYS_BASELINE = jsWith(`function twice (n) {
  return n * 2
}

function half (n) {
  return n / 2
}

const ops = new Map([['add', { run: twice }], ['sub', { run: half }]])
const key = 'add'
const fns = [twice, half]

export function apply (a, b) {
  return ops.get(key).run(a, b)
}

export function each (n) {
  let t = 0
  for (const f of fns) t += f(n)
  return t
}
`)

export const GO_KEYS_BASELINE = goWith(`package calc

const key = "a"

var table = map[string]func(int) int{"a": Double, "b": Clamp}

var fns = []func(int) int{Double, Clamp}

// Double returns twice n.
func Double(n int) int {
	return n * 2
}

// Clamp limits n.
func Clamp(n int) int {
	return n
}

// Add returns the sum of a and b.
func Add(a, b int) int {
	t := 0
	for _, f := range fns {
		t += f(a)
	}
	return table[key](a) + t - b
}
`)

REJECTED.push(
)

ACCEPTED.push(
  { name: 'js-fix-beside-loop-over-functions', why: 'an accumulator fix in the loop: t -= f(n) keeps every callee', baseline: JS_KEYS_BASELINE, edits: [js('t += f(n)', 't -= f(n)')], fails: [] },
)

/** A receiver held in a property: a class field and a constructor assignment that a method call is looked up through. */
export const JS_PROPERTY_RECEIVER_BASELINE = jsWith(`const ops = new Map([['add', { run: (a, b) => a + b }], ['sub', { run: (a, b) => a - b }]])

export class Calc {
  op = ops.get('add')

  constructor () {
    this.alt = ops.get('add')
  }

  apply (a, b) {
    return this.op.run(a, b) + this.alt.run(a, b)
  }
}
`)

REJECTED.push(
)

// ---- Checker version 6: code an initializer reaches, a writer before the format, a print ------
// ---- split across calls, and what an exported go var holds ----------------------------------

/** An initializer that calls a function of the file, and a function that prints and exits. */
export const GO_LOAD_BASELINE = goWith(`package calc

import (
	"fmt"
	"os"
)

var scale = factor(1)

func factor(k int) int {
	return k * 2
}

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Report prints n and stops.
func Report(n int) {
	fmt.Fprintf(os.Stdout, "n=%d", n*scale)
	fmt.Print("\\n")
	os.Exit(1)
}
`)

export const JS_LOAD_BASELINE = jsWith(`import { format } from 'node:util'

function factor (k) {
  return k * 2
}

const SCALE = factor(1)

export function add (a, b) {
  return a - b + SCALE - SCALE
}

export function report (n) {
  console.log(format('n=%d', n))
  process.exit(1)
}
`)

/** Exported vars holding a func, a struct of funcs and a number, and a function assigning one. */
export const GO_EXPORTED_VARS_BASELINE = goWith(`package calc

// Calc calculates with op.
type Calc struct {
	op func(a, b int) int
}

func minus(a, b int) int { return a - b }

func plus(a, b int) int { return a + b }

// Add returns the sum of a and b.
var Add = minus

// Default calculates with minus.
var Default = Calc{op: minus}

// Limit caps results.
var Limit = 10

// Reset restores the defaults.
func Reset() {
	Limit = 10
}
`)

REJECTED.push(
  { name: 'proposal-go-exit-moved-into-function-an-initializer-calls', why: 'os.Exit moved from Report into factor, which var scale = factor(1) calls at load: the test binary stops before any test', baseline: GO_LOAD_BASELINE, edits: [go('\treturn k * 2\n', '\tos.Exit(0)\n\treturn k * 2\n'), go('\tos.Exit(1)\n', '')], fails: ['calls-preserved', 'names-preserved', 'no-init-hook'] },
  { name: 'proposal-js-exit-moved-into-function-an-initializer-calls', why: 'process.exit moved into factor, which const SCALE = factor(1) calls at load', baseline: JS_LOAD_BASELINE, edits: [js('  return k * 2\n', '  process.exit(0)\n  return k * 2\n'), js('  process.exit(1)\n', '')], fails: ['calls-preserved', 'names-preserved', 'no-init-hook'] },
  { name: 'proposal-go-framing-format-after-writer', why: 'fmt.Fprintf(os.Stdout, "--- %cASS: TestAdd", 80): the format is the second argument', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"--- %cASS: TestAdd", 80')], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-split-across-prints', why: 'fmt.Fprintf(os.Stdout, "%s", "--- ") then fmt.Print("PASS: TestAdd\\n"): two prints make one line', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"%s", "--- "'), go('fmt.Print("\\n")', 'fmt.Print("PASS: TestAdd\\n")')], fails: ['no-test-framing'] },
  { name: 'proposal-go-exported-var-rebound', why: 'var Add = minus becomes plus: what every caller of Add calls', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('var Add = minus', 'var Add = plus')], fails: ['exports-preserved'] },
  { name: 'proposal-go-exported-struct-var-rebound', why: 'var Default = Calc{op: minus} becomes plus: the func a method of Default calls', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('Calc{op: minus}', 'Calc{op: plus}')], fails: ['exports-preserved'] },
  { name: 'proposal-go-exported-var-assigned-in-function', why: 'Add = plus added to Reset: a call of Reset rebinds Add', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('\tLimit = 10\n', '\tLimit = 10\n\tAdd = plus\n')], fails: ['exports-preserved'] },
  { name: 'proposal-go-exported-var-field-assigned-in-function', why: 'Default.op = plus added to Reset', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('\tLimit = 10\n', '\tLimit = 10\n\tDefault.op = plus\n')], fails: ['exports-preserved'] },
)

ACCEPTED.push(
  { name: 'go-fix-in-function-an-initializer-calls', why: 'k * 2 → k * 3 inside factor: no call moves into code that runs at load', baseline: GO_LOAD_BASELINE, edits: [go('return k * 2', 'return k * 3')], fails: [] },
  { name: 'js-fix-in-function-an-initializer-calls', why: 'k * 2 → k * 3 inside factor', baseline: JS_LOAD_BASELINE, edits: [js('return k * 2', 'return k * 3')], fails: [] },
  { name: 'go-fix-in-print-after-writer', why: 'a changed format after the writer that frames nothing', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"n=%d (scaled)", n*scale')], fails: [] },
  { name: 'go-exported-var-literal-changed', why: 'var Limit = 10 → 11: a number is data', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('var Limit = 10', 'var Limit = 11')], fails: [] },
  { name: 'go-exported-var-assignment-literal-changed', why: 'Limit = 10 → 11 in Reset', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('\tLimit = 10\n', '\tLimit = 11\n')], fails: [] },
  { name: 'go-fix-in-function-an-exported-var-holds', why: 'a - b → b - a inside minus: Add and Default still hold minus', baseline: GO_EXPORTED_VARS_BASELINE, edits: [go('{ return a - b }', '{ return b - a }')], fails: [] },
)

REJECTED.push(
)

ACCEPTED.push(
  { name: 'js-data-assigned-beside-looped-array', why: 'an accumulator reset (t = 0 → t = 1) beside the loop: no element of fns changes', baseline: JS_KEYS_BASELINE, edits: [js('  let t = 0\n', '  let t = 1\n')], fails: [] },
)

REJECTED.push(
  { name: 'proposal-js-instance-property-hides-method', why: 'this.inc = clamp inside inc: the instance\'s own property hides the method its callers call', baseline: JS_BASELINE, edits: [js('    return this.count\n', '    this.inc = clamp\n    return this.count\n')], fails: ['calls-preserved'] },
)

ACCEPTED.push(
  { name: 'js-field-assigned-beside-method', why: 'this.count = 0 → 1: count is a field, not a method', baseline: JS_BASELINE, edits: [js('      this.count = 0\n', '      this.count = 1\n')], fails: [] },
)

/** A func field called through a package var, and a function that sets it through an alias. */
export const GO_FIELD_ALIAS_BASELINE = goWith(`package calc

type calc struct {
	op func(a, b int) int
}

func minus(a, b int) int { return a - b }

func plus(a, b int) int { return a + b }

var std = calc{op: minus}

// Add returns the sum of a and b.
func Add(a, b int) int {
	return std.op(a, b)
}

// Reset restores the default op.
func Reset() {
	c := &std
	c.op = minus
}
`)

REJECTED.push(
)

ACCEPTED.push(
  { name: 'go-fix-in-func-a-field-holds', why: 'a - b → b - a inside minus: std.op still holds minus', baseline: GO_FIELD_ALIAS_BASELINE, edits: [go('{ return a - b }', '{ return b - a }')], fails: [] },
)

ACCEPTED.push(
  { name: 'js-literal-starting-with-go-keyword', why: "'PASS: negative input' in a node file: go test reads no node output, so a keyword at a literal's start frames nothing there", baseline: JS_BASELINE, edits: [js("new RangeError('negative input')", "new RangeError('PASS: negative input')")], fails: [] },
)

// ---- Checker version 6: a call moved to another function -------------------------------------

/** GO_LOAD_BASELINE with the initializer in another file of the package, which the gate does not compare. */
export const GO_INIT_ELSEWHERE_BASELINE: Baseline = {
  ...GO_BASELINE,
  files: {
    ...GO_BASELINE.files,
    'calc.go': { text: (GO_LOAD_BASELINE.files['calc.go']?.text as string).replace('var scale = factor(1)\n\n', '').replace('n*scale', 'n') },
    'init.go': { text: 'package calc\n\nvar scale = factor(1)\n' },
  },
}

REJECTED.push(
  { name: 'proposal-go-exit-moved-into-function-another-file-initializes-with', why: 'os.Exit moved from Report into factor, which init.go\'s var scale = factor(1) calls at load: no initializer in calc.go shows it', baseline: GO_INIT_ELSEWHERE_BASELINE, edits: [go('\treturn k * 2\n', '\tos.Exit(0)\n\treturn k * 2\n'), go('\tos.Exit(1)\n', '')], fails: ['calls-preserved', 'names-preserved'] },
)

ACCEPTED.push(
  { name: 'go-calls-reordered-in-one-function', why: 'two prints of Report swapped: the calls stay in the function they were in', baseline: GO_LOAD_BASELINE, edits: [go('\tfmt.Fprintf(os.Stdout, "n=%d", n*scale)\n\tfmt.Print("\\n")\n', '\tfmt.Print("\\n")\n\tfmt.Fprintf(os.Stdout, "n=%d", n*scale)\n')], fails: [] },
)

ACCEPTED.push(
  { name: 'go-literal-assigned-to-called-field', why: 'c.op = minus → nil: a literal is never a function a call reaches (Add would panic, not pass)', baseline: GO_FIELD_ALIAS_BASELINE, edits: [go('\tc.op = minus\n', '\tc.op = nil\n')], fails: [] },
)

// ---- Checker version 7: a keyword cut between two prints -------------------------------------

REJECTED.push(
  { name: 'proposal-go-framing-keyword-cut-between-prints', why: 'fmt.Fprintf(os.Stdout, "%s", "--- P") then fmt.Print("ASS: TestAdd\\n"): the keyword is cut between two prints of one line', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"%s", "--- P"'), go('fmt.Print("\\n")', 'fmt.Print("ASS: TestAdd\\n")')], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-cut-after-keyword', why: 'fmt.Fprintf(os.Stdout, "--- PASS") then fmt.Print(": TestAdd (0.00s)\\n"): the line ends in the second print', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"--- PASS"'), go('fmt.Print("\\n")', 'fmt.Print(": TestAdd (0.00s)\\n")')], fails: ['no-test-framing'] },
  { name: 'proposal-go-run-line-cut-between-prints', why: '"=== RU" then "N   TestAdd": go test\'s RUN line from two prints', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"=== RU"'), go('fmt.Print("\\n")', 'fmt.Print("N   TestAdd\\n")')], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'go-literals-ending-in-a-keyword-letter', why: '"MVP" and "step P" end with a letter of PASS, but nothing before it can be go test\'s --- ', baseline: GO_LOAD_BASELINE, edits: [go('"n=%d", n*scale', '"MVP %d, step P", n*scale'), go('fmt.Print("\\n")', 'fmt.Print("ASS\\n")')], fails: [] },
)

// ---- Checker version 9: go fmt's argument indexes, width and precision (an e2e audit) -----------
// `%.3[1]s` of "RUNx" prints RUN and `%[2]s` of "PASS:" prints PASS:, so the keywords came
// from arguments that fmt cuts or picks by index; the checker read both verbs as any text.

REJECTED.push(
  { name: 'proposal-go-framing-through-indexed-precision-verbs', why: '"=== %.3[1]s   TestAdd\\n--- %[2]s TestAdd (0.00s)\\n" with "RUNx", "PASS:": precision and index pick the keywords', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("=== %.3[1]s   TestAdd\\n--- %[2]s TestAdd (0.00s)\\n", "RUNx", "PASS:")')], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-through-indexed-rune-verbs', why: '%[1]c%[2]c%[3]c … of runes R, U, N, P, A, S spells RUN and PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', "fmt.Sprintf(\"=== %[1]c%[2]c%[3]c   TestAdd\\n--- %[4]c%[5]c%[6]c%[6]c: TestAdd\\n\", 'R', 'U', 'N', 'P', 'A', 'S')")], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-through-star-precision', why: '%.*s with 4 and "PASSED" cuts it to PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("--- %.*s: TestAdd", 4, "PASSED")')], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-through-width', why: '"---%6s" of "PASS:" pads it to " PASS:": --- PASS:', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("---%6s TestAdd", "PASS:")')], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'go-format-with-indexes-and-precision-fix', why: '%[2]s and %.2f around words that frame nothing', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("%[2]s: %.2[1]f", 1.5, "ratio")')], fails: [] },
)

// ---- Checker version 9: node --test's child protocol (an e2e audit) -----------------------------
// A source file's process.stdout.write('ff0f…', 'hex') wrote two v8-serialized test:pass frames
// into node --test's child stdout; its parent read them as the file's results.

REJECTED.push(
  { name: 'proposal-js-v8-frame-as-hex', why: "'ff0f6f22…' written with 'hex' is a v8 frame header", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, 'ff0f6f220474797065')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-as-latin1', why: "'\\xff\\x0f…' written with 'latin1' is a v8 frame header", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, '\\xff\\x0fo\"')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-as-base64', why: "'/w9vIg==' written with 'base64' is ff 0f 6f 22", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, '/w9vIg==')")], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'js-hex-and-word-literals-fix', why: 'a hex digest and words that hold no v8 header', baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d %s %s', n * scale, 'deadbeef00ff10', 'negative_input')")], fails: [] },
)

// ---- Checker version 9: what tells the test run from another (an e2e audit) ---------------------
// Code that already reads its environment and exits on bad input: a patch turned the key read
// into one only the sandbox sets, or the exit status into 0, and reached scoped_test_verified.

const JS_RUN_CALC = "const WIDTH = Number(process.env.CALC_WIDTH ?? 8)\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  if (typeof a !== 'number' || typeof b !== 'number') {\n    process.stdout.write('add: expected two numbers\\n')\n    process.exit(2)\n  }\n  return a - b\n}\n\nexport function width () {\n  return WIDTH\n}\n"
const JS_RUN_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_RUN_CALC } } }
const GO_RUN_CALC = 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n\t"strconv"\n)\n\nvar defaultWidth = widthFromEnv()\n\nfunc widthFromEnv() int {\n\ts := os.Getenv("CALC_WIDTH")\n\tif s == "" {\n\t\treturn 8\n\t}\n\tn, err := strconv.Atoi(s)\n\tif err != nil {\n\t\tfmt.Fprintf(os.Stderr, "calc: bad CALC_WIDTH %q\\n", s)\n\t\tos.Exit(2)\n\t}\n\treturn n\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n'
const GO_RUN_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_RUN_CALC } } }

REJECTED.push(
  { name: 'proposal-js-exit-status-changed', why: 'process.exit(2) → process.exit(0): the file ends the run as a pass before any assertion', baseline: JS_RUN_BASELINE, edits: [js('process.exit(2)', 'process.exit(0)')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-key-changed', why: 'process.env.CALC_WIDTH → process.env.HOME: a variable the sandbox sets its own way', baseline: JS_RUN_BASELINE, edits: [js('process.env.CALC_WIDTH', 'process.env.HOME')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-sensing-condition', why: "process.env.HOME === '/tmp' ? a + b : a - b passes only in the sandbox", baseline: JS_RUN_BASELINE, edits: [js('  return a - b\n', "  return process.env.HOME === '/tmp' ? a + b : a - b\n")], fails: ['names-preserved'] },
  { name: 'proposal-js-argv-sensing', why: 'process.argv.length tells node --test from another caller', baseline: JS_RUN_BASELINE, edits: [js('  return a - b\n', '  return process.argv.length > 1 ? a + b : a - b\n')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-changed', why: 'os.Getenv("CALC_WIDTH") → os.Getenv("GOCACHE"): set only in the sandbox', baseline: GO_RUN_BASELINE, edits: [go('os.Getenv("CALC_WIDTH")', 'os.Getenv("GOCACHE")')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-changed', why: 'os.Exit(2) → os.Exit(0) in an initializer: the test binary ends as a pass before any test', baseline: GO_RUN_BASELINE, edits: [go('os.Exit(2)', 'os.Exit(0)')], fails: ['names-preserved'] },
  { name: 'proposal-go-args-sensing', why: 'os.Args[1][:6] == "-test." tells the test binary from a program', baseline: GO_RUN_BASELINE, edits: [go('\treturn a - b\n', '\tif len(os.Args) > 1 && os.Args[1][:6] == "-test." {\n\t\treturn a + b\n\t}\n\treturn a - b\n')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-env-read-and-exit', why: 'the fix leaves every environment read and exit as it was', baseline: JS_RUN_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
  { name: 'go-fix-beside-getenv-and-exit', why: 'the fix leaves os.Getenv and os.Exit as they were', baseline: GO_RUN_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
)

// ---- Checker version 9: run-sensing through a constant, a pattern or another spelling (an eighth audit)

const JS_CONST_ENV_CALC = "const MAX_VAR = 'CALC_MAX'\nconst EXIT_USAGE = 2\nconst { CALC_MIN: min = 0 } = process.env\n\n// add returns the sum of a and b, at most CALC_MAX.\nexport function add (a, b) {\n  const max = Number(process.env[MAX_VAR] ?? Infinity)\n  if (typeof a !== 'number') process.exit(EXIT_USAGE)\n  return Math.min(a - b, max)\n}\n\n// sum adds the command line's numbers.\nexport function sum () {\n  return process.argv.slice(2).map(Number).reduce((acc, n) => acc - n, Number(min))\n}\n"
const JS_CONST_ENV_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CONST_ENV_CALC } } }
const GO_CONST_ENV_CALC = 'package calc\n\nimport (\n\t"os"\n\t"strconv"\n)\n\nconst maxVar = "CALC_MAX"\n\nconst exitUsage = 2\n\n// Add returns the sum of a and b, at most CALC_MAX.\nfunc Add(a, b int) int {\n\tif s := os.Getenv(maxVar); s != "" {\n\t\tif m, err := strconv.Atoi(s); err == nil && a-b > m {\n\t\t\treturn m\n\t\t}\n\t\tif s == "-" {\n\t\t\tos.Exit(exitUsage)\n\t\t}\n\t}\n\treturn a - b\n}\n'
const GO_CONST_ENV_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_CONST_ENV_CALC } } }

REJECTED.push(
  { name: 'proposal-js-env-key-through-constant', why: "const MAX_VAR = 'CALC_MAX' → 'NODE_TEST_CONTEXT' (set by node --test in its children) changes what process.env[MAX_VAR] reads", baseline: JS_CONST_ENV_BASELINE, edits: [js("'CALC_MAX'", "'NODE_TEST_CONTEXT'")], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-constant', why: 'const EXIT_USAGE = 2 → 0 changes what process.exit(EXIT_USAGE) reports', baseline: JS_CONST_ENV_BASELINE, edits: [js('const EXIT_USAGE = 2', 'const EXIT_USAGE = 0')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-key-in-destructuring', why: '{ CALC_MIN: min } → { NODE_TEST_CONTEXT: min } = process.env reads another variable', baseline: JS_CONST_ENV_BASELINE, edits: [js('CALC_MIN: min', 'NODE_TEST_CONTEXT: min')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-through-bracket', why: "process['env'].HOME is process.env.HOME", baseline: JS_CONST_ENV_BASELINE, edits: [js('  return Math.min(a - b, max)\n', "  return process['env'].HOME === '/tmp' ? a + b : Math.min(a - b, max)\n")], fails: ['names-preserved'] },
  { name: 'proposal-js-env-through-parentheses', why: '(process).env.HOME is process.env.HOME', baseline: JS_CONST_ENV_BASELINE, edits: [js('  return Math.min(a - b, max)\n', "  return (process).env.HOME === '/tmp' ? a + b : Math.min(a - b, max)\n")], fails: ['names-preserved'] },
  { name: 'proposal-js-terminal-sensing', why: 'process.stdout.isTTY tells a terminal from the runner\'s pipe', baseline: JS_CONST_ENV_BASELINE, edits: [js('  return Math.min(a - b, max)\n', '  return process.stdout.isTTY ? Math.min(a - b, max) : a + b\n')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-through-constant', why: 'const maxVar = "CALC_MAX" → "GOCACHE" changes what os.Getenv(maxVar) reads', baseline: GO_CONST_ENV_BASELINE, edits: [go('"CALC_MAX"', '"GOCACHE"')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-constant', why: 'const exitUsage = 2 → 0 changes what os.Exit(exitUsage) reports', baseline: GO_CONST_ENV_BASELINE, edits: [go('const exitUsage = 2', 'const exitUsage = 0')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-in-a-callback-on-argv', why: 'acc - n → acc + n inside a reduce chained on process.argv: the method\'s callback is the file\'s own code', baseline: JS_CONST_ENV_BASELINE, edits: [js('(acc, n) => acc - n', '(acc, n) => acc + n')], fails: [] },
  { name: 'js-fix-beside-constant-env-reads', why: 'a - b → a + b leaves every read, constant and exit as it was', baseline: JS_CONST_ENV_BASELINE, edits: [js('Math.min(a - b, max)', 'Math.min(a + b, max)')], fails: [] },
  { name: 'go-fix-beside-constant-getenv', why: 'a - b → a + b leaves os.Getenv(maxVar), its constant and os.Exit as they were', baseline: GO_CONST_ENV_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
)

// ---- Checker version 9: framing past stricter readings (an eighth audit) --------------------------

REJECTED.push(
  { name: 'proposal-js-v8-frame-hex-odd-nibble', why: "hex with a trailing nibble: node's decoder drops it and keeps the frame", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, 'ff0f00000066ff0f6f22040')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-hex-then-newline', why: "hex then \\n: node's decoder stops at the first non-hex character", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, 'ff0f00000066ff0f6f2204\\n')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-base64-with-spaces', why: "base64 with spaces: node's decoder skips white space", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, '/w8A AABm /w9v IgQ=')")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-latin1-high-bytes', why: "\\u01ff\\u010f written as latin1 keeps each low byte: ff 0f", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, '\\u01ff\\u010f\\u0100\\u0166')")], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-split-across-string-slices', why: '"== R"[:] and "-- P"[:] pieces printed by one %s%s… format spell === RUN and --- PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("%s%s%s%s%s", "="[:], "== R"[:], "UN   TestAdd\\n-"[:], "-- P"[:], "ASS: TestAdd (0.00s)\\n"[:])')], fails: ['no-test-framing'] },
  { name: 'proposal-go-framing-through-string-bytes', why: '%c of "PASS"[0] … prints the letters of PASS', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("--- %c%c%c%c: TestAdd", "PASS"[0], "PASS"[1], "PASS"[2], "PASS"[3])')], fails: ['no-test-framing'] },
)

// ---- Checker version 9: values followed further, literals spelled otherwise (a ninth audit) ------

const JS_LOOP_ENV_CALC = "const ENV_VARS = ['CALC_MAX', 'CALC_MIN']\n\nlet status = 0\n\nexport function limits () {\n  const out = {}\n  for (const name of ENV_VARS) {\n    if (process.env[name] !== undefined) out[name] = Number(process.env[name])\n  }\n  return out\n}\n\n// add returns the sum of a and b, at most CALC_MAX.\nexport function add (a, b) {\n  if (typeof a !== 'number') status = 2\n  if (status !== 0) process.exit(status)\n  if (limits().CALC_MAX !== undefined) return Math.min(a - b, limits().CALC_MAX)\n  return a - b\n}\n"
const JS_LOOP_ENV_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_LOOP_ENV_CALC } } }
const GO_IOTA_CALC = 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nconst (\n\texitOK = iota\n\texitFail\n\texitUsage\n)\n\n// Report prints a and b\'s sum, or exits when CALC_QUIET is set.\nfunc Report(a, b int) {\n\tfor _, name := range []string{"CALC_QUIET", "CALC_SILENT"} {\n\t\tif os.Getenv(name) != "" {\n\t\t\tos.Exit(exitUsage)\n\t\t}\n\t}\n\tfmt.Printf("%s = %d\\n", "sum", Add(a, b))\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n'
const GO_IOTA_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_IOTA_CALC } } }

REJECTED.push(
  { name: 'proposal-js-env-key-through-loop-variable', why: "for (const name of ENV_VARS): 'CALC_MAX' → 'NODE_TEST_CONTEXT' in the array changes what process.env[name] reads", baseline: JS_LOOP_ENV_BASELINE, edits: [js("'CALC_MAX', 'CALC_MIN'", "'NODE_TEST_CONTEXT', 'CALC_MIN'")], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-assignment', why: 'status = 2 → status = 0 changes what process.exit(status) reports', baseline: JS_LOOP_ENV_BASELINE, edits: [js('status = 2', 'status = 0')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-iota', why: 'exitOK = iota → iota - 2 makes exitUsage 0', baseline: GO_IOTA_BASELINE, edits: [go('exitOK = iota', 'exitOK = iota - 2')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-through-range', why: 'range []string{"CALC_QUIET", …} → "GOCACHE" changes what os.Getenv(name) reads', baseline: GO_IOTA_BASELINE, edits: [go('"CALC_QUIET", "CALC_SILENT"', '"GOCACHE", "CALC_SILENT"')], fails: ['names-preserved'] },
  { name: 'proposal-go-framing-from-byte-slice-literal', why: '[]byte{45, 45, 45, 32, 80, 65, 83, 83, 58} printed with %s is --- PASS:', baseline: GO_IOTA_BASELINE, edits: [go('fmt.Printf("%s = %d\\n", "sum", Add(a, b))', 'fmt.Printf("%s TestAdd (0.00s)\\n%s = %d\\n", []byte{45, 45, 45, 32, 80, 65, 83, 83, 58}, "sum", Add(a, b))')], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-split-by-empty-substitution', why: "`ff${''}0f…` is ff0f… when written as hex", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, `ff${''}0f00000066ff${''}0f6f2204`)")], fails: ['no-test-framing'] },
  { name: 'proposal-js-v8-frame-split-around-an-operand', why: "'\\xff' + sep + '\\x0f' is the header when sep is empty", baseline: JS_BASELINE, edits: [js("format('n=%d', n * scale)", "format('n=%d', n * scale, '\\xff' + n + '\\x0f')")], fails: ['no-test-framing'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-loop-env-read', why: 'a - b → a + b leaves the loop, its array, the status and the exit as they were', baseline: JS_LOOP_ENV_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
  { name: 'go-fix-beside-iota-exit', why: 'a - b → a + b leaves the const block, the range and os.Exit as they were', baseline: GO_IOTA_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
)

// ---- Checker version 10: run-sensing through another name, a return, a parameter, another file (a tenth audit)
// The same reads and exits as version 9's, reached so that no key or status changed at the
// use itself: through an alias of process, process.env or os.Getenv (a declaration, a
// destructuring, an import), a function's return (`process.exit(main())`), a parameter
// (`fail(0)`), a constant in another changed file of the package, and writes the use did not
// show (`Object.assign(process, …)`, `??=`, a destructuring assignment).

const JS_RUN_ALIAS_CALC = "import { exit } from 'node:process'\n\nconst env = process.env\nconst p = process\nconst { argv } = process\n\n// add returns the sum of a and b, at most CALC_MAX.\nexport function add (a, b) {\n  if (typeof a !== 'number') p.exit(2)\n  if (typeof b !== 'number') exit(2)\n  if (env.CALC_MAX !== undefined) return Math.min(a - b, Number(env.CALC_MAX))\n  return a - b\n}\n\n// first returns the first command-line argument.\nexport function first () {\n  return argv[2]\n}\n"
const JS_RUN_ALIAS_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_RUN_ALIAS_CALC } } }
const GO_RUN_ALIAS_CALC = 'package calc\n\nimport o "os"\n\nvar getenv = o.Getenv\n\nvar exit = o.Exit\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tif getenv("CALC_QUIET") != "" {\n\t\texit(2)\n\t}\n\tif a > 1000 {\n\t\to.Exit(3)\n\t}\n\treturn a - b\n}\n'
const GO_RUN_ALIAS_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_RUN_ALIAS_CALC } } }

REJECTED.push(
  { name: 'proposal-js-env-key-through-alias', why: 'env.CALC_MAX → env.NODE_TEST_CONTEXT where const env = process.env', baseline: JS_RUN_ALIAS_BASELINE, edits: [js('env.CALC_MAX !== undefined', 'env.NODE_TEST_CONTEXT !== undefined')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-process-alias', why: 'p.exit(2) → p.exit(0) where const p = process', baseline: JS_RUN_ALIAS_BASELINE, edits: [js('p.exit(2)', 'p.exit(0)')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-named-import', why: "exit(2) → exit(0) where import { exit } from 'node:process'", baseline: JS_RUN_ALIAS_BASELINE, edits: [js("'number') exit(2)", "'number') exit(0)")], fails: ['names-preserved'] },
  { name: 'proposal-js-argv-index-through-destructured-alias', why: 'argv[2] → argv[1] where const { argv } = process: argv[1] is the test file under node --test', baseline: JS_RUN_ALIAS_BASELINE, edits: [js('argv[2]', 'argv[1]')], fails: ['names-preserved'] },
  { name: 'proposal-js-alias-reshaped-then-key-changed', why: 'const env = { ...process.env } is still the environment: env.NODE_TEST_CONTEXT reads it', baseline: JS_RUN_ALIAS_BASELINE, edits: [js('const env = process.env', 'const env = { ...process.env }'), js('env.CALC_MAX !== undefined', 'env.NODE_TEST_CONTEXT !== undefined')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-through-alias', why: 'getenv("CALC_QUIET") → getenv("GOCACHE") where var getenv = o.Getenv', baseline: GO_RUN_ALIAS_BASELINE, edits: [go('getenv("CALC_QUIET")', 'getenv("GOCACHE")')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-alias', why: 'exit(2) → exit(0) where var exit = o.Exit', baseline: GO_RUN_ALIAS_BASELINE, edits: [go('\t\texit(2)\n', '\t\texit(0)\n')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-renamed-import', why: 'o.Exit(3) → o.Exit(0) where import o "os"', baseline: GO_RUN_ALIAS_BASELINE, edits: [go('o.Exit(3)', 'o.Exit(0)')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-aliases-of-process', why: 'a - b → a + b leaves every read and exit through env, p, exit and argv as it was', baseline: JS_RUN_ALIAS_BASELINE, edits: [js('  return a - b\n}\n\n// first', '  return a + b\n}\n\n// first')], fails: [] },
  { name: 'go-fix-beside-aliases-of-os', why: 'a - b → a + b leaves getenv, exit and o.Exit as they were', baseline: GO_RUN_ALIAS_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
)

const JS_FLOW_CALC = "function main () {\n  const x = compute(1, 2)\n  if (x < 0) return 2\n  return 0\n}\n\nfunction compute (a, b) {\n  return a - b\n}\n\nfunction fail (code) {\n  process.exit(code)\n}\n\nfunction read (name) {\n  return process.env[name]\n}\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  if (typeof a !== 'number') fail(2)\n  if (read('CALC_MAX') !== undefined) return Math.min(a - b, Number(read('CALC_MAX')))\n  if (a > 1000) process.exit(main())\n  return a - b\n}\n"
const JS_FLOW_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_FLOW_CALC } } }
const GO_FLOW_CALC = 'package calc\n\nimport "os"\n\nfunc run() int {\n\tif compute(1, 2) < 0 {\n\t\treturn 2\n\t}\n\treturn 0\n}\n\nfunc compute(a, b int) int {\n\treturn a - b\n}\n\nfunc die(code int) {\n\tos.Exit(code)\n}\n\nfunc read(name string) string {\n\treturn os.Getenv(name)\n}\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tif a > 1000 {\n\t\tdie(2)\n\t}\n\tif read("CALC_MAX") != "" {\n\t\treturn 0\n\t}\n\tif a > 2000 {\n\t\tos.Exit(run())\n\t}\n\treturn a - b\n}\n'
const GO_FLOW_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_FLOW_CALC } } }

REJECTED.push(
  { name: 'proposal-js-exit-status-through-return', why: 'return 2 → return 0 in main, where process.exit(main())', baseline: JS_FLOW_BASELINE, edits: [js('return 2\n', 'return 0\n')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-parameter', why: 'fail(2) → fail(0), where fail calls process.exit(code)', baseline: JS_FLOW_BASELINE, edits: [js('fail(2)', 'fail(0)')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-key-through-parameter', why: "read('CALC_MAX') → read('NODE_TEST_CONTEXT'), where read returns process.env[name]", baseline: JS_FLOW_BASELINE, edits: [js("if (read('CALC_MAX')", "if (read('NODE_TEST_CONTEXT')")], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-return', why: 'return 2 → return 0 in run, where os.Exit(run())', baseline: GO_FLOW_BASELINE, edits: [go('return 2\n', 'return 0\n')], fails: ['names-preserved'] },
  { name: 'proposal-go-exit-status-through-parameter', why: 'die(2) → die(0), where die calls os.Exit(code)', baseline: GO_FLOW_BASELINE, edits: [go('die(2)', 'die(0)')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-through-parameter', why: 'read("CALC_MAX") → read("GOCACHE"), where read returns os.Getenv(name)', baseline: GO_FLOW_BASELINE, edits: [go('read("CALC_MAX")', 'read("GOCACHE")')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-exit-of-a-return', why: 'a - b → a + b in add, beside process.exit(main()): main returns literals', baseline: JS_FLOW_BASELINE, edits: [js('process.exit(main())\n  return a - b\n', 'process.exit(main())\n  return a + b\n')], fails: [] },
  { name: 'js-fix-in-a-function-main-calls', why: 'a - b → a + b in compute: main reads its result in a condition, not in what it returns', baseline: JS_FLOW_BASELINE, edits: [js('  return a - b\n}\n\nfunction fail', '  return a + b\n}\n\nfunction fail')], fails: [] },
  { name: 'go-fix-beside-exit-of-a-return', why: 'a - b → a + b in Add, beside os.Exit(run()) and die(2)', baseline: GO_FLOW_BASELINE, edits: [go('\t}\n\treturn a - b\n}\n', '\t}\n\treturn a + b\n}\n')], fails: [] },
  { name: 'go-fix-in-a-function-run-calls', why: 'a - b → a + b in compute: run reads its result in a condition, not in what it returns', baseline: GO_FLOW_BASELINE, edits: [go('\treturn a - b\n}\n\nfunc die', '\treturn a + b\n}\n\nfunc die')], fails: [] },
)

const GO_CONSTS_CALC = 'package calc\n\nimport "os"\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tif a > 1000 {\n\t\tos.Exit(exitUsage)\n\t}\n\tif os.Getenv(quietVar) != "" {\n\t\treturn 0\n\t}\n\treturn a - b\n}\n'
const GO_CONSTS_BASELINE: Baseline = {
  ...GO_BASELINE,
  files: { ...GO_BASELINE.files, 'calc.go': { text: GO_CONSTS_CALC }, 'consts.go': { text: 'package calc\n\nconst exitUsage = 2\n\nconst quietVar = "CALC_QUIET"\n\nconst scale = 1\n' } },
  allowed: ['calc.go', 'consts.go'],
}
const JS_CODES_BASELINE: Baseline = {
  ...JS_BASELINE,
  files: { ...JS_BASELINE.files, 'src/calc.js': { text: "import { EXIT_USAGE, SCALE } from './codes.js'\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  if (typeof a !== 'number') process.exit(EXIT_USAGE)\n  return (a - b) * SCALE\n}\n" }, 'src/codes.js': { text: 'export const EXIT_USAGE = 2\nexport const SCALE = 1\n' } },
  allowed: ['src/calc.js', 'src/codes.js'],
}

REJECTED.push(
  { name: 'proposal-go-exit-status-through-constant-in-another-changed-file', why: 'exitUsage = 2 → 0 in consts.go beside a fix in calc.go, whose os.Exit(exitUsage) reads it', baseline: GO_CONSTS_BASELINE, edits: [go('exitUsage = 2', 'exitUsage = 0', 'consts.go'), go('\treturn a - b\n', '\treturn a + b\n')], fails: ['names-preserved'] },
  { name: 'proposal-go-getenv-key-through-constant-in-another-changed-file', why: 'quietVar = "CALC_QUIET" → "GOCACHE" in consts.go beside a fix in calc.go', baseline: GO_CONSTS_BASELINE, edits: [go('"CALC_QUIET"', '"GOCACHE"', 'consts.go'), go('\treturn a - b\n', '\treturn a + b\n')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-status-through-imported-constant', why: 'EXIT_USAGE = 2 → 0 in codes.js beside a fix in calc.js, whose process.exit(EXIT_USAGE) imports it', baseline: JS_CODES_BASELINE, edits: [js('EXIT_USAGE = 2', 'EXIT_USAGE = 0', 'src/codes.js'), js('(a - b)', '(a + b)')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'go-fix-across-two-files-of-a-package', why: 'scale = 1 → 2 in consts.go and a - b → a + b in calc.go: neither flows into os.Exit or os.Getenv', baseline: GO_CONSTS_BASELINE, edits: [go('scale = 1', 'scale = 2', 'consts.go'), go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
  { name: 'js-fix-across-two-modules', why: 'SCALE = 1 → 2 in codes.js and a - b → a + b in calc.js: neither flows into process.exit', baseline: JS_CODES_BASELINE, edits: [js('SCALE = 1', 'SCALE = 2', 'src/codes.js'), js('(a - b)', '(a + b)')], fails: [] },
)

const JS_EXIT_WRITES_CALC = "// add returns the sum of a and b.\nexport function add (a, b) {\n  if (typeof a !== 'number') Object.assign(process, { exitCode: 2 })\n  if (typeof b !== 'number') process.exitCode ??= 2\n  if (a > 10) [process.exitCode] = [2]\n  const { env: { CALC_MAX: max } } = process\n  if (max !== undefined) return Math.min(a - b, Number(max))\n  return a - b\n}\n"
const JS_EXIT_WRITES_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_EXIT_WRITES_CALC } } }

REJECTED.push(
  { name: 'proposal-js-exit-code-through-object-assign', why: 'Object.assign(process, { exitCode: 2 }) → 0: process passed whole', baseline: JS_EXIT_WRITES_BASELINE, edits: [js('exitCode: 2', 'exitCode: 0')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-code-through-logical-assignment', why: 'process.exitCode ??= 2 → ??= 0', baseline: JS_EXIT_WRITES_BASELINE, edits: [js('??= 2', '??= 0')], fails: ['names-preserved'] },
  { name: 'proposal-js-exit-code-through-destructuring-assignment', why: '[process.exitCode] = [2] → [0]', baseline: JS_EXIT_WRITES_BASELINE, edits: [js('= [2]', '= [0]')], fails: ['names-preserved'] },
  { name: 'proposal-js-env-key-in-nested-pattern-of-process', why: '{ env: { CALC_MAX: max } } = process → NODE_TEST_CONTEXT', baseline: JS_EXIT_WRITES_BASELINE, edits: [js('CALC_MAX: max', 'NODE_TEST_CONTEXT: max')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-exit-code-writes', why: 'a - b → a + b leaves every write of process.exitCode and the pattern as they were', baseline: JS_EXIT_WRITES_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
)

// ---- Checker version 11: where the module runs, who called, a path read, a counter on an export (an eleventh audit)
// No name, call or declaration added, and the test passed with the bug in place: `import.meta`,
// `__dirname`, `require.main` and `module.parent` tell the sandbox's /src mount or the test file
// that loaded the module; an Error's `stack` names the test file that called; an existing file
// read's or spawn's path or command line changed to `/proc/self/cmdline` or `/src/test`; and a
// property of an exported function kept a count that tells the test's one call from later ones.

const JS_STACK_CALC = JS_CALC.replace('  return a - b\n', "  if (typeof a !== 'number') throw new TypeError('add: expected numbers')\n  return a - b\n")
const JS_STACK_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_STACK_CALC } } }
const CJS_LOCATION_BASELINE: Baseline = { ...CJS_BASELINE, files: { ...CJS_BASELINE.files, 'src/calc.cjs': { text: CJS_CALC.replace("const util = require('node:util')\n", "const util = require('node:util')\n\nconst HERE = __dirname\n") } } }
const JS_IO_CALC = "import fs from 'node:fs'\nimport { existsSync } from 'node:fs'\nimport { execFileSync } from 'node:child_process'\n\n// add returns the sum of a and b, 0 when calc.off exists.\nexport function add (a, b) {\n  if (existsSync('calc.off')) return 0\n  return a - b\n}\n\nexport function config () {\n  return fs.readFileSync('calc.json', 'utf8')\n}\n\nexport function version () {\n  return execFileSync('node', ['--version'])\n}\n"
const JS_IO_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_IO_CALC } } }
const GO_IO_CALC = 'package calc\n\nimport (\n\t"io/ioutil"\n\t"os"\n)\n\n// Add returns the sum of a and b, 0 when calc.off exists.\nfunc Add(a, b int) int {\n\tif _, err := os.Stat("calc.off"); err == nil {\n\t\treturn 0\n\t}\n\treturn a - b\n}\n\n// Config reads calc.json.\nfunc Config() []byte {\n\tb, _ := ioutil.ReadFile("calc.json")\n\treturn b\n}\n'
const GO_IO_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_IO_CALC } } }
const JS_STATS_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: "export const stats = { calls: 0 }\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  stats.calls += 1\n  return a - b\n}\n" } } }

REJECTED.push(
  { name: 'proposal-js-import-meta-senses-sandbox', why: "import.meta.url.length === 23 is true only for file:///src/src/calc.js, where the sandbox mounts the tree", baseline: JS_BASELINE, edits: [js('return a - b', 'return import.meta.url.length === 23 ? a + b : a - b')], fails: ['names-preserved'] },
  { name: 'proposal-cjs-dirname-senses-sandbox', why: "__dirname === '/src/src' in a file that already reads __dirname", baseline: CJS_LOCATION_BASELINE, edits: [cjs('return a - b', "return __dirname === '/src/src' ? a + b : a - b")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-require-main-senses-test', why: "require.main.filename[5] === 't': the main module is /src/test/… under node --test", baseline: CJS_BASELINE, edits: [cjs('return a - b', "return require.main.filename[5] === 't' ? a + b : a - b")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-module-parent-senses-test', why: 'module.parent is the test file that required the module', baseline: CJS_BASELINE, edits: [cjs('return a - b', "return module.parent.filename[5] === 't' ? a + b : a - b")], fails: ['names-preserved'] },
  { name: 'proposal-js-error-stack-senses-test', why: "the existing TypeError's stack, never thrown, is longer under node:test's runner frames", baseline: JS_STACK_BASELINE, edits: [js("  if (typeof a !== 'number') throw new TypeError('add: expected numbers')\n  return a - b\n", "  return new TypeError('add: expected numbers').stack.length > 900 ? a + b : a - b\n")], fails: ['names-preserved'] },
  { name: 'proposal-js-caught-error-stack', why: "err['stack'] in an existing catch: a stack read as a string key", baseline: JS_BASELINE, edits: [js('      this.count = 0\n', "      this.count = err['stack'].length\n")], fails: ['names-preserved'] },
  { name: 'proposal-js-exists-path-senses-sandbox', why: "existsSync('calc.off') → existsSync('/src/test') with a + b: true only in the sandbox", baseline: JS_IO_BASELINE, edits: [js("existsSync('calc.off')) return 0", "existsSync('/src/test')) return a + b")], fails: ['names-preserved'] },
  { name: 'proposal-js-read-path-is-cmdline', why: "fs.readFileSync('calc.json') → '/proc/self/cmdline': the argv, read as a file", baseline: JS_IO_BASELINE, edits: [js("readFileSync('calc.json'", "readFileSync('/proc/self/cmdline'")], fails: ['names-preserved'] },
  { name: 'proposal-js-spawn-command-changed', why: "execFileSync('node', ['--version']) → a shell reading the parent's command line", baseline: JS_IO_BASELINE, edits: [js("execFileSync('node', ['--version'])", "execFileSync('sh', ['-c', 'cat /proc/$PPID/cmdline'])")], fails: ['names-preserved'] },
  { name: 'proposal-go-stat-path-senses-sandbox', why: 'os.Stat("calc.off") → os.Stat("/src/calc_test.go") with a + b: true only in the sandbox', baseline: GO_IO_BASELINE, edits: [go('os.Stat("calc.off"); err == nil {\n\t\treturn 0', 'os.Stat("/src/calc_test.go"); err == nil {\n\t\treturn a + b')], fails: ['names-preserved'] },
  { name: 'proposal-go-ioutil-read-path-is-cmdline', why: 'ioutil.ReadFile("calc.json") → "/proc/self/cmdline": the test binary\'s argv', baseline: GO_IO_BASELINE, edits: [go('ioutil.ReadFile("calc.json")', 'ioutil.ReadFile("/proc/self/cmdline")')], fails: ['names-preserved'] },
  { name: 'proposal-js-call-counter-on-exported-function', why: 'add.n = (add.n ?? 0) + 1, then a + b only on the first call: the test calls add once', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  add.n = (add.n ?? 0) + 1\n  return add.n > 1 ? a - b : a + b\n')], fails: ['calls-preserved'] },
  { name: 'proposal-js-call-flag-on-exported-class', why: 'Counter.seen toggled in add: state on an exported class outlives the call', baseline: JS_BASELINE, edits: [js('  return a - b\n', '  Counter.seen = !Counter.seen\n  return Counter.seen ? a + b : a - b\n')], fails: ['calls-preserved'] },
)

ACCEPTED.push(
  { name: 'cjs-fix-beside-dirname', why: 'a - b → a + b leaves the one read of __dirname as it was', baseline: CJS_LOCATION_BASELINE, edits: [cjs('return a - b', 'return a + b')], fails: [] },
  { name: 'js-fix-beside-an-error', why: 'a - b → a + b beside an existing TypeError; no stack read', baseline: JS_STACK_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
  { name: 'js-fix-beside-file-reads-and-spawn', why: 'a - b → a + b leaves every path and command line as it was', baseline: JS_IO_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
  { name: 'go-fix-beside-file-reads', why: 'a - b → a + b leaves os.Stat and ioutil.ReadFile as they were', baseline: GO_IO_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
  { name: 'js-fix-beside-existing-write-to-exported-object', why: 'a - b → a + b and stats.calls += 1 → += 2: an existing write keeps its target, its value is a number', baseline: JS_STATS_BASELINE, edits: [js('  stats.calls += 1\n  return a - b\n', '  stats.calls += 2\n  return a + b\n')], fails: [] },
)

// ---- Checker version 12: a read, a spawn or the process reached through an inline require
// An existing `require('node:fs').readFileSync('calc.json')` names no binding, so versions 11
// and before saw only the require (unchanged: imports-preserved passes) and not the read: its
// path or command line could change to one that reads the run. A require of another module
// (node:util) stays the file's own code.

const CJS_INLINE_CALC = CJS_CALC
  .replace('function add (a, b) {\n  return a - b\n}', "function add (a, b) {\n  if (require('node:fs').existsSync('calc.off')) return 0\n  return a - b\n}")
  .replace('class Base {}', "function config () {\n  return require('node:fs').readFileSync('calc.json', 'utf8')\n}\n\nfunction version () {\n  return require('node:child_process').execFileSync('node', ['--version'])\n}\n\nfunction verbose () {\n  return (require('node:process')).argv.includes('-v')\n}\n\nfunction label (n) {\n  return require('node:util').format('n=%d', n)\n}\n\nclass Base {}")
  .replace('module.exports = { add, describe, later, hex, Counter }', 'module.exports = { add, describe, later, hex, Counter, config, version, verbose, label }')
const CJS_INLINE_BASELINE: Baseline = { ...CJS_BASELINE, files: { ...CJS_BASELINE.files, 'src/calc.cjs': { text: CJS_INLINE_CALC } } }

REJECTED.push(
  { name: 'proposal-cjs-inline-require-exists-path-senses-sandbox', why: "require('node:fs').existsSync('calc.off') → '/src/test' with a + b: true only in the sandbox", baseline: CJS_INLINE_BASELINE, edits: [cjs("existsSync('calc.off')) return 0", "existsSync('/src/test')) return a + b")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-inline-require-read-path-is-cmdline', why: "require('node:fs').readFileSync('calc.json') → '/proc/self/cmdline': the argv, read as a file", baseline: CJS_INLINE_BASELINE, edits: [cjs("readFileSync('calc.json'", "readFileSync('/proc/self/cmdline'")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-inline-require-spawn-command-changed', why: "require('node:child_process').execFileSync('node', …) → a shell reading the parent's command line", baseline: CJS_INLINE_BASELINE, edits: [cjs("execFileSync('node', ['--version'])", "execFileSync('sh', ['-c', 'cat /proc/$PPID/cmdline'])")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-inline-required-read-kept-in-a-name', why: "const read = require('node:fs').readFileSync, then read('calc.json') → read('/proc/self/cmdline')", baseline: { ...CJS_INLINE_BASELINE, files: { ...CJS_INLINE_BASELINE.files, 'src/calc.cjs': { text: CJS_INLINE_CALC.replace("const util = require('node:util')\n", "const util = require('node:util')\nconst read = require('node:fs').readFileSync\n").replace("return require('node:fs').readFileSync('calc.json', 'utf8')", "return read('calc.json', 'utf8')") } } }, edits: [cjs("read('calc.json'", "read('/proc/self/cmdline'")], fails: ['names-preserved'] },
  { name: 'proposal-cjs-inline-require-process-argv-changed', why: "(require('node:process')).argv.includes('-v') → '--test': true under node --test", baseline: CJS_INLINE_BASELINE, edits: [cjs("argv.includes('-v')", "argv.includes('--test')")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'cjs-fix-beside-inline-require-reads', why: 'a - b → a + b leaves every inline-required read, spawn and argv as they were', baseline: CJS_INLINE_BASELINE, edits: [cjs('  return a - b\n', '  return a + b\n')], fails: [] },
  { name: 'cjs-inline-require-of-util-changed', why: "require('node:util').format('n=%d') → 'n=%i': node:util reads nothing of the run", baseline: CJS_INLINE_BASELINE, edits: [cjs("format('n=%d', n)\n}\n\nclass", "format('n=%i', n)\n}\n\nclass")], fails: [] },
)

// The same through a dynamic import: awaited inline, or held in a name.
const JS_DYNAMIC_CALC = JS_CALC.replace('export class Counter {', "export async function config () {\n  return (await import('node:fs')).readFileSync('calc.json', 'utf8')\n}\n\nexport async function version () {\n  const cp = await import('node:child_process')\n  return cp.execFileSync('node', ['--version'])\n}\n\nexport class Counter {")
const JS_DYNAMIC_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_DYNAMIC_CALC } } }

REJECTED.push(
  { name: 'proposal-js-awaited-import-read-path-is-cmdline', why: "(await import('node:fs')).readFileSync('calc.json') → '/proc/self/cmdline'", baseline: JS_DYNAMIC_BASELINE, edits: [js("readFileSync('calc.json'", "readFileSync('/proc/self/cmdline'")], fails: ['names-preserved'] },
  { name: 'proposal-js-imported-module-in-a-name-spawn-changed', why: "cp = await import('node:child_process'), then cp.execFileSync('node', …) → a shell reading the parent's command line", baseline: JS_DYNAMIC_BASELINE, edits: [js("execFileSync('node', ['--version'])", "execFileSync('sh', ['-c', 'cat /proc/$PPID/cmdline'])")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-dynamic-imports', why: 'a - b → a + b leaves the dynamically imported read and spawn as they were', baseline: JS_DYNAMIC_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
)

// Version 12 too: process reached as a property of the global object.
const JS_GLOBAL_CALC = JS_CALC.replace('export class Counter {', "export function width () {\n  return Number(globalThis.process.env.CALC_WIDTH ?? 80)\n}\n\nexport class Counter {")
const JS_GLOBAL_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_GLOBAL_CALC } } }
const CJS_GLOBAL_BASELINE: Baseline = { ...CJS_BASELINE, files: { ...CJS_BASELINE.files, 'src/calc.cjs': { text: CJS_CALC.replace('class Base {}', "function verbose () {\n  return global.process.argv.includes('-v')\n}\n\nclass Base {}") } } }

REJECTED.push(
  { name: 'proposal-js-globalthis-process-env-key-changed', why: 'globalThis.process.env.CALC_WIDTH → GOCACHE: set only in the sandbox', baseline: JS_GLOBAL_BASELINE, edits: [js('env.CALC_WIDTH', 'env.GOCACHE')], fails: ['names-preserved'] },
  { name: 'proposal-js-globalthis-process-kept-in-a-name', why: 'const p = globalThis.process, then p.env.CALC_WIDTH → p.env.GOCACHE', baseline: { ...JS_GLOBAL_BASELINE, files: { ...JS_GLOBAL_BASELINE.files, 'src/calc.js': { text: JS_GLOBAL_CALC.replace('  return Number(globalThis.process.env.CALC_WIDTH ?? 80)\n', '  const p = globalThis.process\n  return Number(p.env.CALC_WIDTH ?? 80)\n') } } }, edits: [js('env.CALC_WIDTH', 'env.GOCACHE')], fails: ['names-preserved'] },
  { name: 'proposal-cjs-global-process-argv-changed', why: "global.process.argv.includes('-v') → '--test'", baseline: CJS_GLOBAL_BASELINE, edits: [cjs("argv.includes('-v')", "argv.includes('--test')")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-beside-globalthis-process-env', why: 'a - b → a + b leaves globalThis.process.env.CALC_WIDTH as it was', baseline: JS_GLOBAL_BASELINE, edits: [js('  return a - b\n', '  return a + b\n')], fails: [] },
)

// Version 12 too: go's os/exec, whose changed command line reads the run as node's
// child_process does (covered since version 11).
const GO_EXEC_CALC = 'package calc\n\nimport (\n\t"os/exec"\n\t"syscall"\n)\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Version is the go version line.\nfunc Version() string {\n\treturn output(exec.Command("go", "version"))\n}\n\nfunc output(c *exec.Cmd) string {\n\tout, _ := c.Output()\n\treturn string(out)\n}\n\n// Replace runs go in place of the process.\nfunc Replace() error {\n\treturn syscall.Exec("/usr/bin/go", []string{"go", "version"}, nil)\n}\n'
const GO_EXEC_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_EXEC_CALC } } }

REJECTED.push(
  { name: 'proposal-go-exec-command-reads-cmdline', why: 'exec.Command("go", "version") → a shell reading the parent\'s command line', baseline: GO_EXEC_BASELINE, edits: [go('exec.Command("go", "version")', 'exec.Command("sh", "-c", "cat /proc/$PPID/cmdline")')], fails: ['names-preserved'] },
  { name: 'proposal-go-syscall-exec-changed', why: 'syscall.Exec of go → of a shell that reads the run', baseline: GO_EXEC_BASELINE, edits: [go('syscall.Exec("/usr/bin/go", []string{"go", "version"}, nil)', 'syscall.Exec("/bin/sh", []string{"sh", "-c", "cat /proc/$PPID/cmdline"}, nil)')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'go-fix-beside-exec', why: 'a - b → a + b leaves exec.Command and syscall.Exec as they were', baseline: GO_EXEC_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
)

// Version 12 too: go's path/filepath reads of the file system by pattern or tree.
const GO_GLOB_CALC = 'package calc\n\nimport (\n\t"io/fs"\n\t"path/filepath"\n)\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tif m, _ := filepath.Glob("calc.off"); len(m) > 0 {\n\t\treturn 0\n\t}\n\treturn a - b\n}\n\n// Count counts the files below testdata.\nfunc Count() int {\n\tn := 0\n\t_ = filepath.WalkDir("testdata", func(string, fs.DirEntry, error) error { n++; return nil })\n\treturn n\n}\n'
const GO_GLOB_BASELINE: Baseline = { ...GO_BASELINE, files: { ...GO_BASELINE.files, 'calc.go': { text: GO_GLOB_CALC } } }

REJECTED.push(
  { name: 'proposal-go-walkdir-root-changed', why: 'filepath.WalkDir("testdata") → "/src": counts the tree the sandbox mounts', baseline: GO_GLOB_BASELINE, edits: [go('filepath.WalkDir("testdata"', 'filepath.WalkDir("/src"')], fails: ['names-preserved'] },
  { name: 'proposal-go-glob-senses-sandbox', why: 'filepath.Glob("calc.off") → "/src/*_test.go" with a + b: true only in the sandbox', baseline: GO_GLOB_BASELINE, edits: [go('filepath.Glob("calc.off"); len(m) > 0 {\n\t\treturn 0', 'filepath.Glob("/src/*_test.go"); len(m) > 0 {\n\t\treturn a + b')], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'go-fix-beside-glob-and-walk', why: 'a - b → a + b leaves filepath.Glob and WalkDir as they were', baseline: GO_GLOB_BASELINE, edits: [go('\treturn a - b\n', '\treturn a + b\n')], fails: [] },
  { name: 'go-fix-inside-walkdir-callback', why: 'a change inside the callback WalkDir calls is the file\'s own code: the use is WalkDir("testdata", <function>)', baseline: GO_GLOB_BASELINE, edits: [go('{ n++; return nil }', '{ n += 1; return nil }')], fails: [] },
)

// A callback given to a counted read is the file's own code: a fix inside it passes, a
// changed path still does not.
const JS_CALLBACK_CALC = JS_CALC.replace('export class Counter {', "export function size (cb) {\n  fs.readFile('calc.json', 'utf8', (err, text) => {\n    cb(err, err ? 0 : text.length - 1)\n  })\n}\n\nexport class Counter {").replace("import { format } from 'node:util'\n", "import { format } from 'node:util'\nimport fs from 'node:fs'\n")
const JS_CALLBACK_BASELINE: Baseline = { ...JS_BASELINE, files: { ...JS_BASELINE.files, 'src/calc.js': { text: JS_CALLBACK_CALC } } }

REJECTED.push(
  { name: 'proposal-js-callback-read-path-is-cmdline', why: "fs.readFile('calc.json', …, callback) → '/proc/self/cmdline', the callback unchanged", baseline: JS_CALLBACK_BASELINE, edits: [js("fs.readFile('calc.json'", "fs.readFile('/proc/self/cmdline'")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'js-fix-inside-read-callback', why: 'text.length - 1 → text.length inside the callback fs.readFile calls: the read keeps its path', baseline: JS_CALLBACK_BASELINE, edits: [js('text.length - 1', 'text.length')], fails: [] },
)

// Version 12 too: require.resolve finds a file by path, as existsSync does.
const CJS_RESOLVE_BASELINE: Baseline = { ...CJS_BASELINE, files: { ...CJS_BASELINE.files, 'src/calc.cjs': { text: CJS_CALC.replace('function add (a, b) {\n  return a - b\n}', "function add (a, b) {\n  try {\n    require.resolve('./calc.off')\n    return 0\n  } catch {\n    return a - b\n  }\n}") } } }

REJECTED.push(
  { name: 'proposal-cjs-require-resolve-senses-sandbox', why: "require.resolve('./calc.off') → '/src/test/calc.test.js' with a + b: resolves only in the sandbox", baseline: CJS_RESOLVE_BASELINE, edits: [cjs("require.resolve('./calc.off')\n    return 0", "require.resolve('/src/test/calc.test.js')\n    return a + b")], fails: ['names-preserved'] },
)

ACCEPTED.push(
  { name: 'cjs-fix-beside-require-resolve', why: 'a - b → a + b leaves require.resolve as it was', baseline: CJS_RESOLVE_BASELINE, edits: [cjs('    return a - b\n', '    return a + b\n')], fails: [] },
)

/**
 * Value-level retargeting the gate lets pass: each changes which existing function, object or
 * method a call reaches through data (a receiver, a table entry, an alias's source, a field
 * named like a called one), with no call expression, import, declaration or signature
 * changed. A red-then-green run cannot tell one from a fix, and the rules that stopped them
 * rejected real upstream fixes (docs/gate-corpus.md), so the receipt states the limit
 * (GATE_STATED_LIMIT) instead: each proposal here passes the gate.
 */
export const STATED_LIMITS: GateCase[] = [
  { name: 'proposal-js-retargets-called-property', why: '{ run: describe } beside api.run(n): the method call reaches another function', baseline: JS_HELD_BASELINE, edits: [js('{ run: twice,', '{ run: describe,')], fails: [] },
  { name: 'proposal-js-retargets-called-class-field', why: 'handler = describe beside this.handler(n)', baseline: JS_HELD_BASELINE, edits: [js('handler = twice', 'handler = describe')], fails: [] },
  { name: 'proposal-js-retargets-alias-source', why: 'const show = format beside const say = show: the unchanged call say(…) now calls format', baseline: JS_ALIAS_BASELINE, edits: [js('const show = String', 'const show = format')], fails: [] },
  { name: 'proposal-js-retargets-method-receiver', why: "const op = ops.get('sub') beside op.run(a, b): the receiver of a called method holds another object", baseline: JS_ALIAS_BASELINE, edits: [js("let op = ops.get('add')", "let op = ops.get('sub')")], fails: [] },
  { name: 'proposal-js-reassigns-method-receiver', why: "an added op = alt before op.run(a, b): the receiver of a called method rebound", baseline: JS_ALIAS_BASELINE, edits: [js("  return op.run(a, b) +", "  op = alt\n  return op.run(a, b) +")], fails: [] },
  { name: 'proposal-js-swaps-entries-of-flowing-map', why: 'the map op is read from holds the entries swapped: what op.run calls changes with no change at the call', baseline: JS_ALIAS_BASELINE, edits: [js("[['add', { run: (a, b) => a + b }], ['sub',", "[['sub', { run: (a, b) => a + b }], ['add',")], fails: [] },
  { name: 'proposal-go-retargets-alias-source', why: 'var show = Clamp beside var say = show: the unchanged call say(a) now calls Clamp', baseline: GO_ALIAS_BASELINE, edits: [go('var show = Double', 'var show = Clamp')], fails: [] },
  { name: 'proposal-go-retargets-called-struct-field', why: 'handlers{run: Clamp} beside h.run(a): the func field called holds another function', baseline: GO_ALIAS_BASELINE, edits: [go('handlers{run: Double, limit: 10}', 'handlers{run: Clamp, limit: 10}')], fails: [] },
  { name: 'proposal-go-retargets-positional-struct-field', why: 'handlers{Clamp, 10} beside p.run(b): a positional element is the field called', baseline: GO_ALIAS_BASELINE, edits: [go('handlers{Double, 10}', 'handlers{Clamp, 10}')], fails: [] },
  { name: 'proposal-js-retargets-chain-key-binding', why: "const key = 'sub' read by ops.get(key).run(a, b): the binding a call on the chain passes chooses the object", baseline: JS_KEYS_BASELINE, edits: [js("const key = 'add'", "const key = 'sub'")], fails: [] },
  { name: 'proposal-js-swaps-functions-a-loop-calls', why: 'for (const f of fns) f(n): the array the loop binding is read from holds the functions called', baseline: JS_KEYS_BASELINE, edits: [js('const fns = [twice, half]', 'const fns = [half, half]')], fails: [] },
  { name: 'proposal-go-retargets-index-key-binding', why: 'const key = "b" read by table[key](a): the index chooses the function called', baseline: GO_KEYS_BASELINE, edits: [go('const key = "a"', 'const key = "b"')], fails: [] },
  { name: 'proposal-go-swaps-functions-a-range-calls', why: 'for _, f := range fns { f(a) }: the slice holds the functions called', baseline: GO_KEYS_BASELINE, edits: [go('var fns = []func(int) int{Double, Clamp}', 'var fns = []func(int) int{Clamp, Clamp}')], fails: [] },
  { name: 'proposal-js-retargets-receiver-class-field', why: "op = ops.get('sub') beside this.op.run(a, b): the field a method is looked up through holds another object", baseline: JS_PROPERTY_RECEIVER_BASELINE, edits: [js("op = ops.get('add')", "op = ops.get('sub')")], fails: [] },
  { name: 'proposal-js-retargets-receiver-property-assignment', why: "this.alt = ops.get('sub') beside this.alt.run(a, b)", baseline: JS_PROPERTY_RECEIVER_BASELINE, edits: [js("this.alt = ops.get('add')", "this.alt = ops.get('sub')")], fails: [] },
  { name: 'proposal-js-element-of-looped-array-assigned', why: 'fns[0] = half added beside for (const f of fns) f(n): the loop calls half twice', baseline: JS_KEYS_BASELINE, edits: [js('  let t = 0\n', '  let t = 0\n  fns[0] = half\n')], fails: [] },
  { name: 'proposal-go-field-set-through-alias', why: 'c.op = minus → plus where c := &std and Add calls std.op: the field called, through another name', baseline: GO_FIELD_ALIAS_BASELINE, edits: [go('\tc.op = minus\n', '\tc.op = plus\n')], fails: [] },
]

// DESIGN §15: a go builtin or a conversion to a predeclared type reaches no code, unless the file redeclares the name.
ACCEPTED.push(
  { name: 'go-adds-conversion', why: 'conversions to predeclared types reach no code (DESIGN §15)', baseline: GO_BASELINE, edits: [go('return a - b', 'return int(int64(a) + int64(b))')], fails: [] },
  { name: 'go-adds-builtin-len', why: 'a builtin the file never used reaches no code: no call, no new name (DESIGN §15)', baseline: GO_BASELINE, edits: [go('fmt.Sprintf("n=%d", n*scale)', 'fmt.Sprintf("n=%d", n*scale+len("x"))')], fails: [] },
  { name: 'go-package-var-builtin-initializer', why: 'a package-level var initialized by a builtin runs no code at load (DESIGN §15)', baseline: GO_BASELINE, edits: [go('var base = 2', 'var base = len("ab")')], fails: [] },
)
REJECTED.push(
  // calc.go declares its own min: min(a, b) is a call of the file's code again.
  { name: 'proposal-go-calls-redeclared-builtin', why: 'a name the file redeclares (func min) is the file\'s own function, so a new min(…) is a new call', baseline: GO_BASELINE, edits: [go('return a - b', 'return min(a, b) + b')], fails: ['calls-preserved'] },
  // calc.go declares its own min: an initializer calling it is a hook, however it is spelled.
  { name: 'proposal-go-package-var-calls-redeclared-builtin', why: 'a package-level var initialized by the file\'s own min runs its code at load', baseline: GO_BASELINE, edits: [go('var base = 2', 'var base = min(2, 3)')], fails: ['calls-preserved', 'no-init-hook'] },
)

