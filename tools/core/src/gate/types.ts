// The gate's data (DESIGN §10): what it is given, what it computes once (the candidate, the
// unified diff, the parsed files) and what each rule returns. Every rule is a pure function
// of a GateContext, so readback can rerun the current rules on a retained attempt.

import type { GateRuleResult } from '@repairline/schemas'
import type { SyntaxTree } from './syntax/parse.ts'

/** The rules, in the order gate.json lists them. */
export const RULE_IDS = [
  'path-tricks',
  'allowlist',
  'classifier',
  'no-new-files',
  'modes-unchanged',
  'exact-application',
  'diff-size',
  'parses',
  'imports-preserved',
  'declarations-preserved',
  'exports-preserved',
  'signatures-preserved',
  'calls-preserved',
  'names-preserved',
  'no-init-hook',
  'no-test-framing',
  'directives-preserved',
] as const
export type RuleId = (typeof RULE_IDS)[number]

// gate.json's rule enum and RULE_IDS name the same rules: a rule missing from either is a type error here.
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const RULE_IDS_MATCH_SCHEMA: SameSet<RuleId, GateRuleResult['rule']> = true

/** not_checked: a rule this one depends on failed, so there was nothing to check. */
export type RuleStatus = GateRuleResult['status']

export interface RuleOutcome {
  status: RuleStatus
  /** One line: what was checked and, on failure, what broke it. */
  detail: string
  /** One line per offending path, edit or construct. */
  findings: string[]
}

export interface GateRule {
  id: RuleId
  check: (ctx: GateContext) => RuleOutcome
}

export type FileMode = '100644' | '100755'

export interface GateEdit { path: string, search: string, replace: string }

export interface GateInput {
  runner: 'go' | 'node'
  allowedFiles: readonly string[]
  maxPatchBytes: number
  /** Every file of the baseline tree (tree-manifest.json's entries). */
  tree: ReadonlyArray<{ path: string, mode: FileMode }>
  /** The baseline bytes of a file; called only for paths that are allowed and in `tree`. */
  readBaseline: (path: string) => Uint8Array
  edits: readonly GateEdit[]
}

/** One file the edits touched, before and after. */
export interface CandidateFile {
  path: string
  /** The baseline's mode. */
  baselineMode: FileMode
  /** The candidate's mode (the same by construction; a forged context may differ). */
  mode: FileMode
  before: string
  after: string
}

/** The edits applied to the baseline: either every touched file, or why they did not apply. */
export type Application =
  | { ok: true, files: CandidateFile[] }
  | { ok: false, findings: string[] }

export interface ParsedPair { before: SyntaxTree, after: SyntaxTree }

export interface GateContext {
  input: GateInput
  treeByPath: ReadonlyMap<string, { path: string, mode: FileMode }>
  /** Undefined when an edit names a path that may not be read (the path rules say why). */
  application: Application | undefined
  /** The touched files whose text changed, sorted by path; undefined without a candidate. */
  changed: CandidateFile[] | undefined
  /** The unified diff of `changed`; undefined without a candidate. */
  patch: string | undefined
  /** Each changed file's two parse trees; undefined without a candidate. */
  parsed: ReadonlyMap<string, ParsedPair> | undefined
}

export function pass (detail: string): RuleOutcome {
  return { status: 'pass', detail, findings: [] }
}

export function fail (detail: string, findings: string[]): RuleOutcome {
  return { status: 'fail', detail, findings }
}

export function notChecked (detail: string): RuleOutcome {
  return { status: 'not_checked', detail, findings: [] }
}
