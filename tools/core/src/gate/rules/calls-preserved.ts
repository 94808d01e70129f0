// calls-preserved: the multiset of calls of each changed file is unchanged, each call by its
// callee text with whitespace (and comments) removed.
//   go: call expressions, conversions (`int64(x)`, `[]byte(s)`) and builtins (`len`, `new`);
//   JavaScript: call expressions (`import(…)` and `super(…)` included), `new` expressions as
//   `new <callee>`, and tagged templates by their tag.
// Arguments may change (a changed string in an existing call passes); a call may not be
// added, removed or pointed at another callee, nor (since checker version 6) moved to
// another top-level function, method, declaration or statement: code an initializer calls
// runs at load, and the initializer may be in a file of the package the gate does not read. A callee's text keeps what a call on its
// object chain passes, since it may choose the object whose method is called
// (`ops.get('add').run()` → `ops.get('sub').run()`; nothing in the syntax tells
// `s.slice(0, 1).toUpperCase()` → `slice(0, 2)` from it, so that is rejected too), but
// leaves out the body of a function or class literal in it, so that a fix inside
// `xs.map(x => …).reduce(…)` or `defer func() { … }()` keeps every callee: the literal's
// calls are counted where they are. An index is kept whole (`obj[key(1)]()` →
// `obj[key(2)]()` calls another method).
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
//     since checker version 11 also to a property of one (`add.calls = …`, `Counter.n++`):
//     every importer holds that object, and state kept on it outlives a call, so a counter
//     there tells the test's one call from later ones. State the file keeps in its own
//     unexported bindings (a module-level `let`, a go package var: `base++` then `base == 3`)
//     is not followed: like a special-cased input (`a === 2 && b === 3 ? 5 : a - b`), it is
//     value-level control flow a red-then-green run does not tell from a fix;
//   - a `with` statement, which rebinds every name in its body;
//   - a changed value of a binding the file calls (`const show = String` → `= format`), or
//     of a property or class field it calls as a method (`{ run: f }` → `{ run: g }` beside
//     `x.run()`), or of a binding the module exports (`export const triple = twice` →
//     `half`): compared whole (the arguments of a call in it too), except that a value that
//     is never a function (a literal, arithmetic) is `value` and a function literal is
//     compared without its body (a fix inside an arrow function keeps it).
//   - a changed value of the receiver of a called method (`const op = ops.get('add')`
//     beside `op.run()`), or of a property one is looked up through (`op = …` as a class
//     field or `this.op = …` beside `this.op.run()`), compared like a call on a callee's
//     object chain, and an added assignment to one that may give it another object
//     (`op = other`; `i += 2` beside `i.toString(16)` makes a number);
//   - a changed value of any binding such a value reads, or that a callee reads in an index
//     or a chain call's arguments, transitively, by name (`const show = String` beside
//     `const say = show` and `say(x)`, `const key = 'add'` beside `ops.get(key).run()`),
//     destructurings, loop bindings (`for (const f of fns) f(n)`) and assignments included,
//     and a changed value in an existing assignment to any of them (`next = twice` → `half`),
//     or an added assignment to an element or property of one (`fns[0] = half` beside
//     `for (const f of fns) f(n)`; since checker version 6);
//   - an assignment to a property named like a method a class of the file defines
//     (`this.add = this.sub`: an instance's own property hides the method its callers, the
//     tests first, call; since checker version 6).
//   - since checker version 8, a write to state the file shares with other code, the tests
//     first: a property of an imported module, of a global or of a binding that may hold
//     one, or a name the file never declares (shared-writes.ts; go's too).
// In a go file the same, by the name a callee is rooted at: a variable called (`round(a)`,
// `f := Double`), indexed then called (`ops[0](n)` beside `[]func(int) int{Double, Half}`)
// or the receiver of a called method or func field (`h.run(n)` beside
// `handlers{run: Double}` or `handlers{Double, 10}`), `table[key](a)` (which parses as a
// conversion to a generic type) read as a call, with an added or changed assignment
// to such a variable or field (`round = Clamp`), and every binding their values read; since
// checker version 6 also an assignment to a field named like one the file calls through a
// selector, whatever it is rooted at (`c := &std; c.op = plus` beside `std.op(a, b)`).

