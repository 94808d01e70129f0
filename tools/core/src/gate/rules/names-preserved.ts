// names-preserved: a changed file names nothing it did not name before. DESIGN §10 lets
// only local expression and control-flow changes pass, and the call rules see syntactic
// calls only; JavaScript also calls through `instanceof` (Symbol.hasInstance), coercion
// (valueOf, toString, Symbol.toPrimitive), `await` on a thenable, accessors and iteration,
// so an edit with no call in it could still reach process.stdout or process.exit (measured:
// a node proposal wrote the test runner's own child-protocol frames that way and reached
// scoped_test_verified). Every such channel needs a name the file never used (process,
// Symbol, globalThis, Reflect, …): a fix that needs a new name is broader than local, and is
// rejected for review. Names are identifiers, including shorthand properties ({ process });
// property names after a dot or as object keys are not, except the ones below. The languages'
// own constants are exempt (go: true, false, nil, iota, and the builtins and predeclared types
// of DESIGN §15; JavaScript: undefined, NaN, Infinity). A go package clause is a name too, so a file cannot move to another package.
//
// JavaScript also reaches code through property names alone: `a.constructor.constructor` is
// the Function constructor, `{ valueOf: f }`, `{ then: f }` and `{ [Symbol.toPrimitive]: f }`
// make the engine call an existing function with no call expression, `call`/`apply`/`bind`
// and `__proto__`/`prototype`/`setPrototypeOf` rebind what a call reaches. So in a JavaScript
// file every use of a REACHING name is counted — as an identifier, a property (`a.then`), a
// key or method name (`{ valueOf: f }`, `get toString ()`), a destructuring key, or a string or
// template without substitutions that spells it (`a['constructor']`, `{ 'then': f }`), escapes
// decoded — and a use added is rejected. Uses already in the baseline may stay or move, so a
// file that already calls `n.toString(16)` can still be fixed around it. A computed key
// assembled from strings (`a['constr' + 'uctor']`, `` { [`value${''}Of`]: f } ``) can spell
// any of them, so each such key counts as a use too. Since checker version 11 the properties
// that tell who called (CALLER_NAMES: `stack`, `captureStackTrace`, `stackTraceLimit`) are
// counted the same way, except as a plain identifier: a stack names the test file that called.

import { checkStructure } from '../syntax/compare.ts'
import { GO_PREDECLARED_TYPES, GO_PURE_BUILTINS } from '../syntax/go-predeclared.ts'
import { literalKey, memberPath } from '../syntax/member-path.ts'
import { definitionsOf } from '../syntax/definitions.ts'
import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, ParsedPair, RuleOutcome } from '../types.ts'

const NAME_NODES = {
  go: new Set(['identifier', 'package_identifier']),
  javascript: new Set(['identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
} as const

const CONSTANTS = {
  // Go's builtins that reach no code and its predeclared types are exempt too (DESIGN §15):
  // `len(s)` or `string(b)` added to a file that used neither is a local expression change.
  go: new Set(['true', 'false', 'nil', 'iota', '_', ...GO_PURE_BUILTINS, ...GO_PREDECLARED_TYPES]),
  javascript: new Set(['undefined', 'NaN', 'Infinity']),
} as const

/**
 * JavaScript names that reach code or rebind what a call reaches: the Function constructor
 * and eval, the methods the engine calls implicitly (coercion, thenables, well-known
 * symbols, JSON, stack formatting), the function-object methods that call or rebind, and
 * the reflection and prototype surface.
 */
export const REACHING_NAMES: ReadonlySet<string> = new Set([
  'constructor', 'prototype', '__proto__', 'eval', 'Function', 'AsyncFunction', 'GeneratorFunction', 'Reflect', 'Proxy', 'globalThis',
  'valueOf', 'toString', 'toLocaleString', 'toJSON', 'then', 'toPrimitive', 'hasInstance', 'toStringTag', 'iterator', 'asyncIterator', 'species', 'unscopables',
  'call', 'apply', 'bind', 'caller', 'callee', 'arguments',
  'defineProperty', 'defineProperties', 'getPrototypeOf', 'setPrototypeOf', 'getOwnPropertyDescriptor', 'getOwnPropertyDescriptors',
  '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'prepareStackTrace',
])

/**
 * Properties that tell who called: a stack names each caller's file (`new TypeError(…).stack`
 * holds `calc.test.js` under the test, an eleventh audit), so a use added is counted like a
 * reaching name's. As properties, keys and strings only: a variable named `stack` is data.
 */
export const CALLER_NAMES: ReadonlySet<string> = new Set(['stack', 'stackTraceLimit', 'captureStackTrace'])

const PROPERTY_NODES = new Set(['identifier', 'property_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern', 'string', 'template_string'])

const SEP = '\u0000'

/** The distinct names a file uses, sorted. */
export function namesOf (tree: SyntaxTree): string[] {
  const kinds = NAME_NODES[tree.grammar]
  const exempt = CONSTANTS[tree.grammar]
  const names = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (!kinds.has(n.type)) continue
    const name = textOf(tree, n)
    if (!exempt.has(name)) names.add(name)
  }
  return [...names].sort()
}

/** The computed key of a subscript (`a[k]`) or of an object key (`{ [k]: v }`), if `n` has one. */
function computedKey (n: SyntaxNode): SyntaxNode | undefined {
  if (n.type === 'subscript_expression') return field(n, 'index')
  if (n.type === 'computed_property_name') return n.children.find(c => c.named && c.type !== 'comment')
  return undefined
}

/** A key that is not one literal but holds a string: built from strings (`'constr' + 'uctor'`, `` `a${b}` ``). */
function builtFromStrings (key: SyntaxNode): boolean {
  if (key.type === 'string' || key.type === 'number' || (key.type === 'template_string' && !key.children.some(c => c.type === 'template_substitution'))) return false
  return [...descendants(key)].some(d => d.type === 'string' || d.type === 'template_string')
}

/** Every use of a reaching name in a JavaScript file, one entry per use. */
export function reachingUsesOf (tree: SyntaxTree): string[] {
  if (tree.grammar !== 'javascript') return []
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    // A key spelled by assembling strings can spell any reaching name, so each counts as a use.
    const key = computedKey(n)
    if (key !== undefined && builtFromStrings(key)) out.push(BUILT_KEY)
    if (!PROPERTY_NODES.has(n.type)) continue
    const name = n.type === 'string' || n.type === 'template_string' ? literalKey(tree, n) : textOf(tree, n)
    if (name !== undefined && (REACHING_NAMES.has(name) || (CALLER_NAMES.has(name) && n.type !== 'identifier'))) out.push(name)
  }
  return out
}

