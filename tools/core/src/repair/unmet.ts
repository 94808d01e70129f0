// Repair rounds (DESIGN §15, issue 38): what a sealed attempt left unmet, and the repair case
// that carries it. Shared by `admit repair` (which builds both from the attempt it repairs),
// ask-provider (which sends the unmet items in the payload) and readback (which recomputes
// them from the repaired attempt and checks the chain).
//
// Only two outcomes are repairable: `rejected` after a proposal (a gate rule failed, or the
// summary broke its text contract) and `failed` (the candidate ran and did not pass). A
// `fault`, `timed_out`, `provider_error`, `not_reproduced` or `interrupted` says nothing
// about a proposal — a repair against a verifier that cannot run buys a second identical
// fault (seed 004) — and `rejected` before a proposal (the tree, an owned text) would be
// rejected again: each is refused with REPAIR_NOT_REPAIRABLE.
//
// The items are structured and capped, and hold names and one-line details only: gate rules
// with their findings, the summary's broken text rules, failing checks by clause, and the
// identities that did not pass with their verdicts. Never test output (verify.json's reasons
// and stderr_tail, the events files): seed 000's raw retained failure excerpts are never sent.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission, Case, OutcomeFile, UnmetItems, VerifyReport } from '@repairline/schemas'
import { readJsonFile } from '../attempt-dir.ts'
import { jcsSha256 } from '../digest.ts'
import { toolError } from '../errors.ts'
import { caseInputSha256 } from '../admission.ts'
import { FAILING_VERDICTS } from '../verify/compare.ts'

export type UnmetItem = UnmetItems['items'][number]

/** At most this many items (the rest are counted in `omitted`), this many findings per rule, this many characters per line. */
export const UNMET_MAX_ITEMS = 24
export const UNMET_MAX_FINDINGS = 8
export const UNMET_MAX_CHARS = 300
/** And at most this many bytes of items as sent (one JSON line each): the payload stays far below max_input_bytes. */
export const UNMET_MAX_BYTES = 16 * 1024
/** Repair rounds per case: `<case id>#r1` and `<case id>#r2`. */
export const MAX_REPAIR_ROUNDS = 2

/** One printable line of at most UNMET_MAX_CHARS characters (code points), cut with an ellipsis. */
export function unmetLine (s: string): string {
  const flat = [...s.replace(/[\u0000-\u001f\u007f]+/g, ' ')] // eslint-disable-line no-control-regex
  return flat.length <= UNMET_MAX_CHARS ? flat.join('') : `${flat.slice(0, UNMET_MAX_CHARS - 1).join('')}…`
}

/** What the repaired attempt ended with, read from its sealed files. */
export interface RepairedAttempt {
  dir: string
  admission: Admission
  outcome: OutcomeFile
}

function notRepairable (a: RepairedAttempt, why: string): Error {
  return toolError('REPAIR_NOT_REPAIRABLE', `attempt ${a.admission.attempt_key.slice(0, 16)} (case ${a.admission.case.id}) ended ${a.outcome.outcome} (${a.outcome.reason.code}): ${why}`, {
    hint: 'only an attempt rejected by the gate or the summary\'s text contract, or failed by its tests or checks, can be repaired; fix what the outcome names (a fault or a timeout says nothing about the proposal) and admit the case again under a new id',
  })
}

/** The checks of verify.json that ran on the candidate and disagreed, by clause and index (a fault never fails a candidate). */
function failedChecks (verify: VerifyReport): UnmetItem[] {
  return (verify.checks ?? []).filter(r => r.status === 'fail').map(r => ({ kind: 'check' as const, name: `${r.clause}[${r.index}]`, detail: unmetLine(`${r.code}: ${r.detail}`), findings: [] }))
}

/**
 * The unmet items of a sealed attempt, or REPAIR_NOT_REPAIRABLE (exit 1). Reads only the
 * attempt's own validated files; deterministic, so readback recomputes the same bytes.
 */
