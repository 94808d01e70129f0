// Writes to state the file shares with other code, the tests first, for calls-preserved's
// rebindings (added ones are rejected; existing ones may keep changing their values). A test
// that calls `assert.equal` from its own file reaches the module object a source file imports
// too, so a write to it changes what the test calls without any call, name or declaration of
// the source file changing (`const LIMIT = (assert.equal = assert, 100)`, a sixth audit).
//   JavaScript: an assignment, update, `delete` or loop assignment whose target is
//   - a property of a name not declared in a scope around the write (a global, or a name the
//     file declares only elsewhere): `Math.max = …`, `process.exitCode = …`;
//   - a property of an imported module (`assert.equal = …`), or of a binding that may hold
//     shared state: one given a value that mentions an imported or undeclared name anywhere
//     (`a = [assert, a]; a[0].equal = …`), by name, transitively;
//   - a property of an object that is not a plain name (`(0, assert).equal = …`,
//     `[assert][0].equal = …`, `''.constructor.prototype.x = …`), whatever it holds;
//   - a name not declared in a scope around it (`expected = 3`: a global).
//   go: an assignment or `++`/`--` whose target is rooted at an imported package
//   (`flag.CommandLine = …`), at a name not declared in a scope around it (`want = a - b`: a
//   package-level var of another file, a test file's among them), at a binding that may hold
//   a pointer to shared state (`p = &want; *p = …`), or at no name (`*[]*int{&limit}[0] = n`).
// Scopes are functions (and a catch clause), not blocks: a name declared anywhere in an
// enclosing function counts as declared, which can only hide a write behind a block-scoped
// shadow of the same name, never report a local one.

import { goRoot, memberPath } from '../syntax/member-path.ts'
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

const JS_SCOPES = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'generator_function', 'arrow_function', 'method_definition', 'catch_clause'])
const GO_SCOPES = new Set(['function_declaration', 'method_declaration', 'func_literal'])

/** Go's predeclared names (a conversion `int64(x)` names its type as an identifier): never another file's state. */
const GO_UNIVERSE = new Set([
  'true', 'false', 'iota', 'nil', '_', 'append', 'cap', 'clear', 'close', 'complex', 'copy', 'delete', 'imag', 'len', 'make', 'max', 'min', 'new', 'panic', 'print', 'println', 'real', 'recover',
  'any', 'bool', 'byte', 'comparable', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16', 'int32', 'int64', 'rune', 'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr',
])

/** Names declared per scope (a function, a catch clause, or the file), and what is visible at a node. */
class Scopes {
  private readonly declared = new Map<SyntaxNode, Set<string>>()
  constructor (private readonly tree: SyntaxTree, private readonly kinds: ReadonlySet<string>) {}

  /** The nearest scope around `n` (not `n` itself): a function, a catch clause or the file. */
  around (n: SyntaxNode): SyntaxNode {
    let c = n.parent
    while (c !== undefined && !this.kinds.has(c.type)) c = c.parent
    return c ?? this.tree.root
  }

  declare (scope: SyntaxNode, names: Iterable<string>): void {
    const set = this.declared.get(scope) ?? new Set<string>()
    for (const name of names) set.add(name)
    this.declared.set(scope, set)
  }

  /** Whether `name` is declared in a scope around `n`, the file's included. */
  visible (n: SyntaxNode, name: string): boolean {
    for (let s: SyntaxNode | undefined = this.around(n); ; s = this.around(s)) {
      if (this.declared.get(s)?.has(name) === true) return true
      if (s === this.tree.root) return false
    }
  }
}

/**
 * Every name an expression mentions (function bodies included): what its value may hold or
 * lead to. Not a go struct literal's field key (`Calc{op: minus}`), which names no value.
 */
function mentionedNames (tree: SyntaxTree, n: SyntaxNode | undefined): string[] {
  if (n === undefined) return []
  const fieldKey = (d: SyntaxNode): boolean => d.parent?.type === 'literal_element' && d.parent.field === 'key'
  return [n, ...descendants(n)].filter(d => (d.type === 'identifier' || d.type === 'shorthand_property_identifier') && !fieldKey(d)).map(d => textOf(tree, d))
}

/**
 * The bindings that may hold shared state: `seeds`, and every name a site binds to a value
 * that mentions one of them or a name not declared around the site, transitively, by name.
 */
function sharedClosure (tree: SyntaxTree, scopes: Scopes, seeds: Iterable<string>, sites: ReadonlyArray<{ at: SyntaxNode, names: string[], value: SyntaxNode }>, predeclared: ReadonlySet<string> = new Set()): Set<string> {
  const shared = new Set(seeds)
  const mentions = sites.map(s => ({ ...s, mentioned: mentionedNames(tree, s.value) }))
  for (let grew = true; grew;) {
    grew = false
    for (const s of mentions) {
      if (!s.mentioned.some(m => shared.has(m) || (!predeclared.has(m) && !scopes.visible(s.at, m)))) continue
      for (const name of s.names) if (!shared.has(name)) { shared.add(name); grew = true }
    }
  }
  return shared
}

