// Finding the attempt a step works on: --attempt, or the attempt record on stdin. Kept apart
// from attempt-dir.ts so a tool's entry point can resolve it without loading every schema.

import { join, resolve } from 'node:path'
import { toolError } from './errors.ts'
import { readFileNoFollow } from './read-file.ts'
import { readRecords } from './ndjson.ts'
import type { ToolIo } from './run-cli.ts'

/** The attempt directory from --attempt, else from the attempt record on stdin (exit 66 if neither). */
export async function resolveAttemptPath (flag: string | undefined, io: ToolIo): Promise<string> {
  if (flag !== undefined) {
    if (flag === '') throw toolError('USAGE', '--attempt needs a directory')
    return resolve(io.cwd, flag)
  }
  if ((io.stdin as { isTTY?: boolean }).isTTY === true) {
    throw toolError('ATTEMPT_MISSING', 'no --attempt and stdin is a terminal', { hint: 'pass --attempt DIR or pipe the previous tool into this one' })
  }
  let found: { path: string, key: string } | undefined
  let upstream: { tool: string, exit: number, outcome?: string } | undefined
  for await (const r of readRecords(io.stdin)) {
    if (r.kind === 'result') upstream = r
    if (r.kind !== 'attempt') continue
    if (found !== undefined && (found.path !== r.path || found.key !== r.key)) throw toolError('RECORD_INVALID', `stdin: two different attempt records: ${found.path} (key ${found.key}) and ${r.path} (key ${r.key})`)
    found = { path: r.path, key: r.key }
  }
  // The previous step refused: it ended non-zero and decided no outcome (a step that decides
  // one says so in its result, and this step then finds outcome.json and does no work).
  const refused = upstream !== undefined && upstream.exit !== 0 && upstream.outcome === undefined ? upstream : undefined
  if (found === undefined) {
    throw toolError('ATTEMPT_MISSING', refused === undefined ? 'no --attempt and no attempt record on stdin' : `no --attempt, and ${refused.tool} refused (exit ${refused.exit}) before it named an attempt`, { hint: 'the previous step printed no attempt: read its error record' })
  }
  // The record names the attempt by path and key: a key that is not the directory's is a
  // record for another attempt. (An unreadable admission is left to the step, which reports it.)
  const admitted = admittedKey(found.path)
  if (admitted !== undefined && admitted !== found.key) {
    throw toolError('RECORD_INVALID', `stdin: the attempt record names key ${found.key.slice(0, 16)}, but ${found.path} holds attempt ${admitted.slice(0, 16)}`)
  }
  // A refusal decides nothing, so the attempt is as the refusing step found it: no later step
  // works on it from this pipe (it would act past a step the operator asked for first). The
  // attempt record goes on, so every later step of the pipe says the same and names it.
  if (refused !== undefined) {
    io.out.write({ v: 1, kind: 'attempt', path: found.path, key: found.key })
    throw toolError('UPSTREAM_REFUSED', `${refused.tool} refused (exit ${refused.exit}) on attempt ${found.path}; nothing was done here`, { hint: `rerun that step once its error is resolved (${refused.tool} --attempt ${found.path}), then the rest of the chain` })
  }
  return found.path
}

function admittedKey (dir: string): string | undefined {
  try {
    const doc: unknown = JSON.parse(readFileNoFollow(join(dir, 'admission.json'), 1 << 20).toString('utf8'))
    const key = (doc as { attempt_key?: unknown } | null)?.attempt_key
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}
