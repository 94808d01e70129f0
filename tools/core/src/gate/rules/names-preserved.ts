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
// own constants are exempt (go: true, false, nil, iota; JavaScript: undefined, NaN,
// Infinity). A go package clause is a name too, so a file cannot move to another package.
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
// any of them, so each such key counts as a use too.

import { checkStructure } from '../syntax/compare.ts'
import { literalKey, memberPath } from '../syntax/member-path.ts'
import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const NAME_NODES = {
  go: new Set(['identifier', 'package_identifier']),
  javascript: new Set(['identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
} as const

const CONSTANTS = {
  go: new Set(['true', 'false', 'nil', 'iota', '_']),
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
    if (name !== undefined && REACHING_NAMES.has(name)) out.push(name)
  }
  return out
}

/**
 * What tells one run of the code from another, where the file can already reach it: node's
 * `process.env`, `process.argv` and the rest below, go's `os.Getenv`, `os.Args`, `flag`
 * lookups, `testing.Testing`, … and the exit calls (`process.exit`, `os.Exit`, …). Each use is
 * counted with its key, index or arguments as written, the pattern it is destructured into,
 * and the initializers of the names it reads (`process.env[MAX_VAR]` with `const MAX_VAR =
 * 'CALC_MAX'`), so a use added or changed is a finding: end-to-end audits reached
 * scoped_test_verified with `os.Getenv("CALC_WIDTH")` turned into `os.Getenv("GOCACHE")`
 * (set only in the sandbox), `process.env.HOME === '/tmp'`, `os.Args[1][:6] == "-test."`,
 * `process.exit(2)` turned into `process.exit(0)` before an assertion ran, and the same
 * through a constant's value or a destructuring key (`NODE_TEST_CONTEXT`, which node --test
 * sets in its children). A fix that must read another variable, or exit otherwise, is
 * rejected for review. Not counted: a read through an alias (`const env = process.env`, then
 * `env.HOME`; names-preserved sees only that `env` was named before), a parameter's value
 * (`fail(0)` where `fail` calls `os.Exit(code)`), a package imported under another name.
 */
const RUN_SENSING = {
  javascript: {
    roots: new Set(['process']),
    members: new Set(['env', 'argv', 'argv0', 'execArgv', 'execPath', 'title', 'pid', 'ppid', 'exit', 'exitCode', 'reallyExit', 'abort', 'kill', 'cwd', 'getuid', 'geteuid', 'getgid', 'uptime', 'hrtime', 'platform', 'arch', 'release', 'version', 'versions', 'config', 'features', 'stdin', 'umask']),
  },
  go: {
    roots: new Set(['os', 'syscall', 'flag', 'testing', 'runtime']),
    members: new Set(['Getenv', 'LookupEnv', 'Environ', 'ExpandEnv', 'Args', 'Arg', 'NArg', 'Executable', 'Hostname', 'Getpid', 'Getppid', 'Getuid', 'Geteuid', 'Getwd', 'UserHomeDir', 'TempDir', 'Exit', 'Lookup', 'Parsed', 'Testing', 'Short', 'Verbose', 'CommandLine', 'Caller', 'Goexit', 'GOOS', 'GOARCH']),
  },
} as const

/** What a terminal tells about the run: `process.stdout.isTTY` and its kin. */
const JS_STREAMS = new Set(['stdout', 'stderr'])
const JS_TERMINAL = new Set(['isTTY', 'columns', 'rows', 'hasColors', 'getColorDepth', 'getWindowSize'])

/** Whether `n` is a run-sensing access itself (`process.env`, `process['env']`, `(process).argv`, `process.stdout.isTTY`; go `os.Getenv`). */
function isRunSensing (tree: SyntaxTree, n: SyntaxNode): boolean {
  if (tree.grammar === 'go') {
    if (n.type !== 'selector_expression') return false
    const operand = field(n, 'operand')
    const f = field(n, 'field')
    return operand?.type === 'identifier' && f !== undefined && RUN_SENSING.go.roots.has(textOf(tree, operand)) && RUN_SENSING.go.members.has(textOf(tree, f))
  }
  if (n.type !== 'member_expression' && n.type !== 'subscript_expression') return false
  const path = memberPath(tree, n)
  if (!RUN_SENSING.javascript.roots.has(path[0] ?? '')) return false
  // The innermost access only: `process.env` in `process.env.HOME`.
  const object = field(n, 'object')
  if (object !== undefined && object.type !== 'identifier' && object.type !== 'parenthesized_expression' && isRunSensing(tree, object)) return false
  if (path.length === 2) return RUN_SENSING.javascript.members.has(path[1] ?? '')
  return path.length === 3 && JS_STREAMS.has(path[1] ?? '') && JS_TERMINAL.has(path[2] ?? '')
}

const KEY_ACCESS = new Set(['member_expression', 'subscript_expression', 'index_expression', 'slice_expression', 'selector_expression'])

/**
 * The whole use around a run-sensing access: a function's call with its arguments
 * (`os.Getenv("X")`, `process.exit(2)`), or the keys, indexes and slices read from data
 * (`process.env.HOME`, `os.Args[1][:6]`) up to, not into, a method called on it
 * (`process.env.PATH` of `process.env.PATH.split(':')`: what the method's callback does is
 * the file's own code).
 */
function useAround (n: SyntaxNode): SyntaxNode {
  const calledAt = (x: SyntaxNode): boolean => x.parent?.type === 'call_expression' && field(x.parent, 'function') === x
  if (calledAt(n)) return n.parent as SyntaxNode
  let use = n
  for (let p = use.parent; p !== undefined && KEY_ACCESS.has(p.type) && (field(p, 'object') === use || field(p, 'operand') === use) && !calledAt(p); p = use.parent) use = p
  return use
}

/**
 * Where each name of a file gets its value: a declaration's initializer (a destructuring's
 * too), an assignment's right side, the iterable of a `for … of`/`in` or go `range` that binds
 * it, a property assignment rooted at it (`KEYS.max = …`), and in go a const spec's value or,
 * in a block with `iota` or an implicit value, the whole block. Names are matched by text, not
 * scope: a use's value is followed too far, never too short. A function's body is not
 * followed (what `process.exit(main())` exits with): every fix inside such a function would
 * count as a changed use.
 */
function definitionsOf (tree: SyntaxTree): Map<string, SyntaxNode[]> {
  const out = new Map<string, SyntaxNode[]>()
  const add = (name: string, def: SyntaxNode | undefined): void => {
    if (def === undefined) return
    const list = out.get(name)
    if (list === undefined) out.set(name, [def])
    else list.push(def)
  }
  const namesIn = (n: SyntaxNode | undefined): string[] => n === undefined ? [] : [...descendants(n)].filter(d => d.type === 'identifier' || d.type === 'shorthand_property_identifier_pattern').map(d => textOf(tree, d))
  const rootOf = (n: SyntaxNode | undefined): string | undefined => {
    let c = n
    while (c !== undefined && ['member_expression', 'subscript_expression', 'selector_expression', 'index_expression', 'parenthesized_expression'].includes(c.type)) c = field(c, 'object') ?? field(c, 'operand') ?? c.children.find(x => x.named)
    return c?.type === 'identifier' ? textOf(tree, c) : undefined
  }
  for (const d of descendants(tree.root)) {
    switch (d.type) {
      case 'variable_declarator': for (const name of namesIn(field(d, 'name'))) add(name, field(d, 'value')); break
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const left = field(d, 'left')
        for (const name of left?.type === 'identifier' || left?.type === 'object_pattern' || left?.type === 'array_pattern' ? namesIn(left) : [rootOf(left) ?? '']) add(name, field(d, 'right'))
        break
      }
      case 'for_in_statement': for (const name of namesIn(field(d, 'left'))) add(name, field(d, 'right')); break
      case 'const_spec':
      case 'var_spec': {
        const names = d.children.filter(c => c.field === 'name')
        const value = field(d, 'value')
        const block = d.parent
        const whole = d.type === 'const_spec' && block !== undefined && (value === undefined || [...descendants(block)].some(x => x.type === 'iota'))
        for (const name of names) add(textOf(tree, name), whole ? block : value)
        break
      }
      case 'short_var_declaration':
      case 'assignment_statement':
        for (const name of namesIn(field(d, 'left'))) add(name, field(d, 'right'))
        break
      case 'range_clause': for (const name of namesIn(field(d, 'left'))) add(name, field(d, 'right')); break
    }
  }
  return out
}

