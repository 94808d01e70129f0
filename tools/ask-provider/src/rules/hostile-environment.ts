// Refuses to start when the environment can weaken TLS, add trust, route through a proxy,
// or write secrets (core's HOSTILE_VARIABLES). Checked before anything is read, so the
// attempt is left as it was: the hint says how to run this step on it again.

import { assertNoHostileEnvironment as refuseHostile, type Env } from '@repairline/core'

export { HOSTILE_VARIABLES } from '@repairline/core'

export function assertNoHostileEnvironment (env: Env): void {
  refuseHostile(env, 'run `ask-provider --attempt DIR` again on the same attempt before its deadline (DIR is the path in the attempt record admit printed; the attempt is unchanged)')
}
