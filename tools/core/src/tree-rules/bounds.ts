// Rule: at most 20,000 blob entries and 16 MiB of summed blob bytes (DESIGN §7, §8), checked
// from the listing's sizes before any blob body is read. The bound is on blob bytes, not
// tar bytes (a tar of 20,000 small files is about twice its content).

import type { ErrorCode } from '../errors.ts'

export const MAX_TREE_ENTRIES = 20_000
export const MAX_TREE_BYTES = 16 * 1024 * 1024

/** The bound violations of a tree with `count` blobs of `bytes` summed size, in report order. */
export function boundViolations (count: number, bytes: number): Array<{ code: ErrorCode, message: string }> {
  const out: Array<{ code: ErrorCode, message: string }> = []
  if (bytes > MAX_TREE_BYTES) {
    out.push({ code: 'TREE_TOO_LARGE', message: `the tree has ${bytes} bytes of blobs; the bound is ${MAX_TREE_BYTES} (16 MiB of reviewed, owned source)` })
  }
  if (count > MAX_TREE_ENTRIES) out.push({ code: 'TREE_TOO_MANY_ENTRIES', message: `the tree has ${count} blob entries; the bound is ${MAX_TREE_ENTRIES}` })
  return out
}
