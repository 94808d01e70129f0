// The stage records of an attempt, in chain order, and the rule that an attempt retains a
// contiguous prefix of them: a later stage's files never exist without every earlier stage
// complete; the stage that decided the outcome may be partial; nothing after it exists.
// scoped_test_verified requires every stage, including all four validation records.

import type { OutcomeFile } from '@repairline/schemas'
import { CANDIDATE_FILES } from '../candidate/candidate.ts'

export interface Stage {
  name: string
  /** The tool that writes the stage. */
  step: OutcomeFile['step']
  /** Files in the order the step writes them. */
  files: readonly string[]
  /** Files the step may legitimately never write on its way to an outcome (e.g. no response after a transport error). */
  optional?: readonly string[]
}

export const VALIDATION_FILES = ['validation/job_instructions.json', 'validation/prompt.json', 'validation/request_instructions.json', 'validation/summary.json'] as const

export const STAGES: readonly Stage[] = [
  { name: 'admission', step: 'admit', files: ['inputs/execution.json', 'inputs/routing-policy.json', 'inputs/registers.json', 'inputs/case.json', 'admission.json', 'started.json'] },
  { name: 'tree', step: 'extract-tree', files: ['tree.tar', 'tree-manifest.json'] },
  { name: 'baseline', step: 'reproduce', files: ['baseline.events.ndjson', 'baseline.json'] },
  {
    name: 'provider',
    step: 'ask-provider',
    files: ['job.txt', 'prompt.txt', 'validation/job_instructions.json', 'validation/prompt.json', 'validation/request_instructions.json', 'request.json', 'dispatch.json', 'response.json', 'proposal.json', 'validation/summary.json', 'usage.json'],
    optional: ['response.json', 'proposal.json', 'validation/summary.json'],
  },
  { name: 'gate', step: 'gate-patch', files: ['candidate.patch', 'gate.json'], optional: ['candidate.patch'] },
  { name: 'verify', step: 'verify', files: ['candidate.events.ndjson', 'verify.json'], optional: ['candidate.events.ndjson'] },
]

/** A repair attempt's unmet items, written by admit repair before admission.json; readback's repair chain check requires it exactly for a repair case. */
export const REPAIR_INPUT_FILE = 'inputs/unmet.json'

export const STAGE_FILES: ReadonlySet<string> = new Set(STAGES.flatMap(s => s.files))

/** Every file a step writes in an attempt outside work/ and logs/, receipt.json aside: what a receipt may seal. */
export const ATTEMPT_FILES: ReadonlySet<string> = new Set([...STAGE_FILES, ...CANDIDATE_FILES, 'outcome.json', REPAIR_INPUT_FILE])

export interface StageFinding { code: 'MISSING_STAGE_RECORD', path: string, message: string }

/**
 * Checks the stage files present against the outcome. `present` holds attempt-relative
 * paths. Returns one finding per missing record (an earlier stage incomplete while a later
 * one exists, a stage the outcome needs, or a record after the deciding stage).
 */
export function checkStagePrefix (present: ReadonlySet<string>, outcome: OutcomeFile | undefined): StageFinding[] {
  const findings: StageFinding[] = []
  const has = (f: string): boolean => present.has(f)
  const touched = STAGES.map(s => s.files.some(has))
  const lastTouched = touched.lastIndexOf(true)
  // An interruption is decided after the fact (by the admit that broke the lock, or by seal):
  // whatever stages the crashed chain got through come before it, whoever wrote it.
  const decidedAt = outcome === undefined || outcome.outcome === 'interrupted' ? -1 : STAGES.findIndex(s => s.step === outcome.step)
  // Every stage before the last one touched must be complete.
  const mustComplete = outcome?.outcome === 'scoped_test_verified' ? STAGES.length - 1 : Math.max(lastTouched - 1, decidedAt - 1)
  STAGES.forEach((s, i) => {
    if (i <= mustComplete) {
      for (const f of s.files) {
        if (!has(f) && !(outcome?.outcome !== 'scoped_test_verified' && (s.optional ?? []).includes(f) && i === lastTouched)) {
          findings.push({ code: 'MISSING_STAGE_RECORD', path: f, message: `${f} is missing, but ${i < lastTouched ? `a later stage (${STAGES[lastTouched]?.name ?? ''}) exists` : `the outcome ${outcome?.outcome ?? ''} needs the ${s.name} stage`}` })
        }
      }
    }
  })
  if (decidedAt >= 0 && lastTouched > decidedAt) {
    findings.push({ code: 'MISSING_STAGE_RECORD', path: STAGES[lastTouched]?.files.find(has) ?? '', message: `the ${STAGES[lastTouched]?.name ?? ''} stage exists after the stage that decided the outcome (${outcome?.step ?? ''})` })
  }
  // The four validation records form a contiguous prefix of their own.
  const v = VALIDATION_FILES.map(has)
  const firstGap = v.indexOf(false)
  if (firstGap !== -1 && v.slice(firstGap).some(Boolean)) {
    findings.push({ code: 'MISSING_STAGE_RECORD', path: VALIDATION_FILES[firstGap] ?? '', message: `${VALIDATION_FILES[firstGap] ?? ''} is missing while a later validation record exists` })
  }
  return findings
}