/**
 * What reads the file system or starts a program, by path or command line: `/proc/self/cmdline`
 * is the argv, `/src` is where the sandbox mounts the tree, a shell is any of these (an
 * eleventh audit: an existing read's or spawn's arguments changed).
 */
const JS_FILE_READS = ['existsSync', 'readFileSync', 'statSync', 'lstatSync', 'accessSync', 'readdirSync', 'readlinkSync', 'realpathSync', 'openSync', 'opendirSync', 'readFile', 'stat', 'lstat', 'access', 'readdir', 'readlink', 'realpath', 'open', 'opendir', 'exists', 'createReadStream', 'promises']
const JS_SPAWNS = ['exec', 'execSync', 'execFile', 'execFileSync', 'spawn', 'spawnSync', 'fork']

/**
 * What tells one run of the code from another, where the file can already reach it: node's
 * `process.env`, `process.argv` and the rest below, go's `os.Getenv`, `os.Args`, `flag`
 * lookups, `testing.Testing`, … and the exit calls (`process.exit`, `os.Exit`, …). Each use is
 * counted with its key, index or arguments as written, the pattern it is destructured into,
 * and where the names it reads get their values (see definitionsOf: initializers,
 * assignments, a function's returns for its calls, a parameter's arguments), so a use added
 * or changed is a finding: end-to-end audits reached scoped_test_verified with
 * `os.Getenv("CALC_WIDTH")` turned into `os.Getenv("GOCACHE")` (set only in the sandbox),
 * `process.env.HOME === '/tmp'`, `os.Args[1][:6] == "-test."`, `process.exit(2)` turned into
 * `process.exit(0)` before an assertion ran, and the same through a constant's value, a
 * destructuring key (`NODE_TEST_CONTEXT`, which node --test sets in its children), another
 * name for the same object (`const env = process.env`, `getenv := os.Getenv`, `import { exit }
 * from 'node:process'`, `import o "os"`), a function's return value (`process.exit(main())`)
 * or a parameter (`fail(0)` where `fail` calls `os.Exit(code)`). A fix that must read another
 * variable, or exit otherwise, is rejected for review; so is a fix in a return expression of a
 * function whose result becomes an exit status or a key.
 *
 * Values are followed within the changed files: a go package's other changed files and the
 * other changed JavaScript files define the names a file does not. Not counted: a value set
 * in a changed file but read by a run-sensing use only in a file the patch leaves alone (the
 * gate parses changed files only, and may read only allowed ones: `const exitUsage = 2`
 * turned into 0 in consts.go, read by os.Exit in main.go); what decides whether a use runs
 * (`if (false) process.exit(2)`, a use removed: control flow is what a fix changes), what a
 * value read is compared with, and a callback's parameter (`main().then(code =>
 * process.exit(code))`): no call names the callback.
 *
 * Since checker version 11 (an eleventh audit) also where the module was loaded from and by
 * whom (JS_LOCATION_VALUES, JS_LOADER_MEMBERS: `import.meta`, `__dirname`, `require.main`),
 * and what reads a path or starts a program (JS_FILE_READS, JS_SPAWNS through node:fs and
 * node:child_process; go's os.ReadFile, os.Stat, … and io/ioutil), whose changed path or
 * command line (`/proc/self/cmdline`, `/src`) reads the run as surely as process.argv. Still
 * not counted: a value already read and kept (`const HERE = __dirname` compared anew, as
 * above), a call whose result depends on the working directory without naming it
 * (`path.resolve('x')`, go `filepath.Abs("x")`).
 *
 * Since checker version 12 also a use through a module object that is no binding, or a
 * binding of an awaited `import()`: `require('node:fs').readFileSync(p)`,
 * `(require('node:process')).argv`, `(await import('node:fs')).readFileSync(p)`, `cp = await
 * import('node:child_process')` (INLINE_REQUIRE: before, only the require or import itself was
 * seen, by imports-preserved, so an existing read's path could change).
 */
