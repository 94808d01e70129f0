// directives-preserved: in a changed go file, what the go toolchain reads from comments is
// unchanged. Comments are otherwise free text (the other rules leave them out), but go acts
// on some of them, so an edit there is not a local expression change:
//   - the cgo preamble, the comments (and blank lines) between the previous declaration and an
//     `import "C"`, is C code compiled into the package: a proposal added a C constructor to
//     it that printed go test's framing and exited 0, and the attempt was verified with the
//     bug in place. It must be byte-identical;
//   - the file header, everything before the package clause, where build constraints are
//     honoured (`//go:build ignore` drops the file, `!linux` swaps it for another): byte-identical;
//   - directive comments anywhere, as a multiset: `//go:…` (build, linkname, embed, generate,
//     noinline, …), `//export` and `//extern`, each with the head of what it precedes (a
//     function up to its body, else the first line); `// +build`, `//line` and `/*line`; and
//     each `#cgo` line of any comment.
// JavaScript files have none of these and always pass.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { printableLine } from '../../printable-line.ts'
import { decodeGo } from './no-test-framing.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const SEP = '\u0000'

/** Directives go applies to the declaration that follows (so that is part of the key). */
const ATTACHED = /^\/\/(?:go:|export\b|extern\b)/
/** Directives that stand alone: build constraints and line directives. */
const STANDALONE = /^(?:\/\/\s*\+build\b|\/\/line\b|\/\*line\b)/
const CGO_LINE = /^\s*(?:\/\/)?\s*#\s*cgo\b/

/** Every directive of a go file as `kind NUL text`: the preamble, the header, each directive. */
export function directivesOf (tree: SyntaxTree): string[] {
  if (tree.grammar !== 'go') return []
  const out: string[] = []
  const pkg = tree.root.children.find(c => c.type === 'package_clause')
  out.push(['file header', tree.source.slice(0, pkg?.start ?? 0)].join(SEP))
  for (const n of descendants(tree.root)) {
    if (n.type === 'import_spec' && importsC(tree, n)) {
      // The preamble is the import's doc comment: the spec's own inside `import ( … )`, else
      // the declaration's. Both are kept, from the end of what precedes them.
      out.push(['cgo preamble', textBefore(tree, n)].join(SEP))
      const decl = n.parent?.type === 'import_declaration' ? n.parent : n.parent?.parent
      if (decl?.type === 'import_declaration') out.push(['cgo preamble', textBefore(tree, decl)].join(SEP))
    }
    if (n.type !== 'comment') continue
    const text = textOf(tree, n)
    if (ATTACHED.test(text)) out.push(['directive', `${text} before ${headOfNext(tree, n)}`].join(SEP))
    else if (STANDALONE.test(text)) out.push(['directive', text].join(SEP))
    for (const line of text.split(/\r?\n/)) if (CGO_LINE.test(line)) out.push(['#cgo line', line.trim()].join(SEP))
  }
  return out
}

/** Whether an import spec imports "C" (raw or interpreted, escapes decoded as go reads them). */
function importsC (tree: SyntaxTree, spec: SyntaxNode): boolean {
  const path = field(spec, 'path')
  if (path === undefined) return false
  const lit = textOf(tree, path)
  const value = lit.startsWith('`') ? lit.slice(1, -1) : decodeGo(lit.slice(1, -1))
  return value === 'C'
}

/** The source between the end of the previous non-comment sibling (or the parent's start) and `n`. */
function textBefore (tree: SyntaxTree, n: SyntaxNode): string {
  const siblings = n.parent?.children ?? []
  let from = n.parent?.start ?? 0
  for (const s of siblings) {
    if (s === n) break
    if (s.type !== 'comment') from = s.end
  }
  return tree.source.slice(from, n.start)
}

/**
 * What a directive applies to: the next non-comment sibling's head (a function or method up
 * to its body, so a fix in a one-line body keeps the key; anything else its first line),
 * whitespace folded; `(end)` when there is none.
 */
function headOfNext (tree: SyntaxTree, n: SyntaxNode): string {
  const siblings = n.parent?.children ?? []
  const next = siblings.slice(siblings.indexOf(n) + 1).find(s => s.type !== 'comment')
  if (next === undefined) return '(end)'
  const body = next.type === 'function_declaration' || next.type === 'method_declaration' ? field(next, 'body') : undefined
  const head = body === undefined ? (textOf(tree, next).split('\n')[0] ?? '') : tree.source.slice(next.start, body.start)
  return head.trim().replace(/\s+/g, ' ')
}

export function showDirective (e: string): string {
  const [kind = '', text = ''] = e.split(SEP)
  return `${kind} ${printableLine(JSON.stringify(text), 160)}`
}

export function checkDirectivesPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'go directives, cgo preambles and file headers', extract: directivesOf, direction: 'both', show: showDirective })
}
