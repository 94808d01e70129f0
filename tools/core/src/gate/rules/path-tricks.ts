// path-tricks: an edit path must name a tree file plainly. Refused: `..` and `.` components,
// absolute paths, empty components, backslashes, control and bidirectional characters, `.git`
// in any case, a component ending in a dot or space (Windows aliases), pathspec magic (a
// leading `:` or `-`, the glob characters `*?[]`), and case or Unicode-normalization variants
// of a tree path (`Calc.go` when the tree holds `calc.go`).

import { unsafePathReason } from '../../tree.ts'
import { fail, pass, type GateContext, type RuleOutcome } from '../types.ts'

const fold = (p: string): string => p.normalize('NFC').toLowerCase()

/** Why an edit path is a trick, or undefined when it names a file plainly. */
export function pathTrick (path: string, treePaths: ReadonlySet<string>, foldedTree: ReadonlyMap<string, string>): string | undefined {
  const unsafe = unsafePathReason(path)
  if (unsafe !== undefined) return unsafe
  if (path.startsWith(':')) return 'pathspec magic (leading ":")'
  if (path.startsWith('-')) return 'leading "-" (read as an option)'
  if (/[*?[\]]/.test(path)) return 'glob character (pathspec magic)'
  if (path.split('/').some(c => /[. ]$/.test(c))) return 'a component ends in a dot or space'
  if (!treePaths.has(path)) {
    const variant = foldedTree.get(fold(path))
    if (variant !== undefined) return `case or normalization variant of ${variant}`
  }
  return undefined
}

export function checkPathTricks (ctx: GateContext): RuleOutcome {
  const treePaths = new Set(ctx.treeByPath.keys())
  const folded = new Map<string, string>()
  for (const p of treePaths) folded.set(fold(p), p)
  const findings: string[] = []
  for (const path of new Set(ctx.input.edits.map(e => e.path))) {
    const why = pathTrick(path, treePaths, folded)
    if (why !== undefined) findings.push(`${JSON.stringify(path)}: ${why}`)
  }
  if (findings.length > 0) return fail(`${findings.length} edit path(s) are path tricks`, findings)
  return pass('every edit path names a file plainly')
}