const RUN_SENSING = {
  javascript: {
    roots: new Set(['process']),
    members: new Set([
      'env', 'argv', 'argv0', 'execArgv', 'execPath', 'title', 'pid', 'ppid', 'exit', 'exitCode', 'reallyExit', 'abort', 'kill', 'cwd', 'getuid', 'geteuid', 'getgid', 'uptime', 'hrtime', 'platform', 'arch', 'release', 'version', 'versions', 'config', 'features', 'stdin', 'umask', 'mainModule',
      // node:fs and node:child_process through a default or namespace import (JS_SENSING_MODULES).
      ...JS_FILE_READS, ...JS_SPAWNS,
    ]),
  },
  go: {
    roots: new Set(['os', 'syscall', 'flag', 'testing', 'runtime', 'ioutil', 'io/ioutil', 'exec', 'os/exec', 'filepath', 'path/filepath']),
    members: new Set([
      'Getenv', 'LookupEnv', 'Environ', 'ExpandEnv', 'Args', 'Arg', 'NArg', 'Executable', 'Hostname', 'Getpid', 'Getppid', 'Getuid', 'Geteuid', 'Getwd', 'UserHomeDir', 'TempDir', 'Exit', 'Lookup', 'Parsed', 'Testing', 'Short', 'Verbose', 'CommandLine', 'Caller', 'Goexit', 'GOOS', 'GOARCH',
      'ReadFile', 'ReadDir', 'Stat', 'Lstat', 'Open', 'OpenFile', 'Readlink', 'DirFS',
      // Since checker version 12: a program started (os/exec, os.StartProcess, syscall.Exec and
      // ForkExec), and path/filepath's reads by pattern, link or tree (a callback passed is the
      // file's own code: see runSensingUsesOf); not Abs, which reads the working directory
      // whatever its argument.
      'Command', 'CommandContext', 'LookPath', 'StartProcess', 'Exec', 'ForkExec', 'Glob', 'EvalSymlinks', 'Walk', 'WalkDir',
    ]),
  },
} as const

/**
 * The modules whose default or namespace import is a root and whose named imports are aliases:
 * node's process object, the file system and child processes.
 */
const JS_SENSING_MODULES = new Set(['process', 'node:process', 'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process'])

/**
 * What tells where the module was loaded from and by whom, whatever it is compared with or read
 * through (an eleventh audit: `import.meta.url < 'file:///src0'` is true only where the sandbox
 * mounts the tree): `import.meta` and CommonJS's `__dirname` and `__filename` are such values
 * whole, and these members of `require` and `module` are (`require.main`, `module.parent`).
 */
const JS_LOCATION_VALUES = new Set(['__dirname', '__filename'])
const JS_LOADER_MEMBERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  // require.resolve finds a file by path, as existsSync does (checker version 12).
  ['require', new Set(['main', 'cache', 'resolve'])],
  ['module', new Set(['parent', 'children', 'filename', 'id', 'path', 'paths', 'loaded'])],
])

/** What a terminal tells about the run: `process.stdout.isTTY` and its kin. */
const JS_STREAMS = new Set(['stdout', 'stderr'])
const JS_TERMINAL = new Set(['isTTY', 'columns', 'rows', 'hasColors', 'getColorDepth', 'getWindowSize'])

/**
 * The global object's names: `globalThis.process` and `global['process']` are the process
 * object (since checker version 12: before, `globalThis.process.env.CALC_WIDTH` turned into
 * `.GOCACHE` was no run-sensing use).
 */
const JS_GLOBAL_OBJECTS = new Set(['globalThis', 'global'])

/** A member path with a leading global object dropped before `process`: `globalThis.process.env` reads as `process.env`. */
function withoutGlobalObject (path: string[]): string[] {
  return path.length >= 2 && JS_GLOBAL_OBJECTS.has(path[0] ?? '') && path[1] === 'process' ? path.slice(1) : path
}

