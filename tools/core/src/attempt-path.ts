// Finding the attempt a step works on: --attempt, or the attempt record on stdin. Kept apart
// from attempt-dir.ts so a tool's entry point can resolve it without loading every schema.

import { resolve } from 'node:path'
import { toolError } from './errors.ts'
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
  let found: string | undefined
  for await (const r of readRecords(io.stdin)) {
    if (r.kind !== 'attempt') continue
    if (found !== undefined && found !== r.path) throw toolError('RECORD_INVALID', `stdin: two different attempt records: ${found} and ${r.path}`)
    found = r.path
  }
  if (found === undefined) {
    throw toolError('ATTEMPT_MISSING', 'no --attempt and no attempt record on stdin', { hint: 'the previous step printed no attempt: read its error record' })
  }
  return found
}

