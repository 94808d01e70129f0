// Rule: the source is the standalone checkout admit saw, and source_sha is a commit in it
// (DESIGN §8). Its objects may not come from elsewhere: alternates, grafts, a shallow
// history or a partial clone are shared metadata (TREE_SHARED_METADATA, rejected), checked
// before any git reads an object (a partial clone would fetch a missing one); a directory
// that is no longer the top of a checkout or a commit that is gone is a fault. The two reads
// of the commit then run concurrently (none reads a blob body); their verdicts are taken in
// the order above.

import { assertCommit, assertNoSharedMetadata, promisorConfig, readTreeListing, repoInfo } from '@repairline/core'

export type Listing = Awaited<ReturnType<typeof readTreeListing>>

function settled<T> (r: PromiseSettledResult<T>): T {
  if (r.status === 'rejected') throw r.reason
  return r.value
}

/** Checks the repository and returns the commit's listing (its path rules not yet applied). */
export async function readSourceListing (root: string, sha: string): Promise<Listing> {
  // The config's partial-clone keys are read while git finds the checkout (neither reads an
  // object); their verdicts are still taken in that order.
  const config = promisorConfig(root)
  const [info] = await Promise.allSettled([repoInfo(root), config])
  await assertNoSharedMetadata(root, settled(info), config)
  const [commit, listing] = await Promise.allSettled([assertCommit(root, sha), readTreeListing(root, sha)])
  settled(commit)
  return settled(listing)
}
