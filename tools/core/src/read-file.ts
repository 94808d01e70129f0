// Reading a file of the state that must be a regular file: never through a symlink, never
// blocking on a FIFO planted in its place, never more than a bound. Kept apart from
// attempt-dir.ts (which loads the file validators) so a tool's start-up can use it.

import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { toolError } from './errors.ts'

/** The bytes of regular file `path` (≤ maxBytes); a symlink throws ELOOP, anything else not a file STATE_UNSAFE. */
export function readFileNoFollow (path: string, maxBytes = 64 << 20): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw toolError('STATE_UNSAFE', `${path} is not a regular file`)
    if (st.size > maxBytes) throw toolError('FILE_INVALID', `${path} is larger than ${maxBytes} bytes`)
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}