import { checkStructure } from '../syntax/compare.ts'
import { redeclaredPredeclared, reachesNoCode } from '../syntax/go-predeclared.ts'
import { printableLine } from '../../printable-line.ts'
import { goRoot, literalKey, memberPath, samePath } from '../syntax/member-path.ts'
import { descendants, field, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { fail, type GateContext, type RuleOutcome } from '../types.ts'
import { assignedTargets, sharedWritesOf } from './shared-writes.ts'

/** Function and class literals, whose body a callee's text leaves out. */
const LITERALS_WITH_BODY = new Set(['function_expression', 'generator_function', 'arrow_function', 'class', 'func_literal'])

/**
 * The text of a callee without whitespace or comments. Down its object chain (the operand a
 * method is looked up on, through member and selector operands, the functions of calls on it
 * and parentheses) a call shows with its arguments, the body of any function or class
 * literal in them as `{…}`: `ops.get('add')` in `ops.get('add').run()` picks the object whose
 * method is called. A call that is itself the
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
      return n.children.map(c => c.field === 'function' ? calleeText(tree, c, true) : c.field === 'arguments' ? withoutBodies(tree, c) : part(c)).join('')
    case 'parenthesized_expression':
      return n.children.map(c => c.named && c.type !== 'comment' ? calleeText(tree, c, onChain) : part(c)).join('')
    default:
      if (LITERALS_WITH_BODY.has(n.type)) return n.children.map(c => c.field === 'body' ? '{…}' : part(c)).join('')
      return part(n)
  }
}

/** A node's tokens with the body of every function or class literal in it shown as `{…}`. */
function withoutBodies (tree: SyntaxTree, node: SyntaxNode): string {
  return tokensOf(tree, node, '', n => n.field === 'body' && n.parent !== undefined && LITERALS_WITH_BODY.has(n.parent.type) ? '{…}' : undefined)
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

/** Array, object and go composite literals: compared element by element. */
const AGGREGATES = new Set(['array', 'object', 'composite_literal', 'literal_value'])

/**
 * What a called or exported binding holds, as compared: `value` for what can never be called
 * (a literal, arithmetic, a comparison), so a fix that changes one keeps it; a function or
 * class literal without its body (a fix inside it keeps it); an array, object or go composite
 * literal element by element, so data beside a function in it may change; anything else
 * whole (`pick(Double)` → `pick(Clamp)` holds another function). Recursive along an
 * aggregate's nesting only, which the parse bound keeps shallow.
 */
function heldValue (tree: SyntaxTree, v: SyntaxNode): string {
  if (v.type === 'expression_list' || v.type === 'literal_element') return v.children.filter(c => c.named && c.type !== 'comment').map(c => heldValue(tree, c)).join(',')
  if (LITERALS.has(v.type) || NEVER_CALLABLE.has(v.type)) return 'value'
  if (v.type === 'binary_expression') {
    const op = field(v, 'operator')
    if (op !== undefined && !OPERAND_OPERATORS.has(textOf(tree, op))) return 'value'
  }
  if (LITERALS_WITH_BODY.has(v.type)) return calleeText(tree, v)
  if (AGGREGATES.has(v.type)) {
    return v.children.map(c => {
      switch (c.type) {
        case 'pair':
        case 'keyed_element': {
          const key = field(c, 'key')
          const value = field(c, 'value')
          return `${key === undefined ? '?' : tokensOf(tree, key, '')}:${value === undefined ? '?' : heldValue(tree, value)}`
        }
        case 'method_definition':
          return c.children.map(d => d.field === 'body' ? '{…}' : tokensOf(tree, d, '')).join('')
        default:
          if (c.named && c.type !== 'comment' && c.field !== 'type') return heldValue(tree, c)
          return tokensOf(tree, c, '')
      }
    }).join('')
  }
  return tokensOf(tree, v, '')
}

/**
 * Every call of a file by callee text. In go a builtin or a conversion to a predeclared type
 * is no call (DESIGN §15, go-predeclared.ts), unless the file redeclares its name.
 */
export function callsOf (tree: SyntaxTree, own: ReadonlySet<string> = tree.grammar === 'go' ? redeclaredPredeclared(tree) : new Set()): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (reachesNoCode(tree, n, own)) continue
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

/** A path that names a binding itself or an element of it (`fn`, `table[0]`, `fns[i]`), no property. */
const bindingOrElement = (path: readonly string[]): boolean => path.slice(1).every(seg => seg === '[*]' || /^\d+$/.test(seg))

/**
 * go: an assignment to what the file calls by its callee text (`round = Clamp` beside
 * `round(a)`, `s.op = plus` beside `s.op(a, b)`), or to an element of a variable called
 * through an index (`ops[i] = Half` beside `ops[0](n)`), with the value it assigns; and the
 * value of every variable called by name or through an index (`var round = Double` →
 * `Clamp`, `f := Double`, `ops := []func(int) int{Double, Half}`). The receiver of a called
 * method, a struct field named like a called one and data that selects a function are
 * values, not callees: the receipt's stated limits say so.
 */
function goRebindingsOf (tree: SyntaxTree): string[] {
  const callees = new Set(callsOf(tree))
  const calledVars = new Set<string>()
  for (const n of descendants(tree.root)) {
    let c: SyntaxNode | undefined
    if (n.type === 'call_expression') c = field(n, 'function')
    // `table[key](a)` parses as a conversion to a generic type: read it as the call it may be.
    else if (n.type === 'type_conversion_expression' && field(n, 'type')?.type === 'generic_type') c = field(field(n, 'type') as SyntaxNode, 'type')
    while (c !== undefined && (c.type === 'index_expression' || c.type === 'parenthesized_expression')) c = c.type === 'index_expression' ? field(c, 'operand') : c.children.find(x => x.named && x.type !== 'comment')
    if (c?.type === 'identifier' || c?.type === 'type_identifier') calledVars.add(textOf(tree, c))
  }
  const idents = (list: SyntaxNode | undefined): string[] => (list?.children ?? []).filter(c => c.type === 'identifier').map(c => textOf(tree, c))
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (n.type === 'assignment_statement') {
      const op = textOf(tree, field(n, 'operator') ?? n)
      const right = field(n, 'right')
      const value = right === undefined ? '?' : heldValue(tree, right)
      for (const t of field(n, 'left')?.children.filter(c => c.named) ?? []) {
        const text = tokensOf(tree, t, '')
        const root = t.type === 'index_expression' ? goRoot(tree, t) : undefined
        if (callees.has(text)) out.push(`assignment of callee ${text}${op === '=' ? ` = ${value}` : ''}`)
        else if (root !== undefined && calledVars.has(root)) out.push(`assignment of ${text}, an element of ${root}, which the file calls${op === '=' ? ` = ${value}` : ''}`)
        else if (t.type === 'identifier' && calledVars.has(text) && op === '=') out.push(`assignment of callee ${text} = ${value}`)
      }
      continue
    }
    const value = field(n, n.type === 'var_spec' || n.type === 'const_spec' ? 'value' : 'right')
    if (value === undefined) continue
    const kind = n.type === 'var_spec' ? 'var' : n.type === 'const_spec' ? 'const' : n.type === 'short_var_declaration' ? ':=' : n.type === 'range_clause' ? 'range' : undefined
    if (kind === undefined) continue
    const names = kind === 'var' || kind === 'const' ? n.children.filter(c => c.field === 'name').map(c => textOf(tree, c)) : idents(field(n, 'left'))
    for (const name of names) if (calledVars.has(name)) out.push(`${kind} ${name} = ${heldValue(tree, value)}`)
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

/** The plain names a JavaScript pattern binds or assigns (destructuring unfolded; member targets left out). */
function patternNames (tree: SyntaxTree, n: SyntaxNode | undefined): string[] {
  return assignedTargets(n).flatMap(t => t.type === 'identifier' || t.type === 'shorthand_property_identifier_pattern' ? [textOf(tree, t)] : [])
}

/** Assignment operators whose result may be the right operand itself (a function), not a new number or string. */
const VALUE_ASSIGNMENTS = new Set(['=', '||=', '&&=', '??='])

/** Every rebinding of a callee (go or JavaScript), every `with` statement, and every write to state the file shares (shared-writes.ts). */
export function rebindingsOf (tree: SyntaxTree): string[] {
  return [...(tree.grammar === 'go' ? goRebindingsOf(tree) : jsRebindingsOf(tree)), ...sharedWritesOf(tree)]
}

/**
 * JavaScript: a write (assignment, update, `delete`, loop assignment) to a path the file
 * calls (`Math.round = …`, `fn ||= …`, `[fn] = …`, `table[0] = half` beside `table[0](n)`), to
 * a binding the module exports or a property of one (every importer, the tests first, calls
 * it or keeps state on it: `add.calls = (add.calls ?? 0) + 1`), or to a property named like a
 * method a class of the file defines (`this.add = this.sub` hides the method its callers
 * call); the value of a binding the file calls or exports (`const show = String` → `format`);
 * and a `with` statement, which rebinds every name in its body. What a called method's
 * receiver holds, a property a call is looked up through, an object's method values and data
 * that selects what is called are values: the receipt's stated limits say so.
 */
function jsRebindingsOf (tree: SyntaxTree): string[] {
  const callees = calleePaths(tree)
  const exported = exportedLocals(tree)
  const calledNames = new Set(callees.filter(bindingOrElement).map(c => c[0] ?? ''))
  const classMethods = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (n.type !== 'method_definition' || n.parent?.type !== 'class_body') continue
    const key = field(n, 'name')
    if (key === undefined || key.type === 'computed_property_name') continue
    const name = literalKey(tree, key) ?? textOf(tree, key)
    if (name !== 'constructor') classMethods.add(name)
  }
  const out: string[] = []
  const target = (t: SyntaxNode, how: string, value: string | undefined): void => {
    const path = memberPath(tree, t)
    const assigned = value === undefined ? '' : ` = ${value}`
    const root = path[0] ?? ''
    if (path.length === 1 && exported.has(root)) out.push(`${how} of exported binding ${root}${assigned}`)
    else if (path.length >= 2 && exported.has(root)) out.push(`${how} of ${path.join('.')}, a property of exported binding ${root}${assigned}`)
    else if (callees.some(c => samePath(c, path))) out.push(`${how} of callee ${path.join('.')}${assigned}`)
    else if (path.length >= 2 && calledNames.has(root) && bindingOrElement(path)) out.push(`${how} of ${path.join('.')}, an element of ${root}, which the file calls${assigned}`)
    else if (path.length >= 2 && classMethods.has(path[path.length - 1] ?? '')) out.push(`${how} of property ${path[path.length - 1] ?? ''}, which a class of the file defines as a method${assigned}`)
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const op = textOf(tree, field(n, 'operator') ?? n.children.find(c => !c.named) ?? n)
        const right = field(n, 'right')
        const value = right !== undefined && VALUE_ASSIGNMENTS.has(op) ? heldValue(tree, right) : undefined
        for (const t of assignedTargets(field(n, 'left'))) target(t, 'assignment', value)
        break
      }
      case 'update_expression': { const arg = field(n, 'argument'); if (arg !== undefined) target(arg, 'update', undefined) } break
      case 'unary_expression': {
        const arg = field(n, 'argument')
        if (arg !== undefined && n.children.some(c => !c.named && textOf(tree, c) === 'delete')) target(arg, 'delete', undefined)
        break
      }
      case 'for_in_statement':
        if (!n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))) for (const t of assignedTargets(field(n, 'left'))) target(t, 'loop assignment', undefined)
        break
      case 'with_statement': out.push('with statement'); break
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        if (name === undefined || value === undefined) break
        const names = patternNames(tree, name)
        if (names.some(x => calledNames.has(x))) out.push(`value of callee ${tokensOf(tree, name, '')} = ${heldValue(tree, value)}`)
        // What an exported binding holds is what its importers (the tests first) call.
        else if (names.some(x => exported.has(x)) && heldValue(tree, value) !== 'value') out.push(`value of exported binding ${tokensOf(tree, name, '')} = ${heldValue(tree, value)}`)
        break
      }
    }
  }
  return out
}

