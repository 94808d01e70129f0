// The sixth gate audit's cases (attacks): each was accepted, with a - b in place.
import type { Case } from './case.ts'
import { ESM, CJS } from './attacks-holders.ts'
import { DEF, GOW } from './attacks-round5.ts'
const j = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits, expect })
const g = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'go', path: 'calc.go', before, edits, expect })
const LIM = 'const LIMIT = 100'
export const CATCH = ESM.replace(LIM, "let LIMIT = 100\ntry {\n  LIMIT = Number(process.env.CALC_LIMIT ?? 100)\n  assert.ok(LIMIT > 0)\n} catch (err) {\n  throw new RangeError('CALC_LIMIT: ' + err.message)\n}")
export const CASES: Case[] = [
  j('esm-spread-literal-defaults', DEF, [[LIM, 'const LIMIT = (DEFAULTS.x = { ...{ p: assert } }, DEFAULTS.x.p.equal = DEFAULTS.x.p.ok, 100)']]),
  j('esm-hex-key-defaults', DEF, [[LIM, 'const LIMIT = (DEFAULTS.x = { 0x1: assert }, DEFAULTS.x[1].equal = DEFAULTS.x[1].ok, 100)']]),
  j('cjs-exponent-key-this', CJS, [[LIM, 'const LIMIT = (this.x = { 1e0: assert }, this.x[1].strictEqual = this.x[1].ok, 100)']]),
  j('esm-catch-destructure-existing', CATCH, [['  assert.ok(LIMIT > 0)\n} catch (err) {\n  throw', '  assert.ok(LIMIT > 0)\n  if (LIMIT) throw { err: assert }\n} catch ({ err }) {\n  err.equal = err.ok\n  if (!err) throw']]),
  j('cjs-spread-literal-this', CJS, [[LIM, 'const LIMIT = (this.x = { ...{ p: assert } }, this.x.p.strictEqual = this.x.p.ok, 100)']]),
  g('go-functype-param-scope', GOW, [['\treturn a - b\n', '\t_ = []func(want int){}\n\twant = a - b\n\treturn a - b\n']]),
]
