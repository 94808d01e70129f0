// calls-preserved: the multiset of calls of each changed file is unchanged, each call by its
// callee text with whitespace (and comments) removed.
//   go: call expressions, conversions (`int64(x)`, `[]byte(s)`) and builtins (`len`, `new`);
//   JavaScript: call expressions (`import(…)` and `super(…)` included), `new` expressions as
//   `new <callee>`, and tagged templates by their tag.
// Arguments may change (a changed string in an existing call passes); a call may not be
// added, removed or pointed at another callee. A callee's text leaves out what a call on its
// object chain passes and the body of a function or class literal in it, so that
// `s.slice(0, 1).toUpperCase()` → `s.slice(0, 2).toUpperCase()`, a fix inside
// `xs.map(x => …).reduce(…)`, or one inside `defer func() { … }()` keeps every callee: the
// inner call is counted on its own, and the literal's calls are counted where they are. An
// index is kept whole (`obj[key(1)]()` → `obj[key(2)]()` calls another method).
//
// A JavaScript call also changes callee when what its callee text names is rebound, so in a
// JavaScript file these may not be added either (counted per file, before and after):
//   - an assignment whose target is a callee of the file (`Math.round = …`, `fn ||= …`,
//     `fn++`, `[fn] = …`, `({ x: obj.fn } = …)`, `for (fn of …)`, `delete obj.fn`), the
//     target and callees compared as access paths (`a.b`, `a?.b` and `a['b']` are one path;
//     a computed `a[k]` matches any property). Since the callees themselves must not change,
//     the file's callees before and after are the same set;
//     An assignment to a named property the file calls as a method (`x.round = …` beside
//     `Math.round(…)`) counts too, since an alias reaches the same object;
//   - an assignment to a binding the module exports (`add = double`, also inside an
//     initializer: `const LIMIT = (add = double, 100)`), which swaps what importers call;
//   - a `with` statement, which rebinds every name in its body;
//   - a changed value of a binding the file calls (`const show = String` → `= format`), or
//     of a property or class field it calls as a method (`{ run: f }` → `{ run: g }` beside
//     `x.run()`), or of a binding the module exports (`export const triple = twice` →
//     `half`): compared whole (the arguments of a call in it too), except that a value that
//     is never a function (a literal, arithmetic) is `value` and a function literal is
//     compared without its body (a fix inside an arrow function keeps it).
// In a go file: an added assignment to a variable or field the file calls (a func-typed
// seam: `round = Clamp`), and a changed initializer of such a variable, compared the same way.

