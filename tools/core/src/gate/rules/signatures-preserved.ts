// signatures-preserved: every function keeps its parameter and result lists — names and
// types, as text (tokens, comments left out, so only whitespace may differ).
//   go: functions (with type parameters), methods (with the receiver), function literals,
//       interface methods, and each type definition's text;
//   JavaScript: function declarations and expressions, arrow functions, generators, methods.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { scopeName, scopeOf, showScope } from '../syntax/scope.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const SEP = '\u0000'

const GO_FUNCS = new Set(['function_declaration', 'method_declaration', 'func_literal', 'method_elem', 'method_spec'])
const JS_FUNCS = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'generator_function', 'arrow_function', 'method_definition'])

/** Every signature of a file as `scope NUL function NUL signature text`. */
export function signaturesOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  const t = (n: SyntaxNode | undefined): string => n === undefined ? '' : tokensOf(tree, n, ' ')
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (GO_FUNCS.has(n.type)) {
        const name = n.type === 'method_elem' || n.type === 'method_spec' ? t(field(n, 'name')) : scopeName(tree, n) ?? n.type
        const sig = [n.type === 'method_declaration' ? t(field(n, 'receiver')) : '', t(field(n, 'type_parameters')), t(field(n, 'parameters')), t(field(n, 'result'))].filter(s => s !== '').join(' ')
        out.push([scopeOf(tree, n), name, sig].join(SEP))
      } else if (n.type === 'type_spec' || n.type === 'type_alias') {
        out.push([scopeOf(tree, n), `type ${t(field(n, 'name'))}`, [t(field(n, 'type_parameters')), n.type === 'type_alias' ? '=' : '', t(field(n, 'type'))].filter(s => s !== '').join(' ')].join(SEP))
      }
      continue
    }
    if (JS_FUNCS.has(n.type)) {
      const params = field(n, 'parameters') ?? field(n, 'parameter')
      const mods = n.children.filter(c => !c.named && ['async', '*', 'get', 'set', 'static'].includes(tree.source.slice(c.start, c.end))).map(c => tree.source.slice(c.start, c.end))
      out.push([scopeOf(tree, n), scopeName(tree, n) ?? n.type, [...mods, t(params)].join(' ')].join(SEP))
    }
  }
  return out
}

export function showSignature (e: string): string {
  const [scope = '', name = '', sig = ''] = e.split(SEP)
  return `signature ${showScope(scope)}: ${name} ${sig}`
}

export function checkSignaturesPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'signatures', extract: signaturesOf, direction: 'both', show: showSignature })
}
