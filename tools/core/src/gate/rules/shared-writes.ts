// Writes to state the file shares with other code, the tests first, for calls-preserved's
// rebindings (added ones are rejected; existing ones may keep changing their values). A test
// that calls `assert.equal` from its own file reaches the module object a source file imports
// too, so a write to it changes what the test calls without any call, name or declaration of
// the source file changing (`const LIMIT = (assert.equal = assert, 100)`, a sixth audit).
// Five audit rounds shaped what follows; the fixture table and shared-writes.test.ts keep each
// way around it found.
//
// State is followed by access path (`o`, `o.p`, `this.x`, `a.[*]`), not by name alone. A
// path may hold shared state when it is given, by a declaration, assignment, destructuring
// default (into a name or a member), loop, catch binding (what a `throw` of the file throws),
// parameter (what a call of the file's function of that name passes) or class field (`this.f`,
// and `C.f` when static; `this` and a class's name are one root), a value that holds a module
// binding (an import, `require(…)` or `await import(…)`, whichever export or property it
// reads; or a go package), a name no scope around it declares (a global; another file's
// variable; `this` in a plainly called function of a sloppy script), or a path that already
// may. An object or array literal gives each property its own path (`r = { sep: path.sep }`
// makes `r.sep` shared, not `r`), and a key selected from one is that property's value
// (`[assert][0]`, `{ k: o }.k`, go `acc{p: &want}.p`); a spread copies one level (`{
// ...DEFAULTS }` makes `opts.[*]` shared); a callee, a function literal's body and an
// operator that makes a number, string or boolean are not followed, so what a call returns
// is not tracked (what it is passed is, its receiver too). go's `&v` passes v's storage on,
// as do a channel send and receive and a type assertion or switch; go paths leave out the
// file's embedded struct fields (`c.Limits.Max` is `c.Max`). A known primitive read from
// shared state (`path.sep`, `os.EOL`, `process.env.X`) is no shared state.
//
// The findings:
//   - a write (assignment, update, `delete`, loop assignment; go `=`, `++`, `--`) whose
//     target is rooted at an imported module (JavaScript; go: a package), at a name no scope
//     around it declares (`Math.max = …`, go `want = a - b` for a test file's var), at no
//     name (`(0, assert).equal = …`, go `*[]*int{&limit}[0] = n`), or under a path that may
//     hold shared state (`o.p.equal = …` after `o.p = assert`; go `*p = …` after `p = &want`);
//   - a call whose arguments or receiver pass shared state on, added or changed: in
//     JavaScript a path that may hold it or what a module from outside the project holds
//     (`check(assert)`, `Object.assign(assert.strict, …)`, `list.pop()` after `list =
//     [assert]`), in go `&v` of such a variable (`clampTo(&want, sum)`) or a receiver that
//     may hold it (`c.Set(n)` after `c := &want`). Globals passed bare (`map(Number)`), a
//     project module's exports (`sort(byValue)`), a go value passed by value (`errors.Is(err,
//     ErrNotFound)`) and what a standard function only reads (JS_READERS, GO_READERS:
//     `new URL(path, apiUrl)`, `time.Sleep(cfg.Timeout)`) are not findings.
// Scopes are blocks (go; JavaScript let/const) or functions (JavaScript var).

