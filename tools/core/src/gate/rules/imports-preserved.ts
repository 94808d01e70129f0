// imports-preserved: the multiset of imports of each changed file is unchanged — imported
// paths with their local names. go: import specs (`name "path"`). JavaScript: import
// statements (default, namespace and named bindings, side-effect imports), re-exports
// (`export … from`), and the string argument of `require(…)` and `import(…)` calls.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

/** Every import of a file as one line each: `import f "fmt"`, `import "x": {a as b}`. */
export function importsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (n.type === 'import_spec') {
        const name = field(n, 'name')
        const path = field(n, 'path')
        out.push(`import ${name === undefined ? '' : `${textOf(tree, name)} `}${path === undefined ? '?' : textOf(tree, path)}`)
      }
      continue
    }
    if (n.type === 'import_statement') {
      const source = field(n, 'source')
      const from = source === undefined ? '?' : textOf(tree, source)
      const clause = n.children.find(c => c.type === 'import_clause')
      if (clause === undefined) out.push(`import ${from}`)
      else for (const b of importBindings(tree, clause)) out.push(`import ${from}: ${b}`)
    } else if (n.type === 'export_statement') {
      const source = field(n, 'source')
      if (source === undefined) continue
      const clause = n.children.filter(c => c !== source && c.type !== 'comment' && c.named)
      out.push(`export from ${textOf(tree, source)}: ${clause.length === 0 ? '*' : clause.map(c => tokensOf(tree, c, ' ')).join(' ')}`)
    } else if (n.type === 'call_expression') {
      const fn = field(n, 'function')
      if (fn === undefined || !(fn.type === 'import' || (fn.type === 'identifier' && textOf(tree, fn) === 'require'))) continue
      const args = field(n, 'arguments')
      const first = args?.children.find(c => c.named && c.type !== 'comment')
      out.push(`${fn.type === 'import' ? 'import()' : 'require()'} ${first === undefined ? '' : tokensOf(tree, first, '')}`)
    }
  }
  return out
}

function importBindings (tree: SyntaxTree, clause: SyntaxNode): string[] {
  const out: string[] = []
  for (const c of clause.children) {
    if (c.type === 'identifier') out.push(`default as ${textOf(tree, c)}`)
    else if (c.type === 'namespace_import') out.push(`* as ${tokensOf(tree, c, ' ').replace(/^\* as /, '')}`)
    else if (c.type === 'named_imports') {
      for (const s of c.children.filter(x => x.type === 'import_specifier')) out.push(`{${tokensOf(tree, s, ' ')}}`)
    }
  }
  return out
}

export function checkImportsPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'imports', extract: importsOf, direction: 'both' })
}