/** What a top-level declaration or statement is called in a finding: `func Add`, `func (*T) Run`, `var a, b`, `function add`. */
function placeOf (tree: SyntaxTree, top: SyntaxNode): string {
  const n = top.type === 'export_statement' ? field(top, 'declaration') ?? top : top
  const name = field(n, 'name')
  if (n.type === 'method_declaration') {
    const receiver = field(n, 'receiver')
    return `func ${receiver === undefined ? '' : `${tokensOf(tree, receiver, '')} `}${name === undefined ? '?' : textOf(tree, name)}`
  }
  if (name !== undefined) return `${n.type === 'function_declaration' && tree.grammar === 'go' ? 'func' : n.type.replace(/_declaration$/, '')} ${textOf(tree, name)}`
  const names = [...descendants(n)].filter(d => d.type === 'var_spec' || d.type === 'const_spec' || d.type === 'variable_declarator').flatMap(d => d.children.filter(c => c.field === 'name').map(c => tokensOf(tree, c, '')))
  if (names.length > 0) return `${n.type.replace(/_declaration$/, '')} ${names.join(', ')}`
  return n.type.replace(/_statement$/, ' statement')
}

/**
 * Every call of a file by callee text and the top-level declaration or statement it is in
 * (`os.Exit in func Report`). Compared only when the calls are the same multiset: a call
 * moved from one function to another may move it into code that runs at load, which a
 * file's own initializers show (no-init-hook) but an initializer in another file of the
 * package, which the gate may not read, does not.
 */
