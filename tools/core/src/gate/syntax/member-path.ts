// JavaScript access paths for the structure gates: what an assignment target, a callee or an
// export names, as dot-joined segments. `a.b`, `a?.b`, `a['b']`, `` a[`b`] `` and `(a).b`
// are all `a.b`; a computed subscript that is not a literal (`a[k]`) is the segment `[*]`,
// which matches any segment. Anything else (a call's result, a literal) is its token text in
// angle brackets, which matches nothing but itself. Go's nearest equivalent, the name an
// access is rooted at, is goRoot.

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
  // A number key is the property its value names: `0x1`, `1e0` and `1` are all `1`.
  if (n.type === 'number') { const v = Number(textOf(tree, n).replace(/_/g, '')); return Number.isFinite(v) ? String(v) : textOf(tree, n) }
  if (n.type === 'template_string' && !n.children.some(c => c.type === 'template_substitution')) return decodeJsString(textOf(tree, n).slice(1, -1))
  return undefined
}

/**
 * The plain name a go access is rooted at (`ops` in `ops[0]`, `h` in `h.run` and
 * `hs[0].run`), or undefined; through a dereference or address-of too (`P` in `*P`) when
 * `throughUnary`.
 */
export function goRoot (tree: SyntaxTree, n: SyntaxNode, throughUnary = false): string | undefined {
  let c: SyntaxNode | undefined = n
  while (c !== undefined) {
    if (c.type === 'identifier') return textOf(tree, c)
    if (c.type === 'index_expression' || c.type === 'selector_expression') c = field(c, 'operand')
    else if (c.type === 'parenthesized_expression' || (throughUnary && c.type === 'unary_expression')) c = c.children.find(x => x.named && x.type !== 'comment')
    else return undefined
  }
  return undefined
}