import { checkStructure } from '../syntax/compare.ts'
import { printableLine } from '../../printable-line.ts'
import { literalKey, memberPath, samePath } from '../syntax/member-path.ts'
import { descendants, field, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { fail, type GateContext, type RuleOutcome } from '../types.ts'

/** Function and class literals, whose body a callee's text leaves out. */
const LITERALS_WITH_BODY = new Set(['function_expression', 'generator_function', 'arrow_function', 'class', 'func_literal'])

/**
 * The text of a callee without whitespace or comments. Down its object chain (the operand a
 * method is looked up on, through member and selector operands, the functions of calls on it
 * and parentheses) a call shows as `(…)` (or `…` for a tagged template): `s.slice(0, 1)` in
 * `s.slice(0, 1).toUpperCase()` picks the object, not the method. A call that is itself the
 * callee (`pick('a')(n)`, `ops.get('add')(a, b)`, `(() => twice)()(n)`) is kept whole: its
 * arguments or body choose the very function called. A function or class literal that is
 * the callee (an IIFE, `go func() { … }()`) shows without its body: its calls count on their
 * own. An index and a property are kept whole. Recursive along the chain only, which the
 * parse bound keeps shallow.
 */
function calleeText (tree: SyntaxTree, n: SyntaxNode, onChain = false): string {
  const part = (c: SyntaxNode): string => tokensOf(tree, c, '')
  switch (n.type) {
    case 'member_expression':
    case 'subscript_expression':
    case 'selector_expression':
    case 'index_expression':
      return n.children.map(c => c.field === 'object' || c.field === 'operand' ? calleeText(tree, c, true) : part(c)).join('')
    case 'call_expression':
      if (!onChain) return part(n)
      return n.children.map(c => c.field === 'function' ? calleeText(tree, c, true) : c.field === 'arguments' ? (c.type === 'template_string' ? '`…`' : '(…)') : part(c)).join('')
    case 'parenthesized_expression':
      return n.children.map(c => c.named && c.type !== 'comment' ? calleeText(tree, c, onChain) : part(c)).join('')
    default:
      if (LITERALS_WITH_BODY.has(n.type)) return n.children.map(c => c.field === 'body' ? '{…}' : part(c)).join('')
      return part(n)
  }
}

/** Literals: never callable. */
const LITERALS = new Set([
  'string', 'template_string', 'number', 'regex', 'true', 'false', 'null', 'undefined',
  'interpreted_string_literal', 'raw_string_literal', 'int_literal', 'float_literal', 'imaginary_literal', 'rune_literal', 'nil', 'iota',
])

/** Expressions whose value is never a function, whatever their operands (an array or object may hold one). */
const NEVER_CALLABLE = new Set(['unary_expression', 'update_expression'])
/** Binary operators that may return an operand (a function) rather than a new value. */
const OPERAND_OPERATORS = new Set(['||', '&&', '??'])

/**
 * What a binding or property holds: a value that can never be called (a literal, arithmetic,
 * a comparison) as `value`, so a fix that changes one keeps it; a function or class literal
 * without its body (a fix inside it keeps it); anything else whole, the arguments of a call
 * too (`pick(Double)` → `pick(Clamp)` holds another function).
 */
function heldValue (tree: SyntaxTree, v: SyntaxNode): string {
  if (v.type === 'expression_list') return v.children.filter(c => c.named && c.type !== 'comment').map(c => heldValue(tree, c)).join(',')
  if (LITERALS.has(v.type) || NEVER_CALLABLE.has(v.type)) return 'value'
  if (v.type === 'binary_expression') {
    const op = field(v, 'operator')
    if (op !== undefined && !OPERAND_OPERATORS.has(textOf(tree, op))) return 'value'
  }
  if (LITERALS_WITH_BODY.has(v.type)) return calleeText(tree, v)
  return tokensOf(tree, v, '')
}

/** Every call of a file by callee text. */
export function callsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (n.type === 'call_expression') {
        const fn = field(n, 'function')
        const targs = field(n, 'type_arguments')
        out.push(`${fn === undefined ? '?' : calleeText(tree, fn)}${targs === undefined ? '' : tokensOf(tree, targs, '')}`)
      } else if (n.type === 'type_conversion_expression') {
        const type = field(n, 'type')
        out.push(type === undefined ? '?' : tokensOf(tree, type, ''))
      }
      continue
    }
    if (n.type === 'call_expression') {
      const fn = field(n, 'function')
      const args = field(n, 'arguments')
      const callee = fn === undefined ? '?' : calleeText(tree, fn)
      out.push(args?.type === 'template_string' ? `${callee}\`…\`` : callee)
    } else if (n.type === 'new_expression') {
      const ctor = field(n, 'constructor')
      out.push(`new ${ctor === undefined ? '?' : calleeText(tree, ctor)}`)
    }
  }
  return out
}

/** The access paths a JavaScript file calls: call expressions, `new` and tagged templates. */
function calleePaths (tree: SyntaxTree): string[][] {
  const out: string[][] = []
  for (const n of descendants(tree.root)) {
    const callee = n.type === 'call_expression' ? field(n, 'function') : n.type === 'new_expression' ? field(n, 'constructor') : undefined
    if (callee !== undefined) out.push(memberPath(tree, callee))
  }
  return out
}

