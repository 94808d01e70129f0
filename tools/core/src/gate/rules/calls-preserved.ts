// calls-preserved: the multiset of calls of each changed file is unchanged, each call by its
// callee text with whitespace (and comments) removed.
//   go: call expressions, conversions (`int64(x)`, `[]byte(s)`) and builtins (`len`, `new`);
//   JavaScript: call expressions (`import(…)` and `super(…)` included), `new` expressions as
//   `new <callee>`, and tagged templates by their tag.
// Arguments may change (a changed string in an existing call passes); a call may not be
// added, removed or pointed at another callee.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, tokensOf, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

/** Every call of a file by callee text. */
export function callsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (n.type === 'call_expression') {
        const fn = field(n, 'function')
        const targs = field(n, 'type_arguments')
        out.push(`${fn === undefined ? '?' : tokensOf(tree, fn, '')}${targs === undefined ? '' : tokensOf(tree, targs, '')}`)
      } else if (n.type === 'type_conversion_expression') {
        const type = field(n, 'type')
        out.push(type === undefined ? '?' : tokensOf(tree, type, ''))
      }
      continue
    }
    if (n.type === 'call_expression') {
      const fn = field(n, 'function')
      const args = field(n, 'arguments')
      const callee = fn === undefined ? '?' : tokensOf(tree, fn, '')
      out.push(args?.type === 'template_string' ? `${callee}\`…\`` : callee)
    } else if (n.type === 'new_expression') {
      const ctor = field(n, 'constructor')
      out.push(`new ${ctor === undefined ? '?' : tokensOf(tree, ctor, '')}`)
    }
  }
  return out
}

export function checkCallsPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'calls', extract: callsOf, direction: 'both', show: c => `call ${c.length > 120 ? `${c.slice(0, 120)}…` : c}` })
}
