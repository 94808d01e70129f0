// Go's builtins and predeclared types (DESIGN §15). The seed keeps call expressions so that a
// fix cannot reach new code; a builtin (`len`, `append`, `make`, …) or a conversion to a
// predeclared type (`string(b)`, `int64(n)`, `[]byte(s)`, `(*int)(p)`) reaches none, so
// adding or removing one is a local expression change, unless the file redeclares the name
// (`func min(a, b int) int` makes `min(x, y)` a call of the file's code again). `panic`,
// `print`, `println`, `recover` and `close` stay calls: they end the run, write to its
// output or act on another goroutine's state.

import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from './parse.ts'

/** The builtins DESIGN §15 lists: they reach no code. */
export const GO_PURE_BUILTINS: ReadonlySet<string> = new Set(['len', 'cap', 'min', 'max', 'append', 'copy', 'make', 'new', 'delete', 'clear', 'complex', 'real', 'imag'])

/** Go's predeclared types: a conversion to one (or to a slice, array, map or pointer of them) reaches no code. */
export const GO_PREDECLARED_TYPES: ReadonlySet<string> = new Set([
  'bool', 'byte', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16', 'int32', 'int64',
  'rune', 'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr', 'any',
])

/** Declaration node types whose `name` field binds a name in a go file. */
const BINDERS = new Set(['function_declaration', 'type_spec', 'type_alias', 'var_spec', 'const_spec', 'parameter_declaration', 'variadic_parameter_declaration', 'field_declaration'])

/** The predeclared names (builtins and types) a go file declares itself, which are then its own. */
export function redeclaredPredeclared (tree: SyntaxTree): Set<string> {
  const out = new Set<string>()
  const note = (n: SyntaxNode | undefined): void => {
    if (n === undefined) return
    const name = textOf(tree, n)
    if (GO_PURE_BUILTINS.has(name) || GO_PREDECLARED_TYPES.has(name)) out.add(name)
  }
  for (const n of descendants(tree.root)) {
    if (BINDERS.has(n.type)) for (const c of n.children) if (c.field === 'name') note(c)
    if (n.type === 'short_var_declaration' || n.type === 'range_clause') for (const c of field(n, 'left')?.children ?? []) if (c.type === 'identifier') note(c)
  }
  return out
}

/** True when `type` (a type expression) is built only of predeclared types the file does not redeclare. */
function predeclaredType (tree: SyntaxTree, type: SyntaxNode, own: ReadonlySet<string>): boolean {
  for (const d of descendants(type)) {
    if (d.type === 'type_identifier' || d.type === 'identifier') {
      const name = textOf(tree, d)
      if (!GO_PREDECLARED_TYPES.has(name) || own.has(name)) return false
    } else if (d.type === 'qualified_type' || d.type === 'generic_type' || d.type === 'function_type' || d.type === 'struct_type' || d.type === 'interface_type' || d.type === 'channel_type') {
      return false
    }
  }
  return true
}

/**
 * True when a go call or conversion node reaches no code: a builtin of GO_PURE_BUILTINS, or a
 * conversion to a predeclared type, neither redeclared by the file (`own`).
 */
export function reachesNoCode (tree: SyntaxTree, n: SyntaxNode, own: ReadonlySet<string>): boolean {
  if (n.type === 'type_conversion_expression') {
    const type = field(n, 'type')
    return type !== undefined && predeclaredType(tree, type, own)
  }
  if (n.type !== 'call_expression') return false
  let fn = field(n, 'function')
  if (fn?.type === 'identifier') {
    const name = textOf(tree, fn)
    return !own.has(name) && (GO_PURE_BUILTINS.has(name) || GO_PREDECLARED_TYPES.has(name))
  }
  // `(*int)(p)`, `([]byte)(s)`: a parenthesized predeclared type.
  while (fn?.type === 'parenthesized_expression' || fn?.type === 'parenthesized_type') fn = fn.children.find(c => c.named && c.type !== 'comment')
  if (fn === undefined) return false
  if (fn.type === 'pointer_type' || fn.type === 'slice_type' || fn.type === 'array_type' || fn.type === 'map_type' || (fn.type === 'unary_expression' && fn.children.some(c => !c.named && textOf(tree, c) === '*'))) return predeclaredType(tree, fn, own)
  return false
}
