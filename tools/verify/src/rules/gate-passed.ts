// Rule: only a candidate the gate passed is ever run. A gate that did not pass ends in
// gate-patch as rejected; a failed gate.json without that outcome means gate-patch did not
// finish, so verify refuses and leaves the outcome to gate-patch.

import type { GateReport } from '@repairline/schemas'
import { toolError, type Attempt } from '@repairline/core'

export function assertGatePassed (gate: GateReport, attempt: Attempt, path: string): void {
  const refuse = (why: string): never => {
    throw toolError('GATE_NOT_PASSED', `${path}: ${why}`, { path, hint: 'rerun gate-patch on this attempt: a failed gate ends it rejected' })
  }
  if (gate.attempt_key !== attempt.key) refuse(`names attempt ${gate.attempt_key.slice(0, 16)}…, not ${attempt.key.slice(0, 16)}…`)
  if (gate.source_sha !== attempt.config.source_sha) refuse(`was computed on ${gate.source_sha}, not source_sha ${attempt.config.source_sha}`)
  if (!gate.passed || gate.failed_rules.length > 0 || gate.rules.some(r => r.status !== 'pass')) {
    const failed = gate.rules.filter(r => r.status !== 'pass').map(r => `${r.rule}:${r.status}`)
    refuse(`the gate did not pass${failed.length > 0 ? ` (${failed.join(', ')})` : ''}`)
  }
  if (gate.patch === undefined || gate.changed_files.length === 0) refuse('the gate passed but records no patch or no changed file')
}
