// Where each name of a file gets its value, for following a value back to the code that sets
// it (names-preserved follows what flows into a run-sensing use). Names are matched by text,
// not scope: a value is followed too far, never too short.

import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from './parse.ts'

/** Nodes that hold a function's own body: their returns are not the enclosing function's. */
const FUNCTION_NODES = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'function', 'generator_function', 'arrow_function', 'method_definition', 'method_declaration', 'func_literal'])

/** One parameter position: the names it binds, and whether it takes every argument from there on. */
interface Parameter { names: string[], rest: boolean }

/** A call by the name it calls (`f(…)`, `x.f(…)`) and its arguments. */
interface CallSite { name: string, args: SyntaxNode[] }

const namesIn = (tree: SyntaxTree, n: SyntaxNode | undefined): string[] => n === undefined ? [] : [...descendants(n)].filter(d => d.type === 'identifier' || d.type === 'shorthand_property_identifier_pattern').map(d => textOf(tree, d))

const namedChildren = (n: SyntaxNode | undefined): SyntaxNode[] => n === undefined ? [] : n.children.filter(c => c.named && c.type !== 'comment')

/** The function a value is, through parentheses and go's one-element expression list (`var die = func…`). */
function functionIn (n: SyntaxNode | undefined): SyntaxNode | undefined {
  let c = n
  while (c !== undefined && (c.type === 'parenthesized_expression' || (c.type === 'expression_list' && namedChildren(c).length === 1))) c = namedChildren(c)[0]
  return c !== undefined && FUNCTION_NODES.has(c.type) ? c : undefined
}

/**
 * What a call of the function evaluates to: each `return`'s expressions in its own body (not
 * in a nested function's), an arrow's expression body, and go's named results (a bare
 * `return` returns them).
 */
function returnsOf (fn: SyntaxNode): SyntaxNode[] {
  const body = field(fn, 'body')
  if (body === undefined) return []
  if (fn.type === 'arrow_function' && body.type !== 'statement_block') return [body]
  const out: SyntaxNode[] = []
  const result = field(fn, 'result')
  if (result?.type === 'parameter_list') out.push(result)
  const stack = [...body.children]
  while (stack.length > 0) {
    const n = stack.pop() as SyntaxNode
    if (FUNCTION_NODES.has(n.type)) continue
    if (n.type === 'return_statement') out.push(...namedChildren(n))
    else stack.push(...n.children)
  }
  return out
}

/** The parameter positions of a function, in order. */
function parametersOf (tree: SyntaxTree, fn: SyntaxNode): Parameter[] {
  const single = field(fn, 'parameter')
  if (single !== undefined) return [{ names: [textOf(tree, single)], rest: false }]
  const out: Parameter[] = []
  for (const p of namedChildren(field(fn, 'parameters'))) {
    if (p.type === 'parameter_declaration') {
      const names = p.children.filter(c => c.field === 'name')
      if (names.length === 0) out.push({ names: [], rest: false })
      for (const name of names) out.push({ names: [textOf(tree, name)], rest: false })
    } else if (p.type === 'variadic_parameter_declaration') {
      out.push({ names: namesIn(tree, field(p, 'name')), rest: true })
    } else {
      out.push({ names: namesIn(tree, p.type === 'assignment_pattern' ? field(p, 'left') : p), rest: p.type === 'rest_pattern' })
    }
  }
  return out
}

/** The name a call calls: `f` of `f(…)`, `x.f(…)` and `x.y.f(…)`. */
function calleeName (tree: SyntaxTree, fn: SyntaxNode | undefined): string | undefined {
  if (fn?.type === 'identifier') return textOf(tree, fn)
  const last = fn?.type === 'member_expression' ? field(fn, 'property') : fn?.type === 'selector_expression' ? field(fn, 'field') : undefined
  return last === undefined ? undefined : textOf(tree, last)
}

/**
 * Where each name of a file gets its value: a declaration's initializer (a destructuring's
 * too), an assignment's right side, the iterable of a `for … of`/`in` or go `range` that binds
 * it, a property assignment rooted at it (`KEYS.max = …`), in go a const spec's value or, in a
 * block with `iota` or an implicit value, the whole block. A function's name gets what its
 * calls evaluate to (its `return` expressions: `process.exit(main())` exits with them), and
 * its parameters get the arguments of every call by that name and their defaults (`fail(2)`
 * for `function fail (code) { process.exit(code) }`). A function passed as a value (a
 * callback) has no call by its name, so its parameters get nothing.
 */
