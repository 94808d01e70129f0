// Writes to state the file shares with other code, the tests first, for calls-preserved's
// rebindings (added ones are rejected; existing ones may keep changing their values):
//   JavaScript: an assignment, update, `delete` or loop assignment whose target is a property
//   of an imported module (`assert.equal = assert`, also inside an initializer:
//   `const LIMIT = (assert.equal = assert, 100)`), of a name the file never declares (a
//   global: `Math.max = …`, `globalThis.x = …`, `process.exitCode = …`), or of a binding that
//   may hold one of those (`m = assert.strict; m.equal = …`, by name, transitively), and an
//   assignment to a name the file never declares (`expected = 3`: a global);
//   go: an assignment or `++`/`--` whose target is rooted at an imported package
//   (`flag.CommandLine = …`) or at a name the file never declares (`want = -1`: a
//   package-level variable of another file of the package, a test file's among them).
// A test that calls `assert.equal` from its own file reaches the module object a source file
// imports too, so a write to it changes what the test calls without any call, name or
// declaration of the source file changing.

import { goRoot, memberPath } from '../syntax/member-path.ts'
import { descendants, field, fields, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { patternNames } from './declarations-preserved.ts'

/** Every added-write candidate of a file, one line each. */
export function sharedWritesOf (tree: SyntaxTree): string[] {
  return tree.grammar === 'go' ? goSharedWrites(tree) : jsSharedWrites(tree)
}

/** Every name a JavaScript file binds anywhere: declarations, parameters, imports, catch bindings. */
function jsDeclaredNames (tree: SyntaxTree): Set<string> {
  const out = new Set<string>()
  const addPattern = (p: SyntaxNode | undefined): void => { for (const name of patternNames(tree, p)) out.add(name) }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'variable_declarator': addPattern(field(n, 'name')); break
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'function_expression':
      case 'generator_function':
      case 'class_declaration':
      case 'class': { const name = field(n, 'name'); if (name !== undefined) out.add(textOf(tree, name)); break }
      case 'formal_parameters': for (const c of n.children.filter(x => x.named)) addPattern(c.type === 'required_parameter' || c.type === 'optional_parameter' ? field(c, 'pattern') : c); break
      case 'arrow_function': { const p = field(n, 'parameter'); if (p !== undefined) addPattern(p); break }
      case 'catch_clause': addPattern(field(n, 'parameter')); break
      case 'for_in_statement': if (n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))) addPattern(field(n, 'left')); break
      case 'import_clause':
      case 'namespace_import': for (const c of n.children.filter(x => x.type === 'identifier')) out.add(textOf(tree, c)); break
      case 'import_specifier': { const local = field(n, 'alias') ?? field(n, 'name'); if (local !== undefined) out.add(textOf(tree, local)); break }
    }
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

