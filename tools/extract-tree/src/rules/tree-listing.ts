// Rule: the listing at source_sha obeys every tree rule of DESIGN §8 — checked again here,
// from `ls-tree -r -z --long` sizes: the bounds before git is asked for a blob, the path
// rules while git works and before any of its output is read. admit ran the same cheap
// check, but an attempt must not rely on it: the repository may have changed since, or the
// attempt may have been admitted by something else. The rules themselves live in core
// (tools/core/src/tree-rules/, one per file) because admit applies them too.

import { assertNoViolations, checkTreeListing, maxTreePathBytes } from '@repairline/core'
import type { Listing } from './source-repository.ts'

/**
 * Throws the first violation (unreadable paths, then bounds, then listing order) with its
 * TREE_* code. Paths are bounded by what fits under the attempt's work trees within PATH_MAX:
 * reproduce and verify write every path there.
 */
export function assertListingObeysRules (listing: Listing, attemptDir: string): void {
  assertNoViolations([...listing.violations, ...checkTreeListing(listing.entries, { maxPathBytes: maxTreePathBytes(attemptDir) }).violations])
}