export function definitionsOf (tree: SyntaxTree): Map<string, SyntaxNode[]> {
  const out = new Map<string, SyntaxNode[]>()
  const functions = new Map<string, SyntaxNode[]>()
  const calls: CallSite[] = []
  const put = (name: string, def: SyntaxNode): void => {
    const list = out.get(name)
    if (list === undefined) out.set(name, [def])
    else list.push(def)
  }
  const defineFunction = (name: string, fn: SyntaxNode): void => {
    for (const r of returnsOf(fn)) put(name, r)
    const list = functions.get(name)
    if (list === undefined) functions.set(name, [fn])
    else list.push(fn)
  }
  const add = (name: string, def: SyntaxNode | undefined): void => {
    if (def === undefined) return
    const fn = functionIn(def)
    if (fn !== undefined) defineFunction(name, fn)
    else put(name, def)
  }
  const rootOf = (n: SyntaxNode | undefined): string | undefined => {
    let c = n
    while (c !== undefined && ['member_expression', 'subscript_expression', 'selector_expression', 'index_expression', 'parenthesized_expression'].includes(c.type)) c = field(c, 'object') ?? field(c, 'operand') ?? c.children.find(x => x.named)
    return c?.type === 'identifier' ? textOf(tree, c) : undefined
  }
  for (const d of descendants(tree.root)) {
    switch (d.type) {
      case 'variable_declarator': for (const name of namesIn(tree, field(d, 'name'))) add(name, field(d, 'value')); break
      case 'assignment_expression':
      case 'augmented_assignment_expression': {
        const left = field(d, 'left')
        const right = field(d, 'right')
        if (left?.type === 'member_expression' && functionIn(right) !== undefined) { add(calleeName(tree, left) ?? '', right); break }
        for (const name of left?.type === 'identifier' || left?.type === 'object_pattern' || left?.type === 'array_pattern' ? namesIn(tree, left) : [rootOf(left) ?? '']) add(name, right)
        break
      }
      case 'assignment_pattern': if (d.parent?.type === 'formal_parameters') for (const name of namesIn(tree, field(d, 'left'))) add(name, field(d, 'right')); break
      case 'pair': { const key = field(d, 'key'); const value = functionIn(field(d, 'value')); if (key !== undefined && value !== undefined) defineFunction(textOf(tree, key).replace(/^['"`]|['"`]$/g, ''), value); break }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'method_definition':
      case 'method_declaration': { const name = field(d, 'name'); if (name !== undefined) defineFunction(textOf(tree, name), d); break }
      case 'call_expression': {
        const name = calleeName(tree, field(d, 'function'))
        const args = field(d, 'arguments')
        if (name !== undefined && (args?.type === 'arguments' || args?.type === 'argument_list')) calls.push({ name, args: namedChildren(args) })
        break
      }
      case 'for_in_statement': for (const name of namesIn(tree, field(d, 'left'))) add(name, field(d, 'right')); break
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
        for (const name of namesIn(tree, field(d, 'left'))) add(name, field(d, 'right'))
        break
      case 'range_clause': for (const name of namesIn(tree, field(d, 'left'))) add(name, field(d, 'right')); break
    }
  }
  // Each parameter gets the argument at its position in every call by the function's name; a
  // spread argument (`f(...xs)`, `f(xs...)`) or a rest parameter covers every later position.
  const parameters = new Map<SyntaxNode, Parameter[]>()
  for (const call of calls) {
    for (const fn of functions.get(call.name) ?? []) {
      let params = parameters.get(fn)
      if (params === undefined) { params = parametersOf(tree, fn); parameters.set(fn, params) }
      const spreadAt = call.args.findIndex(a => a.type === 'spread_element' || a.type === 'variadic_argument')
      params.forEach((p, i) => {
        const args = p.rest ? call.args.slice(i) : [call.args[i] ?? (spreadAt >= 0 && spreadAt < i ? call.args[spreadAt] : undefined)]
        for (const a of args) if (a !== undefined) for (const name of p.names) put(name, a)
      })
    }
  }
  return out
}