/** What a chain of key accesses starts from, through parentheses and `await` (`require('fs')` of `require('fs').readFileSync`). */
function accessBase (n: SyntaxNode): SyntaxNode {
  let c = n
  for (;;) {
    if (c.type === 'member_expression' || c.type === 'subscript_expression') {
      const object = field(c, 'object')
      if (object === undefined) return c
      c = object
    } else if (c.type === 'parenthesized_expression' || c.type === 'await_expression') {
      const inner = c.children.filter(x => x.named && x.type !== 'comment')
      if (inner.length !== 1) return c
      c = inner[0] as SyntaxNode
    } else {
      return c
    }
  }
}

/**
 * INLINE_REQUIRE: whether `n` loads a module in JS_SENSING_MODULES and yields its object:
 * `require('<module>')`, or `import('<module>')` (awaited: valueLeaves and accessBase see
 * through `await` and parentheses). What is read through it is read as through a root.
 */
function isSensingModuleLoad (tree: SyntaxTree, n: SyntaxNode): boolean {
  if (n.type !== 'call_expression') return false
  const fn = field(n, 'function')
  const arg = field(n, 'arguments')?.children.find(c => c.named && c.type !== 'comment')
  const loads = fn?.type === 'import' || (fn?.type === 'identifier' && textOf(tree, fn) === 'require')
  return loads && arg !== undefined && JS_SENSING_MODULES.has(literalKey(tree, arg) ?? '')
}

/** The names through which one file reaches what RUN_SENSING lists. */
interface RunScope {
  /**
   * Names that are the process object (javascript: `process`, a default or namespace import
   * of node:process, `const p = process`) or a run-sensing package (go: `os`, …, and the name
   * an import gives one).
   */
  roots: ReadonlySet<string>
  /**
   * Names that hold a run-sensing value or function, or a function that returns one: `const
   * env = process.env`, `const { exit } = process`, `getenv := os.Getenv`, a named import of
   * node:process, `function vars () { return process.env }`; every member after go's `import
   * . "os"`. A key read, a method called or an argument given through one is a use.
   */
  aliases: ReadonlySet<string>
  defs: ReadonlyMap<string, SyntaxNode[]>
}

/** Whether `n` is a run-sensing access itself (`process.env`, `process['env']`, `(process).argv`, `process.stdout.isTTY`; go `os.Getenv`). */
function isRunSensing (tree: SyntaxTree, n: SyntaxNode, roots: ReadonlySet<string>): boolean {
  if (tree.grammar === 'go') {
    if (n.type !== 'selector_expression') return false
    const operand = field(n, 'operand')
    const f = field(n, 'field')
    return operand?.type === 'identifier' && f !== undefined && roots.has(textOf(tree, operand)) && RUN_SENSING.go.members.has(textOf(tree, f))
  }
  if (n.type === 'meta_property') return textOf(tree, n).startsWith('import')
  if (n.type === 'identifier') return JS_LOCATION_VALUES.has(textOf(tree, n))
  if (n.type !== 'member_expression' && n.type !== 'subscript_expression') return false
  const path = withoutGlobalObject(memberPath(tree, n))
  if (path.length === 2 && JS_LOADER_MEMBERS.get(path[0] ?? '')?.has(path[1] ?? '') === true) return true
  if (!roots.has(path[0] ?? '') && !isSensingModuleLoad(tree, accessBase(n))) return false
  // The innermost access only: `process.env` in `process.env.HOME`.
  const object = field(n, 'object')
  if (object !== undefined && object.type !== 'identifier' && object.type !== 'parenthesized_expression' && isRunSensing(tree, object, roots)) return false
  if (path.length === 2) return RUN_SENSING.javascript.members.has(path[1] ?? '')
  return path.length === 3 && JS_STREAMS.has(path[1] ?? '') && JS_TERMINAL.has(path[2] ?? '')
}

const KEY_ACCESS = new Set(['member_expression', 'subscript_expression', 'index_expression', 'slice_expression', 'selector_expression'])

const calledAt = (x: SyntaxNode): boolean => x.parent?.type === 'call_expression' && field(x.parent, 'function') === x

/** Whether `n` is what a key access reads from (`env` of `env.HOME`, `(env)[k]`). */
function accessedAt (n: SyntaxNode): SyntaxNode | undefined {
  let c = n
  while (c.parent?.type === 'parenthesized_expression') c = c.parent
  const p = c.parent
  return p !== undefined && KEY_ACCESS.has(p.type) && (field(p, 'object') === c || field(p, 'operand') === c) ? p : undefined
}

const isFunction = (n: SyntaxNode): boolean => ['arrow_function', 'function_expression', 'function', 'func_literal'].includes(n.type)

/** Containers a value is held in and read back from (`[process.env][0]`). */
const CONTAINERS = new Set(['array', 'object', 'literal_value', 'composite_literal'])

