// provider.token_command must be a regular, executable file (not a symlink) whose bytes
// hash to token_command_sha256. ask-provider re-checks the bytes it executes.

import { lstatSync } from 'node:fs'
import type { ExecutionConfig } from '@repairline/schemas'
import { sha256File, toolError } from '@repairline/core'

export function checkTokenHelper (config: ExecutionConfig): void {
  const p = config.provider.token_command
  const path = '/provider/token_command'
  let st
  try {
    st = lstatSync(p)
  } catch {
    throw toolError('TOKEN_HELPER_MISMATCH', `token helper ${p} does not exist`, { path })
  }
  if (st.isSymbolicLink()) throw toolError('TOKEN_HELPER_MISMATCH', `token helper ${p} is a symlink; pin the file itself`, { path })
  if (!st.isFile()) throw toolError('TOKEN_HELPER_MISMATCH', `token helper ${p} is not a regular file`, { path })
  if ((st.mode & 0o111) === 0) throw toolError('TOKEN_HELPER_NOT_EXECUTABLE', `token helper ${p} is not executable`, { path, hint: `make it executable (chmod +x ${p}); its sha256 stays the same` })
  const { sha256 } = sha256File(p)
  if (sha256 !== config.provider.token_command_sha256) {
    throw toolError('TOKEN_HELPER_MISMATCH', `token helper ${p} has sha256 ${sha256}, but token_command_sha256 is ${config.provider.token_command_sha256}`, { path: '/provider/token_command_sha256', hint: 'if you changed the helper on purpose, update token_command_sha256 (sha256sum prints it)' })
  }
}
