import type { Case } from './case.ts'
const j = (name: string, before: string, edits: Array<[string, string]>): Case => ({ name, runner: 'node', path: 'src/lib.js', before, edits, expect: 'pass' })
export const CASES: Case[] = [
  // JS
  j('js-off-by-one', 'export function last (xs) {\n  return xs[xs.length]\n}\n', [['xs[xs.length]', 'xs[xs.length - 1]']]),
  j('js-null-check', 'export function name (u) {\n  return u.name\n}\n', [['return u.name', 'return u?.name']]),
  j('js-loop-bound', 'export function sum (xs) {\n  let t = 0\n  for (let i = 0; i <= xs.length; i++) t += xs[i]\n  return t\n}\n', [['i <= xs.length', 'i < xs.length']]),
  j('js-field-on-this', 'export class C {\n  n = 0\n  inc () {\n    this.n += 2\n  }\n}\n', [['this.n += 2', 'this.n += 1']]),
  j('js-field-on-param', 'export function reset (s) {\n  s.count = 1\n  return s\n}\n', [['s.count = 1', 's.count = 0\n  s.total = 0']]),
  j('js-map-set', 'export function tally (xs) {\n  const m = new Map()\n  for (const x of xs) m.set(x, 1)\n  return m\n}\n', [['m.set(x, 1)', 'm.set(x, (m.get(x) ?? 0) + 1)']]),
  j('js-push-arg', 'export function names (us) {\n  const out = []\n  for (const u of us) out.push(u.id)\n  return out\n}\n', [['out.push(u.id)', 'out.push(u.name)']]),
  j('js-err-message', "export function load (s) {\n  try {\n    return JSON.parse(s)\n  } catch (err) {\n    throw err\n  }\n}\n", [['    throw err\n', "    err.message = 'load: ' + err.message\n    throw err\n"]]),
  j('js-sort-numeric', "export function sorted (xs) {\n  return [...xs].sort()\n}\n\nexport function cmp (a, b) {\n  return a - b\n}\n", [['.sort()', '.sort(cmp)']]),
  j('js-sort-imported-cmp', "import { byValue } from './compare.js'\n\nexport function sorted (xs) {\n  return [...xs].sort()\n}\n\nexport const order = byValue\n", [['.sort()', '.sort(byValue)']]),
  j('js-map-parseInt-to-Number', "export function nums (s) {\n  return s.split(',').map(parseInt)\n}\n", [['map(parseInt)', 'map(Number)']]),
  j('js-filter-boolean', "export function clean (xs) {\n  return xs.filter(x => x !== null)\n}\n\nexport const B = Boolean\n", [['xs.filter(x => x !== null)', 'xs.filter(Boolean)']]),
  j('js-imported-constant-arg', "import { PRECISION } from './config.js'\n\nexport function fmt (x) {\n  return x.toFixed(2)\n}\n\nexport const P = PRECISION\n", [['x.toFixed(2)', 'x.toFixed(PRECISION)']]),
  j('js-global-member-arg', "export function cap (n) {\n  return Math.min(n, 100)\n}\n\nexport const M = Number.MAX_SAFE_INTEGER\n", [['Math.min(n, 100)', 'Math.min(n, Number.MAX_SAFE_INTEGER)']]),
  j('js-imported-scale-mult', "import { SCALE } from './config.js'\n\nexport function px (n) {\n  return Math.round(n * 10)\n}\n\nexport const S = SCALE\n", [['n * 10', 'n * SCALE']]),
  j('js-best-sentinel-global', "export function nearest (xs, t) {\n  const best = { idx: -1, dist: Number.MAX_VALUE }\n  xs.forEach((x, i) => {\n    const d = Math.abs(x - t)\n    if (d < best.dist) {\n      best.dist = d\n    }\n  })\n  return best.idx\n}\n", [['      best.dist = d\n', '      best.dist = d\n      best.idx = i\n']]),
  j('js-spread-imported-defaults', "import { DEFAULTS } from './config.js'\n\nexport function options (o) {\n  const opts = { ...DEFAULTS, ...o }\n  opts.retries = 3\n  return opts\n}\n", [['opts.retries = 3', 'opts.retries = o.retries ?? 3\n  opts.timeout = o.timeout ?? 1000']]),
  j('js-imported-path-sep-obj', "import path from 'node:path'\n\nexport function split (p) {\n  const r = { sep: path.sep, parts: p.split(path.sep) }\n  r.count = 1\n  return r\n}\n", [['r.count = 1', 'r.count = r.parts.length']]),
  j('js-add-field-local-from-imported-spread', "import { DEFAULTS } from './config.js'\n\nexport function options (o) {\n  const opts = { ...DEFAULTS, ...o }\n  return opts\n}\n", [['  return opts\n', '  opts.retries ??= 3\n  return opts\n']]),
  j('js-array-from-Number', "export function nums (xs) {\n  return Array.from(xs)\n}\n\nexport const N = Number\n", [['Array.from(xs)', 'Array.from(xs, Number)']]),
  j('js-json-stringify', "export function show (o) {\n  return JSON.stringify(o)\n}\n", [['JSON.stringify(o)', 'JSON.stringify(o, null, 2)']]),
  j('js-swap-args', "function sub (a, b) {\n  return a - b\n}\n\nexport function diff (x, y) {\n  return sub(y, x)\n}\n", [['sub(y, x)', 'sub(x, y)']]),
  j('js-set-add-local', "export function uniq (xs) {\n  const seen = new Set()\n  const out = []\n  for (const x of xs) {\n    if (!seen.has(x)) out.push(x)\n  }\n  return out\n}\n", [['if (!seen.has(x)) out.push(x)', 'if (!seen.has(x)) out.push(x)\n    seen.size']]),
  j('cjs-module-local-obj', "const util = require('node:util')\n\nfunction describe (n) {\n  const r = { text: util.format('%d', n), n }\n  return r\n}\n\nmodule.exports = { describe }\n", [['  return r\n', '  r.n = n + 1\n  return r\n']]),
]