export function callPlacesOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  // What the file redeclares is its own everywhere in it, not only in the declaration itself.
  const own = tree.grammar === 'go' ? redeclaredPredeclared(tree) : new Set<string>()
  for (const top of tree.root.children) {
    if (!top.named || top.type === 'comment') continue
    const place = placeOf(tree, top)
    for (const c of callsOf({ ...tree, root: top }, own)) out.push(`${c} in ${place}`)
  }
  return out
}

export function checkCallsPreserved (ctx: GateContext): RuleOutcome {
  const plain = checkStructure(ctx, { what: 'calls', extract: callsOf, direction: 'both', show: c => `call ${printableLine(c, 120)}` })
  // The same calls in other places are a move; reported only when nothing else changed.
  const moved = plain.status === 'pass' ? checkStructure(ctx, { what: 'calls (the same calls, one moved to another function or statement)', extract: callPlacesOf, direction: 'both', show: c => `call ${printableLine(c, 160)}` }) : plain
  const calls = moved.status === 'fail' ? moved : plain
  const rebound = checkStructure(ctx, { what: 'rebindings', extract: rebindingsOf, direction: 'added', show: r => printableLine(r, 120) })
  if (rebound.status !== 'fail') return calls
  if (calls.status !== 'fail') return rebound
  return fail(`${calls.detail}; ${rebound.detail}`, [...calls.findings, ...rebound.findings])
}
