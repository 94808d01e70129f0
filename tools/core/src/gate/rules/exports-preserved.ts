// exports-preserved: what a changed JavaScript module exports is unchanged, compared as a
// multiset of `exported name -> what it exports` entries:
//   - `export function f`, `export class C`, `export const a, { b }`: `f -> f`, …;
//   - `export { a as b }`: `b -> a`; `export { a as b } from 'm'`: `b -> 'm'.a`;
//     `export * from 'm'` and `export * as ns from 'm'`;
//   - `export default`: of a declaration, its kind and name (`function add`); of an
//     identifier or member path, the path; of an object literal, each key and value; of any
//     other expression, its kind (so a fix inside an exported arrow's body passes); a
//     method of an exported object literal, its name;
//   - CommonJS: an assignment to `module.exports`, `module.exports.x`, `exports.x` (also by
//     subscript), read the same way as `export default`.
// Swapping which function a name exports (`export { double as add }`, `module.exports = {
// add: describe }`), exporting a new name, or ceasing to export one changes what every
// importer — the tests first — calls, and is not a local change. Go exports by capitalized
// declarations, which declarations-preserved compares; what an exported package-level var
// holds is compared here, since a var holding a func is called like one (`var Add =
// subtract` → `sum`, `var Default = Calc{op: minus}` → `plus`):
//   - each exported package-level var by what it is initialized to, read as its tokens with
//     every literal as `<literal>` and a func literal's body as `{…}` (a changed number,
//     string or fix inside `var Handle = func(…) { … }` passes);
//   - each assignment, `++` or `--` anywhere in the file whose target is rooted at an
//     exported name (`Add = sum`, `Default.op = minus`, `Table[0] = f`), target and value
//     read the same way.

import { checkStructure } from '../syntax/compare.ts'
import { goRoot, memberPath } from '../syntax/member-path.ts'
import { descendants, field, fields, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { patternNames } from './declarations-preserved.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const DECLARATIONS: Record<string, string> = {
  function_declaration: 'function',
  generator_function_declaration: 'function*',
  class_declaration: 'class',
  function_expression: 'function',
  generator_function: 'function*',
  class: 'class',
}

/** What a value exports: a path, a declaration's kind and name, or the expression's kind. */
function valueOf (tree: SyntaxTree, v: SyntaxNode | undefined): string {
  if (v === undefined) return '?'
  const kind = DECLARATIONS[v.type]
  if (kind !== undefined) {
    const name = field(v, 'name')
    const heritage = v.children.find(c => c.type === 'class_heritage')
    return [kind, name === undefined ? '(anonymous)' : textOf(tree, name), heritage === undefined ? '' : tokensOf(tree, heritage, ' ')].filter(s => s !== '').join(' ')
  }
  if (['identifier', 'member_expression', 'subscript_expression', 'parenthesized_expression'].includes(v.type)) {
    const path = memberPath(tree, v)
    if (!path.some(s => s.startsWith('<'))) return path.join('.')
  }
  return v.type
}

/** An object literal's entries as `key -> value`, or the value itself. */
function entriesOf (tree: SyntaxTree, prefix: string, v: SyntaxNode | undefined): string[] {
  if (v?.type !== 'object') return [`${prefix} -> ${valueOf(tree, v)}`]
  const out: string[] = []
  for (const c of v.children) {
    if (c.type === 'pair') {
      const key = field(c, 'key')
      out.push(`${prefix}.${key === undefined ? '?' : tokensOf(tree, key, '')} -> ${valueOf(tree, field(c, 'value'))}`)
    } else if (c.type === 'shorthand_property_identifier') {
      out.push(`${prefix}.${textOf(tree, c)} -> ${textOf(tree, c)}`)
    } else if (c.type === 'method_definition') {
      // A method exports itself under its name; a fix in its body is not an export change.
      const name = field(c, 'name')
      out.push(`${prefix}.${name === undefined ? '?' : tokensOf(tree, name, '')} -> method`)
    } else if (c.named && c.type !== 'comment') {
      out.push(`${prefix}.<${c.type}> -> ${tokensOf(tree, c, ' ')}`)
    }
  }
  return out.length === 0 ? [`${prefix} -> {}`] : out
}

const GO_LITERALS = new Set(['interpreted_string_literal', 'raw_string_literal', 'int_literal', 'float_literal', 'imaginary_literal', 'rune_literal'])

