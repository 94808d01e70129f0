// What a tool undoes when SIGINT, SIGTERM or SIGHUP ends it: kill the sandboxes it runs
// (sandbox/run.ts) and detach the mounts it made for them (runners/go-cache.ts). Each
// registration is a synchronous cleanup; on the first such signal every one runs, newest
// first (a run's sandbox is killed before the cache under it is detached), each failure
// ignored, and then the process ends by that signal as if it had never been caught (a shell
// shows 128 + its number). The listeners exist only while something is registered, so a tool
// with nothing to undo keeps the signals' default actions. SIGKILL cannot be caught: the
// launcher removes a run's cgroups then (sandbox/launcher.ts), and a step's rerun detaches
// mounts left in its scratch (runners/scratch.ts).

const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
const cleanups = new Set<() => void>()

function onEndingSignal (signal: NodeJS.Signals): void {
  const all = [...cleanups].reverse()
  cleanups.clear()
  for (const cleanup of all) {
    try { cleanup() } catch {}
  }
  // Only now: removing the last listener restores a signal's default action, and a second
  // signal (the driver passes one on, a shell may send another) would end this process in
  // the middle of a cleanup. No listener left: the signal's default action ends it.
  for (const s of ENDING_SIGNALS) process.removeListener(s, onEndingSignal)
  process.kill(process.pid, signal)
}

/** Registers `cleanup` to run if an ending signal comes; the returned function unregisters it. */
export function untilEndingSignal (cleanup: () => void): () => void {
  if (cleanups.size === 0) for (const s of ENDING_SIGNALS) process.on(s, onEndingSignal)
  cleanups.add(cleanup)
  return () => {
    if (!cleanups.delete(cleanup) || cleanups.size > 0) return
    for (const s of ENDING_SIGNALS) process.removeListener(s, onEndingSignal)
  }
}
