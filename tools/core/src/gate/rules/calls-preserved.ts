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
 * How a held value is compared. `held`: what a called or exported binding holds. `receiver`:
 * what the receiver of a called method holds, compared like a call on a callee's object
 * chain (a function literal's body left out wherever it is, as in `items.map(i => …)`).
 * `exact`: a binding read where it chooses what another value is (`const key = 'add'` read by
 * `ops.get(key)`), so a literal is the choice and is kept as written.
 */
export type HeldMode = 'held' | 'receiver' | 'exact'
const STRENGTH: Record<HeldMode, number> = { receiver: 0, held: 1, exact: 2 }

/**
 * What a binding or property holds, and the bindings it reads (into `reads`, each with the
 * mode it is held in: a name that is the whole value, or an element or property of it, is
 * held as its holder is; one read anywhere else, `exact`). Outside `exact`, a value that can
 * never be called (a literal, arithmetic, a comparison) is `value`, so a fix that changes one
 * keeps it; a function or class literal shows without its body (a fix inside it keeps it); an
 * array, object or go composite literal shows element by element, so that data beside a
 * function in it may change; anything else whole, the arguments of a call too
 * (`pick(Double)` → `pick(Clamp)` holds another function), function literal bodies in it
 * left out only for a receiver. Recursive along an aggregate's nesting only, which the parse
 * bound keeps shallow.
 */
function heldValue (tree: SyntaxTree, v: SyntaxNode, reads?: Map<string, HeldMode>, mode: HeldMode = 'held'): string {
  if (v.type === 'expression_list' || v.type === 'literal_element') return v.children.filter(c => c.named && c.type !== 'comment').map(c => heldValue(tree, c, reads, mode)).join(',')
  if (mode !== 'exact') {
    if (LITERALS.has(v.type) || NEVER_CALLABLE.has(v.type)) return 'value'
    if (v.type === 'binary_expression') {
      const op = field(v, 'operator')
      if (op !== undefined && !OPERAND_OPERATORS.has(textOf(tree, op))) return 'value'
    }
  }
  if (LITERALS_WITH_BODY.has(v.type)) return calleeText(tree, v)
  if (v.type === 'identifier') {
    addRead(reads, textOf(tree, v), mode)
    return textOf(tree, v)
  }
  if (AGGREGATES.has(v.type)) {
    return v.children.map(c => {
      switch (c.type) {
        case 'pair':
        case 'keyed_element': {
          const key = field(c, 'key')
          const value = field(c, 'value')
          if (key !== undefined) readsOf(tree, key, reads, false)
          return `${key === undefined ? '?' : tokensOf(tree, key, '')}:${value === undefined ? '?' : heldValue(tree, value, reads, mode)}`
        }
        case 'method_definition':
          return c.children.map(d => d.field === 'body' ? '{…}' : tokensOf(tree, d, '')).join('')
        case 'shorthand_property_identifier':
          addRead(reads, textOf(tree, c), mode)
          return textOf(tree, c)
        default:
          if (c.named && c.type !== 'comment' && c.field !== 'type') return heldValue(tree, c, reads, mode)
          return tokensOf(tree, c, '')
      }
    }).join('')
  }
  readsOf(tree, v, reads, mode === 'receiver')
  return mode === 'receiver' ? withoutBodies(tree, v) : tokensOf(tree, v, '')
}

/** The strongest of some modes (undefined for none). */
function strongest (modes: ReadonlyArray<HeldMode | undefined>): HeldMode | undefined {
  let best: HeldMode | undefined
  for (const m of modes) if (m !== undefined && (best === undefined || STRENGTH[m] > STRENGTH[best])) best = m
  return best
}

function addRead (reads: Map<string, HeldMode> | undefined, name: string, mode: HeldMode): void {
  const had = reads?.get(name)
  if (had === undefined || STRENGTH[mode] > STRENGTH[had]) reads?.set(name, mode)
}

/** Member, subscript, selector and index expressions: links of an object chain. */
const CHAIN_LINKS = new Set(['member_expression', 'subscript_expression', 'selector_expression', 'index_expression'])

/** The plain names a subtree reads (JavaScript and go identifiers), as `exact`; function literal bodies left out when `skipBodies`. */
function readsOf (tree: SyntaxTree, n: SyntaxNode, reads: Map<string, HeldMode> | undefined, skipBodies: boolean): void {
  if (reads === undefined) return
  const stack: SyntaxNode[] = [n]
  while (stack.length > 0) {
    const d = stack.pop() as SyntaxNode
    if (skipBodies && d.field === 'body' && d.parent !== undefined && LITERALS_WITH_BODY.has(d.parent.type)) continue
    if (d.type === 'identifier' || d.type === 'shorthand_property_identifier') addRead(reads, textOf(tree, d), 'exact')
    if ((d.field === 'function' || d.field === 'constructor') && d.parent !== undefined && (d.parent.type === 'call_expression' || d.parent.type === 'new_expression')) {
      // What a call is looked up on is held as a callee's is: the function called (`pick`
      // in `pick(k)`) as `held`, the object a method is called on (`ops` in `ops.get(k)`)
      // as `receiver`; what selects along the way (an index, a call's arguments) `exact`.
      let c: SyntaxNode | undefined = d
      let how: HeldMode = 'held'
      while (c !== undefined && CHAIN_LINKS.has(c.type)) {
        const object: SyntaxNode | undefined = field(c, 'object') ?? field(c, 'operand')
        for (const x of c.children) if (x !== object && x.named) stack.push(x)
        c = object
        how = 'receiver'
      }
      if (c?.type === 'identifier') addRead(reads, textOf(tree, c), how)
      else if (c !== undefined) stack.push(...c.children)
      continue
    }
    stack.push(...d.children)
  }
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

/** A binding site: the plain names a declaration, assignment or loop binds, and the value they get. */
interface Site { kind: string, names: string[], target: SyntaxNode, value: SyntaxNode }

/**
 * The bindings whose value reaches what is called, each with the mode its value is compared
 * in (see heldValue): the `seeds` (called, exported, the receiver of a called method), and
 * every binding a held value reads, transitively. By name, not by scope.
 */
function flowClosure (tree: SyntaxTree, seeds: ReadonlyMap<string, HeldMode>, sites: readonly Site[]): Map<string, HeldMode> {
  const held = new Map(seeds)
  const byName = new Map<string, Site[]>()
  for (const site of sites) for (const name of site.names) byName.set(name, [...(byName.get(name) ?? []), site])
  const work = [...held.keys()]
  while (work.length > 0) {
    const name = work.pop() as string
    for (const site of byName.get(name) ?? []) {
      const reads = new Map<string, HeldMode>()
      heldValue(tree, site.value, reads, held.get(name))
      for (const [r, mode] of reads) {
        const had = held.get(r)
        if (had !== undefined && STRENGTH[had] >= STRENGTH[mode]) continue
        held.set(r, mode)
        work.push(r)
      }
    }
  }
  return held
}

/**
 * go: an assignment to a variable or field the file calls (`round = Clamp` where `round(a)`
 * is called: a func-typed seam), with the value it assigns, and the value of every binding
 * that reaches a call: a variable called (`var round = Double` → `Clamp`, `f := Double`),
 * indexed or selected and then called (`ops[0](n)` beside `[]func(int) int{Double, Half}`,
 * `h.run(n)` beside `handlers{run: Double}`), and any binding such a value reads
 * (`var say = show` makes `show` one).
 */
function goRebindingsOf (tree: SyntaxTree): string[] {
  const callees = new Set(callsOf(tree))
  const seeds = new Map<string, HeldMode>()
  const sites: Site[] = []
  // A field or method name the file calls through a selector (`op` in `std.op(a, b)`): an
  // alias (`c := &std; c.op = plus`) reaches the same field by another path.
  const calledFields = new Set<string>()
  const idents = (list: SyntaxNode | undefined): string[] => (list?.children ?? []).filter(c => c.type === 'identifier').map(c => textOf(tree, c))
  for (const n of descendants(tree.root)) {
    if (n.type === 'call_expression') {
      const fn = field(n, 'function')
      const root = fn === undefined ? undefined : goRoot(tree, fn)
      if (root !== undefined) addRead(seeds, root, fn?.type === 'selector_expression' ? 'receiver' : 'held')
      const calledField = fn?.type === 'selector_expression' ? field(fn, 'field') : undefined
      if (calledField !== undefined) calledFields.add(textOf(tree, calledField))
      // An index or a chain call's argument chooses what is called (`table[key](a)`).
      if (fn !== undefined) readsOf(tree, fn, seeds, true)
      continue
    }
    // `table[key](a)` parses as a conversion to a generic type: read it as the call it may be.
    const generic = n.type === 'type_conversion_expression' ? field(n, 'type') : undefined
    if (generic?.type === 'generic_type') {
      const base = field(generic, 'type')
      if (base !== undefined) addRead(seeds, textOf(tree, base), 'held')
      for (const d of descendants(field(generic, 'type_arguments') ?? generic)) if (d.type === 'type_identifier') addRead(seeds, textOf(tree, d), 'exact')
      continue
    }
    const value = field(n, n.type === 'var_spec' || n.type === 'const_spec' ? 'value' : 'right')
    if (value === undefined) continue
    if (n.type === 'var_spec' || n.type === 'const_spec') sites.push({ kind: 'var', names: n.children.filter(c => c.field === 'name').map(c => textOf(tree, c)), target: n, value })
    else if (n.type === 'short_var_declaration') sites.push({ kind: ':=', names: idents(field(n, 'left')), target: n, value })
    else if (n.type === 'range_clause') sites.push({ kind: 'range', names: idents(field(n, 'left')), target: n, value })
    else if (n.type === 'assignment_statement' && textOf(tree, field(n, 'operator') ?? n) === '=') sites.push({ kind: '=', names: idents(field(n, 'left')), target: n, value })
  }
  const held = flowClosure(tree, seeds, sites)
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (n.type !== 'assignment_statement') continue
    const op = textOf(tree, field(n, 'operator') ?? n)
    const right = field(n, 'right')
    for (const t of field(n, 'left')?.children.filter(c => c.named) ?? []) {
      const text = tokensOf(tree, t, '')
      const root = goRoot(tree, t)
      const mode = root === undefined ? undefined : held.get(root)
      const value = right === undefined ? '?' : heldValue(tree, right, undefined, mode)
      const fieldName = t.type === 'selector_expression' ? field(t, 'field') : undefined
      if (callees.has(text)) out.push(`assignment of callee ${text}${op === '=' ? ` = ${value}` : ''}`)
      // A number or string assigned (`s.count = 0`) is never what is called.
      else if (fieldName !== undefined && calledFields.has(textOf(tree, fieldName)) && op === '=' && right !== undefined && heldValue(tree, right) !== 'value') out.push(`assignment of field ${textOf(tree, fieldName)}, which the file calls, in ${text} = ${value}`)
      // A compound assignment (`+=`) makes a number or string, never what is called.
      else if (mode === 'exact' || (mode !== undefined && op === '=' && value !== 'value')) out.push(`assignment of ${text} ${op} ${value}`)
    }
  }
  for (const site of sites) {
    if (site.kind === '=') continue
    for (const name of site.names) {
      const mode = held.get(name)
      if (mode !== undefined) out.push(`${site.kind} ${name} = ${heldValue(tree, site.value, undefined, mode)}`)
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

function jsRebindingsOf (tree: SyntaxTree): string[] {
  const callees = calleePaths(tree)
  const exported = exportedLocals(tree)
  const out: string[] = []
  // A binding called itself, or through an element of what it holds (`table[0](n)`, `fns[i]()`).
  const calledNames = new Set(callees.filter(c => c.slice(1).every(seg => seg === '[*]' || /^\d+$/.test(seg))).map(c => c[0] ?? ''))
  const calledMethods = new Set(callees.filter(c => c.length >= 2).map(c => c[c.length - 1] ?? ''))
  calledMethods.delete('[*]')
  // The receiver of a called method (`op` in `op.run()`): what it holds chooses the method.
  const receivers = new Set(callees.filter(c => c.length >= 2 && !(c[0] ?? '').startsWith('<')).map(c => c[0] ?? ''))
  // A property a called method is looked up through (`op` in `this.op.run()`), likewise.
  const receiverProps = new Set(callees.flatMap(c => c.slice(1, -1)).filter(seg => seg !== '[*]'))

  /** The name a property key spells, `[*]` for a computed key that is not a literal, undefined if none. */
  const keyName = (n: SyntaxNode): string | undefined => {
    const key = field(n, n.type === 'pair' ? 'key' : 'property')
    if (key === undefined) return undefined
    const inner = key.type === 'computed_property_name' ? key.children.find(c => c.named && c.type !== 'comment') : key
    return inner === undefined ? '[*]' : literalKey(tree, inner) ?? (key.type === 'computed_property_name' ? '[*]' : textOf(tree, key))
  }
  const calledKey = (name: string): boolean => name === '[*]' ? calledMethods.size > 0 : calledMethods.has(name)
  // A method a class of the file defines: whoever calls it (the tests, through an instance)
  // gets an own property assigned in its place (`this.add = this.sub`).
  const classMethods = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (n.type !== 'method_definition' || n.parent?.type !== 'class_body') continue
    const key = field(n, 'name')
    if (key === undefined || key.type === 'computed_property_name') continue
    const name = literalKey(tree, key) ?? textOf(tree, key)
    if (name !== 'constructor') classMethods.add(name)
  }

  // Seeds (compared as heldValue does), then every binding their held values read (exactly).
  const seeds = new Map<string, HeldMode>()
  for (const name of receivers) addRead(seeds, name, 'receiver')
  for (const name of [...calledNames, ...exported]) addRead(seeds, name, 'held')
  // An index or a chain call's argument chooses what is called (`ops.get(key).run()`).
  for (const n of descendants(tree.root)) {
    const callee = n.type === 'call_expression' ? field(n, 'function') : n.type === 'new_expression' ? field(n, 'constructor') : undefined
    if (callee !== undefined) readsOf(tree, callee, seeds, true)
  }
  const sites: Site[] = []
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        if (name !== undefined && value !== undefined) sites.push({ kind: 'value', names: patternNames(tree, name), target: name, value })
        break
      }
      case 'for_in_statement': {
        const left = field(n, 'left')
        const right = field(n, 'right')
        if (left !== undefined && right !== undefined) sites.push({ kind: 'loop value', names: patternNames(tree, left), target: left, value: right })
        break
      }
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const left = field(n, 'left')
        const right = field(n, 'right')
        const op = textOf(tree, field(n, 'operator') ?? n.children.find(c => !c.named) ?? n)
        if (left === undefined || right === undefined || !VALUE_ASSIGNMENTS.has(op)) break
        sites.push({ kind: 'assigned value', names: patternNames(tree, left), target: left, value: right })
        const paths = assignedTargets(left).map(t => memberPath(tree, t)).filter(p => p.length >= 2)
        if (paths.some(p => callees.some(c => samePath(c, p)) || calledMethods.has(p[p.length - 1] ?? ''))) heldValue(tree, right, seeds)
        else if (paths.some(p => receiverProps.has(p[p.length - 1] ?? ''))) heldValue(tree, right, seeds, 'receiver')
        break
      }
      case 'pair':
      case 'field_definition': {
        const name = keyName(n)
        const value = field(n, 'value')
        if (name !== undefined && value !== undefined && calledKey(name)) heldValue(tree, value, seeds)
        else if (name !== undefined && value !== undefined && receiverProps.has(name)) heldValue(tree, value, seeds, 'receiver')
        break
      }
      case 'shorthand_property_identifier':
        if (calledMethods.has(textOf(tree, n))) addRead(seeds, textOf(tree, n), 'held')
        break
    }
  }
  const held = flowClosure(tree, seeds, sites)

  const target = (t: SyntaxNode, how: string, value: string | undefined, receiverValue?: string): void => {
    const path = memberPath(tree, t)
    const assigned = value === undefined ? '' : ` = ${value}`
    // An exported binding assigned anywhere (`(add = double, 100)` in an initializer) makes
    // every importer, the tests first, call something else.
    if (path.length === 1 && exported.has(path[0] ?? '')) {
      out.push(`${how} of exported binding ${path[0] ?? ''}${assigned}`)
      return
    }
    // So is a property of one: every importer holds the same function, class or object, and
    // state kept on it outlives the call (`add.calls = (add.calls ?? 0) + 1` then `add.calls
    // > 1 ? a - b : a + b` is right for the test's one call only; an eleventh audit).
    if (path.length >= 2 && exported.has(path[0] ?? '')) {
      out.push(`${how} of ${path.join('.')}, a property of exported binding ${path[0] ?? ''}${assigned}`)
      return
    }
    if (callees.some(c => samePath(c, path))) {
      out.push(`${how} of callee ${path.join('.')}${assigned}`)
      return
    }
    // Through an alias (`x = Math; x.round = …`) the path differs but the property is the
    // one a call reaches: a named property the file calls as a method is not assigned either.
    const last = path.length >= 2 ? path[path.length - 1] : undefined
    const called = last === undefined || last === '[*]' ? undefined : callees.find(c => c.length >= 2 && c[c.length - 1] === last)
    if (called !== undefined) {
      out.push(`${how} of property ${last ?? ''}, which the file calls as ${called.join('.')}${assigned}`)
      return
    }
    if (last !== undefined && classMethods.has(last)) {
      out.push(`${how} of property ${last}, which a class of the file defines as a method${assigned}`)
      return
    }
    // A number or string (`this.i += 1`, `this.i++`) keeps its methods; a deleted property
    // may uncover another one on the prototype.
    if (last !== undefined && receiverProps.has(last) && how !== 'update' && (how !== 'assignment' || (receiverValue !== undefined && receiverValue !== 'value'))) {
      out.push(`${how} of property ${last}, which a called method is looked up through${receiverValue === undefined ? '' : ` = ${receiverValue}`}`)
      return
    }
    // A receiver or a binding read by what is called. A receiver given a number or a string
    // (`i += 2` beside `i.toString(16)`) keeps its methods.
    const mode = path.length === 1 ? held.get(path[0] ?? '') : undefined
    if (mode === 'exact' || (mode !== undefined && value !== undefined && value !== 'value')) {
      out.push(`${how} of ${path[0] ?? ''}${assigned}`)
      return
    }
    // An element or property of a binding held as a callee is (`fns[0] = half` beside
    // `for (const f of fns) f(n)`, `table[0] = half` beside `table[0](n)`) or read exactly.
    const rootMode = path.length >= 2 && !(path[0] ?? '').startsWith('<') ? held.get(path[0] ?? '') : undefined
    const element = value === undefined || value === 'value' ? receiverValue : value
    if (rootMode === 'exact' || (rootMode === 'held' && element !== undefined && element !== 'value')) out.push(`${how} of ${path.join('.')}, which reaches a call${element === undefined ? '' : ` = ${element}`}`)
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const op = textOf(tree, field(n, 'operator') ?? n.children.find(c => !c.named) ?? n)
        const right = field(n, 'right')
        const left = field(n, 'left')
        const mode = left === undefined ? undefined : strongest(patternNames(tree, left).map(name => held.get(name)))
        const value = right === undefined || !VALUE_ASSIGNMENTS.has(op) ? (mode === 'exact' && right !== undefined ? `${op} ${heldValue(tree, right, undefined, mode)}` : undefined) : heldValue(tree, right, undefined, mode)
        const receiverValue = right === undefined || !VALUE_ASSIGNMENTS.has(op) ? undefined : heldValue(tree, right, undefined, 'receiver')
        for (const t of assignedTargets(left)) target(t, 'assignment', value, receiverValue)
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
        if (name.type === 'identifier') {
          const text = textOf(tree, name)
          if (calledNames.has(text)) out.push(`value of callee ${text} = ${heldValue(tree, value)}`)
          // What an exported binding holds is what its importers (the tests first) call.
          else if (exported.has(text)) { if (heldValue(tree, value) !== 'value') out.push(`value of exported binding ${text} = ${heldValue(tree, value)}`) }
          else if (held.has(text)) out.push(`value of ${text}, which reaches a call, = ${heldValue(tree, value, undefined, held.get(text))}`)
          break
        }
        const names = patternNames(tree, name).filter(x => held.has(x))
        if (names.length > 0) out.push(`value of ${tokensOf(tree, name, '')} = ${heldValue(tree, value, undefined, strongest(names.map(x => held.get(x))))}`)
        break
      }
      case 'pair':
      case 'field_definition': {
        const name = keyName(n)
        const value = field(n, 'value')
        if (name !== undefined && value !== undefined && calledKey(name)) out.push(`value of property ${name}, which the file calls as a method, = ${heldValue(tree, value)}`)
        else if (name !== undefined && value !== undefined && receiverProps.has(name)) out.push(`value of property ${name}, which a called method is looked up through, = ${heldValue(tree, value, undefined, 'receiver')}`)
        break
      }
      case 'shorthand_property_identifier': {
        const name = textOf(tree, n)
        if (calledMethods.has(name)) out.push(`value of property ${name}, which the file calls as a method, = ${name}`)
        break
      }
    }
  }
  for (const n of descendants(tree.root)) {
    if (n.type !== 'for_in_statement' || !n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))) continue
    const left = field(n, 'left')
    const right = field(n, 'right')
    const names = left === undefined ? [] : patternNames(tree, left).filter(x => held.has(x))
    if (left !== undefined && right !== undefined && names.length > 0) out.push(`loop value of ${tokensOf(tree, left, '')} = ${heldValue(tree, right, undefined, strongest(names.map(x => held.get(x))))}`)
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
  for (const top of tree.root.children) {
    if (!top.named || top.type === 'comment') continue
    const place = placeOf(tree, top)
    for (const c of callsOf({ ...tree, root: top })) out.push(`${c} in ${place}`)
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