/** Whether `parent` hands on the value of its child `c` whole (see valueLeaves). */
function passesOn (tree: SyntaxTree, parent: SyntaxNode, c: SyntaxNode): boolean {
  switch (parent.type) {
    case 'parenthesized_expression': case 'await_expression': case 'spread_element': case 'expression_list': case 'sequence_expression':
    case 'array': case 'object': case 'literal_value': case 'literal_element': case 'composite_literal':
      return true
    case 'pair': case 'keyed_element': return field(parent, 'value') === c || (parent.type === 'keyed_element' && parent.children.filter(x => x.named).pop() === c)
    case 'ternary_expression': return field(parent, 'condition') !== c
    case 'binary_expression': { const op = field(parent, 'operator'); return op !== undefined && ['||', '??', '&&'].includes(textOf(tree, op)) }
    default: return false
  }
}

/**
 * The whole use around a run-sensing access: a function's call with its arguments
 * (`os.Getenv("X")`, `process.exit(2)`), then the keys, indexes and slices read from data
 * (`process.env.HOME`, `os.Args[1][:6]`, `vars().HOME`) up to, not into, a method called on
 * it (`process.env.PATH` of `process.env.PATH.split(':')`: what the method's callback does is
 * the file's own code). A method called on the access itself is part of it when no argument
 * is a function (`process.argv.includes('--test')`, `p.exit(0)`). An access used as a value
 * takes in what hands it on whole (`opts.env ?? process.env`, `{ ...process.env }`,
 * `[process.env][0]`), so another name for it cannot be made in a shape not followed, and the
 * call it is then passed to (`Object.assign(process, { exitCode: 0 })`, `[0].forEach(exit)`).
 */
function useAround (tree: SyntaxTree, n: SyntaxNode): SyntaxNode {
  let use = calledAt(n) ? n.parent as SyntaxNode : n
  for (let p = accessedAt(use); p !== undefined && !calledAt(p); p = accessedAt(use)) use = p
  if (use !== n) return use
  const method = accessedAt(n)
  if (method !== undefined) {
    const call = method.parent as SyntaxNode
    return calledAt(method) && !(field(call, 'arguments')?.children ?? []).some(isFunction) ? call : n
  }
  let contained = false
  for (;;) {
    const p = use.parent
    if (p === undefined) break
    if (passesOn(tree, p, use)) { contained ||= CONTAINERS.has(p.type); use = p; continue }
    const read = contained ? accessedAt(use) : undefined
    if (read !== undefined && !calledAt(read)) { use = read; continue }
    break
  }
  const args = use.parent
  return (args?.type === 'arguments' || args?.type === 'argument_list') && args.parent?.type === 'call_expression' ? args.parent : use
}

/** The expressions a value may be: through parentheses, `a ?? b`, `c ? a : b`, spreads, array and object literals, `f.bind(…)`. */
function valueLeaves (tree: SyntaxTree, n: SyntaxNode, out: SyntaxNode[] = []): SyntaxNode[] {
  const named = n.children.filter(c => c.named && c.type !== 'comment')
  switch (n.type) {
    case 'parenthesized_expression': case 'await_expression': case 'spread_element': case 'expression_list': case 'sequence_expression':
    case 'array': case 'object': case 'literal_value': case 'literal_element':
      for (const c of named) valueLeaves(tree, c, out)
      return out
    case 'pair': case 'keyed_element': { const v = field(n, 'value') ?? named[named.length - 1]; if (v !== undefined) valueLeaves(tree, v, out); return out }
    case 'composite_literal': { const body = field(n, 'body'); if (body !== undefined) valueLeaves(tree, body, out); return out }
    case 'assignment_expression': { const r = field(n, 'right'); if (r !== undefined) valueLeaves(tree, r, out); return out }
    case 'call_expression': {
      // `process.exit.bind(process)` is process.exit.
      const fn = field(n, 'function')
      const object = fn?.type === 'member_expression' && textOf(tree, field(fn, 'property') ?? fn) === 'bind' ? field(fn, 'object') : undefined
      if (object !== undefined) valueLeaves(tree, object, out)
      else out.push(n)
      return out
    }
    case 'ternary_expression': for (const f of ['consequence', 'alternative']) { const c = field(n, f); if (c !== undefined) valueLeaves(tree, c, out) } return out
    case 'binary_expression': {
      const op = field(n, 'operator')
      if (op !== undefined && ['||', '??', '&&'].includes(textOf(tree, op))) for (const f of ['left', 'right']) { const c = field(n, f); if (c !== undefined) valueLeaves(tree, c, out) }
      return out
    }
    case 'member_expression': case 'subscript_expression': case 'index_expression': {
      // `[process.env][0]`: a value read back from a literal that holds it.
      let object = field(n, 'object') ?? field(n, 'operand')
      while (object?.type === 'parenthesized_expression') object = object.children.find(c => c.named && c.type !== 'comment')
      if (object !== undefined && CONTAINERS.has(object.type)) valueLeaves(tree, object, out)
      else out.push(n)
      return out
    }
    default: out.push(n); return out
  }
}

