// Writes to state the file shares with other code, the tests first, for calls-preserved's
// rebindings (added ones are rejected; existing ones may keep changing their values). A test
// that calls `assert.equal` from its own file reaches the module object a source file imports
// too, so a write to it changes what the test calls without any call, name or declaration of
// the source file changing (`const LIMIT = (assert.equal = assert, 100)`, a sixth audit).
// Four audit rounds shaped what follows; the fixture table keeps each way around it found.
//
// State is followed by access path (`o`, `o.p`, `this.x`, `a.[*]`), not by name alone. A
// path may hold shared state when it is given, by a declaration, assignment, destructuring
// default, loop, catch binding (what a `throw` of the file throws) or parameter (what a call
// of the file's function of that name passes), a value that holds an imported module (or go
// package), a name no scope around it declares (a global; another file's variable), or a path
// that already may. An object or array literal gives each property its own path (`r = { sep:
// path.sep }` makes `r.sep` shared, not `r`); a spread copies one level (`{ ...DEFAULTS }`
// makes `opts.[*]` shared); a callee, a function literal's body and an operator that makes a
// number, string or boolean are not followed, so what a call returns is not tracked (what it
// is passed is). go's `&v` passes v's storage on.
//
// The findings:
//   - a write (assignment, update, `delete`, loop assignment; go `=`, `++`, `--`) whose
//     target is rooted at an imported module (JavaScript; go: a package), at a name no scope
//     around it declares (`Math.max = …`, go `want = a - b` for a test file's var), at no
//     name (`(0, assert).equal = …`, go `*[]*int{&limit}[0] = n`), or under a path that may
//     hold shared state (`o.p.equal = …` after `o.p = assert`; go `*p = …` after `p = &want`);
//   - a call whose arguments pass shared state on, added or changed: in JavaScript a path that
//     may hold it or a module imported from outside the project (`check(assert)`,
//     `Object.assign(assert, …)`), in go `&v` of such a variable (`clampTo(&want, sum)`).
//     Globals passed bare (`map(Number)`), a project module's exports (`sort(byValue)`) and a
//     go value passed by value (`errors.Is(err, ErrNotFound)`) are not findings.
// Scopes are blocks (go; JavaScript let/const) or functions (JavaScript var).

