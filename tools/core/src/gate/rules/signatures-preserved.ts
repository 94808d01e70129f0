// signatures-preserved: every function keeps its parameter and result lists — names and
// types, as text (tokens, comments left out, so only whitespace may differ).
//   go: functions (with type parameters), methods (with the receiver), function literals,
//       interface methods, and each type definition's text;
//   JavaScript: function declarations and expressions, arrow functions, generators, methods
//       (each with its body's directive prologue: an added or removed `'use strict'` changes
//       how the body runs), every class's heritage (`extends X`, or none), and the file's
//       own directive prologue.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
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
      const body = field(n, 'body')
      out.push([scopeOf(tree, n), scopeName(tree, n) ?? n.type, [...mods, t(params), ...(body?.type === 'statement_block' ? directives(tree, body) : [])].join(' ')].join(SEP))
    } else if (n.type === 'class_declaration' || n.type === 'class') {
      const heritage = n.children.find(c => c.type === 'class_heritage')
      out.push([scopeOf(tree, n), `class ${scopeName(tree, n) ?? n.type}`, heritage === undefined ? '(no heritage)' : t(heritage)].join(SEP))
    }
  }
  if (tree.grammar === 'javascript') {
    const prologue = directives(tree, tree.root)
    if (prologue.length > 0) out.push(['', '(file directives)', prologue.join(' ')].join(SEP))
  }
  return out
}

/** The directive prologue of a program or function body: its leading string statements, as written. */
function directives (tree: SyntaxTree, body: SyntaxNode): string[] {
  const out: string[] = []
  for (const c of body.children) {
    if (!c.named || c.type === 'comment' || c.type === 'hash_bang_line') continue
    const only = c.type === 'expression_statement' ? c.children.filter(x => x.named && x.type !== 'comment') : []
    if (only.length !== 1 || only[0]?.type !== 'string') break
    out.push(textOf(tree, only[0]))
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