/** How one leaf of a definition may make its name a root or an alias, once `dep` is one. */
interface Leaf { owner: string, dep: string, how: 'member' | 'value' | 'call', plain: boolean }

const scopes = new WeakMap<SyntaxTree, RunScope>()

/**
 * The file's roots, aliases and definitions (built once per tree): the imports give the first
 * roots and aliases, then a name whose definition may be one (`p = process`), a run-sensing
 * access through one (`env = p.env`) or a call of an alias (`e = vars()`) becomes one, to a
 * fixed point.
 */
function runScopeOf (tree: SyntaxTree): RunScope {
  const cached = scopes.get(tree)
  if (cached !== undefined) return cached
  const grammar = tree.grammar
  const roots = new Set<string>(RUN_SENSING[grammar].roots)
  const aliases = new Set<string>()
  const defs = definitionsOf(tree)
  // Imports are top-level statements.
  for (const n of tree.root.children.flatMap(c => c.type === 'import_declaration' ? [...descendants(c)] : [c])) {
    if (n.type === 'import_spec') {
      const path = field(n, 'path')
      const name = field(n, 'name')
      if (path === undefined || name === undefined || !RUN_SENSING.go.roots.has(textOf(tree, path).slice(1, -1))) continue
      if (name.type === 'dot') for (const m of RUN_SENSING.go.members) aliases.add(m)
      else if (name.type === 'package_identifier') roots.add(textOf(tree, name))
    } else if (n.type === 'import_statement') {
      const source = field(n, 'source')
      if (source === undefined || !JS_SENSING_MODULES.has(literalKey(tree, source) ?? '')) continue
      for (const d of descendants(n)) {
        if (d.type === 'import_specifier') { const local = field(d, 'alias') ?? field(d, 'name'); if (local !== undefined) aliases.add(textOf(tree, local)) }
        else if (d.type === 'identifier' && (d.parent?.type === 'import_clause' || d.parent?.type === 'namespace_import')) roots.add(textOf(tree, d))
      }
    }
  }
  // Each definition's leaves, indexed by the name they wait on.
  const waiting = new Map<string, Leaf[]>()
  const found: Array<[string, 'root' | 'alias']> = []
  for (const [owner, list] of defs) {
    for (const def of list) {
      const binding = def.parent?.type === 'variable_declarator' ? field(def.parent, 'name') : def.parent?.type === 'assignment_expression' ? field(def.parent, 'left') : undefined
      const plain = binding?.type === 'identifier'
      for (const leaf of valueLeaves(tree, def)) {
        let dep: string | undefined
        let how: Leaf['how'] = 'value'
        if (leaf.type === 'identifier' || leaf.type === 'shorthand_property_identifier') dep = textOf(tree, leaf)
        else if (leaf.type === 'call_expression') {
          const fn = field(leaf, 'function')
          if (isSensingModuleLoad(tree, leaf)) found.push([owner, plain ? 'root' : 'alias'])
          else if (fn?.type === 'identifier') { dep = textOf(tree, fn); how = 'call' }
        } else if (grammar === 'go' && leaf.type === 'selector_expression') {
          const operand = field(leaf, 'operand')
          const f = field(leaf, 'field')
          if (operand?.type === 'identifier' && f !== undefined && RUN_SENSING.go.members.has(textOf(tree, f))) { dep = textOf(tree, operand); how = 'member' }
        } else if (leaf.type === 'member_expression' || leaf.type === 'subscript_expression') {
          const path = withoutGlobalObject(memberPath(tree, leaf))
          // `const p = globalThis.process` is the process object.
          if (path.length === 1 && path[0] === 'process') found.push([owner, plain ? 'root' : 'alias'])
          else if ((path.length === 2 && RUN_SENSING.javascript.members.has(path[1] ?? '')) || (path.length === 3 && JS_STREAMS.has(path[1] ?? '') && JS_TERMINAL.has(path[2] ?? ''))) {
            // `const read = require('node:fs').readFileSync` holds a run-sensing function at once.
            if (isSensingModuleLoad(tree, accessBase(leaf))) found.push([owner, 'alias'])
            else { dep = path[0]; how = 'member' }
          }
        }
        if (dep === undefined) continue
        const list = waiting.get(dep)
        const entry = { owner, dep, how, plain }
        if (list === undefined) waiting.set(dep, [entry])
        else list.push(entry)
      }
    }
  }
  const mark = (name: string, kind: 'root' | 'alias'): boolean => {
    const set = kind === 'root' ? roots : aliases
    if (set.has(name)) return false
    set.add(name)
    return true
  }
  const queue = [...roots, ...aliases]
  for (const [name, kind] of found) if (mark(name, kind)) queue.push(name)
  while (queue.length > 0) {
    const dep = queue.shift() as string
    for (const leaf of waiting.get(dep) ?? []) {
      let kind: 'root' | 'alias' | undefined
      if (leaf.how === 'member' && roots.has(dep)) kind = 'alias'
      else if (leaf.how === 'value' && roots.has(dep)) kind = leaf.plain ? 'root' : 'alias'
      else if (leaf.how !== 'member' && aliases.has(dep)) kind = 'alias'
      if (kind !== undefined && mark(leaf.owner, kind)) queue.push(leaf.owner)
    }
  }
  const scope = { roots, aliases, defs }
  scopes.set(tree, scope)
  return scope
}