/** Whether `n` is `require(…)`, or a property of its result (`require('assert').strict`). */
function isRequire (tree: SyntaxTree, n: SyntaxNode | undefined): boolean {
  let c = n
  while (c !== undefined && (c.type === 'member_expression' || c.type === 'subscript_expression' || c.type === 'parenthesized_expression')) c = c.type === 'parenthesized_expression' ? c.children.find(x => x.named && x.type !== 'comment') : field(c, 'object')
  const fn = c?.type === 'call_expression' ? field(c, 'function') : undefined
  return fn?.type === 'identifier' && textOf(tree, fn) === 'require'
}

const isLoopDeclaration = (tree: SyntaxTree, n: SyntaxNode): boolean => n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))

function jsSharedWrites (tree: SyntaxTree): string[] {
  const scopes = new Scopes(tree, JS_SCOPES)
  const modules = new Set<string>()
  const sites: Array<{ at: SyntaxNode, names: string[], value: SyntaxNode }> = []
  const local = (n: SyntaxNode, p: SyntaxNode | undefined): void => { scopes.declare(scopes.around(n), patternNames(tree, p)) }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        local(n, name)
        if (value !== undefined && isRequire(tree, value)) for (const x of patternNames(tree, name)) modules.add(x)
        else if (value !== undefined) sites.push({ at: n, names: patternNames(tree, name), value })
        break
      }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'class_declaration': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(scopes.around(n), [textOf(tree, name)]); break }
      case 'function_expression':
      case 'generator_function':
      case 'class': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(n.type === 'class' ? scopes.around(n) : n, [textOf(tree, name)]); break }
      case 'formal_parameters': {
        const fn = n.parent ?? tree.root
        for (const c of n.children.filter(x => x.named)) scopes.declare(fn, patternNames(tree, c.type === 'required_parameter' || c.type === 'optional_parameter' ? field(c, 'pattern') : c))
        break
      }
      case 'arrow_function': { const p = field(n, 'parameter'); if (p !== undefined) scopes.declare(n, patternNames(tree, p)); break }
      case 'catch_clause': scopes.declare(n, patternNames(tree, field(n, 'parameter'))); break
      case 'for_in_statement': {
        const left = field(n, 'left')
        const right = field(n, 'right')
        if (isLoopDeclaration(tree, n)) local(n, left)
        if (right !== undefined) sites.push({ at: n, names: patternNames(tree, left), value: right })
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
        const right = field(n, 'right')
        if (right !== undefined) sites.push({ at: n, names: assignedTargets(field(n, 'left')).filter(t => t.type === 'identifier').map(t => textOf(tree, t)), value: right })
        break
      }
    }
  }
  const shared = sharedClosure(tree, scopes, modules, sites)
  const out: string[] = []
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
        if (!isLoopDeclaration(tree, n)) for (const t of assignedTargets(field(n, 'left'))) write(t, 'loop assignment')
        break
    }
  }
  return out
}

function goSharedWrites (tree: SyntaxTree): string[] {
  const scopes = new Scopes(tree, GO_SCOPES)
  const packages = new Set<string>()
  const sites: Array<{ at: SyntaxNode, names: string[], value: SyntaxNode }> = []
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
      case 'variadic_parameter_declaration': scopes.declare(scopes.around(n), fields(n, 'name').flatMap(ids)); break
      case 'var_spec':
      case 'const_spec': {
        const names = fields(n, 'name').flatMap(ids)
        scopes.declare(scopes.around(n), names)
        const value = field(n, 'value')
        if (value !== undefined) sites.push({ at: n, names, value })
        break
      }
      case 'short_var_declaration':
      case 'range_clause':
      case 'receive_statement': {
        const names = ids(field(n, 'left'))
        if (n.type === 'short_var_declaration' || n.children.some(c => !c.named && textOf(tree, c) === ':=')) scopes.declare(scopes.around(n), names)
        const value = field(n, 'right')
        if (value !== undefined) sites.push({ at: n, names, value })
        break
      }
      case 'type_switch_statement': scopes.declare(scopes.around(n), ids(field(n, 'alias'))); break
      case 'assignment_statement': {
        const value = field(n, 'right')
        if (value !== undefined) sites.push({ at: n, names: (field(n, 'left')?.children ?? []).filter(c => c.type === 'identifier').map(c => textOf(tree, c)), value })
        break
      }
    }
  }
  // A package is shared state; so is what a name not declared around a site holds.
  const shared = sharedClosure(tree, scopes, packages, sites, GO_UNIVERSE)
  const out: string[] = []
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