/** The names an expression may evaluate to, or to a property of (`a` for `a.b`, both for `a || b`). */
function valueRoots (tree: SyntaxTree, n: SyntaxNode | undefined): string[] {
  if (n === undefined) return []
  const named = n.children.filter(c => c.named && c.type !== 'comment')
  switch (n.type) {
    case 'identifier': return [textOf(tree, n)]
    case 'member_expression':
    case 'subscript_expression': return valueRoots(tree, field(n, 'object'))
    case 'parenthesized_expression':
    case 'await_expression': return named.flatMap(c => valueRoots(tree, c))
    case 'sequence_expression': return valueRoots(tree, named.at(-1))
    case 'ternary_expression': return [...valueRoots(tree, field(n, 'consequence')), ...valueRoots(tree, field(n, 'alternative'))]
    case 'binary_expression': {
      const op = textOf(tree, field(n, 'operator') ?? n)
      return ['||', '&&', '??'].includes(op) ? [...valueRoots(tree, field(n, 'left')), ...valueRoots(tree, field(n, 'right'))] : []
    }
    case 'assignment_expression':
    case 'augmented_assignment_expression': return valueRoots(tree, field(n, 'right'))
    default: return []
  }
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

function jsSharedWrites (tree: SyntaxTree): string[] {
  const declared = jsDeclaredNames(tree)
  // Module bindings: ESM imports, and names bound to what require(…) returns.
  const shared = new Set<string>()
  const sites: Array<{ names: string[], value: SyntaxNode }> = []
  for (const n of descendants(tree.root)) {
    if (n.type === 'import_clause' || n.type === 'namespace_import') for (const c of n.children.filter(x => x.type === 'identifier')) shared.add(textOf(tree, c))
    else if (n.type === 'import_specifier') { const local = field(n, 'alias') ?? field(n, 'name'); if (local !== undefined) shared.add(textOf(tree, local)) }
    else if (n.type === 'variable_declarator') {
      const name = field(n, 'name')
      const value = field(n, 'value')
      if (value === undefined) continue
      if (isRequire(tree, value)) for (const x of patternNames(tree, name)) shared.add(x)
      else sites.push({ names: patternNames(tree, name), value })
    } else if (n.type === 'assignment_expression') {
      const right = field(n, 'right')
      if (right !== undefined) sites.push({ names: assignedTargets(field(n, 'left')).filter(t => t.type === 'identifier').map(t => textOf(tree, t)), value: right })
    } else if (n.type === 'for_in_statement') {
      const right = field(n, 'right')
      if (right !== undefined) sites.push({ names: patternNames(tree, field(n, 'left')), value: right })
    }
  }
  const isShared = (name: string): boolean => shared.has(name) || !declared.has(name)
  // A binding given a module, a global or a property of either holds shared state too.
  for (let grew = true; grew;) {
    grew = false
    for (const s of sites) {
      if (!valueRoots(tree, s.value).some(isShared)) continue
      for (const name of s.names) if (!shared.has(name)) { shared.add(name); grew = true }
    }
  }
  const out: string[] = []
  const write = (t: SyntaxNode, how: string): void => {
    const path = memberPath(tree, t)
    const root = path[0] ?? '<?>'
    if (root.startsWith('<') || root === 'this' || root === 'super') return
    if (path.length === 1) {
      if (!declared.has(root)) out.push(`${how} of global ${root}, which the file does not declare`)
      return
    }
    if (isShared(root)) out.push(`${how} of ${path.join('.')}, a property of ${declared.has(root) ? shared.has(root) && !sites.some(s => s.names.includes(root)) ? 'an imported module' : `${root}, which may hold an imported module or a global` : 'a global'}`)
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
        if (!n.children.some(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))) for (const t of assignedTargets(field(n, 'left'))) write(t, 'loop assignment')
        break
    }
  }
  return out
}

/** Every name a go file declares at any scope, parameters, results and receivers included. */
function goDeclaredNames (tree: SyntaxTree): Set<string> {
  const out = new Set<string>()
  const ids = (list: SyntaxNode | undefined): void => {
    if (list === undefined) return
    if (list.type === 'identifier') out.add(textOf(tree, list))
    else for (const c of list.children.filter(x => x.type === 'identifier')) out.add(textOf(tree, c))
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'function_declaration':
      case 'method_declaration': ids(field(n, 'name')); break
      case 'parameter_declaration':
      case 'variadic_parameter_declaration':
      case 'var_spec':
      case 'const_spec': for (const id of fields(n, 'name')) ids(id); break
      case 'short_var_declaration':
      case 'range_clause':
      case 'receive_statement': ids(field(n, 'left')); break
      case 'type_switch_statement': ids(field(n, 'alias')); break
    }
  }
  return out
}

function goSharedWrites (tree: SyntaxTree): string[] {
  const declared = goDeclaredNames(tree)
  const packages = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (n.type !== 'import_spec') continue
    const name = field(n, 'name')
    const path = field(n, 'path')
    // Without an alias, the package is named by its last path element (a /vN suffix skipped).
    const elements = path === undefined ? [] : textOf(tree, path).replace(/^["`]|["`]$/g, '').split('/')
    const last = /^v\d+$/.test(elements.at(-1) ?? '') && elements.length > 1 ? elements.at(-2) : elements.at(-1)
    packages.add(name === undefined ? last ?? '' : textOf(tree, name))
  }
  const out: string[] = []
  const write = (t: SyntaxNode, how: string): void => {
    const root = goRoot(tree, t, true)
    if (root === undefined || root === '_' || declared.has(root)) return
    const text = tokensOf(tree, t, '')
    out.push(packages.has(root) && t.type === 'selector_expression'
      ? `${how} of ${text}, a variable of imported package ${root}`
      : `${how} of ${text}, rooted at ${root}, which the file does not declare (a package-level variable of another file)`)
  }
  for (const n of descendants(tree.root)) {
    if (n.type === 'assignment_statement') for (const t of field(n, 'left')?.children.filter(c => c.named && c.type !== 'comment') ?? []) write(t, 'assignment')
    else if (n.type === 'inc_statement' || n.type === 'dec_statement') { const t = n.children.find(c => c.named && c.type !== 'comment'); if (t !== undefined) write(t, n.type === 'inc_statement' ? 'increment' : 'decrement') }
  }
  return out
}
