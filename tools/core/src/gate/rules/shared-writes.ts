// Writes to state the file shares with other code, the tests first, for calls-preserved's
// rebindings (added ones are rejected; existing ones may keep changing their values). A test
// that calls `assert.equal` from its own file reaches the module object a source file imports
// too, so a write to it changes what the test calls without any call, name or declaration of
// the source file changing (`const LIMIT = (assert.equal = assert, 100)`, a sixth audit).
//   JavaScript: an assignment, update, `delete` or loop assignment whose target is
//   - a property of a name not declared in a scope around the write (a global, or a name the
//     file declares only elsewhere): `Math.max = …`, `process.exitCode = …`;
//   - a property of an imported module (`assert.equal = …`), or of a binding that may hold
//     shared state: one given a value that may hold an imported or undeclared name (`mentions`:
//     `a = [assert, a]; a[0].equal = …`), by name, transitively;
//   - a property of an object that is not a plain name (`(0, assert).equal = …`,
//     `[assert][0].equal = …`, `''.constructor.prototype.x = …`), whatever it holds;
//   - a name not declared in a scope around it (`expected = 3`: a global).
//   go: an assignment or `++`/`--` whose target is rooted at an imported package
//   (`flag.CommandLine = …`), at a name not declared in a scope around it (`want = a - b`: a
//   package-level var of another file, a test file's among them), at a binding that may hold
//   a pointer to shared state (`p = &want; *p = …`), or at no name (`*[]*int{&limit}[0] = n`).
// Also every call whose arguments pass shared state (an imported module, a binding that may
// hold one, a global passed bare): `check(a)` → `check(assert)` or `Object.assign(assert, …)`
// hands the module to code that may write it, with no write here (`call Object.assign passes
// assert`; added ones are rejected, like the writes).
// A binding may hold shared state through a declaration, an assignment, a destructuring
// default, a loop, a catch clause (what any `throw` of the file throws) or a parameter (what
// a call of the file's function of that name passes). Scopes are blocks (go; JavaScript
// let/const) or functions (JavaScript var). A value's callee is not followed: what a call
// returns is not tracked, only what it is passed.

import { goRoot, literalKey, memberPath } from '../syntax/member-path.ts'
import { printableLine } from '../../printable-line.ts'
import { descendants, field, fields, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { patternNames } from './declarations-preserved.ts'

/** Every added-write candidate of a file, one line each. */
export function sharedWritesOf (tree: SyntaxTree): string[] {
  return tree.grammar === 'go' ? goSharedWrites(tree) : jsSharedWrites(tree)
}

/** The targets an assignment's left side writes (`[a.b, c] = …` writes both). */
export function assignedTargets (n: SyntaxNode | undefined): SyntaxNode[] {
  if (n === undefined) return []
  switch (n.type) {
    case 'object_pattern':
    case 'array_pattern':
    case 'rest_pattern':
    case 'parenthesized_expression': return n.children.filter(c => c.named).flatMap(c => assignedTargets(c))
    case 'pair_pattern': return assignedTargets(field(n, 'value'))
    case 'assignment_pattern':
    case 'object_assignment_pattern': return assignedTargets(field(n, 'left'))
    default: return [n]
  }
}

const JS_FUNCTIONS = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'generator_function', 'arrow_function', 'method_definition'])
const GO_FUNCTIONS = new Set(['function_declaration', 'method_declaration', 'func_literal'])
/** What a JavaScript let, const, function or class declaration is scoped to: a block, a loop head, the file. */
const JS_BLOCKS = new Set(['program', 'statement_block', 'for_statement', 'for_in_statement', 'switch_body', 'class_static_block', ...JS_FUNCTIONS])
/** What a go declaration in a function is scoped to: its block (a package-level one, the file). */
const GO_BLOCKS = new Set(['source_file', 'block', ...GO_FUNCTIONS])

/** Go's predeclared names (a conversion `int64(x)` names its type as an identifier): never another file's state. */
const GO_UNIVERSE = new Set([
  'true', 'false', 'iota', 'nil', '_', 'append', 'cap', 'clear', 'close', 'complex', 'copy', 'delete', 'imag', 'len', 'make', 'max', 'min', 'new', 'panic', 'print', 'println', 'real', 'recover',
  'any', 'bool', 'byte', 'comparable', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16', 'int32', 'int64', 'rune', 'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr',
])
/** JavaScript's global constants, as names-preserved exempts them: values, not shared objects. */
const JS_CONSTANTS = new Set(['undefined', 'NaN', 'Infinity'])