import { literalKey, memberPath, samePath } from '../syntax/member-path.ts'
import { printableLine } from '../../printable-line.ts'
import { descendants, field, fields, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { patternNames } from './declarations-preserved.ts'

/**
 * Every write-to-shared-state candidate of a file, one line each, once: a fix may write again
 * where the file already writes (a second `the_token.expression = …` beside the first), and
 * only a shared path, or a call passing state on, that the baseline does not have is added.
 */
export function sharedWritesOf (tree: SyntaxTree): string[] {
  return [...new Set(tree.grammar === 'go' ? goSharedWrites(tree) : jsSharedWrites(tree))]
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
/**
 * Standard go functions (`import path.Name`) that only read, format or convert what they are
 * passed, by how many leading arguments: `time.Sleep(cfg.Timeout)` or `fmt.Sprintf("%s",
 * prog)` passes nothing on to code that may write it (fmt calls only the value's own String
 * or Error method). `fmt.Fprintf` writes its first argument, so it is not here.
 */
const GO_READERS = new Map<string, number>([
  ...['Sprintf', 'Sprint', 'Sprintln', 'Printf', 'Print', 'Println', 'Errorf'].map(f => [`fmt.${f}`, Infinity] as const),
  ...['Printf', 'Print', 'Println', 'Fatalf', 'Fatal', 'Fatalln', 'Panicf', 'Panic', 'Panicln'].map(f => [`log.${f}`, Infinity] as const),
  ...['Sleep', 'Duration', 'After', 'Tick', 'NewTimer', 'NewTicker', 'Unix'].map(f => [`time.${f}`, Infinity] as const),
  ...['Itoa', 'Atoi', 'FormatInt', 'FormatUint', 'FormatFloat', 'FormatBool', 'ParseInt', 'ParseUint', 'ParseFloat', 'ParseBool', 'Quote', 'Unquote'].map(f => [`strconv.${f}`, Infinity] as const),
  ...['Contains', 'HasPrefix', 'HasSuffix', 'Index', 'Join', 'Split', 'Fields', 'TrimSpace', 'Trim', 'TrimPrefix', 'TrimSuffix', 'ToLower', 'ToUpper', 'Repeat', 'Replace', 'ReplaceAll', 'EqualFold', 'Count'].map(f => [`strings.${f}`, Infinity] as const),
])

/**
 * JavaScript globals that only read what they are passed (convert it to a number, string or
 * URL, or wait for a delay), by how many leading arguments: `new URL(path, apiUrl)`,
 * `Number.parseInt(env.PORT, 10)`, `setTimeout(resolve, delayMs)` (what follows the delay is
 * handed to the callback, so it is still checked). JSON.stringify is one only without a
 * replacer, which is handed every value (jsReads).
 */
const JS_READERS = new Map<string, number>([
  ...['Number', 'String', 'Boolean', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'URL', 'URLSearchParams', 'Date'].map(f => [f, Infinity] as const),
  ...['parseInt', 'parseFloat', 'isFinite', 'isInteger', 'isNaN', 'isSafeInteger'].map(f => [`Number.${f}`, Infinity] as const),
  ...['abs', 'ceil', 'floor', 'round', 'trunc', 'max', 'min', 'sign', 'sqrt', 'pow', 'log', 'exp'].map(f => [`Math.${f}`, Infinity] as const),
  ['setTimeout', 2], ['setInterval', 2], ['JSON.stringify', Infinity],
])

/**
 * JavaScript globals that write into their first argument: passing them a global or any module
 * binding (`Object.assign(Math, …)` in a file that already names Math; `Object.assign(config,
 * …)` for a project module) writes state the tests share, though such a name passed to an
 * arbitrary call (`xs.map(Number)`, `sort(byValue)`) is no finding.
 */
const JS_WRITERS = new Set(['Object.assign', 'Object.defineProperty', 'Object.defineProperties', 'Object.setPrototypeOf', 'Object.freeze', 'Object.seal', 'Object.preventExtensions', 'Reflect.set', 'Reflect.defineProperty', 'Reflect.deleteProperty', 'Reflect.setPrototypeOf', 'Reflect.preventExtensions'])

/** Properties of node's built-in modules that hold a string (`path.sep`, `os.EOL`): passed on by value. */
const JS_MODULE_VALUES = new Map<string, ReadonlySet<string>>([
  ...['path', 'path/posix', 'path/win32'].map(m => [m, new Set(['sep', 'delimiter'])] as const),
  ['os', new Set(['EOL', 'devNull'])],
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

  /** The nearest node around `n` that declares `name` (the binding a use of it at `n` reads), if any. */
  declaring (n: SyntaxNode, name: string): SyntaxNode | undefined {
    for (let c: SyntaxNode | undefined = n; c !== undefined; c = c.parent) if (this.declared.get(c)?.has(name) === true) return c
    return undefined
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

/**
 * What `keys` selects from a value whose own flows (targets relative to it) are `inner`: a
 * literal's matching key (`[*]` matches any), or the key under a path the value holds
 * (`[assert][0]` is assert, `{ k: o }.k.p` is o.p). The targets stay relative.
 */
function selected (inner: readonly Flow[], keys: Path): Flow[] {
  const out: Flow[] = []
  for (const f of inner) {
    const n = Math.min(f.target.length, keys.length)
    if (samePath(f.target.slice(0, n), keys.slice(0, n))) out.push({ at: f.at, target: f.target.slice(n), source: [...f.source, ...keys.slice(n)] })
  }
  return out
}

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
      if (!(path[0] ?? '<').startsWith('<')) { out.push({ at, target, source: path }); return }
      // An object that is no name (`[assert][0]`, `({ k: assert }).k`, `(0, assert).strict`):
      // the key selected from what it may hold.
      const inner: Flow[] = []
      jsFlows(tree, at, [], field(v, 'object'), inner)
      for (const f of selected(inner, path.slice(-1))) out.push({ at, target: [...target, ...f.target], source: f.source })
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

/**
 * The names of the file's embedded struct fields (`*Limits` in `struct { *Limits }`): a go
 * path leaves them out, so `c.Limits.Max` and the promoted `c.Max` are one path, `c.Max`.
 */
function goEmbedded (tree: SyntaxTree): Set<string> {
  const out = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (n.type !== 'field_declaration' || field(n, 'name') !== undefined) continue
    let t = field(n, 'type')
    while (t !== undefined && (t.type === 'pointer_type' || t.type === 'generic_type' || t.type === 'qualified_type')) t = t.type === 'pointer_type' ? t.children.find(c => c.named) : field(t, t.type === 'generic_type' ? 'type' : 'name')
    if (t !== undefined) out.add(textOf(tree, t))
  }
  return out
}

/** A go access path: `s.p`, `xs.[*]`; undefined when it is rooted at no name (a literal, a call). */
function goPath (tree: SyntaxTree, embedded: ReadonlySet<string>, n: SyntaxNode | undefined): Path | undefined {
  if (n === undefined) return undefined
  switch (n.type) {
    case 'identifier': return [textOf(tree, n)]
    case 'selector_expression': {
      const base = goPath(tree, embedded, field(n, 'operand'))
      const f = field(n, 'field')
      return base === undefined || f === undefined ? undefined : embedded.has(textOf(tree, f)) ? base : [...base, textOf(tree, f)]
    }
    case 'index_expression':
    case 'slice_expression': { const base = goPath(tree, embedded, field(n, 'operand')); return base === undefined ? undefined : [...base, '[*]'] }
    case 'parenthesized_expression': return goPath(tree, embedded, n.children.find(c => c.named && c.type !== 'comment'))
    case 'unary_expression': return textOf(tree, field(n, 'operator') ?? n) === '*' ? goPath(tree, embedded, field(n, 'operand')) : undefined
    default: return undefined
  }
}

/**
 * The flows a go value gives `target`: `&v` and `*p` pass v's and p's state on, a literal each
 * element's, `<-ch` an element of ch's, `x.(T)` x's.
 */
function goFlows (tree: SyntaxTree, embedded: ReadonlySet<string>, at: SyntaxNode, whole: Path, v: SyntaxNode | undefined, out: Flow[]): void {
  if (v === undefined) return
  const target = whole.slice(0, MAX_PATH)
  const named = v.children.filter(c => c.named && c.type !== 'comment')
  const to = (t: Path, x: SyntaxNode | undefined): void => { goFlows(tree, embedded, at, t, x, out) }
  /** What `keys` selects from what `x` may hold (`[]*int{&want}[0]` is want). */
  const select = (x: SyntaxNode | undefined, keys: Path): void => {
    const inner: Flow[] = []
    goFlows(tree, embedded, at, [], x, inner)
    for (const f of selected(inner, keys)) out.push({ at, target: [...target, ...f.target], source: f.source })
  }
  switch (v.type) {
    case 'identifier':
    case 'selector_expression':
    case 'index_expression':
    case 'slice_expression': {
      const path = goPath(tree, embedded, v)
      const key = field(v, 'field')
      if (path !== undefined) out.push({ at, target, source: path })
      // An operand that is no name: a slice of it holds its elements, an index or a field
      // (an embedded one is the operand itself) selects from it.
      else if (v.type === 'slice_expression' || (key !== undefined && embedded.has(textOf(tree, key)))) to(target, field(v, 'operand'))
      else select(field(v, 'operand'), [key === undefined ? '[*]' : textOf(tree, key)])
      return
    }
    case 'parenthesized_expression':
    case 'literal_element':
    case 'expression_list': for (const c of named) to(target, c); return
    case 'type_assertion_expression': to(target, field(v, 'operand')); return
    case 'unary_expression': {
      const op = textOf(tree, field(v, 'operator') ?? v)
      if (op === '&' || op === '*') to(target, field(v, 'operand'))
      else if (op === '<-') select(field(v, 'operand'), ['[*]'])
      return
    }
    case 'composite_literal': to(target, field(v, 'body')); return
    case 'literal_value':
      for (const c of named) {
        if (c.type === 'keyed_element') {
          const [key, value] = c.children.filter(x => x.named && x.type !== 'comment')
          const name = key?.children.find(x => x.type === 'identifier' || x.type === 'field_identifier')
          const segment = name === undefined ? '[*]' : textOf(tree, name)
          to(embedded.has(segment) ? target : [...target, segment], value)
        } else to([...target, '[*]'], c)
      }
      return
    default:
      // Calls (not tracked), func literals, arithmetic: a new value, or a primitive.
  }
}

/**
 * The shared paths kept under one root before the root as a whole is taken to hold shared
 * state: a 12,000-line script (jslint.mjs) gives some roots thousands of distinct paths
 * through its cycles, and each path added is checked against the root's list.
 */
const MAX_PATHS_PER_ROOT = 64

/** Paths that may hold shared state, by their root name (a path is only ever compared with paths of its own root). */
type SharedPaths = ReadonlyMap<string, readonly Path[]>

/**
 * The paths that may hold shared state: those `seeded` holds (a module, an undeclared name)
 * and every path a flow gives from one, transitively (a flow from `o` to `t` also gives
 * `t.p` when `o.p` may).
 */
function sharedPaths (flows: readonly Flow[], seeded: (f: Flow) => boolean): SharedPaths {
  const shared = new Map<string, Path[]>()
  const seen = new Set<string>()
  // Each path, once added, meets only the flows from its own root (paths are rooted at names),
  // once: linear in what is shared, not a fixpoint over every flow per round.
  const queue: Path[] = []
  const add = (whole: Path): void => {
    const p = whole.slice(0, MAX_PATH)
    const key = p.join('\u0000')
    if (p.length === 0 || seen.has(key)) return
    seen.add(key)
    const list = shared.get(p[0] ?? '')
    // Everything under a shared path is shared: a path under one already held answers no
    // query differently, and following it only multiplies paths through a cycle (`a.b = a`)
    // into every combination of MAX_PATH segments (a 10,000-line script passed 2^24).
    if (list?.some(q => under(q, p)) === true) return
    if (list === undefined) shared.set(p[0] ?? '', [p])
    else if (list.length < MAX_PATHS_PER_ROOT) list.push(p)
    else {
      // Widened: the root itself may hold shared state, which stands for every path under it
      // (sound, and the list stays short whatever the file's cycles multiply).
      const root = [p[0] ?? '']
      seen.add(root.join('\u0000'))
      shared.set(p[0] ?? '', [root])
      queue.push(root)
      return
    }
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
function sharedUnder (shared: SharedPaths, path: Path, self: boolean): Path | undefined {
  return shared.get(path[0] ?? '')?.find(p => under(p, path) && (self || p.length < path.length))
}

/** Whether `n` is `require(…)` or `await import(…)`, or a property of its result (`require('assert').strict`). */
function isRequire (tree: SyntaxTree, n: SyntaxNode | undefined): boolean {
  let c = n
  while (c !== undefined && (c.type === 'member_expression' || c.type === 'subscript_expression' || c.type === 'parenthesized_expression' || c.type === 'await_expression')) c = c.type === 'member_expression' || c.type === 'subscript_expression' ? field(c, 'object') : c.children.find(x => x.named && x.type !== 'comment')
  const fn = c?.type === 'call_expression' ? field(c, 'function') : undefined
  return fn?.type === 'import' || (fn?.type === 'identifier' && textOf(tree, fn) === 'require')
}

/** How many leading arguments of a call of `callee` a global of JS_READERS only reads (0 when it is none, or shadowed). */
function jsReads (tree: SyntaxTree, callee: SyntaxNode, args: readonly SyntaxNode[], visible: (name: string) => boolean): number {
  const path = memberPath(tree, callee)
  const name = path.join('.')
  const reads = JS_READERS.get(name)
  if (reads === undefined || visible(path[0] ?? '')) return 0
  // A replacer is handed every value JSON.stringify reads.
  const replacer = args[1]
  if (name === 'JSON.stringify' && replacer !== undefined && !['null', 'undefined'].includes(textOf(tree, replacer))) return 0
  return reads
}

/** The key each name of `const { strict: assert, ok } = …` is read from (`assert` → `strict`), where the pattern says. */
function patternKeys (tree: SyntaxTree, pattern: SyntaxNode): Map<string, string> {
  const out = new Map<string, string>()
  for (const c of pattern.children) {
    if (c.type === 'shorthand_property_identifier_pattern') out.set(textOf(tree, c), textOf(tree, c))
    else if (c.type === 'object_assignment_pattern') { const left = field(c, 'left'); if (left !== undefined) out.set(textOf(tree, left), textOf(tree, left)) }
    else if (c.type === 'pair_pattern') {
      let value = field(c, 'value')
      if (value?.type === 'assignment_pattern') value = field(value, 'left')
      if (value?.type === 'identifier') out.set(textOf(tree, value), keySegment(tree, field(c, 'key')))
    }
  }
  return out
}

/** Whether a statement block (or the file) opens with a 'use strict' directive. */
function strictPrologue (tree: SyntaxTree, body: SyntaxNode | undefined): boolean {
  for (const c of body?.children.filter(x => x.named && x.type !== 'comment') ?? []) {
    const s = c.type === 'expression_statement' ? c.children.find(x => x.named) : undefined
    if (s?.type !== 'string') return false
    if (literalKey(tree, s) === 'use strict') return true
  }
  return false
}

/**
 * Whether `this` at a node is the global object: in a plainly called function of a sloppy
 * script (no import or export, no 'use strict' around it; class bodies are strict). A method
 * (a class's, an object literal's, a function assigned to a property) gets its object, a
 * constructor (a capitalised name, by convention called with `new`) a new one, an arrow
 * function its enclosing function's `this`, the file's top level module.exports.
 */
function sloppyThis (tree: SyntaxTree): (at: SyntaxNode) => boolean {
  const top = tree.root.children
  if (top.some(c => c.type === 'import_statement' || c.type === 'export_statement') || strictPrologue(tree, tree.root)) return () => false
  return at => {
    let fn = at.parent
    while (fn !== undefined && (fn.type === 'arrow_function' || !JS_FUNCTIONS.has(fn.type))) {
      if (fn.type === 'class_body') return false
      fn = fn.parent
    }
    if (fn === undefined || fn.type === 'method_definition') return false
    const p = fn.parent
    if (p?.type === 'pair' || (p?.type === 'assignment_expression' && (field(p, 'left')?.type === 'member_expression' || field(p, 'left')?.type === 'subscript_expression'))) return false
    if (/^[A-Z]/.test(jsFunctionName(tree, fn) ?? '')) return false
    for (let c: SyntaxNode | undefined = fn; c !== undefined; c = c.parent) if (c.type === 'class_body' || (JS_FUNCTIONS.has(c.type) && strictPrologue(tree, field(c, 'body')))) return false
    return true
  }
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
  /** Bindings of a module (an import, a require): each name, with the scopes that declare it so. */
  const modules = new Map<string, Set<SyntaxNode>>()
  /** Whether `name` at `n` is a module binding, not a local of that name that hides one. */
  const isModule = (n: SyntaxNode, name: string): boolean => { const at = scopes.declaring(n, name); return at !== undefined && modules.get(name)?.has(at) === true }
  /**
   * Bindings taken from a module outside the project (`node:assert`, a package), not `./x.js`:
   * its specifier, and the properties the binding was read through (`strict` for `import {
   * strict as assert }` or `require('node:assert').strict`; `[*]` when a destructuring hides
   * which). Any of them may be the module object itself, or an object the tests use too.
   */
  const outside = new Map<string, { spec: string, chain: Path }>()
  const flows: Flow[] = []
  const catches: SyntaxNode[] = []
  const throws: SyntaxNode[] = []
  const functions = new Map<string, SyntaxNode[][]>()
  const fromOutside = (scope: SyntaxNode, name: string, spec: string, chain: Path): void => {
    modules.set(name, (modules.get(name) ?? new Set()).add(scope))
    if (!/^\.\.?\//.test(spec)) outside.set(name, { spec, chain })
  }
  /** An import's bindings, each with the export it names (none for a default or namespace import). */
  const importFrom = (n: SyntaxNode, names: string[], chain: Path): void => {
    let stmt: SyntaxNode | undefined = n
    while (stmt !== undefined && stmt.type !== 'import_statement') stmt = stmt.parent
    const source = stmt === undefined ? undefined : field(stmt, 'source')
    scopes.declare(tree.root, names)
    for (const x of names) fromOutside(tree.root, x, source === undefined ? '' : literalKey(tree, source) ?? '', chain)
  }
  /** `path` read from outside module binding `root`, when it is a known primitive (`path.sep`, `os.EOL`). */
  const byValue = (root: string, path: Path): boolean => {
    const from = outside.get(root)
    const chain = from === undefined ? [] : [...from.chain, ...path.slice(1)]
    return from !== undefined && chain.length === 1 && (JS_MODULE_VALUES.get(from.spec.replace(/^node:/, ''))?.has(chain[0] ?? '') ?? false)
  }
  /** The paths a target of an assignment or default writes: a name or member whole, each name of a pattern. */
  const targetPaths = (t: SyntaxNode): Path[] => t.type === 'identifier' || t.type === 'shorthand_property_identifier_pattern' || t.type === 'member_expression' || t.type === 'subscript_expression' ? [memberPath(tree, t)] : patternNames(tree, t).map(x => [x])
  const sloppy = sloppyThis(tree)
  /** A binding pattern gets `value`: a name whole; through a destructuring, every name anything the value holds. */
  const bind = (at: SyntaxNode, pattern: SyntaxNode | undefined, value: SyntaxNode | undefined): void => {
    if (pattern === undefined) return
    if (pattern.type === 'identifier') { jsFlows(tree, at, [textOf(tree, pattern)], value, flows); return }
    const held: Flow[] = []
    jsFlows(tree, at, [], value, held)
    for (const name of patternNames(tree, pattern)) for (const f of held) flows.push({ at, target: [name], source: f.source })
  }
  /** Every default in a pattern is a value its targets may get (`[b = assert] = []`, `[o.p = assert] = []`). */
  const defaults = (p: SyntaxNode | undefined): void => {
    for (const d of p === undefined ? [] : [p, ...descendants(p)]) {
      if (d.type !== 'assignment_pattern' && d.type !== 'object_assignment_pattern') continue
      for (const t of assignedTargets(field(d, 'left'))) for (const target of targetPaths(t)) jsFlows(tree, d, target, field(d, 'right'), flows)
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
      for (const target of targetPaths(t)) {
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
        const scope = n.parent?.type === 'variable_declaration' ? scopes.fn(n) : scopes.nearest(n, JS_BLOCKS)
        scopes.declare(scope, patternNames(tree, name))
        if (value !== undefined && isRequire(tree, value)) {
          // `require('node:assert')`, `require('node:assert').strict`, `const { strict: assert } = require(…)`.
          const spec = [...descendants(value)].find(d => d.type === 'string')
          const read = memberPath(tree, value).slice(1)
          const keys = name?.type === 'object_pattern' ? patternKeys(tree, name) : new Map<string, string>()
          for (const x of patternNames(tree, name)) fromOutside(scope, x, spec === undefined ? '' : literalKey(tree, spec) ?? '', name?.type === 'identifier' ? read : [...read, keys.get(x) ?? '[*]'])
        } else {
          bind(n, name, value)
          defaults(name)
        }
        break
      }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'class_declaration':
      case 'class': {
        const name = field(n, 'name')
        if (name === undefined) break
        scopes.declare(scopes.nearest(n, JS_BLOCKS), [textOf(tree, name)])
        // In a static method or block `this` is the class: `this.x` and `C.x` are one path
        // (every `this` is one name, so an instance's properties meet the class's too).
        flows.push({ at: n, target: ['this'], source: [textOf(tree, name)] }, { at: n, target: [textOf(tree, name)], source: ['this'] })
        break
      }
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
        // Through a destructuring, every target gets anything the element holds.
        const element = selected(inner, ['[*]'])
        const left = field(n, 'left')
        const pattern = left?.type === 'object_pattern' || left?.type === 'array_pattern'
        for (const t of assignedTargets(left)) {
          for (const target of targetPaths(t)) for (const f of element) flows.push({ at: n, target: pattern ? target : [...target, ...f.target], source: f.source })
        }
        defaults(field(n, 'left'))
        break
      }
      case 'import_clause':
      case 'namespace_import': importFrom(n, n.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x)), []); break
      case 'import_specifier': {
        const name = field(n, 'alias') ?? field(n, 'name')
        const imported = field(n, 'name')
        if (name !== undefined) importFrom(n, [textOf(tree, name)], [imported === undefined ? '[*]' : literalKey(tree, imported) ?? textOf(tree, imported)])
        break
      }
      case 'field_definition': {
        // A class field is a property of each instance (`this` in its methods), a static one of
        // the class (`this` in its static methods, and its name).
        const cls = n.parent?.parent
        const key = keySegment(tree, field(n, 'property'))
        jsFlows(tree, n, ['this', key], field(n, 'value'), flows)
        const name = cls === undefined ? undefined : field(cls, 'name') ?? (cls.parent?.type === 'variable_declarator' ? field(cls.parent, 'name') : undefined)
        if (name?.type === 'identifier' && n.children.some(c => !c.named && textOf(tree, c) === 'static')) jsFlows(tree, n, [textOf(tree, name), key], field(n, 'value'), flows)
        break
      }
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
  const rootShared = (at: SyntaxNode, root: string): boolean => isModule(at, root) || (root === 'this' ? sloppy(at) : root !== 'super' && !root.startsWith('<') && !JS_CONSTANTS.has(root) && !scopes.visible(at, root))
  /** A path read from shared state whose value is a primitive: a known module constant (`path.sep`), a variable of `process.env`. */
  const primitive = (at: SyntaxNode, path: Path): boolean => byValue(path[0] ?? '', path) || (path.length > 2 && path[0] === 'process' && path[1] === 'env' && !scopes.visible(at, 'process'))
  const shared = sharedPaths(flows, f => rootShared(f.at, f.source[0] ?? '') && !primitive(f.at, f.source))
  const out: string[] = []
  // Calls that pass shared state on: a path that may hold it, or what a module from outside
  // holds (a known primitive such as `path.sep` aside). A global that only reads what it is
  // passed (JS_READERS) passes nothing on.
  for (const n of descendants(tree.root)) {
    const callee = calleeOf(n)
    if (callee === undefined) continue
    const args = (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')
    const reads = jsReads(tree, callee, args, name => scopes.visible(n, name))
    const passed = new Set<string>()
    const holds = (source: Path): boolean => shared.get(source[0] ?? '')?.some(p => under(p, source) || under(source, p)) ?? false
    const calleePath = memberPath(tree, callee)
    const writes = JS_WRITERS.has(calleePath.join('.')) && !scopes.visible(n, calleePath[0] ?? '')
    args.forEach((arg, i) => {
      if (i < reads) return
      const inner: Flow[] = []
      jsFlows(tree, n, [], arg, inner)
      for (const f of inner) {
        const root = f.source[0] ?? ''
        if ((outside.has(root) && isModule(n, root) && !byValue(root, f.source)) || holds(f.source) || (writes && i === 0 && rootShared(n, root))) passed.add(f.source.join('.'))
      }
    })
    // A method's receiver is passed too (`list.pop()` hands list's elements back, though what
    // a call returns is not followed) when it is a local: a module's or global's own methods
    // (`assert.ok`, `Math.min`) are no finding, and a write to either is one of its own.
    if (callee.type === 'member_expression' || callee.type === 'subscript_expression') {
      const inner: Flow[] = []
      jsFlows(tree, n, [], field(callee, 'object'), inner)
      for (const f of inner) {
        const root = f.source[0] ?? ''
        const local = root === 'this' ? !sloppy(n) : scopes.visible(n, root) && !isModule(n, root)
        if (local && holds(f.source)) passed.add(`${f.source.join('.')} (its receiver)`)
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
    const declared = root === 'this' ? !sloppy(t) : scopes.visible(t, root)
    if (path.length === 1) {
      if (!declared) out.push(`${how} of ${root}, which no scope around it declares (a global)`)
      return
    }
    const holder = sharedUnder(shared, path, false)
    if (!declared && root === 'this') out.push(`${how} of ${path.join('.')}, a property of this, which no scope around it declares (sloppy script: the global object)`)
    else if (!declared) out.push(`${how} of ${path.join('.')}, a property of ${root}, which no scope around it declares (a global)`)
    else if (isModule(t, root)) out.push(`${how} of ${path.join('.')}, a property of imported module ${root}`)
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
  /** Each imported package's name in the file, and its import path. */
  const packages = new Map<string, string>()
  const embedded = goEmbedded(tree)
  const goPathOf = (n: SyntaxNode | undefined): Path | undefined => goPath(tree, embedded, n)
  const flows: Flow[] = []
  const functions = new Map<string, string[][]>()
  const ids = (list: SyntaxNode | undefined): string[] => list === undefined ? [] : list.type === 'identifier' ? [textOf(tree, list)] : list.children.filter(x => x.type === 'identifier').map(x => textOf(tree, x))
  const values = (list: SyntaxNode | undefined): SyntaxNode[] => list === undefined ? [] : list.type === 'expression_list' ? list.children.filter(c => c.named && c.type !== 'comment') : [list]
  /** Each target gets the value at its position (or, for `a, b := f()`, the one value). */
  const assign = (at: SyntaxNode, targets: Array<Path | undefined>, right: SyntaxNode | undefined): void => {
    const vs = values(right)
    targets.forEach((t, i) => { if (t !== undefined) goFlows(tree, embedded, at, t, vs.length === targets.length ? vs[i] : right, flows) })
  }
  for (const n of descendants(tree.root)) {
    switch (n.type) {
      case 'import_spec': {
        const name = field(n, 'name')
        const path = field(n, 'path')
        // Without an alias, the package is named by its last path element (a /vN suffix skipped).
        const spec = path === undefined ? '' : textOf(tree, path).replace(/^["`]|["`]$/g, '')
        const elements = spec.split('/')
        const last = /^v\d+$/.test(elements.at(-1) ?? '') && elements.length > 1 ? elements.at(-2) : elements.at(-1)
        packages.set(name === undefined ? last ?? '' : textOf(tree, name), spec)
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
          goFlows(tree, embedded, n, [], field(n, 'right'), inner)
          const element = selected(inner, ['[*]'])
          for (const x of names) for (const f of element) flows.push({ at: n, target: [x, ...f.target], source: f.source })
        } else assign(n, names.map(x => [x]), field(n, 'right'))
        break
      }
      case 'type_switch_statement': {
        // `switch v := x.(type)`: v is x, in each case.
        const names = ids(field(n, 'alias'))
        scopes.declare(n, names)
        for (const x of names) goFlows(tree, embedded, n, [x], field(n, 'value'), flows)
        break
      }
      case 'send_statement': {
        // `ch <- v`: an element of ch may hold v.
        const ch = goPathOf(field(n, 'channel'))
        if (ch !== undefined) goFlows(tree, embedded, n, [...ch, '[*]'], field(n, 'value'), flows)
        break
      }
      case 'type_spec': if (n.parent?.parent === tree.root) { const name = field(n, 'name'); if (name !== undefined) scopes.declare(tree.root, [textOf(tree, name)]) } break
      case 'assignment_statement':
        // A write through a pointer (`*p = v`) changes what p points at, not what p holds.
        if (textOf(tree, field(n, 'operator') ?? n) === '=') assign(n, (field(n, 'left')?.children ?? []).filter(c => c.named && c.type !== 'comment').map(c => c.type === 'unary_expression' ? undefined : goPathOf(c)), field(n, 'right'))
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
    args.forEach((arg, i) => { for (const x of params[Math.min(i, params.length - 1)] ?? []) goFlows(tree, embedded, n, [x], arg, flows) })
  }
  const rootShared = (at: SyntaxNode, root: string): boolean => !GO_UNIVERSE.has(root) && !scopes.visible(at, root)
  const shared = sharedPaths(flows, f => rootShared(f.at, f.source[0] ?? ''))
  const out: string[] = []
  // Calls that pass shared storage on: `&v` of another file's or package's variable, or of a
  // path that may hold it, or a path that may (a pointer); and a method's receiver likewise
  // (`c.Set(n)` takes `&c` when Set has a pointer receiver). A standard function that only
  // reads or prints what it is passed (GO_READERS) passes nothing on.
  for (const n of descendants(tree.root)) {
    if (n.type !== 'call_expression') continue
    const fn = field(n, 'function')
    const operand = fn?.type === 'selector_expression' ? field(fn, 'operand') : undefined
    const pkg = operand?.type === 'identifier' && !scopes.visible(n, textOf(tree, operand)) ? packages.get(textOf(tree, operand)) : undefined
    const method = fn?.type === 'selector_expression' ? field(fn, 'field') : undefined
    const reads = pkg !== undefined && method !== undefined ? GO_READERS.get(`${pkg}.${textOf(tree, method)}`) : undefined
    const passed = new Set<string>()
    const pass = (arg: SyntaxNode, receiver: boolean): void => {
      let x: SyntaxNode | undefined = arg
      while (x?.type === 'parenthesized_expression') x = x.children.find(c => c.named && c.type !== 'comment')
      if (x === undefined) return
      const address = x.type === 'unary_expression' && textOf(tree, field(x, 'operator') ?? x) === '&'
      const path = goPathOf(address ? field(x, 'operand') : x)
      if (path === undefined) return
      if (((address || receiver) && rootShared(n, path[0] ?? '')) || sharedUnder(shared, path, true) !== undefined) passed.add(`${address ? '&' : ''}${path.join('.')}${receiver ? ' (its receiver)' : ''}`)
    }
    if (operand !== undefined && pkg === undefined) pass(operand, true)
    const args = (field(n, 'arguments')?.children ?? []).filter(c => c.named && c.type !== 'comment')
    args.forEach((arg, i) => { if (i >= (reads ?? 0)) pass(arg, false) })
    if (passed.size > 0 && fn !== undefined) out.push(`call ${printableLine(tokensOf(tree, fn, ''), 120)} passes ${[...passed].sort().join(', ')}, shared state, to code that may write it`)
  }
  const write = (t: SyntaxNode, how: string): void => {
    const text = tokensOf(tree, t, '')
    const deref = t.type === 'unary_expression'
    const path = goPathOf(t)
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
