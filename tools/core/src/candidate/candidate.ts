// The candidate as a commit (DESIGN §15, issue 37): one commit whose parent is source_sha and
// whose tree is the baseline tree with the gated edits, by a fixed author and committer at
// the gate's decision time, with a message built from the proposal summary that ends in the
// trailer `Repairline-Attempt: <key>`; carried in candidate.bundle under one ref,
// refs/heads/repairline/<first 16 hex of the key>, with source_sha its one prerequisite.
// Everything here is computed from bytes: gate-patch makes the commit with git plumbing
// (make-bundle.ts) and checks it against expectedCandidate; readback recomputes it from
// tree.tar and the retained proposal alone.

import type { Proposal, TreeManifestEntry } from '@repairline/schemas'
import { commitBody, gitObjectId, treeIdOf, type TreeFile } from './git-object.ts'

export const CANDIDATE_BUNDLE = 'candidate.bundle'
export const CANDIDATE_JSON = 'candidate.json'
/** The files gate-patch writes beside candidate.patch when the gate passed. */
export const CANDIDATE_FILES = [CANDIDATE_BUNDLE, CANDIDATE_JSON] as const

export const CANDIDATE_NAME = 'repairline'
export const CANDIDATE_EMAIL = 'repairline@invalid'
export const CANDIDATE_IDENTITY = `${CANDIDATE_NAME} <${CANDIDATE_EMAIL}>`
export const ATTEMPT_TRAILER = 'Repairline-Attempt'

/** The branch of an attempt's candidate: `refs/heads/repairline/<first 16 hex of the key>`. */
export function candidateRef (key: string): string {
  return `refs/heads/repairline/${key.slice(0, 16)}`
}

/** One line of the summary: control characters (none pass the summary's contract) become spaces. */
const line = (s: string): string => s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim() // eslint-disable-line no-control-regex

/**
 * The commit message: the summary's change as the subject, its cause and risk as the body,
 * and the attempt trailer last.
 */
export function candidateMessage (summary: Proposal['summary'], key: string): string {
  return `${line(summary.change)}\n\nCause: ${line(summary.cause)}\nRisk: ${line(summary.risk)}\n\n${ATTEMPT_TRAILER}: ${key}\n`
}

/** A decision time as the commit's whole seconds (git dates have no fractions). */
export function commitSeconds (at: Date): number {
  return Math.floor(at.getTime() / 1000)
}

export interface CandidateFileBytes { path: string, mode: '100644' | '100755', bytes: Uint8Array }

export interface ExpectedCandidate {
  tree: string
  commit: string
  /** The commit object's body. */
  body: Buffer
  /** The blob id of each changed file, by path. */
  blobs: Map<string, string>
}

/**
 * The commit that the baseline tree (`entries`, tree-manifest.json's, whose blob ids
 * extract-tree rehashed) with `changed` files makes, with the fixed fields.
 */
export function expectedCandidate (o: { entries: readonly TreeManifestEntry[], changed: readonly CandidateFileBytes[], sourceSha: string, summary: Proposal['summary'], key: string, seconds: number }): ExpectedCandidate {
  const blobs = new Map(o.changed.map(f => [f.path, gitObjectId('blob', f.bytes)]))
  const files: TreeFile[] = o.entries.map(e => {
    const changed = o.changed.find(c => c.path === e.path)
    return changed === undefined ? { path: e.path, mode: e.mode, blob: e.blob } : { path: e.path, mode: changed.mode, blob: blobs.get(e.path) ?? '' }
  })
  const tree = treeIdOf(files)
  const body = commitBody({ tree, parent: o.sourceSha, identity: CANDIDATE_IDENTITY, seconds: o.seconds, message: candidateMessage(o.summary, o.key) })
  return { tree, commit: gitObjectId('commit', body), body, blobs }
}

export interface BundleHeader {
  version: 2 | 3
  /** v3 capabilities (`object-format=sha1`, …). */
  capabilities: string[]
  prerequisites: Array<{ id: string, comment: string }>
  refs: Array<{ id: string, name: string }>
  /** Where the pack starts. */
  packOffset: number
}

/** How much of a bundle its header may take. */
const HEADER_MAX = 64 * 1024

/**
 * Parses a git bundle's header (gitformat-bundle(5)): the signature line, v3 capabilities,
 * prerequisites (`-<id> [comment]`), references (`<id> <refname>`), then an empty line.
 * Returns the reason as a string when the bytes are not a bundle header.
 */
export function parseBundleHeader (bytes: Uint8Array): BundleHeader | string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEADER_MAX))
  const lines: string[] = []
  let start = 0
  let packOffset = -1
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start)
    if (nl === -1) break
    const l = buf.subarray(start, nl).toString('utf8')
    start = nl + 1
    if (l === '') { packOffset = start; break }
    lines.push(l)
  }
  if (packOffset === -1) return `no end of header within ${HEADER_MAX} bytes`
  const sig = lines.shift()
  const version = sig === '# v2 git bundle' ? 2 : sig === '# v3 git bundle' ? 3 : undefined
  if (version === undefined) return `the first line is ${JSON.stringify(sig ?? '')}, not a v2 or v3 git bundle signature`
  const h: BundleHeader = { version, capabilities: [], prerequisites: [], refs: [], packOffset }
  for (const l of lines) {
    if (version === 3 && l.startsWith('@')) { h.capabilities.push(l.slice(1)); continue }
    const m = /^(-?)([0-9a-f]{40})(?: (.*))?$/.exec(l)
    if (m === null) return `line ${JSON.stringify(l.slice(0, 200))} is neither a prerequisite nor a reference`
    if (m[1] === '-') h.prerequisites.push({ id: m[2] ?? '', comment: m[3] ?? '' })
    else if (m[3] === undefined || m[3] === '') return `reference ${m[2] ?? ''} has no name`
    else h.refs.push({ id: m[2] ?? '', name: m[3] })
  }
  if (buf.subarray(packOffset, packOffset + 4).toString('latin1') !== 'PACK') return 'no pack follows the header'
  return h
}
