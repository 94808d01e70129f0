// The four validation records (DESIGN §6b): which text each checks, under which register
// row, and the record itself. `social` and `docs` registers are not_applicable: the text is
// kept and hashed, and no rule runs.

import type { PromptRegister, TaskRegister, ValidationRecord } from '@repairline/schemas'
import { sha256Hex } from '../digest.ts'
import { checkInternalText, INTERNAL_TEXT_CHECKER } from './internal-text.ts'
import type { TextSurface } from './types.ts'

export type ValidationStage = ValidationRecord['stage']

export interface StageSpec {
  surface: TextSurface
  /** The file under the attempt directory that holds the record. */
  file: string
  /** Which register row governs the text. */
  row: 'task' | 'prompt'
}

/** The four stages, in the order their records are written. */
export const VALIDATION_STAGES: Readonly<Record<ValidationStage, StageSpec>> = {
  job_instructions_validation: { surface: 'job', file: 'validation/job_instructions.json', row: 'task' },
  prompt_validation: { surface: 'scaffold', file: 'validation/prompt.json', row: 'prompt' },
  request_instructions_validation: { surface: 'instructions', file: 'validation/request_instructions.json', row: 'prompt' },
  summary_validation: { surface: 'summary', file: 'validation/summary.json', row: 'task' },
}

export const VALIDATION_STAGE_ORDER: readonly ValidationStage[] = ['job_instructions_validation', 'prompt_validation', 'request_instructions_validation', 'summary_validation']

export interface RegisterTuples {
  task: TaskRegister
  prompt: PromptRegister
}

/** Checks `bytes` for `stage` under the register its row resolves to, and returns the record. */
export function validateText (stage: ValidationStage, tuples: RegisterTuples, bytes: Uint8Array | string, o: { delimiter?: string } = {}): ValidationRecord {
  const spec = VALIDATION_STAGES[stage]
  const row = spec.row === 'task'
    ? { register: tuples.task.register, register_source: tuples.task.register_source }
    : { register: tuples.prompt.prompt_register, register_source: tuples.prompt.prompt_register_source }
  const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  const base = { v: 1 as const, stage, ...row, checker: { ...INTERNAL_TEXT_CHECKER }, input_sha256: sha256Hex(buf) }
  if (row.register !== 'internal') return { ...base, status: 'not_applicable', findings: [] }
  const findings = checkInternalText(buf, spec.surface, o)
  return { ...base, status: findings.length === 0 ? 'pass' : 'fail', findings }
}

/** A record passes the gate when it passed, or when its register has no checker. */
export function validationPassed (r: Pick<ValidationRecord, 'status'>): boolean {
  return r.status === 'pass' || r.status === 'not_applicable'
}