/** A go expression's tokens, each literal read as `<literal>` and each func literal's body as `{…}` (comments left out). */
function goShape (tree: SyntaxTree, n: SyntaxNode): string {
  return tokensOf(tree, n, ' ', c => GO_LITERALS.has(c.type) ? '<literal>' : c.type === 'block' && c.parent?.type === 'func_literal' ? '{…}' : undefined)
}

const isExportedGoName = (name: string): boolean => /^\p{Lu}/u.test(name)

/** What a go file's exported package-level vars hold and every assignment to one. */
function goExportsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  for (const top of tree.root.children) {
    if (top.type !== 'var_declaration') continue
    for (const spec of descendants(top)) {
      if (spec.type !== 'var_spec') continue
      const names = fields(spec, 'name').map(n => textOf(tree, n))
      const list = field(spec, 'value')
      const values = list?.children.filter(c => c.named && c.type !== 'comment') ?? []
      names.forEach((name, i) => {
        if (!isExportedGoName(name)) return
        const value = values.length === names.length ? values[i] : list
        out.push(`${name} -> var${value === undefined ? '' : ` = ${goShape(tree, value)}`}`)
      })
    }
  }
  for (const n of descendants(tree.root)) {
    const targets = n.type === 'assignment_statement'
      ? field(n, 'left')?.children.filter(c => c.named && c.type !== 'comment') ?? []
      : n.type === 'inc_statement' || n.type === 'dec_statement' ? n.children.filter(c => c.named && c.type !== 'comment') : []
    if (!targets.some(t => isExportedGoName(goRoot(tree, t, true) ?? ''))) continue
    out.push(`(assignment) ${goShape(tree, n)}`)
  }
  return out
}

/** The export surface of a file, one entry per exported binding (go: see goExportsOf). */
export function exportsOf (tree: SyntaxTree): string[] {
  if (tree.grammar === 'go') return goExportsOf(tree)
  const out: string[] = []
  for (const stmt of tree.root.children) {
    if (stmt.type !== 'export_statement') continue
    const isDefault = stmt.children.some(c => !c.named && textOf(tree, c) === 'default')
    const source = field(stmt, 'source')
    const from = source === undefined ? '' : `${textOf(tree, source)}.`
    const decl = field(stmt, 'declaration')
    if (isDefault) {
      out.push(...entriesOf(tree, 'default', decl ?? field(stmt, 'value')))
      continue
    }
    if (decl !== undefined) {
      if (decl.type === 'lexical_declaration' || decl.type === 'variable_declaration') {
        const kind = decl.type === 'variable_declaration' ? 'var' : textOf(tree, decl.children[0] ?? decl)
        for (const d of decl.children.filter(c => c.type === 'variable_declarator')) for (const id of patternNames(tree, field(d, 'name'))) out.push(`${id} -> ${kind} ${id}`)
      } else {
        const name = field(decl, 'name')
        const id = name === undefined ? '?' : textOf(tree, name)
        out.push(`${id} -> ${valueOf(tree, decl)}`)
      }
      continue
    }
    for (const c of stmt.children) {
      if (c.type === 'export_clause') {
        for (const spec of c.children.filter(x => x.type === 'export_specifier')) {
          const name = field(spec, 'name')
          const alias = field(spec, 'alias') ?? name
          out.push(`${alias === undefined ? '?' : textOf(tree, alias)} -> ${from}${name === undefined ? '?' : textOf(tree, name)}`)
        }
      } else if (c.type === 'namespace_export') {
        const ns = c.children.find(x => x.named && x.type !== 'comment')
        out.push(`${ns === undefined ? '?' : textOf(tree, ns)} -> ${from}*`)
      } else if (!c.named && textOf(tree, c) === '*' && !stmt.children.some(x => x.type === 'namespace_export')) {
        out.push(`* -> ${from}*`)
      }
    }
  }
  for (const n of descendants(tree.root)) {
    if (n.type !== 'assignment_expression' && n.type !== 'augmented_assignment_expression') continue
    const left = field(n, 'left')
    if (left === undefined) continue
    const path = memberPath(tree, left)
    const cjs = path[0] === 'module' && path[1] === 'exports' ? path.slice(1) : path[0] === 'exports' ? path : undefined
    if (cjs !== undefined) out.push(...entriesOf(tree, `(commonjs) ${['module', ...cjs].join('.')}`, field(n, 'right')))
  }
  return out
}

export function checkExportsPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'exports', extract: exportsOf, direction: 'both', show: e => `export ${e.length > 160 ? `${e.slice(0, 160)}…` : e}` })
}
