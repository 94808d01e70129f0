// The receipt's `operator_work` (issue 37): admit's reading of the checkout (admission.json
// operator_work) against seal's. Seal builds it (operatorWorkClause); readback cannot read the
// checkout again (it judges the attempt's bytes alone), so it checks that the clause follows
// from the two digests it states and from admission.json, and reports a change as a notice.

import type { Admission, Receipt } from '@repairline/schemas'
import { operatorWorkChange, readOperatorWork, type OperatorWork } from '../operator-work.ts'
import { printableLine } from '../printable-line.ts'
import type { CheckContext } from './checks.ts'

export type OperatorWorkClause = NonNullable<Receipt['operator_work']>

export const CHANGED_PATHS_MAX = 256

/** Seal's one line for each status but unreadable (whose line says why). */
export const OPERATOR_WORK_NOTES = {
  unchanged: "The checkout's operator work (HEAD, the index, status and the bytes of every modified or untracked file) is what it was at admission.",
  changed: "The checkout's operator work changed during the attempt (see changed_paths): repairline reads the source repository only and did not write there; this is about the checkout, not the candidate.",
  not_recorded: 'admit took no reading of the operator work for this attempt, so nothing can be compared.',
} as const

/** The clause seal writes: admit's reading against one taken now. */
export async function operatorWorkClause (admission: Admission): Promise<OperatorWorkClause> {
  const before = admission.operator_work
  let after: OperatorWork
  try {
    after = await readOperatorWork(admission.source.root)
  } catch (e) {
    return { status: 'unreadable', ...(before === undefined ? {} : { admitted_sha256: before.sha256 }), head_changed: false, index_changed: false, changed_paths: [], changed_path_count: 0, note: printableLine(`The checkout could not be read at seal: ${(e as Error).message}`, 2000) }
  }
  if (before === undefined) return { status: 'not_recorded', sealed_sha256: after.sha256, head_changed: false, index_changed: false, changed_paths: [], changed_path_count: 0, note: OPERATOR_WORK_NOTES.not_recorded }
  const same = before.sha256 === after.sha256
  const change = operatorWorkChange(before, after)
  return {
    status: same ? 'unchanged' : 'changed',
    admitted_sha256: before.sha256,
    sealed_sha256: after.sha256,
    head_changed: change.head,
    index_changed: change.index,
    changed_paths: change.paths.slice(0, CHANGED_PATHS_MAX),
    changed_path_count: change.paths.length,
    note: same ? OPERATOR_WORK_NOTES.unchanged : OPERATOR_WORK_NOTES.changed,
  }
}

/** One line for seal's stderr when the operator work changed, else undefined. */
export function operatorWorkNotice (c: OperatorWorkClause): string | undefined {
  if (c.status !== 'changed') return undefined
  const what = [...(c.head_changed ? ['HEAD'] : []), ...(c.index_changed ? ['the index'] : []), ...c.changed_paths.slice(0, 8)]
  return `notice: the checkout's operator work changed during the attempt (${what.join(', ')}${c.changed_path_count > 8 ? `, … ${c.changed_path_count} paths` : ''}); repairline did not write there`
}

export const OPERATOR_WORK_CODE = 'OPERATOR_WORK_MISMATCH'

/**
 * Readback: a receipt of version 2 has the clause; its admitted digest is admission.json's;
 * its status follows from the two digests; a change is reported as a notice
 * (OPERATOR_WORK_CHANGED), never as an error.
 */
export function checkOperatorWork (c: CheckContext): void {
  const receipt = c.docs.get('receipt.json') as Receipt | undefined
  if (receipt === undefined) return
  const f = c.findings
  const w = receipt.operator_work
  if (w === undefined) {
    if (receipt.v >= 2) f.add(OPERATOR_WORK_CODE, 'receipt.json (version 2) has no operator_work', 'receipt.json')
    return
  }
  const admitted = c.admission.operator_work?.sha256
  const why: string[] = []
  if (w.admitted_sha256 !== admitted) why.push(`admitted_sha256 is ${w.admitted_sha256 ?? 'absent'}, admission.json's operator_work.sha256 ${admitted ?? 'absent'}`)
  const want = w.status === 'unreadable' ? 'unreadable' : admitted === undefined ? 'not_recorded' : w.sealed_sha256 === undefined ? '?' : w.sealed_sha256 === admitted ? 'unchanged' : 'changed'
  if (w.status !== want) why.push(`status is ${w.status}, but its digests give ${want}`)
  if (w.status !== 'unreadable' && w.note !== OPERATOR_WORK_NOTES[w.status]) why.push(`its note is not seal's for ${w.status}`)
  if (w.status === 'unreadable' && w.sealed_sha256 !== undefined) why.push('an unreadable checkout has no sealed_sha256')
  const changed = w.head_changed || w.index_changed || w.changed_path_count > 0
  if (w.status === 'changed' ? !changed : changed) why.push(`status ${w.status} with head_changed ${String(w.head_changed)}, index_changed ${String(w.index_changed)} and ${w.changed_path_count} changed paths`)
  if (w.changed_paths.length !== Math.min(w.changed_path_count, CHANGED_PATHS_MAX)) why.push(`it lists ${w.changed_paths.length} of ${w.changed_path_count} changed paths`)
  if (why.length > 0) f.add(OPERATOR_WORK_CODE, `receipt.json's operator_work does not follow from its readings: ${why.join('; ')}`, 'receipt.json')
  else if (w.status === 'changed') f.add('OPERATOR_WORK_CHANGED', `the checkout's operator work changed during the attempt (${w.changed_path_count} paths${w.head_changed ? ', HEAD' : ''}${w.index_changed ? ', the index' : ''}): a notice about the checkout; repairline did not write there`, 'receipt.json', 'notice')
}
