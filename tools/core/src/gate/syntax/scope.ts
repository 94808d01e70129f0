// Scopes for the structure gates: a declaration is keyed by `(enclosing function or type,
// kind, name)`. A scope is the chain of enclosing named functions, methods, types and
// classes, joined by "/"; an anonymous function is `func` (go) or `<function>`/`<arrow>`
// (JavaScript) unless it is bound to a name. The file level is the empty chain.

import { field, tokensOf, type SyntaxNode, type SyntaxTree } from './parse.ts'

/** The name a scope-establishing node gives its body, or undefined when it is not one. */
export function scopeName (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (tree.grammar === 'go') {
    switch (n.type) {
      case 'function_declaration': return tokensOf(tree, field(n, 'name') ?? n, '')
      case 'method_declaration': return `(${receiverType(tree, n)}).${tokensOf(tree, field(n, 'name') ?? n, '')}`
      case 'func_literal': return 'func'
      case 'type_spec':
      case 'type_alias': return tokensOf(tree, field(n, 'name') ?? n, '')
      default: return undefined
    }
  }
  switch (n.type) {
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'class_declaration':
      return tokensOf(tree, field(n, 'name') ?? n, '')
    case 'class': {
      const name = field(n, 'name')
      return name === undefined ? boundName(tree, n) ?? '<class>' : tokensOf(tree, name, '')
    }
    case 'function_expression':
    case 'generator_function': {
      const name = field(n, 'name')
      return name === undefined ? boundName(tree, n) ?? '<function>' : tokensOf(tree, name, '')
    }
    case 'arrow_function': return boundName(tree, n) ?? '<arrow>'
    case 'method_definition': return tokensOf(tree, field(n, 'name') ?? n, '')
    default: return undefined
  }
}

/** The receiver type of a go method, tokens joined without spaces: `*T`, `T`, `List[T]`. */
export function receiverType (tree: SyntaxTree, method: SyntaxNode): string {
  const recv = field(method, 'receiver')
  const decl = recv?.children.find(c => c.type === 'parameter_declaration')
  const type = decl === undefined ? undefined : field(decl, 'type')
  return type === undefined ? '' : tokensOf(tree, type, '')
}

/** The name an anonymous JavaScript function or class is bound to (`const f = () => …`, `{f: …}`). */
function boundName (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  const p = n.parent
  if (p === undefined) return undefined
  if (p.type === 'variable_declarator' && n.field === 'value') {
    const name = field(p, 'name')
    return name?.type === 'identifier' ? tokensOf(tree, name, '') : undefined
  }
  if (p.type === 'pair' && n.field === 'value') {
    const key = field(p, 'key')
    return key === undefined ? undefined : tokensOf(tree, key, '')
  }
  if (p.type === 'assignment_expression' && n.field === 'right') {
    const left = field(p, 'left')
    return left === undefined ? undefined : tokensOf(tree, left, '')
  }
  if (p.type === 'field_definition' && n.field === 'value') {
    const prop = field(p, 'property')
    return prop === undefined ? undefined : tokensOf(tree, prop, '')
  }
  return undefined
}

/** The chain of scopes enclosing `n` (not counting `n` itself): `Add`, `(*T).Run/func`, ``. */
export function scopeOf (tree: SyntaxTree, n: SyntaxNode): string {
  const names: string[] = []
  for (let p = n.parent; p !== undefined; p = p.parent) {
    const name = scopeName(tree, p)
    if (name !== undefined) names.push(name)
  }
  return names.reverse().join('/')
}

/** How a scope prints in a finding: the file level is `(file)`. */
export function showScope (scope: string): string {
  return scope === '' ? '(file)' : scope
}
