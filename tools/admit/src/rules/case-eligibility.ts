// Whether a case can be admitted under this config: its kind has a route within the cost
// ceiling, and its test package is one of test_packages. An ineligible case says why.

import type { Case, ExecutionConfig, ResolvedRoute, RoutingPolicy } from '@repairline/schemas'
import { resolveRoute } from '@repairline/core'

export type Eligibility = { eligible: true, route: ResolvedRoute } | { eligible: false, code: string, message: string }

export function assessCase (config: ExecutionConfig, policy: RoutingPolicy, c: Case): Eligibility {
  const r = resolveRoute(policy, c.kind)
  if (!r.ok) return { eligible: false, code: r.code, message: r.message }
  if (!config.test_packages.includes(c.test.package)) {
    return { eligible: false, code: 'CASE_PACKAGE_NOT_ALLOWED', message: `test package ${JSON.stringify(c.test.package)} is not one of test_packages (${config.test_packages.join(', ')})` }
  }
  return { eligible: true, route: r.route }
}
