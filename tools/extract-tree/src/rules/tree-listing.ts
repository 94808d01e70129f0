// Rule: the listing at source_sha obeys every tree rule of DESIGN §8 — checked again here,
// from `ls-tree -r -z --long` sizes, before any blob body is read. admit ran the same cheap
// check, but an attempt must not rely on it: the repository may have changed since, or the
// attempt may have been admitted by something else. The rules themselves live in core
// (tools/core/src/tree-rules/, one per file) because admit applies them too.

import { assertNoViolations } from '@repairline/core'
import type { Listing } from './source-repository.ts'

/** Throws the first violation (bounds first, then listing order) with its TREE_* code. */
export function assertListingObeysRules (listing: Listing): void {
  assertNoViolations(listing.violations)
}
