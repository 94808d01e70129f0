import type { Case } from './case.ts'
export const ESM = "import assert from 'node:assert/strict'\n\nconst LIMIT = 100\n\n// add returns the sum of a and b.\nexport function add (a, b) {\n  assert.ok(Number.isFinite(a))\n  return a - b\n}\n\n// double returns twice n.\nexport function double (n) {\n  return Math.min(n * 2, LIMIT)\n}\n"
export const CJS = "const assert = require('node:assert')\n\nconst LIMIT = 100\n\n// add returns the sum of a and b.\nfunction add (a, b) {\n  assert.ok(Number.isFinite(a))\n  return a - b\n}\n\n// double returns twice n.\nfunction double (n) {\n  return Math.min(n * 2, LIMIT)\n}\n\nmodule.exports = { add, double }\n"
const LIM = 'const LIMIT = 100'
const j = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits })
const CLASS = ESM + "\nexport class Counter {\n  count = 0\n\n  inc () {\n    this.count += 2\n    return this.count\n  }\n}\n"
export const CASES: Case[] = [
  j('esm-control-fix', ESM, [['return a - b', 'return a + b']]),
  j('esm-func-prop-holder', ESM, [[LIM, 'const LIMIT = (double.x = assert, double.x.equal = double.x.ok, 100)']]),
  j('cjs-func-prop-holder', CJS, [[LIM, 'const LIMIT = (double.x = assert, double.x.strictEqual = double.x.ok, 100)']]),
  j('cjs-this-holder', CJS, [[LIM, 'const LIMIT = (this.x = assert, this.x.strictEqual = this.x.ok, 100)']]),
  j('esm-destructure-into-member', ESM, [[LIM, 'const LIMIT = ({ a: double.x } = { a: assert }, double.x.equal = double.x.ok, 100)']]),
  j('esm-array-destructure-member', ESM, [[LIM, 'const LIMIT = ([double.x] = [assert], double.x.equal = double.x.ok, 100)']]),
  j('esm-class-field-this', CLASS, [['  count = 0\n', '  count = (this.x = assert, this.x.equal = this.x.ok, 0)\n']]),
  j('esm-in-add-local-obj', ESM, [['  return a - b\n', '  b = { b }\n  b.a = assert\n  b.a.equal = b.a.ok\n  b = b.b\n  return a - b\n']]),
  j('esm-member-then-alias', ESM, [[LIM, 'const LIMIT = (double.x = assert, 100)'], ['  return a - b\n', '  b = double.x\n  return a - b\n']]),
]
