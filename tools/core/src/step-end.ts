// What a step leaves to do when it ends, decided or not: the step lock it took is released
// (step-lock.ts registers that when it takes one). A module of its own so that runTool, which
// every tool loads at start-up, does not load the lock's schema validation with it.

const hooks = new Set<() => void>()

/** Runs `fn` once when the current step ends (runTool calls runStepEndHooks). */
export function atStepEnd (fn: () => void): void {
  hooks.add(fn)
}

/** Runs and forgets every hook registered so far. */
export function runStepEndHooks (): void {
  for (const fn of [...hooks]) {
    hooks.delete(fn)
    fn()
  }
}
