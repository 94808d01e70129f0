// The job brief (job.txt): five lines rendered from the admitted case, the recomputed route
// and the register tuple — nothing else. It names, in order, task:, case:, files:, tests:
// and return: (the brief-lines rule). The case id and test identity come from the
// operator's report; if they break the internal register (a quote, a tag, a role marker, an
// over-long line) the brief fails its check and the attempt is rejected, never rewritten.

import type { Case, ExecutionConfig, ResolvedRoute, TaskRegister } from '@repairline/schemas'
import { requestMaxOutputTokens } from '../admission.ts'

export interface BriefInputs {
  config: ExecutionConfig
  case: Case
  route: ResolvedRoute
  task: TaskRegister
}

export function renderBrief (b: BriefInputs): string {
  const budget = requestMaxOutputTokens(b.config, b.task)
  return [
    `task: ${b.route.task_label} one ${b.route.case_kind} case with model ${b.route.model}`,
    `case: ${b.case.id}`,
    `files: ${b.config.allowed_files.join(', ')}`,
    `tests: ${b.case.test.name} in package ${b.case.test.package}`,
    `return: one proposal with summary and edits in at most ${budget} output tokens, register ${b.task.register} from ${b.task.register_source}`,
    '',
  ].join('\n')
}
