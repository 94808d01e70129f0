// Live progress of a test run, for the operator only: counts the terminal events in the raw
// runner output as it streams (go test -json, or our node reporter's lines). It reads nothing
// the summary relies on — the events are normalized and judged after the run — so a test that
// forges lines can only make this counter wrong, never a result.

import type { RunnerKind } from './run-tests.ts'

const GO_TERMINAL = /"Action":"(pass|fail|skip)"/
const NODE_TERMINAL = /"type":"test:(pass|fail)"/

export class ProgressCounter {
  private tail = ''
  finished = 0

  constructor (private readonly runner: RunnerKind, private readonly onChange: (finished: number) => void) {}

  push (chunk: Buffer): void {
    const text = this.tail + chunk.toString('latin1')
    const lines = text.split('\n')
    this.tail = (lines.pop() ?? '').slice(-4096)
    let changed = false
    for (const l of lines) {
      const done = this.runner === 'go' ? GO_TERMINAL.test(l) && l.includes('"Test":') : NODE_TERMINAL.test(l) && !l.includes('"suite":true')
      if (done) { this.finished++; changed = true }
    }
    if (changed) this.onChange(this.finished)
  }
}

/** Calls `write` at most once a second with the latest count (and never for zero). */
export function throttledProgress (write: (finished: number) => void, intervalMs = 1000): (finished: number) => void {
  let last = 0
  return (n: number) => {
    const now = Date.now()
    if (n > 0 && now - last >= intervalMs) { last = now; write(n) }
  }
}
