// names-preserved: a changed file names nothing it did not name before. DESIGN §10 lets
// only local expression and control-flow changes pass, and the call rules see syntactic
// calls only; JavaScript also calls through `instanceof` (Symbol.hasInstance), coercion
// (valueOf, toString, Symbol.toPrimitive), `await` on a thenable, accessors and iteration,
// so an edit with no call in it could still reach process.stdout or process.exit (measured:
// a node proposal wrote the test runner's own child-protocol frames that way and reached
// scoped_test_verified). Every such channel needs a name the file never used (process,
// Symbol, globalThis, Reflect, …): a fix that needs a new name is broader than local, and is
// rejected for review. Names are identifiers, including shorthand properties ({ process });
// property names after a dot or as object keys are not. The languages' own constants are
// exempt (go: true, false, nil, iota; JavaScript: undefined, NaN, Infinity). A go package
// clause is a name too, so a file cannot move to another package.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, textOf, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const NAME_NODES = {
  go: new Set(['identifier', 'package_identifier']),
  javascript: new Set(['identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
} as const

const CONSTANTS = {
  go: new Set(['true', 'false', 'nil', 'iota', '_']),
  javascript: new Set(['undefined', 'NaN', 'Infinity']),
} as const

/** The distinct names a file uses, sorted. */
export function namesOf (tree: SyntaxTree): string[] {
  const kinds = NAME_NODES[tree.grammar]
  const exempt = CONSTANTS[tree.grammar]
  const names = new Set<string>()
  for (const n of descendants(tree.root)) {
    if (!kinds.has(n.type)) continue
    const name = textOf(tree, n)
    if (!exempt.has(name)) names.add(name)
  }
  return [...names].sort()
}

export function checkNamesPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'names', extract: namesOf, direction: 'added', show: name => `name ${name}` })
}