/** Names declared per node (a block, a statement, a function, the file), and what is visible at a node. */
class Scopes {
  private readonly declared = new Map<SyntaxNode, Set<string>>()
  constructor (private readonly tree: SyntaxTree, private readonly functions: ReadonlySet<string>) {}

  /** The nearest function around `n` (not `n` itself), or the file. */
  fn (n: SyntaxNode): SyntaxNode {
    return this.nearest(n, this.functions)
  }

  /** The nearest node around `n` (not `n` itself) of one of `kinds`, or the file. */
  nearest (n: SyntaxNode, kinds: ReadonlySet<string>): SyntaxNode {
    let c = n.parent
    while (c !== undefined && !kinds.has(c.type)) c = c.parent
    return c ?? this.tree.root
  }

  declare (scope: SyntaxNode | undefined, names: Iterable<string>): void {
    const at = scope ?? this.tree.root
    const set = this.declared.get(at) ?? new Set<string>()
    for (const name of names) set.add(name)
    this.declared.set(at, set)
  }

  /** Whether `name` is declared at a node around `n`: its block, statement, function or the file. */
  visible (n: SyntaxNode, name: string): boolean {
    for (let c: SyntaxNode | undefined = n; c !== undefined; c = c.parent) if (this.declared.get(c)?.has(name) === true) return true
    return false
  }
}

/** The callee of a call or `new` (not followed: what a call returns is not tracked). */
function calleeOf (n: SyntaxNode): SyntaxNode | undefined {
  return n.type === 'call_expression' ? field(n, 'function') : n.type === 'new_expression' ? field(n, 'constructor') : undefined
}

/** Function and class literals: a new object, whose body runs only when called. */
const LITERAL_BODIES = new Set([...JS_FUNCTIONS, 'class', 'func_literal'])
/** Operators whose result may be an operand itself (an object); any other gives a number, string or boolean. */
const PASSING_OPERATORS = new Set(['||', '&&', '??', '&', '*'])

/**
 * Every name an expression mentions where its value may end up, each with whether it is the
 * object of a member access (`Number` in `Number.MAX_SAFE_INTEGER`). Not followed: a callee
 * (what a call returns is not tracked, what it is passed is), the body of a function or class
 * literal (a new object; a write in it is found where it is), an arithmetic, comparison or
 * other operator that makes a primitive (go's `&x` and `*p` pass theirs on), a go struct
 * literal's field key (`Calc{op: minus}`).
 */
function mentions (tree: SyntaxTree, n: SyntaxNode | undefined): Array<{ name: string, bare: boolean }> {
  const out: Array<{ name: string, bare: boolean }> = []
  const walk = (d: SyntaxNode): void => {
    if (d.type === 'identifier' || d.type === 'shorthand_property_identifier') {
      if (!(d.parent?.type === 'literal_element' && d.parent.field === 'key')) out.push({ name: textOf(tree, d), bare: !(d.field === 'object' || d.field === 'operand') })
      return
    }
    if (LITERAL_BODIES.has(d.type)) return
    if (['binary_expression', 'unary_expression', 'update_expression'].includes(d.type)) {
      const op = textOf(tree, field(d, 'operator') ?? d.children.find(c => !c.named) ?? d)
      if (!PASSING_OPERATORS.has(op)) return
    }
    const callee = calleeOf(d)
    for (const c of d.children) if (c !== callee) walk(c)
  }
  if (n !== undefined) walk(n)
  return out
}

interface Site { at: SyntaxNode, names: string[], value: SyntaxNode }

/**
 * The bindings that may hold shared state: `seeds`, and every name a site binds to a value
 * that mentions one of them or a name not declared around the site, transitively, by name.
 */
function sharedClosure (scopes: Scopes, seeds: Iterable<string>, sites: ReadonlyArray<Site & { mentioned: string[] }>, constant: ReadonlySet<string>): Set<string> {
  const shared = new Set(seeds)
  for (let grew = true; grew;) {
    grew = false
    for (const s of sites) {
      if (!s.mentioned.some(m => shared.has(m) || (!constant.has(m) && !scopes.visible(s.at, m)))) continue
      for (const name of s.names) if (!shared.has(name)) { shared.add(name); grew = true }
    }
  }
  return shared
}