import { literalKey, memberPath, samePath } from '../syntax/member-path.ts'
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

  /** Whether `name` is declared around `n` below the file: a local that hides the file's (an import) of that name. */
  shadowed (n: SyntaxNode, name: string): boolean {
    for (let c: SyntaxNode | undefined = n; c !== undefined && c !== this.tree.root; c = c.parent) if (this.declared.get(c)?.has(name) === true) return true
    return false
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

type Path = readonly string[]

/**
 * The longest access path kept: a longer one is cut to its first 8 segments, which stand for
 * everything under them (a cycle, `a.b = a`, ends there; nothing deeper escapes).
 */
const MAX_PATH = 8

/** Whether `prefix` is `path` or an object `path` is under (`[*]` matches any one segment). */
function under (prefix: Path, path: Path): boolean {
  return prefix.length <= path.length && samePath(prefix, path.slice(0, prefix.length))
}

/** A value that reaches a path: `target` may hold what `source` holds (the state under it). */
interface Flow { at: SyntaxNode, target: Path, source: Path }

/** JavaScript operators whose result may be an operand itself; any other makes a primitive. */
const JS_PASSING = new Set(['||', '&&', '??'])

/** A JavaScript object key as a path segment: its name, or `[*]` when computed. */
function keySegment (tree: SyntaxTree, key: SyntaxNode | undefined): string {
  if (key === undefined) return '[*]'
  if (key.type === 'computed_property_name') {
    const inner = key.children.find(c => c.named && c.type !== 'comment')
    return inner === undefined ? '[*]' : literalKey(tree, inner) ?? '[*]'
  }
  return literalKey(tree, key) ?? textOf(tree, key)
}

/** The flows a JavaScript value gives `target` (see the header). */
function jsFlows (tree: SyntaxTree, at: SyntaxNode, whole: Path, v: SyntaxNode | undefined, out: Flow[]): void {
  if (v === undefined) return
  const target = whole.slice(0, MAX_PATH)
  const named = v.children.filter(c => c.named && c.type !== 'comment')
  const to = (t: Path, x: SyntaxNode | undefined): void => { jsFlows(tree, at, t, x, out) }
  switch (v.type) {
    case 'identifier':
    case 'this':
    case 'shorthand_property_identifier':
      out.push({ at, target, source: [textOf(tree, v)] })
      return
    case 'member_expression':
    case 'subscript_expression': {
      const path = memberPath(tree, v)
      // An object that is no name (`[assert][0]`, `(0, assert).strict`): what it may hold.
      if ((path[0] ?? '<').startsWith('<')) to(target, field(v, 'object'))
      else out.push({ at, target, source: path })
      return
    }
    case 'parenthesized_expression':
    case 'await_expression':
    case 'spread_element': for (const c of named) to(target, c); return
    case 'sequence_expression': to(target, named.at(-1)); return
    case 'ternary_expression': to(target, field(v, 'consequence')); to(target, field(v, 'alternative')); return
    case 'binary_expression':
      if (JS_PASSING.has(textOf(tree, field(v, 'operator') ?? v))) { to(target, field(v, 'left')); to(target, field(v, 'right')) }
      return
    case 'assignment_expression':
    case 'augmented_assignment_expression': to(target, field(v, 'right')); return
    case 'object':
      for (const c of named) {
        if (c.type === 'pair') to([...target, keySegment(tree, field(c, 'key'))], field(c, 'value'))
        else if (c.type === 'shorthand_property_identifier') to([...target, textOf(tree, c)], c)
        else if (c.type === 'spread_element') for (const x of c.children.filter(y => y.named)) spreadInto(x)
      }
      return
    case 'array':
      for (const c of named) {
        if (c.type === 'spread_element') for (const x of c.children.filter(y => y.named)) spreadInto(x)
        else to([...target, '[*]'], c)
      }
      return
    default:
      // Calls (what a call returns is not tracked; what it is passed is, as a finding of its
      // own), literals, function and class literals, templates, unary and update operators:
      // a new value, or a primitive.
  }
  /** `...x`: a literal's own paths land as they are, a path's properties one level down. */
  function spreadInto (x: SyntaxNode): void {
    const inner: Flow[] = []
    jsFlows(tree, at, [], x, inner)
    for (const f of inner) out.push(f.target.length > 0 ? { at, target: [...target, ...f.target], source: f.source } : { at, target: [...target, '[*]'], source: [...f.source, '[*]'] })
  }
}

/** A go access path: `s.p`, `xs.[*]`; undefined when it is rooted at no name (a literal, a call). */
function goPath (tree: SyntaxTree, n: SyntaxNode | undefined): Path | undefined {
  if (n === undefined) return undefined
  switch (n.type) {
    case 'identifier': return [textOf(tree, n)]
    case 'selector_expression': { const base = goPath(tree, field(n, 'operand')); const f = field(n, 'field'); return base === undefined || f === undefined ? undefined : [...base, textOf(tree, f)] }
    case 'index_expression':
    case 'slice_expression': { const base = goPath(tree, field(n, 'operand')); return base === undefined ? undefined : [...base, '[*]'] }
    case 'parenthesized_expression': return goPath(tree, n.children.find(c => c.named && c.type !== 'comment'))
    case 'unary_expression': return textOf(tree, field(n, 'operator') ?? n) === '*' ? goPath(tree, field(n, 'operand')) : undefined
    default: return undefined
  }
}

/** The flows a go value gives `target`: `&v` and `*p` pass v's and p's state on, a literal each element's. */
function goFlows (tree: SyntaxTree, at: SyntaxNode, whole: Path, v: SyntaxNode | undefined, out: Flow[]): void {
  if (v === undefined) return
  const target = whole.slice(0, MAX_PATH)
  const named = v.children.filter(c => c.named && c.type !== 'comment')
  const to = (t: Path, x: SyntaxNode | undefined): void => { goFlows(tree, at, t, x, out) }
  switch (v.type) {
    case 'identifier':
    case 'selector_expression':
    case 'index_expression':
    case 'slice_expression': {
      const path = goPath(tree, v)
      if (path !== undefined) out.push({ at, target, source: path })
      else to(target, field(v, 'operand'))
      return
    }
    case 'parenthesized_expression':
    case 'literal_element':
    case 'expression_list': for (const c of named) to(target, c); return
    case 'unary_expression':
      if (['&', '*'].includes(textOf(tree, field(v, 'operator') ?? v))) to(target, field(v, 'operand'))
      return
    case 'composite_literal': to(target, field(v, 'body')); return
    case 'literal_value':
      for (const c of named) {
        if (c.type === 'keyed_element') {
          const [key, value] = c.children.filter(x => x.named && x.type !== 'comment')
          const name = key?.children.find(x => x.type === 'identifier' || x.type === 'field_identifier')
          to([...target, name === undefined ? '[*]' : textOf(tree, name)], value)
        } else to([...target, '[*]'], c)
      }
      return
    default:
      // Calls (not tracked), func literals, arithmetic: a new value, or a primitive.
  }
}

/**
 * The paths that may hold shared state: those `seeded` holds (a module, an undeclared name)
 * and every path a flow gives from one, transitively (a flow from `o` to `t` also gives
 * `t.p` when `o.p` may).
 */
function sharedPaths (flows: readonly Flow[], seeded: (f: Flow) => boolean): Path[] {
  const shared: Path[] = []
  const seen = new Set<string>()
  // Each path, once added, meets only the flows from its own root (paths are rooted at names),
  // once: linear in what is shared, not a fixpoint over every flow per round.
  const queue: Path[] = []
  const add = (whole: Path): void => {
    const p = whole.slice(0, MAX_PATH)
    const key = p.join('\u0000')
    if (p.length === 0 || seen.has(key)) return
    seen.add(key)
    shared.push(p)
    queue.push(p)
  }
  const fromRoot = new Map<string, Flow[]>()
  for (const f of flows) {
    const root = f.source[0]
    if (root === undefined) continue
    const list = fromRoot.get(root)
    if (list === undefined) fromRoot.set(root, [f])
    else list.push(f)
  }
  for (const f of flows) if (seeded(f)) add(f.target)
  for (let p = queue.pop(); p !== undefined; p = queue.pop()) {
    for (const f of fromRoot.get(p[0] ?? '') ?? []) {
      if (under(p, f.source)) add(f.target)
      else if (under(f.source, p)) add([...f.target, ...p.slice(f.source.length)])
    }
  }
  return shared
}

/** The shared path `path` is under (a proper prefix of it, or itself when `self`), if any. */
function sharedUnder (shared: readonly Path[], path: Path, self: boolean): Path | undefined {
  return shared.find(p => under(p, path) && (self || p.length < path.length))
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
  /** Modules imported from outside the project (`node:assert`, a package), not `./x.js`. */
  const outside = new Set<string>()
  const flows: Flow[] = []
  const catches: SyntaxNode[] = []
  const throws: SyntaxNode[] = []
  const functions = new Map<string, SyntaxNode[][]>()
  /** An import's bindings; a whole module (default or namespace) from outside the project may be passed on. */
  const importFrom = (n: SyntaxNode, names: string[], whole: boolean): void => {
    let stmt: SyntaxNode | undefined = n
    while (stmt !== undefined && stmt.type !== 'import_statement') stmt = stmt.parent
    const source = stmt === undefined ? undefined : field(stmt, 'source')
    const relative = source !== undefined && /^['"]\.\.?\//.test(textOf(tree, source))
    scopes.declare(tree.root, names)
    for (const x of names) { modules.add(x); if (whole && !relative) outside.add(x) }
  }
  /** A binding pattern gets `value`: a name whole; through a destructuring, every name anything the value holds. */
  const bind = (at: SyntaxNode, pattern: SyntaxNode | undefined, value: SyntaxNode | undefined): void => {
    if (pattern === undefined) return
    if (pattern.type === 'identifier') { jsFlows(tree, at, [textOf(tree, pattern)], value, flows); return }
    const held: Flow[] = []
    jsFlows(tree, at, [], value, held)
    for (const name of patternNames(tree, pattern)) for (const f of held) flows.push({ at, target: [name], source: f.source })
  }
  /** Every default in a pattern is a value its names may get (`[b = assert] = []`). */
  const defaults = (p: SyntaxNode | undefined): void => {
    for (const d of p === undefined ? [] : [p, ...descendants(p)]) {
      if (d.type !== 'assignment_pattern' && d.type !== 'object_assignment_pattern') continue
      for (const name of patternNames(tree, field(d, 'left'))) jsFlows(tree, d, [name], field(d, 'right'), flows)
    }
  }
  /**
   * `value` reaches every target of `left`: a name or path whole, and through a destructuring
   * every target gets anything the value holds, whatever key it comes from.
   */
  const assign = (at: SyntaxNode, left: SyntaxNode | undefined, value: SyntaxNode | undefined): void => {
    const pattern = left !== undefined && (left.type === 'object_pattern' || left.type === 'array_pattern')
    const held: Flow[] = []
    if (pattern) jsFlows(tree, at, [], value, held)
    for (const t of assignedTargets(left)) {
      const paths = t.type === 'identifier' || t.type === 'shorthand_property_identifier_pattern' || t.type === 'member_expression' || t.type === 'subscript_expression' ? [memberPath(tree, t)] : patternNames(tree, t).map(x => [x])
      for (const target of paths) {
        if (pattern) for (const f of held) flows.push({ at, target, source: f.source })
        else jsFlows(tree, at, target, value, flows)
      }
    }
    defaults(left)
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'variable_declarator': {
        const name = field(n, 'name')
        const value = field(n, 'value')
        scopes.declare(n.parent?.type === 'variable_declaration' ? scopes.fn(n) : scopes.nearest(n, JS_BLOCKS), patternNames(tree, name))
        if (value !== undefined && isRequire(tree, value)) {
          // A whole module from outside the project (`const assert = require('node:assert')`) may be passed on.
          const spec = [...descendants(value)].find(d => d.type === 'string')
          const whole = name?.type === 'identifier' && value.type === 'call_expression'
          for (const x of patternNames(tree, name)) { modules.add(x); if (whole && !/^['"]\.\.?\//.test(spec === undefined ? '' : textOf(tree, spec))) outside.add(x) }
        } else {
          bind(n, name, value)
          defaults(name)
        }
        break
      }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'class_declaration':
      case 'class': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(scopes.nearest(n, JS_BLOCKS), [textOf(tree, name)]); break }
      case 'function_expression':
      case 'generator_function': { const name = field(n, 'name'); if (name !== undefined) scopes.declare(n, [textOf(tree, name)]); break }
      case 'catch_clause': {
        const param = field(n, 'parameter')
        scopes.declare(n, patternNames(tree, param))
        if (param !== undefined) catches.push(param)
        break
      }
      case 'throw_statement': { const v = n.children.find(c => c.named && c.type !== 'comment'); if (v !== undefined) throws.push(v); break }
      case 'for_in_statement': {
        const kw = loopKeyword(tree, n)
        if (kw !== undefined) scopes.declare(kw === 'var' ? scopes.fn(n) : n, patternNames(tree, field(n, 'left')))
        // An element of what it iterates.
        const right = field(n, 'right')
        const inner: Flow[] = []
        jsFlows(tree, n, [], right, inner)
        for (const t of assignedTargets(field(n, 'left'))) {
          const targets = t.type === 'member_expression' || t.type === 'subscript_expression' ? [memberPath(tree, t)] : patternNames(tree, t).map(x => [x])
          for (const target of targets) for (const f of inner) flows.push({ at: n, target, source: [...f.source, '[*]'] })
        }
        defaults(field(n, 'left'))
        break
      }
      case 'import_clause':
      case 'namespace_import': importFrom(n, n.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x)), true); break
      case 'import_specifier': { const name = field(n, 'alias') ?? field(n, 'name'); if (name !== undefined) importFrom(n, [textOf(tree, name)], false); break }
      case 'assignment_expression':
      case 'augmented_assignment_expression': assign(n, field(n, 'left'), field(n, 'right')); break
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
  for (const t of throws) for (const c of catches) bind(t, c, t)
  for (const n of descendants(tree.root)) {
    const callee = calleeOf(n)
    const defs = callee === undefined ? undefined : functions.get(memberPath(tree, callee).at(-1) ?? '')
    if (defs === undefined) continue
    const args = (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')
    args.forEach((arg, i) => {
      for (const params of defs) {
        bind(n, params[Math.min(i, params.length - 1)], arg)
      }
    })
  }
  const rootShared = (at: SyntaxNode, root: string): boolean => (modules.has(root) && !scopes.shadowed(at, root)) || (root !== 'this' && root !== 'super' && !root.startsWith('<') && !JS_CONSTANTS.has(root) && !scopes.visible(at, root))
  const shared = sharedPaths(flows, f => rootShared(f.at, f.source[0] ?? ''))
  const out: string[] = []
  // Calls that pass shared state on: a path that may hold it, or a module from outside.
  for (const n of descendants(tree.root)) {
    const callee = calleeOf(n)
    if (callee === undefined) continue
    const passed = new Set<string>()
    for (const arg of (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')) {
      const inner: Flow[] = []
      jsFlows(tree, n, [], arg, inner)
      for (const f of inner) {
        const root = f.source[0] ?? ''
        if ((f.source.length === 1 && outside.has(root) && !scopes.shadowed(n, root)) || shared.some(p => under(p, f.source) || under(f.source, p))) passed.add(f.source.join('.'))
      }
    }
    if (passed.size > 0) out.push(`call ${printableLine(tokensOf(tree, callee, ''), 120)} passes ${[...passed].sort().join(', ')}, shared state, to code that may write it`)
  }
  const write = (t: SyntaxNode, how: string): void => {
    const path = memberPath(tree, t)
    const root = path[0] ?? '<?>'
    if (root === 'super') return
    if (root.startsWith('<')) {
      out.push(`${how} of ${path.join('.')}, a property of an object reached through an expression, not a name`)
      return
    }
    const declared = root === 'this' || scopes.visible(t, root)
    if (path.length === 1) {
      if (!declared) out.push(`${how} of ${root}, which no scope around it declares (a global)`)
      return
    }
    const holder = sharedUnder(shared, path, false)
    if (!declared) out.push(`${how} of ${path.join('.')}, a property of ${root}, which no scope around it declares (a global)`)
    else if (modules.has(root) && !scopes.shadowed(t, root)) out.push(`${how} of ${path.join('.')}, a property of imported module ${root}`)
    else if (holder !== undefined) out.push(`${how} of ${path.join('.')}, under ${holder.join('.')}, which may hold an imported module or a global`)
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
  const flows: Flow[] = []
  const functions = new Map<string, string[][]>()
  const ids = (list: SyntaxNode | undefined): string[] => list === undefined ? [] : list.type === 'identifier' ? [textOf(tree, list)] : list.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x))
  const values = (list: SyntaxNode | undefined): SyntaxNode[] => list === undefined ? [] : list.type === 'expression_list' ? list.children.filter(c => c.named && c.type !== 'comment') : [list]
  /** Each target gets the value at its position (or, for `a, b := f()`, the one value). */
  const assign = (at: SyntaxNode, targets: Array<Path | undefined>, right: SyntaxNode | undefined): void => {
    const vs = values(right)
    targets.forEach((t, i) => { if (t !== undefined) goFlows(tree, at, t, vs.length === targets.length ? vs[i] : right, flows) })
  }
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
      case 'method_declaration': {
        scopes.declare(tree.root, ids(field(n, 'name')))
        const params = (field(n, 'parameters')?.children ?? []).filter(c => c.type === 'parameter_declaration' || c.type === 'variadic_parameter_declaration')
        const name = field(n, 'name')
        // One slot per parameter name, in order (`a, b int` is two).
        if (name !== undefined && n.type === 'function_declaration') functions.set(textOf(tree, name), params.flatMap(p => { const names = fields(p, 'name').flatMap(ids); return names.length === 0 ? [[]] : names.map(x => [x]) }))
        break
      }
      case 'parameter_declaration':
      case 'variadic_parameter_declaration':
        // A function's, method's or literal's own parameters (not a func type's or an interface method's).
        if (n.parent?.parent !== undefined && GO_FUNCTIONS.has(n.parent.parent.type)) scopes.declare(n.parent.parent, fields(n, 'name').flatMap(ids))
        break
      case 'var_spec':
      case 'const_spec': {
        const names = fields(n, 'name').flatMap(ids)
        scopes.declare(scopes.nearest(n, GO_BLOCKS), names)
        assign(n, names.map(x => [x]), field(n, 'value'))
        break
      }
      case 'short_var_declaration':
      case 'range_clause':
      case 'receive_statement': {
        const names = ids(field(n, 'left'))
        // In a block, the block's; in an if, for or switch header, that statement's.
        const header = n.parent !== undefined && ['if_statement', 'for_statement', 'for_clause', 'expression_switch_statement', 'type_switch_statement', 'communication_case'].includes(n.parent.type)
        // (A for clause's variables are the whole for statement's: its body is no child of the clause.)
        const scope = header ? (n.parent?.type === 'for_clause' ? n.parent.parent : n.parent) : scopes.nearest(n, GO_BLOCKS)
        if (n.type === 'short_var_declaration' || n.children.some(c => !c.named && textOf(tree, c) === ':=')) scopes.declare(scope, names)
        if (n.type === 'range_clause') {
          // Each variable may hold an element of what it ranges over.
          const inner: Flow[] = []
          goFlows(tree, n, [], field(n, 'right'), inner)
          for (const x of names) for (const f of inner) flows.push({ at: n, target: [x], source: [...f.source, '[*]'] })
        } else assign(n, names.map(x => [x]), field(n, 'right'))
        break
      }
      case 'type_switch_statement': scopes.declare(n, ids(field(n, 'alias'))); break
      case 'assignment_statement':
        // A write through a pointer (`*p = v`) changes what p points at, not what p holds.
        if (textOf(tree, field(n, 'operator') ?? n) === '=') assign(n, (field(n, 'left')?.children ?? []).filter(c => c.named && c.type !== 'comment').map(c => c.type === 'unary_expression' ? undefined : goPath(tree, c)), field(n, 'right'))
        break
    }
  }
  // What a call passes, the parameters of the file's function of that name may hold.
  for (const n of descendants(tree.root)) {
    if (n.type !== 'call_expression') continue
    const fn = field(n, 'function')
    const params = fn?.type === 'identifier' ? functions.get(textOf(tree, fn)) : undefined
    if (params === undefined) continue
    const args = (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')
    args.forEach((arg, i) => { for (const x of params[Math.min(i, params.length - 1)] ?? []) goFlows(tree, n, [x], arg, flows) })
  }
  const rootShared = (at: SyntaxNode, root: string): boolean => !GO_UNIVERSE.has(root) && !scopes.visible(at, root)
  const shared = sharedPaths(flows, f => rootShared(f.at, f.source[0] ?? ''))
  const out: string[] = []
  // Calls that pass shared storage on: `&v` of another file's or package's variable, or of a
  // path that may hold it, or a path that may (a pointer).
  for (const n of descendants(tree.root)) {
    if (n.type !== 'call_expression') continue
    const passed = new Set<string>()
    for (const arg of (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')) {
      const address = arg.type === 'unary_expression' && textOf(tree, field(arg, 'operator') ?? arg) === '&'
      const path = goPath(tree, address ? field(arg, 'operand') : arg)
      if (path === undefined) continue
      if ((address && rootShared(n, path[0] ?? '')) || sharedUnder(shared, path, true) !== undefined) passed.add(`${address ? '&' : ''}${path.join('.')}`)
    }
    const fn = field(n, 'function')
    if (passed.size > 0 && fn !== undefined) out.push(`call ${printableLine(tokensOf(tree, fn, ''), 120)} passes ${[...passed].sort().join(', ')}, shared state, to code that may write it`)
  }
  const write = (t: SyntaxNode, how: string): void => {
    const text = tokensOf(tree, t, '')
    const deref = t.type === 'unary_expression'
    const path = goPath(tree, t)
    if (path === undefined) {
      out.push(`${how} of ${text}, reached through an expression, not a name`)
      return
    }
    const root = path[0] ?? ''
    if (root === '_' || GO_UNIVERSE.has(root)) return
    const holder = sharedUnder(shared, path, deref)
    if (!scopes.visible(t, root)) out.push(packages.has(root) ? `${how} of ${text}, a variable of imported package ${root}` : `${how} of ${text}, rooted at ${root}, which no scope around it declares (a package-level variable of another file)`)
    else if (holder !== undefined) out.push(`${how} of ${text}, through ${holder.join('.')}, which may hold another file's or package's state`)
  }
  const targets = (list: SyntaxNode | undefined): SyntaxNode[] => list === undefined ? [] : list.type === 'expression_list' ? list.children.filter(c => c.named && c.type !== 'comment') : [list]
  for (const n of descendants(tree.root)) {
    if (n.type === 'assignment_statement') for (const t of targets(field(n, 'left'))) write(t, 'assignment')
    else if (n.type === 'inc_statement' || n.type === 'dec_statement') { const t = n.children.find(c => c.named && c.type !== 'comment'); if (t !== undefined) write(t, n.type === 'inc_statement' ? 'increment' : 'decrement') }
    // `for k, v = range …` and `case v = <-ch` write their variables as `=` does.
    else if ((n.type === 'range_clause' || n.type === 'receive_statement') && n.children.some(c => !c.named && textOf(tree, c) === '=')) for (const t of targets(field(n, 'left'))) write(t, n.type === 'range_clause' ? 'range assignment' : 'receive assignment')
  }
  return out
}