/** The most names one use's value is followed through. */
const MAX_FOLLOWED = 64

/**
 * Each use of RUN_SENSING in a file, as its whole expression's text without white space (key,
 * index, slice or call arguments included), then the pattern it is destructured into and the
 * initializers of the names it reads.
 */
export function runSensingUsesOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  let defs: Map<string, SyntaxNode[]> | undefined
  for (const n of descendants(tree.root)) {
    if (!isRunSensing(tree, n)) continue
    const use = useAround(n)
    let text = textOf(tree, use).replace(/\s+/g, '')
    const followed: SyntaxNode[] = [use]
    // `const { CALC_MAX: max } = process.env`: the key read is in the pattern;
    // `process.exitCode = status`: the value written is part of the use.
    const p = use.parent
    const pattern = p?.type === 'variable_declarator' && field(p, 'value') === use ? field(p, 'name') : p?.type === 'assignment_expression' && field(p, 'right') === use ? field(p, 'left') : undefined
    if (pattern !== undefined && pattern.type !== 'identifier') text += ` into ${textOf(tree, pattern).replace(/\s+/g, '')}`
    const written = p?.type === 'assignment_expression' && field(p, 'left') === use ? field(p, 'right') : undefined
    if (written !== undefined) { text += ` = ${textOf(tree, written).replace(/\s+/g, '')}`; followed.push(written) }
    // `process.env[MAX_VAR]`, `os.Exit(exitUsage)`, `process.exit(status())`: where the names
    // it reads get their values, and the names those read, transitively.
    defs ??= definitionsOf(tree)
    const inside = new Set(descendants(n))
    const queue = followed.flatMap(f => [...descendants(f)].filter(d => d.type === 'identifier' && !inside.has(d)).map(d => textOf(tree, d)))
    const seen = new Set<string>()
    const where: string[] = []
    while (queue.length > 0 && seen.size < MAX_FOLLOWED) {
      const name = queue.shift() as string
      if (seen.has(name)) continue
      seen.add(name)
      for (const def of defs.get(name) ?? []) {
        where.push(`${name}=${textOf(tree, def).replace(/\s+/g, '')}`)
        for (const d of descendants(def)) if (d.type === 'identifier') queue.push(textOf(tree, d))
      }
    }
    if (where.length > 0) text += ` where ${where.sort().join('; ')}`
    out.push(text)
  }
  return out
}

/** The file's distinct names, then one entry per use of a reaching name (`SEP` marks those), then each run-sensing use (`RUN` marks those). */
function namesAndUses (tree: SyntaxTree): string[] {
  return [...namesOf(tree), ...reachingUsesOf(tree).map(u => `${SEP}${u}`), ...runSensingUsesOf(tree).map(u => `${RUN}${u}`)]
}

const RUN = '\u0001'

/** How a computed key assembled from strings is counted among the reaching uses. */
const BUILT_KEY = 'a computed key built from strings'

function show (e: string): string {
  if (e.startsWith(RUN)) return `use of ${e.slice(1)} (it can tell one run from another, or ends the run: a patch may not add or change one)`
  if (e === `${SEP}${BUILT_KEY}`) return `use of ${BUILT_KEY} (it can spell any name that reaches code)`
  return e.startsWith(SEP) ? `use of ${e.slice(1)} (reaches code or rebinds a call)` : `name ${e}`
}

export function checkNamesPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'names', extract: namesAndUses, direction: 'added', show })
}