/** The names a followed expression reads: its identifiers, and the method a call through a member calls (`run` of `cli.run()`). */
function namesRead (tree: SyntaxTree, n: SyntaxNode, skip: ReadonlySet<SyntaxNode>): string[] {
  const out: string[] = []
  for (const d of descendants(n)) {
    if (skip.has(d)) continue
    if (d.type === 'identifier') out.push(textOf(tree, d))
    else if ((d.type === 'property_identifier' || d.type === 'field_identifier') && d.parent !== undefined && calledAt(d.parent) && (field(d.parent, 'property') === d || field(d.parent, 'field') === d)) out.push(textOf(tree, d))
  }
  return out
}

const ASSIGNMENTS = new Set(['assignment_expression', 'augmented_assignment_expression', 'assignment_statement', 'for_in_statement'])
const PATTERN_PARTS = new Set(['array_pattern', 'object_pattern', 'pair_pattern', 'assignment_pattern', 'object_assignment_pattern', 'rest_pattern', 'expression_list', 'parenthesized_expression'])

/** The most names one use's value is followed through. */
const MAX_FOLLOWED = 64

/**
 * Each use of RUN_SENSING in a file, as its whole expression's text without white space (key,
 * index, slice or call arguments included), then the pattern it is destructured into or the
 * value written to it, and where the names it reads get their values, transitively
 * (`os.Exit(exitUsage) where exitUsage=2`). `others` are the package's other changed files
 * (go: the same directory; JavaScript: every other changed file): they define the names the
 * file does not.
 */
export function runSensingUsesOf (tree: SyntaxTree, others: readonly SyntaxTree[] = []): string[] {
  const out: string[] = []
  const flat = (x: SyntaxNode): string => textOf(tree, x).replace(/\s+/g, '')
  const own = runScopeOf(tree)
  let aliases = own.aliases
  const elsewhere = others.map(t => ({ tree: t, scope: runScopeOf(t) }))
  const borrowed = elsewhere.flatMap(o => [...o.scope.aliases].filter(a => !own.defs.has(a)))
  if (borrowed.length > 0) aliases = new Set([...aliases, ...borrowed])
  // Each name's definitions as text (sorted, joined) and the names they read, built once per file.
  const entries = new Map<string, { where: string, reads: string[] }>()
  const entryOf = (name: string): { where: string, reads: string[] } => {
    let e = entries.get(name)
    if (e !== undefined) return e
    const local = own.defs.get(name)
    const defs = local !== undefined ? local.map(def => ({ tree, def })) : elsewhere.flatMap(o => (o.scope.defs.get(name) ?? []).map(def => ({ tree: o.tree, def })))
    e = { where: defs.map(d => `${name}=${textOf(d.tree, d.def).replace(/\s+/g, '')}`).sort().join('; '), reads: [...new Set(defs.flatMap(d => namesRead(d.tree, d.def, EMPTY)))] }
    entries.set(name, e)
    return e
  }
  for (const n of descendants(tree.root)) {
    // A value through another name, or the process object passed or destructured whole:
    // counted only where a key, a call or a pattern makes it a use.
    const sensing = isRunSensing(tree, n, own.roots)
    const through = !sensing && n.type === 'identifier' && (aliases.has(textOf(tree, n)) || (own.roots.has(textOf(tree, n)) && tree.grammar === 'javascript' && accessedAt(n) === undefined))
    if (!sensing && !through) continue
    const use = useAround(tree, n)
    // A function passed to the call (`fs.readFile(p, (err, text) => …)`) is the file's own
    // code: it is shown as <function>, and the names in it are not followed (its own uses of
    // RUN_SENSING are counted where they are).
    const callbacks = use.type === 'call_expression' ? (field(use, 'arguments')?.children ?? []).filter(isFunction) : []
    let text = callbacks.length === 0 ? flat(use) : flatWithout(tree, use, callbacks)
    const followed: SyntaxNode[] = [use]
    // `const { CALC_MAX: max } = process.env`: the key read is in the pattern;
    // `process.exitCode = status`, `[process.exitCode] = [status]`: the value written is part of the use.
    const p = use.parent
    const pattern = p?.type === 'variable_declarator' && field(p, 'value') === use ? field(p, 'name') : p?.type === 'assignment_expression' && field(p, 'right') === use ? field(p, 'left') : undefined
    if (pattern !== undefined && pattern.type !== 'identifier') text += ` into ${flat(pattern)}`
    let target = use
    while (target.parent !== undefined && PATTERN_PARTS.has(target.parent.type)) target = target.parent
    const assignment = target.parent
    const written = assignment !== undefined && ASSIGNMENTS.has(assignment.type) && field(assignment, 'left') === target ? field(assignment, 'right') : undefined
    if (written !== undefined) {
      const left = field(assignment as SyntaxNode, 'left') as SyntaxNode
      text += `${target === use ? '' : ` in ${flat(left)}`} ${tree.source.slice(left.end, written.start).replace(/\s+/g, '')} ${flat(written)}`
      followed.push(written)
    }
    if (through && use === n && pattern === undefined && written === undefined) continue
    // `process.env[MAX_VAR]`, `os.Exit(exitUsage)`, `process.exit(status())`: where the names
    // it reads get their values, and the names those read, transitively. What a function does
    // with the access passed to it (`port(process.env)`) is its own code.
    const inside = new Set(descendants(n))
    for (const c of callbacks) for (const d of descendants(c)) inside.add(d)
    const callee = use.type === 'call_expression' ? field(use, 'function') : undefined
    if (callee !== undefined && !inside.has(callee) && ![...descendants(callee)].includes(n)) for (const d of descendants(callee)) inside.add(d)
    const queue = followed.flatMap(f => namesRead(tree, f, inside))
    const seen = new Set<string>()
    const where: string[] = []
    while (queue.length > 0 && seen.size < MAX_FOLLOWED) {
      const name = queue.shift() as string
      if (seen.has(name)) continue
      seen.add(name)
      const e = entryOf(name)
      if (e.where !== '') where.push(e.where)
      for (const r of e.reads) if (!seen.has(r)) queue.push(r)
    }
    if (where.length > 0) text += ` where ${where.sort().join('; ')}`
    out.push(text)
  }
  return out
}

