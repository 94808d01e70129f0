// Unnamed files (Linux O_TMPFILE): never linked into any directory, gone when the last
// descriptor closes. A child process reads one as its stdin without this process's event
// loop having to turn, which a pipe of more than 64 KiB needs.

import { closeSync, constants, openSync, writeSync } from 'node:fs'

// Linux's O_TMPFILE (__O_TMPFILE | O_DIRECTORY); Node does not export it.
export const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY

/** Opens an unnamed read-write file in `dir` (mode 0600); throws where the filesystem has none. */
export function openUnnamedFile (dir: string): number {
  return openSync(dir, constants.O_RDWR | O_TMPFILE, 0o600)
}

/** An unnamed read-write file in the first of `dirs` that takes one; undefined when none does. */
export function openUnnamedFileIn (dirs: readonly string[]): number | undefined {
  for (const dir of dirs) {
    try {
      return openUnnamedFile(dir)
    } catch {}
  }
  return undefined
}

/**
 * An unnamed file holding `bytes`, its offset at 0 (where a reader starts), in the first of
 * `dirs` that takes it; undefined when none does.
 */
export function unnamedFileWith (bytes: Buffer, dirs: readonly string[]): number | undefined {
  for (const dir of dirs) {
    let fd: number | undefined
    try {
      fd = openUnnamedFile(dir)
      // Positional writes leave the offset at 0.
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at)
      return fd
    } catch {
      if (fd !== undefined) closeSync(fd)
    }
  }
  return undefined
}