/** The targets a pattern or left-hand side assigns (destructuring unfolded). */
function assignedTargets (n: SyntaxNode | undefined): SyntaxNode[] {
  if (n === undefined) return []
  switch (n.type) {
    case 'object_pattern':
    case 'array_pattern':
      return n.children.filter(c => c.named).flatMap(c => assignedTargets(c))
    case 'pair_pattern': return assignedTargets(field(n, 'value'))
    case 'assignment_pattern':
    case 'object_assignment_pattern':
      return assignedTargets(field(n, 'left'))
    case 'rest_pattern': return n.children.filter(c => c.named).flatMap(c => assignedTargets(c))
    case 'parenthesized_expression': return n.children.filter(c => c.named).flatMap(c => assignedTargets(c))
    default: return [n]
  }
}

/**
 * go: an assignment to a variable or field the file calls (`round = Clamp` where `round(a)`
 * is called: a func-typed seam), and the initializer of such a variable, so that changing
 * `var round = Double` to `var round = Clamp` is a rebinding too.
 */
function goRebindingsOf (tree: SyntaxTree): string[] {
  const callees = new Set(callsOf(tree))
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (n.type === 'assignment_statement') {
      for (const t of field(n, 'left')?.children.filter(c => c.named) ?? []) {
        const text = tokensOf(tree, t, '')
        if (callees.has(text)) out.push(`assignment of callee ${text}`)
      }
    } else if (n.type === 'var_spec' || n.type === 'const_spec') {
      const value = field(n, 'value')
      if (value === undefined) continue
      for (const name of n.children.filter(c => c.field === 'name')) {
        const text = textOf(tree, name)
        if (callees.has(text)) out.push(`var ${text} = ${heldValue(tree, value)}`)
      }
    }
  }
  return out
}

/** The local names a JavaScript module exports: ESM declarations and specifiers, and what CommonJS exports hold. */
function exportedLocals (tree: SyntaxTree): Set<string> {
  const out = new Set<string>()
  const addValue = (v: SyntaxNode | undefined): void => {
    if (v === undefined) return
    if (v.type === 'identifier') out.add(textOf(tree, v))
    else if (v.type === 'object') {
      for (const c of v.children) {
        if (c.type === 'shorthand_property_identifier') out.add(textOf(tree, c))
        else if (c.type === 'pair') addValue(field(c, 'value'))
      }
    }
  }
  for (const stmt of tree.root.children) {
    if (stmt.type !== 'export_statement' || field(stmt, 'source') !== undefined) continue
    const decl = field(stmt, 'declaration')
    const name = decl === undefined ? undefined : field(decl, 'name')
    if (name !== undefined) out.add(textOf(tree, name))
    for (const d of decl?.children.filter(c => c.type === 'variable_declarator') ?? []) {
      const id = field(d, 'name')
      if (id?.type === 'identifier') out.add(textOf(tree, id))
    }
    addValue(field(stmt, 'value'))
    for (const clause of stmt.children.filter(c => c.type === 'export_clause')) {
      for (const spec of clause.children.filter(c => c.type === 'export_specifier')) {
        const local = field(spec, 'name')
        if (local !== undefined) out.add(textOf(tree, local))
      }
    }
  }
  for (const n of descendants(tree.root)) {
    if (n.type !== 'assignment_expression') continue
    const left = field(n, 'left')
    const path = left === undefined ? [] : memberPath(tree, left)
    if ((path[0] === 'module' && path[1] === 'exports') || path[0] === 'exports') addValue(field(n, 'right'))
  }
  return out
}