export function unmetItemsOf (a: RepairedAttempt): UnmetItems {
  const { dir, outcome } = a
  const items: UnmetItem[] = []
  if (outcome.outcome === 'rejected') {
    if (outcome.step === 'gate-patch' && existsSync(join(dir, 'gate.json'))) {
      const gate = readJsonFile('gate', join(dir, 'gate.json'))
      for (const r of gate.rules.filter(x => x.status === 'fail')) {
        items.push({ kind: 'gate_rule', name: r.rule, detail: unmetLine(r.detail), findings: r.findings.slice(0, UNMET_MAX_FINDINGS).map(unmetLine) })
      }
    } else if (outcome.step === 'ask-provider' && existsSync(join(dir, 'validation', 'summary.json'))) {
      const summary = readJsonFile('validation', join(dir, 'validation', 'summary.json'))
      if (summary.status === 'fail') {
        for (const x of summary.findings) items.push({ kind: 'text_rule', name: x.rule, detail: unmetLine(`summary line ${x.line}: ${x.detail}`), findings: [] })
      }
    }
    if (items.length === 0) throw notRepairable(a, 'it was rejected before a proposal could be judged (the tree or an owned text), and a repair would be rejected the same way')
  } else if (outcome.outcome === 'failed') {
    const verify = readJsonFile('verify', join(dir, 'verify.json'))
    if (verify.classification !== 'failed') throw notRepairable(a, `verify.json says ${verify.classification}`)
    items.push(...failedChecks(verify))
    for (const v of verify.verdicts.filter(x => FAILING_VERDICTS.has(x.verdict))) {
      items.push({ kind: 'identity', name: v.identity.length > 600 ? unmetLine(v.identity) : v.identity, detail: unmetLine(`${v.verdict}: ${v.baseline} on the baseline, ${v.candidate} on the candidate`), findings: [] })
    }
    if (items.length === 0) throw notRepairable(a, 'verify.json names no failing identity or check')
  } else {
    throw notRepairable(a, 'it says nothing about a proposal, so a repair would buy the same outcome and one more provider call')
  }
  const { kept, omitted } = capUnmetItems(items)
  return {
    v: 1,
    attempt_key: a.admission.attempt_key,
    case_id: a.admission.case.id,
    outcome: outcome.outcome,
    reason_code: outcome.reason.code,
    items: kept,
    omitted,
  }
}

/** The first items within UNMET_MAX_ITEMS and UNMET_MAX_BYTES (the first item always), and how many were left out. */
export function capUnmetItems (items: readonly UnmetItem[]): { kept: UnmetItem[], omitted: number } {
  const kept: UnmetItem[] = []
  let bytes = 0
  for (const item of items.slice(0, UNMET_MAX_ITEMS)) {
    bytes += Buffer.byteLength(JSON.stringify(item), 'utf8') + 1
    if (bytes > UNMET_MAX_BYTES && kept.length > 0) break
    kept.push(item)
  }
  return { kept, omitted: items.length - kept.length }
}

/** The repair round of a case: 0 for a case from a report, n for `<id>#r<n>`. */
export function repairRound (c: Case): number {
  if (c.kind !== 'repair') return 0
  return Number(/#r([12])$/.exec(c.id)?.[1] ?? '0')
}

/**
 * The repair case of a repaired attempt's case: kind repair, id `<case id>#r<n+1>`, the same
 * test, and `repairs` naming the attempt and the digest of its unmet items; input_sha256 over
 * all of them, so the repair has its own key. Past round 2: REPAIR_ROUNDS_SPENT (1).
 */
export function repairCaseFor (repaired: Case, repairedKey: string, unmet: UnmetItems): Case {
  const round = repairRound(repaired) + 1
  if (round > MAX_REPAIR_ROUNDS) {
    throw toolError('REPAIR_ROUNDS_SPENT', `case ${repaired.id} is repair round ${round - 1}; at most ${MAX_REPAIR_ROUNDS} repair rounds follow a case`, { hint: 'review the attempt by hand (receipt view), or admit the case again under a new id' })
  }
  const base = repaired.kind === 'repair' ? repaired.id.slice(0, -'#r1'.length) : repaired.id
  const id = `${base}#r${round}`
  if (id.length > 1024) throw toolError('REPAIR_NOT_REPAIRABLE', `case id ${JSON.stringify(repaired.id.slice(0, 40))}… is too long for a repair id (#r${round} added)`, { hint: 'give the case a shorter id in the suite report' })
  const body = { kind: 'repair' as const, id, test: repaired.test, repairs: { attempt_key: repairedKey, unmet_sha256: jcsSha256(unmet) } }
  return { kind: body.kind, id: body.id, test: body.test, input_sha256: caseInputSha256(body), repairs: body.repairs }
}
