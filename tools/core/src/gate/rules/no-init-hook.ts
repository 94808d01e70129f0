// no-init-hook: no code is added that runs when the package or module loads (or that takes
// over a test binary).
//   go: `func init`, `func TestMain` (keyed by what their bodies call), and a package-level
//   var whose initializer calls code (a builtin or a conversion to a predeclared type does
//   not, DESIGN §15; keyed by its callees, as every hook that calls is, so a
//   call moved into an existing initializer is an added hook);
//   JavaScript: every top-level expression statement (one that calls is keyed by its
//   callees, any other by its tokens with function bodies elided: coercion, `await` of a
//   thenable and accessors run code with no call expression, while a fix inside
//   `exports.add = function (…) { … }` changes nothing that runs at load), every other top-level statement that runs at load (if, for,
//   while, do, switch, try, throw, blocks, labels), every top-level `await` (also inside a
//   declaration or `for await`), top-level var/let/const whose initializer or destructuring
//   default calls, `export default` of a call, class static blocks, static class fields whose
//   initializer calls, and computed member names that call (evaluated when the class is).
// A hook that calls is keyed by its callees and by every callee reached through the file's
// own functions it calls (transitively, as a set), so a call moved into a function that an
// existing initializer calls is an added hook; a new call there is rejected for review even
// when it is a fix. Functions of other files are not followed.
// Hooks are compared as a multiset, so an existing hook may keep changing its arguments (an
// existing call statement its arguments, an existing top-level `if` or loop its body).

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, fields, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { patternNames } from './declarations-preserved.ts'
import { callsOf } from './calls-preserved.ts'
import { redeclaredPredeclared } from '../syntax/go-predeclared.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const JS_CALLS = new Set(['call_expression', 'new_expression'])

/** Top-level JavaScript statements, other than declarations and expressions, that run code at load. */
const LOAD_STATEMENTS = new Set(['if_statement', 'for_statement', 'for_in_statement', 'while_statement', 'do_statement', 'switch_statement', 'try_statement', 'throw_statement', 'statement_block', 'labeled_statement', 'with_statement'])

const FUNCTION_BODIES = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'generator_function', 'arrow_function', 'method_definition', 'class_body'])

/** The file's named functions by name, and the calls in each body (read once). */
interface LocalFunctions {
  bodies: ReadonlyMap<string, SyntaxNode>
  callsIn: (name: string) => string[]
  /** The predeclared go names the file redeclares (calls-preserved's callsOf counts those as calls). */
  own: ReadonlySet<string>
}

/**
 * The file's named functions a call can reach by name: go's top-level `func`s (not methods),
 * JavaScript's top-level function declarations and top-level bindings of a function or
 * arrow literal; each by its body.
 */
function localFunctionsOf (tree: SyntaxTree): LocalFunctions {
  const out = new Map<string, SyntaxNode>()
  const own = tree.grammar === 'go' ? redeclaredPredeclared(tree) : new Set<string>()
  const add = (name: SyntaxNode | undefined, body: SyntaxNode | undefined): void => {
    if (name !== undefined && body !== undefined) out.set(textOf(tree, name), body)
  }
  for (const stmt of tree.root.children) {
    const top = stmt.type === 'export_statement' ? field(stmt, 'declaration') ?? stmt : stmt
    if (tree.grammar === 'go') {
      if (top.type === 'function_declaration') add(field(top, 'name'), field(top, 'body'))
    } else if (top.type === 'function_declaration' || top.type === 'generator_function_declaration') {
      add(field(top, 'name'), field(top, 'body'))
    } else if (top.type === 'lexical_declaration' || top.type === 'variable_declaration') {
      for (const d of top.children.filter(c => c.type === 'variable_declarator')) {
        const value = field(d, 'value')
        const name = field(d, 'name')
        if (name?.type === 'identifier' && value !== undefined && ['arrow_function', 'function_expression', 'generator_function'].includes(value.type)) add(name, field(value, 'body'))
      }
    }
  }
  // Each body's calls are read once however many hooks reach it: a chain of functions reached
  // from every hook would otherwise be reread per hook.
  const calls = new Map<string, string[]>()
  const callsIn = (name: string): string[] => {
    let c = calls.get(name)
    if (c === undefined) {
      const body = out.get(name)
      c = body === undefined ? [] : callsOf({ ...tree, root: body }, own)
      calls.set(name, c)
    }
    return c
  }
  return { bodies: out, callsIn, own }
}

/**
 * The callees of the calls under `n`, sorted (a call's arguments may change; a call moved in
 * or out changes them), and every callee reached through the file's own functions it calls,
 * transitively, as a sorted set: code that runs at load includes the bodies of the functions
 * it calls, so a call moved into one (`var scale = factor(1)` and `os.Exit` moved into
 * `factor`) is an added hook too.
 */
function calleesOf (tree: SyntaxTree, n: SyntaxNode, functions: LocalFunctions): string {
  const direct = callsOf({ ...tree, root: n }, functions.own).sort()
  const reached = new Set<string>()
  const seen = new Set<string>()
  const queue = direct.filter(c => functions.bodies.has(c))
  while (queue.length > 0) {
    const name = queue.pop() as string
    if (seen.has(name)) continue
    seen.add(name)
    for (const c of functions.callsIn(name)) {
      reached.add(c)
      if (functions.bodies.has(c)) queue.push(c)
    }
  }
  return `${direct.join(', ')}${reached.size === 0 ? '' : ` (reaching ${[...reached].sort().join(', ')})`}`
}

function calls (n: SyntaxNode | undefined, types: ReadonlySet<string>): boolean {
  if (n === undefined) return false
  for (const d of descendants(n)) if (types.has(d.type)) return true
  return false
}