/**
 * `call <callee> passes <names>` for each call whose arguments mention shared state: a
 * binding that may hold it, or a name not declared around the call passed bare (a global
 * object itself, not `Number.MAX_SAFE_INTEGER`).
 */
function passes (tree: SyntaxTree, scopes: Scopes, shared: ReadonlySet<string>, constant: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    const callee = calleeOf(n)
    if (callee === undefined) continue
    const names = new Set<string>()
    for (const m of mentions(tree, field(n, 'arguments'))) {
      if (shared.has(m.name) || (m.bare && !constant.has(m.name) && !scopes.visible(n, m.name))) names.add(m.name)
    }
    if (names.size > 0) out.push(`call ${printableLine(tokensOf(tree, callee, ''), 120)} passes ${[...names].sort().join(', ')}, shared state, to code that may write it`)
  }
  return out
}

/** Whether `n` is `require(…)`, or a property of its result (`require('assert').strict`). */
function isRequire (tree: SyntaxTree, n: SyntaxNode | undefined): boolean {
  let c = n
  while (c !== undefined && (c.type === 'member_expression' || c.type === 'subscript_expression' || c.type === 'parenthesized_expression')) c = c.type === 'parenthesized_expression' ? c.children.find(x => x.named && x.type !== 'comment') : field(c, 'object')
  const fn = c?.type === 'call_expression' ? field(c, 'function') : undefined
  return fn?.type === 'identifier' && textOf(tree, fn) === 'require'
}

/** `var`, `let` or `const` when a for-in/of loop declares its binding, else undefined. */
function loopKeyword (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  const kw = n.children.find(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))
  return kw === undefined ? undefined : textOf(tree, kw)
}

/** The parameter patterns of a JavaScript function node, in order. */
function jsParams (n: SyntaxNode): SyntaxNode[] {
  const single = field(n, 'parameter')
  if (single !== undefined) return [single]
  return (field(n, 'parameters')?.children ?? []).filter(c => c.named && c.type !== 'comment').map(c => c.type === 'required_parameter' || c.type === 'optional_parameter' ? field(c, 'pattern') ?? c : c)
}

/** The name a JavaScript function is called by: its own, or the binding or key it is the value of. */
function jsFunctionName (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  const own = field(n, 'name')
  if (own !== undefined) return literalKey(tree, own) ?? textOf(tree, own)
  const p = n.parent
  const key = p?.type === 'variable_declarator' ? field(p, 'name') : p?.type === 'pair' ? field(p, 'key') : p?.type === 'assignment_expression' ? field(p, 'left') : undefined
  if (key === undefined) return undefined
  const path = memberPath(tree, key)
  return path.at(-1)
}