const EMPTY: ReadonlySet<SyntaxNode> = new Set()

/** `n`'s text without white space, each of `holes` (children of it, in order) shown as <function>. */
function flatWithout (tree: SyntaxTree, n: SyntaxNode, holes: readonly SyntaxNode[]): string {
  let text = ''
  let at = n.start
  for (const h of holes) {
    text += `${tree.source.slice(at, h.start)}<function>`
    at = h.end
  }
  return (text + tree.source.slice(at, n.end)).replace(/\s+/g, '')
}

/** The file's distinct names, then one entry per use of a reaching name (`SEP` marks those), then each run-sensing use (`RUN` marks those). */
function namesAndUses (tree: SyntaxTree, others: readonly SyntaxTree[]): string[] {
  return [...namesOf(tree), ...reachingUsesOf(tree).map(u => `${SEP}${u}`), ...runSensingUsesOf(tree, others).map(u => `${RUN}${u}`)]
}

const RUN = '\u0001'

/** How a computed key assembled from strings is counted among the reaching uses. */
const BUILT_KEY = 'a computed key built from strings'

function show (e: string): string {
  if (e.startsWith(RUN)) return `use of ${e.slice(1)} (it can tell one run from another, or ends the run: a patch may not add or change one)`
  if (e === `${SEP}${BUILT_KEY}`) return `use of ${BUILT_KEY} (it can spell any name that reaches code)`
  if (e.startsWith(SEP) && CALLER_NAMES.has(e.slice(1))) return `use of ${e.slice(1)} (it tells who called: a stack names the test file)`
  return e.startsWith(SEP) ? `use of ${e.slice(1)} (reaches code or rebinds a call)` : `name ${e}`
}

/**
 * Each changed file's trees with the other changed files of its package, before with before
 * and after with after: a go package is one directory; JavaScript modules share names by
 * import, so every other changed JavaScript file counts. A file that does not parse is left
 * out.
 */
function packagesOf (ctx: GateContext): Map<SyntaxTree, SyntaxTree[]> {
  const groups = new Map<string, ParsedPair[]>()
  for (const [path, pair] of ctx.parsed ?? []) {
    if (pair.before.errors.length > 0 || pair.after.errors.length > 0) continue
    const key = pair.before.grammar === 'go' ? `go:${path.slice(0, path.lastIndexOf('/') + 1)}` : pair.before.grammar
    groups.set(key, [...(groups.get(key) ?? []), pair])
  }
  const out = new Map<SyntaxTree, SyntaxTree[]>()
  for (const pairs of groups.values()) {
    for (const pair of pairs) {
      const others = pairs.filter(o => o !== pair)
      out.set(pair.before, others.map(o => o.before))
      out.set(pair.after, others.map(o => o.after))
    }
  }
  return out
}

export function checkNamesPreserved (ctx: GateContext): RuleOutcome {
  const packages = packagesOf(ctx)
  return checkStructure(ctx, { what: 'names', extract: tree => namesAndUses(tree, packages.get(tree) ?? []), direction: 'added', show })
}
