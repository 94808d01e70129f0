// The gate (DESIGN §10): applies a proposal's edits exactly to the baseline, builds the
// unified diff, parses every changed file before and after, and runs every rule. Only local
// expression and control-flow changes pass; anything broader fails a rule and is rejected for
// review. gate-patch writes the result; readback reruns it with the current rules.

import { applyEdits, checkExactApplication, comparePaths } from './rules/exact-application.ts'
import { checkPathTricks } from './rules/path-tricks.ts'
import { checkAllowlist } from './rules/allowlist.ts'
import { checkClassifier } from './rules/classifier.ts'
import { checkNoNewFiles } from './rules/no-new-files.ts'
import { checkModesUnchanged } from './rules/modes-unchanged.ts'
import { checkDiffSize } from './rules/diff-size.ts'
import { checkParses } from './rules/parses.ts'
import { checkImportsPreserved } from './rules/imports-preserved.ts'
import { checkNamesPreserved } from './rules/names-preserved.ts'
import { checkDeclarationsPreserved } from './rules/declarations-preserved.ts'
import { checkExportsPreserved } from './rules/exports-preserved.ts'
import { checkSignaturesPreserved } from './rules/signatures-preserved.ts'
import { checkCallsPreserved } from './rules/calls-preserved.ts'
import { checkNoInitHook } from './rules/no-init-hook.ts'
import { checkNoTestFraming } from './rules/no-test-framing.ts'
import { checkDirectivesPreserved } from './rules/directives-preserved.ts'
import { grammarFor, parseSource } from './syntax/parse.ts'
import { buildUnifiedDiff } from './unified-diff.ts'
import type { CandidateFile, FileMode, GateContext, GateInput, GateRule, ParsedPair, RuleId, RuleOutcome } from './types.ts'

export * from './types.ts'
export { buildUnifiedDiff, blobId, gitQuotedPath } from './unified-diff.ts'
export { applyEdits, countOccurrences } from './rules/exact-application.ts'
export { grammarFor, parseSource, wasmPath, WASM_FILES, type SyntaxTree, type SyntaxNode } from './syntax/parse.ts'
export { diffMultisets } from './syntax/compare.ts'
export { importsOf } from './rules/imports-preserved.ts'
export { declarationsOf, showDeclaration } from './rules/declarations-preserved.ts'
export { exportsOf } from './rules/exports-preserved.ts'
export { signaturesOf } from './rules/signatures-preserved.ts'
export { callsOf } from './rules/calls-preserved.ts'
export { initHooksOf } from './rules/no-init-hook.ts'
export { ANY_TEXT, stringsOf, framingIn, decodeGo, decodeJs } from './rules/no-test-framing.ts'
export { directivesOf } from './rules/directives-preserved.ts'

/**
 * The checker's identity, recorded in gate.json. Bump `version` whenever a rule changes what
 * it accepts: readback refuses a gate.json made by another version (STALE_CHECKER_VERSION).
 */
export const GATE_CHECKER = { name: 'gate', version: 13 } as const

/** Every rule, in gate.json order. */
export const GATE_RULES: readonly GateRule[] = [
  { id: 'path-tricks', check: checkPathTricks },
  { id: 'allowlist', check: checkAllowlist },
  { id: 'classifier', check: checkClassifier },
  { id: 'no-new-files', check: checkNoNewFiles },
  { id: 'modes-unchanged', check: checkModesUnchanged },
  { id: 'exact-application', check: checkExactApplication },
  { id: 'diff-size', check: checkDiffSize },
  { id: 'parses', check: checkParses },
  { id: 'imports-preserved', check: checkImportsPreserved },
  { id: 'declarations-preserved', check: checkDeclarationsPreserved },
  { id: 'exports-preserved', check: checkExportsPreserved },
  { id: 'signatures-preserved', check: checkSignaturesPreserved },
  { id: 'calls-preserved', check: checkCallsPreserved },
  { id: 'names-preserved', check: checkNamesPreserved },
  { id: 'no-init-hook', check: checkNoInitHook },
  { id: 'no-test-framing', check: checkNoTestFraming },
  { id: 'directives-preserved', check: checkDirectivesPreserved },
]

export interface GateEvaluation {
  passed: boolean
  rules: Array<{ rule: RuleId } & RuleOutcome>
  /** The changed files (text differs), sorted by path; undefined when the edits did not apply. */
  changed: CandidateFile[] | undefined
  /** The unified diff; undefined when the edits did not apply. */
  patch: string | undefined
}

/** Computes the candidate, its diff and parse trees: everything the rules read. */
export async function buildGateContext (input: GateInput): Promise<GateContext> {
  const treeByPath = new Map(input.tree.map(e => [e.path, e]))
  const allowed = new Set(input.allowedFiles)
  // Only a file that is both allowed and in the baseline tree is ever read.
  const readable = input.edits.every(e => allowed.has(e.path) && treeByPath.has(e.path))
  const modeOf = (p: string): FileMode => (treeByPath.get(p) as { mode: FileMode }).mode
  const application = readable ? applyEdits(input, modeOf) : undefined
  let changed: CandidateFile[] | undefined
  let patch: string | undefined
  let parsed: Map<string, ParsedPair> | undefined
  if (application?.ok === true) {
    changed = application.files.filter(f => f.before !== f.after).sort((a, b) => comparePaths(a.path, b.path))
    patch = buildUnifiedDiff(changed)
    parsed = await parseChanged(changed)
  }
  return { input, treeByPath, application, changed, patch, parsed }
}

/** Parses each changed file before and after with its grammar (files without one are left out). */
export async function parseChanged (changed: readonly CandidateFile[]): Promise<Map<string, ParsedPair>> {
  const parsed = new Map<string, ParsedPair>()
  for (const f of changed) {
    const grammar = grammarFor(f.path)
    if (grammar === undefined) continue
    parsed.set(f.path, { before: await parseSource(grammar, f.before), after: await parseSource(grammar, f.after) })
  }
  return parsed
}

/** Runs every rule on a context. */
export function runGateRules (ctx: GateContext): GateEvaluation {
  const rules = GATE_RULES.map(r => ({ rule: r.id, ...r.check(ctx) }))
  return { passed: rules.every(r => r.status === 'pass'), rules, changed: ctx.changed, patch: ctx.patch }
}

/** Applies the edits and runs every rule. */
export async function evaluateGate (input: GateInput): Promise<GateEvaluation> {
  return runGateRules(await buildGateContext(input))
}