function jsSharedWrites (tree: SyntaxTree): string[] {
  const scopes = new Scopes(tree, JS_FUNCTIONS)
  const modules = new Set<string>()
  const sites: Site[] = []
  const catches: string[] = []
  const throws: SyntaxNode[] = []
  const functions = new Map<string, SyntaxNode[][]>()
  /** Every default in a pattern is a value its names may get (`[b = assert] = []`). */
  const defaults = (p: SyntaxNode | undefined): void => {
    for (const d of p === undefined ? [] : [p, ...descendants(p)]) {
      if (d.type !== 'assignment_pattern' && d.type !== 'object_assignment_pattern') continue
      const right = field(d, 'right')
      if (right !== undefined) sites.push({ at: d, names: patternNames(tree, field(d, 'left')), value: right })
    }
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        scopes.declare(n.parent?.type === 'variable_declaration' ? scopes.fn(n) : scopes.nearest(n, JS_BLOCKS), patternNames(tree, name))
        defaults(name)
        if (value !== undefined && isRequire(tree, value)) for (const x of patternNames(tree, name)) modules.add(x)
        else if (value !== undefined) sites.push({ at: n, names: patternNames(tree, name), value })
        break
      }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'class_declaration':
      case 'class': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(scopes.nearest(n, JS_BLOCKS), [textOf(tree, name)]); break }
      case 'function_expression':
      case 'generator_function': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(n, [textOf(tree, name)]); break }
      case 'catch_clause': {
        const names = patternNames(tree, field(n, 'parameter'))
        scopes.declare(n, names)
        catches.push(...names)
        break
      }
      case 'throw_statement': { const v = n.children.find(c => c.named && c.type !== 'comment'); if (v !== undefined) throws.push(v); break }
      case 'for_in_statement': {
        const left = field(n, 'left')
        const right = field(n, 'right')
        const kw = loopKeyword(tree, n)
        if (kw !== undefined) scopes.declare(kw === 'var' ? scopes.fn(n) : n, patternNames(tree, left))
        defaults(left)
        if (right !== undefined) sites.push({ at: n, names: assignedTargets(left).flatMap(t => patternNames(tree, t)), value: right })
        break
      }
      case 'import_clause':
      case 'namespace_import': {
        const names = n.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x))
        scopes.declare(tree.root, names)
        for (const x of names) modules.add(x)
        break
      }
      case 'import_specifier': {
        const name = field(n, 'alias') ?? field(n, 'name')
        if (name !== undefined) { scopes.declare(tree.root, [textOf(tree, name)]); modules.add(textOf(tree, name)) }
        break
      }
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const left = field(n, 'left')
        const right = field(n, 'right')
        defaults(left)
        if (right !== undefined) sites.push({ at: n, names: assignedTargets(left).flatMap(t => patternNames(tree, t)), value: right })
        break
      }
    }
    if (JS_FUNCTIONS.has(n.type)) {
      const params = jsParams(n)
      scopes.declare(n, params.flatMap(p => patternNames(tree, p)))
      for (const p of params) defaults(p)
      const name = jsFunctionName(tree, n)
      if (name !== undefined) functions.set(name, [...(functions.get(name) ?? []), params])
    }
  }
  // What any throw throws, any catch binding may hold; what a call passes, the parameters of
  // the file's functions of the callee's name may.
  for (const t of throws) sites.push({ at: t, names: catches, value: t })
  for (const n of descendants(tree.root)) {
    const callee = calleeOf(n)
    const defs = callee === undefined ? undefined : functions.get(memberPath(tree, callee).at(-1) ?? '')
    if (defs === undefined) continue
    const args = (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')
    args.forEach((arg, i) => {
      for (const params of defs) {
        const param = params[Math.min(i, params.length - 1)]
        if (param !== undefined) sites.push({ at: n, names: patternNames(tree, param), value: arg })
      }
    })
  }
  const shared = sharedClosure(scopes, modules, sites.map(s => ({ ...s, mentioned: mentions(tree, s.value).map(m => m.name) })), JS_CONSTANTS)
  const out: string[] = passes(tree, scopes, shared, JS_CONSTANTS)
  const write = (t: SyntaxNode, how: string): void => {
    const path = memberPath(tree, t)
    const root = path[0] ?? '<?>'
    if (root === 'this' || root === 'super') return
    if (root.startsWith('<')) {
      out.push(`${how} of ${path.join('.')}, a property of an object reached through an expression, not a name`)
      return
    }
    const declared = scopes.visible(t, root)
    if (path.length === 1) {
      if (!declared) out.push(`${how} of ${root}, which no scope around it declares (a global)`)
      return
    }
    if (!declared) out.push(`${how} of ${path.join('.')}, a property of ${root}, which no scope around it declares (a global)`)
    else if (modules.has(root) && !sites.some(s => s.names.includes(root))) out.push(`${how} of ${path.join('.')}, a property of imported module ${root}`)
    else if (shared.has(root)) out.push(`${how} of ${path.join('.')}, a property of ${root}, which may hold an imported module or a global`)
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'assignment_expression':
      case 'augmented_assignment_expression': for (const t of assignedTargets(field(n, 'left'))) write(t, 'assignment'); break
      case 'update_expression': { const arg = field(n, 'argument'); if (arg !== undefined) write(arg, 'update') } break
      case 'unary_expression': {
        const arg = field(n, 'argument')
        if (arg !== undefined && n.children.some(c => !c.named && textOf(tree, c) === 'delete')) write(arg, 'delete')
        break
      }
      case 'for_in_statement':
        if (loopKeyword(tree, n) === undefined) for (const t of assignedTargets(field(n, 'left'))) write(t, 'loop assignment')
        break
    }
  }
  return out
}

