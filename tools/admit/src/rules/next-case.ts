// The one selection rule of admission: the next case is the first case of the report, in
// report order, that is eligible (routed within the cost ceiling, its package one of
// test_packages) and whose attempt key was never started. `admit run` admits it and
// `admit status --next` names it; a consumed, running or interrupted key is never chosen.

export interface Assessed<C> {
  /** Set exactly when the case is eligible. */
  candidate: C | undefined
  state: { state: 'none' | 'consumed' | 'running' | 'interrupted' }
}

/** The first eligible case whose key is unused, or undefined. */
export function selectNext<A extends Assessed<unknown>> (assessed: readonly A[]): A | undefined {
  return assessed.find(a => a.candidate !== undefined && a.state.state === 'none')
}
