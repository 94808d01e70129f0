// JavaScript access paths for the structure gates: what an assignment target, a callee or an
// export names, as dot-joined segments. `a.b`, `a?.b`, `a['b']`, `` a[`b`] `` and `(a).b`
// are all `a.b`; a computed subscript that is not a literal (`a[k]`) is the segment `[*]`,
// which matches any segment. Anything else (a call's result, a literal) is its token text in
// angle brackets, which matches nothing but itself.

import { decodeJsString } from './js-string.ts'
import { field, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from './parse.ts'

/** The segments of a JavaScript access path. */
export function memberPath (tree: SyntaxTree, n: SyntaxNode): string[] {
  switch (n.type) {
    case 'identifier':
    case 'this':
    case 'super':
    case 'property_identifier':
    case 'shorthand_property_identifier':
    case 'shorthand_property_identifier_pattern':
      return [textOf(tree, n)]
    case 'parenthesized_expression': {
      const inner = n.children.filter(c => c.named && c.type !== 'comment')
      return inner.length === 1 ? memberPath(tree, inner[0] as SyntaxNode) : [`<${tokensOf(tree, n, '')}>`]
    }
    case 'member_expression': {
      const obj = field(n, 'object')
      const prop = field(n, 'property')
      return [...(obj === undefined ? ['<?>'] : memberPath(tree, obj)), prop === undefined ? '<?>' : textOf(tree, prop)]
    }
    case 'subscript_expression': {
      const obj = field(n, 'object')
      const index = field(n, 'index')
      return [...(obj === undefined ? ['<?>'] : memberPath(tree, obj)), index === undefined ? '[*]' : literalKey(tree, index) ?? '[*]']
    }
    default:
      return [`<${tokensOf(tree, n, '')}>`]
  }
}

/** Whether two paths name the same thing (`[*]` matches any one segment). */
export function samePath (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i] || s === '[*]' || b[i] === '[*]')
}

/** The property key a literal spells (string, number, template without substitutions), or undefined. */
export function literalKey (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (n.type === 'string') return decodeJsString(textOf(tree, n).slice(1, -1))
  if (n.type === 'number') return textOf(tree, n)
  if (n.type === 'template_string' && !n.children.some(c => c.type === 'template_substitution')) return decodeJsString(textOf(tree, n).slice(1, -1))
  return undefined
}