/** Every rebinding of a callee in a JavaScript file (`rebinding <path>`), and every `with` statement. */
export function rebindingsOf (tree: SyntaxTree): string[] {
  if (tree.grammar === 'go') return goRebindingsOf(tree)
  const callees = calleePaths(tree)
  const exported = exportedLocals(tree)
  const out: string[] = []
  // A binding called itself, or through an element of what it holds (`table[0](n)`, `fns[i]()`).
  const calledNames = new Set(callees.filter(c => c.slice(1).every(seg => seg === '[*]' || /^\d+$/.test(seg))).map(c => c[0] ?? ''))
  const calledMethods = new Set(callees.filter(c => c.length >= 2).map(c => c[c.length - 1] ?? ''))
  calledMethods.delete('[*]')
  const target = (t: SyntaxNode, how: string): void => {
    const path = memberPath(tree, t)
    // An exported binding assigned anywhere (`(add = double, 100)` in an initializer) makes
    // every importer, the tests first, call something else.
    if (path.length === 1 && exported.has(path[0] ?? '')) {
      out.push(`${how} of exported binding ${path[0] ?? ''}`)
      return
    }
    if (callees.some(c => samePath(c, path))) {
      out.push(`${how} of callee ${path.join('.')}`)
      return
    }
    // Through an alias (`x = Math; x.round = …`) the path differs but the property is the
    // one a call reaches: a named property the file calls as a method is not assigned either.
    const last = path.length >= 2 ? path[path.length - 1] : undefined
    const called = last === undefined || last === '[*]' ? undefined : callees.find(c => c.length >= 2 && c[c.length - 1] === last)
    if (called !== undefined) out.push(`${how} of property ${last ?? ''}, which the file calls as ${called.join('.')}`)
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'assignment_expression':
      case 'augmented_assignment_expression':
        for (const t of assignedTargets(field(n, 'left'))) target(t, 'assignment')
        break
      case 'update_expression': { const arg = field(n, 'argument'); if (arg !== undefined) target(arg, 'update') } break
      case 'unary_expression': {
        const arg = field(n, 'argument')
        if (arg !== undefined && n.children.some(c => !c.named && textOf(tree, c) === 'delete')) target(arg, 'delete')
        break
      }
      case 'for_in_statement':
        if (!n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))) for (const t of assignedTargets(field(n, 'left'))) target(t, 'loop assignment')
        break
      case 'with_statement': out.push('with statement'); break
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        if (name?.type === 'identifier' && value !== undefined && calledNames.has(textOf(tree, name))) out.push(`value of callee ${textOf(tree, name)} = ${heldValue(tree, value)}`)
        // What an exported binding holds is what its importers (the tests first) call.
        else if (name?.type === 'identifier' && value !== undefined && exported.has(textOf(tree, name)) && heldValue(tree, value) !== 'value') out.push(`value of exported binding ${textOf(tree, name)} = ${heldValue(tree, value)}`)
        break
      }
      case 'pair':
      case 'field_definition': {
        const key = field(n, n.type === 'pair' ? 'key' : 'property')
        const value = field(n, 'value')
        if (key === undefined || value === undefined) break
        // A computed key that is not a literal may be any of them.
        const inner = key.type === 'computed_property_name' ? key.children.find(c => c.named && c.type !== 'comment') : key
        const name = inner === undefined ? '[*]' : literalKey(tree, inner) ?? (key.type === 'computed_property_name' ? '[*]' : textOf(tree, key))
        if (name === '[*]' ? calledMethods.size > 0 : calledMethods.has(name)) out.push(`value of property ${name}, which the file calls as a method, = ${heldValue(tree, value)}`)
        break
      }
      case 'shorthand_property_identifier': {
        const name = textOf(tree, n)
        if (calledMethods.has(name)) out.push(`value of property ${name}, which the file calls as a method, = ${name}`)
        break
      }
    }
  }
  return out
}

export function checkCallsPreserved (ctx: GateContext): RuleOutcome {
  const calls = checkStructure(ctx, { what: 'calls', extract: callsOf, direction: 'both', show: c => `call ${printableLine(c, 120)}` })
  const rebound = checkStructure(ctx, { what: 'rebindings', extract: rebindingsOf, direction: 'added', show: r => printableLine(r, 120) })
  if (rebound.status !== 'fail') return calls
  if (calls.status !== 'fail') return rebound
  return fail(`${calls.detail}; ${rebound.detail}`, [...calls.findings, ...rebound.findings])
}