/** Every load-time hook of a file, one line each. */
export function initHooksOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  const functions = localFunctionsOf(tree)
  if (tree.grammar === 'go') {
    for (const top of tree.root.children) {
      if (top.type === 'function_declaration') {
        const name = textOf(tree, field(top, 'name') ?? top)
        if (name !== 'init' && name !== 'TestMain') continue
        const body = field(top, 'body')
        const callees = body === undefined ? '' : calleesOf(tree, body, functions)
        out.push(`func ${name}${callees === '' ? '' : ` calling ${callees}`}`)
      } else if (top.type === 'var_declaration') {
        for (const spec of descendants(top)) {
          const value = spec.type === 'var_spec' ? field(spec, 'value') : undefined
          // A builtin or a conversion to a predeclared type is no call (DESIGN §15): `var buf = make([]byte, 8)` runs no code.
          const callees = value === undefined ? '' : calleesOf(tree, value, functions)
          if (callees !== '') out.push(`package-level var ${fields(spec, 'name').map(n => textOf(tree, n)).join(', ')} initialized by calling ${callees}`)
        }
      }
    }
    return out
  }
  for (const stmt of tree.root.children) {
    const top = stmt.type === 'export_statement' ? field(stmt, 'declaration') ?? stmt : stmt
    if (top.type === 'expression_statement' && calls(top, JS_CALLS)) {
      out.push(`top-level statement calling ${calleesOf(tree, top, functions)}`)
    } else if (top.type === 'expression_statement') {
      out.push(`top-level statement ${shapeOf(tree, top)}`)
    } else if (LOAD_STATEMENTS.has(top.type)) {
      out.push(`top-level ${top.type.replace(/_statement$/, '')} statement`)
    } else if (top.type === 'export_statement' && calls(field(top, 'value'), JS_CALLS)) {
      out.push(`export default calling ${calleesOf(tree, field(top, 'value') as SyntaxNode, functions)}`)
    } else if (top.type === 'lexical_declaration' || top.type === 'variable_declaration') {
      // The pattern too: a destructuring default (`const { LIMIT = f() } = {}`) runs at load.
      for (const d of top.children.filter(c => c.type === 'variable_declarator')) {
        if (calls(d, JS_CALLS)) out.push(`top-level ${patternNames(tree, field(d, 'name')).join(', ')} initialized by calling ${calleesOf(tree, d, functions)}`)
      }
    }
  }
  for (const n of descendants(tree.root)) {
    if ((n.type === 'await_expression' || (n.type === 'for_in_statement' && n.children.some(c => !c.named && textOf(tree, c) === 'await'))) && atTopLevel(n)) out.push('top-level await')
    if (n.type === 'class_static_block') out.push(`class static block in ${classOf(tree, n)}`)
    else if (n.type === 'computed_property_name' && n.parent?.parent?.type === 'class_body' && definedAtLoad(n) && calls(n, JS_CALLS)) {
      out.push(`computed member name in ${classOf(tree, n)} calling ${calleesOf(tree, n, functions)}`)
    }
    else if (n.type === 'field_definition' && n.children.some(c => !c.named && textOf(tree, c) === 'static') && calls(field(n, 'value'), JS_CALLS)) {
      out.push(`static field ${classOf(tree, n)}.${textOf(tree, field(n, 'property') ?? n)} initialized by calling ${calleesOf(tree, field(n, 'value') as SyntaxNode, functions)}`)
    }
  }
  return out
}

/**
 * A statement's tokens with every function, method and class body read as `ƒ`: those do not
 * run at load, so a fix inside `exports.add = function (a, b) { … }` keeps its key.
 */
function shapeOf (tree: SyntaxTree, n: SyntaxNode): string {
  const tokens: string[] = []
  const stack: SyntaxNode[] = [n]
  while (stack.length > 0) {
    const c = stack.pop() as SyntaxNode
    if (c !== n && FUNCTION_BODIES.has(c.type)) tokens.push('ƒ')
    else if (c.children.length === 0) tokens.push(textOf(tree, c))
    else for (let i = c.children.length - 1; i >= 0; i--) stack.push(c.children[i] as SyntaxNode)
  }
  return tokens.filter(t => t.trim() !== '').join(' ')
}

/**
 * Whether a class member's computed name is evaluated at module load: the class is defined
 * at load (its name is evaluated with it, whatever the member), so no function or method
 * body encloses the class.
 */
function definedAtLoad (n: SyntaxNode): boolean {
  for (let p = n.parent; p !== undefined; p = p.parent) if (p.type !== 'class_body' && FUNCTION_BODIES.has(p.type) && !(p.type === 'method_definition' && p === n.parent)) return false
  return true
}

/** Whether a node runs at module load: no function, method or class body encloses it. */
function atTopLevel (n: SyntaxNode): boolean {
  for (let p = n.parent; p !== undefined; p = p.parent) if (FUNCTION_BODIES.has(p.type)) return false
  return true
}

function clip (s: string): string {
  const one = s.replace(/\s+/g, ' ')
  return one.length > 120 ? `${one.slice(0, 120)}…` : one
}

function classOf (tree: SyntaxTree, n: SyntaxNode): string {
  for (let p = n.parent; p !== undefined; p = p.parent) {
    if (p.type === 'class_declaration' || p.type === 'class') {
      const name = field(p, 'name')
      return name === undefined ? '<class>' : textOf(tree, name)
    }
  }
  return '<class>'
}

export function checkNoInitHook (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'load-time hooks', extract: initHooksOf, direction: 'added', show: h => `init hook: ${clip(h)}` })
}