function goSharedWrites (tree: SyntaxTree): string[] {
  const scopes = new Scopes(tree, GO_FUNCTIONS)
  const packages = new Set<string>()
  const sites: Site[] = []
  const ids = (list: SyntaxNode | undefined): string[] => list === undefined ? [] : list.type === 'identifier' ? [textOf(tree, list)] : list.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x))
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'import_spec': {
        const name = field(n, 'name')
        const path = field(n, 'path')
        // Without an alias, the package is named by its last path element (a /vN suffix skipped).
        const elements = path === undefined ? [] : textOf(tree, path).replace(/^["`]|["`]$/g, '').split('/')
        const last = /^v\d+$/.test(elements.at(-1) ?? '') && elements.length > 1 ? elements.at(-2) : elements.at(-1)
        packages.add(name === undefined ? last ?? '' : textOf(tree, name))
        break
      }
      case 'function_declaration':
      case 'method_declaration': scopes.declare(tree.root, ids(field(n, 'name'))); break
      case 'parameter_declaration':
      case 'variadic_parameter_declaration': scopes.declare(scopes.fn(n), fields(n, 'name').flatMap(ids)); break
      case 'var_spec':
      case 'const_spec': {
        const names = fields(n, 'name').flatMap(ids)
        // A package-level spec is the file's; one in a function, its block's.
        scopes.declare(scopes.nearest(n, GO_BLOCKS), names)
        const value = field(n, 'value')
        if (value !== undefined) sites.push({ at: n, names, value })
        break
      }
      case 'short_var_declaration':
      case 'range_clause':
      case 'receive_statement': {
        const names = ids(field(n, 'left'))
        // In a block, the block's; in an if, for or switch header, that statement's.
        const header = n.parent !== undefined && ['if_statement', 'for_statement', 'for_clause', 'expression_switch_statement', 'type_switch_statement', 'communication_case'].includes(n.parent.type)
        if (n.type === 'short_var_declaration' || n.children.some(c => !c.named && textOf(tree, c) === ':=')) scopes.declare(header ? n.parent : scopes.nearest(n, GO_BLOCKS), names)
        const value = field(n, 'right')
        if (value !== undefined) sites.push({ at: n, names, value })
        break
      }
      case 'type_switch_statement': scopes.declare(n, ids(field(n, 'alias'))); break
      case 'assignment_statement': {
        const value = field(n, 'right')
        if (value !== undefined) sites.push({ at: n, names: (field(n, 'left')?.children ?? []).filter(c => c.type === 'identifier').map(c => textOf(tree, c)), value })
        break
      }
    }
  }
  // A package is shared state; so is what a name not declared around a site holds.
  const shared = sharedClosure(scopes, packages, sites.map(s => ({ ...s, mentioned: mentions(tree, s.value).map(m => m.name) })), GO_UNIVERSE)
  const out: string[] = passes(tree, scopes, shared, GO_UNIVERSE)
  const write = (t: SyntaxNode, how: string): void => {
    const text = tokensOf(tree, t, '')
    const root = goRoot(tree, t, true)
    if (root === undefined) {
      out.push(`${how} of ${text}, reached through an expression, not a name`)
      return
    }
    if (root === '_' || GO_UNIVERSE.has(root)) return
    const declared = scopes.visible(t, root)
    if (!declared && packages.has(root)) out.push(`${how} of ${text}, a variable of imported package ${root}`)
    else if (!declared) out.push(`${how} of ${text}, rooted at ${root}, which no scope around it declares (a package-level variable of another file)`)
    else if (t.type !== 'identifier' && shared.has(root)) out.push(`${how} of ${text}, through ${root}, which may hold a pointer to another file's or package's state`)
  }
  for (const n of descendants(tree.root)) {
    if (n.type === 'assignment_statement') for (const t of field(n, 'left')?.children.filter(c => c.named && c.type !== 'comment') ?? []) write(t, 'assignment')
    else if (n.type === 'inc_statement' || n.type === 'dec_statement') { const t = n.children.find(c => c.named && c.type !== 'comment'); if (t !== undefined) write(t, n.type === 'inc_statement' ? 'increment' : 'decrement') }
  }
  return out
}
