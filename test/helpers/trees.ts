// Git trees built directly with plumbing, for fixtures a checkout cannot hold: names like
// `.git`, `..` or control characters (`git mktree` accepts them), duplicate or unsorted
// entries (`git hash-object -t tree --literally`), gitlinks, huge or bogus blobs. The commits
// made from them are never checked out, so the fixture's checkout stays clean.

import { deflateSync } from 'node:zlib'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitT } from './git.ts'

export interface RawEntry {
  /** git mode: 100644, 100755, 120000, 160000 or 40000 (a tree). */
  mode: string
  name: string
  oid: string
}

const TYPE_OF: Record<string, string> = { 100644: 'blob', 100755: 'blob', 120000: 'blob', 160000: 'commit', 40000: 'tree', '040000': 'tree' }

/** Writes a blob into the object store; returns its id. */
export async function hashBlob (repo: string, content: string | Uint8Array): Promise<string> {
  return (await gitT(repo, ['hash-object', '-w', '--stdin'], content)).trim()
}

/** One tree level through `git mktree -z` (which sorts the entries and checks nothing else). */
export async function mktree (repo: string, entries: readonly RawEntry[]): Promise<string> {
  const input = entries.map(e => `${e.mode} ${TYPE_OF[e.mode] ?? 'blob'} ${e.oid}\t${e.name}\0`).join('')
  return (await gitT(repo, ['mktree', '-z', '--missing'], input)).trim()
}

/**
 * One tree level written byte for byte, in the given order, with `hash-object -t tree
 * --literally`: duplicate and unsorted entries survive.
 */
export async function literalTree (repo: string, entries: readonly RawEntry[]): Promise<string> {
  const raw = Buffer.concat(entries.flatMap(e => [Buffer.from(`${e.mode.replace(/^0+/, '')} ${e.name}\0`), Buffer.from(e.oid, 'hex')]))
  return (await gitT(repo, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], raw)).trim()
}

export interface TreeFile { mode: string, oid: string }

/** Builds nested trees (bottom-up, through mktree) from full paths; returns the root tree id. */
export async function treeFromPaths (repo: string, files: ReadonlyMap<string, TreeFile>): Promise<string> {
  const here: RawEntry[] = []
  const below = new Map<string, Map<string, TreeFile>>()
  for (const [path, f] of files) {
    const cut = path.indexOf('/')
    if (cut === -1) {
      here.push({ mode: f.mode, name: path, oid: f.oid })
    } else {
      const dir = path.slice(0, cut)
      const sub = below.get(dir) ?? new Map<string, TreeFile>()
      sub.set(path.slice(cut + 1), f)
      below.set(dir, sub)
    }
  }
  for (const [dir, sub] of below) here.push({ mode: '40000', name: dir, oid: await treeFromPaths(repo, sub) })
  return await mktree(repo, here)
}

/** The files of a commit as path → {mode, oid}. */
export async function filesOf (repo: string, rev: string): Promise<Map<string, TreeFile>> {
  const out = await gitT(repo, ['ls-tree', '-r', '-z', '--full-tree', rev])
  const files = new Map<string, TreeFile>()
  for (const rec of out.split('\0')) {
    if (rec === '') continue
    const [meta = '', path = ''] = rec.split('\t')
    const [mode = '', , oid = ''] = meta.split(' ')
    files.set(path, { mode, oid })
  }
  return files
}

/** A commit of `tree` (parent HEAD unless told otherwise); never checked out. */
export async function commitTree (repo: string, tree: string, parent: string | null = 'HEAD'): Promise<string> {
  const p = parent === null ? [] : ['-p', (await gitT(repo, ['rev-parse', parent])).trim()]
  return (await gitT(repo, ['commit-tree', tree, ...p, '-m', 'hostile tree'])).trim()
}

/** A commit of HEAD's files plus `extra` (path → entry), built with mktree. */
export async function commitWithExtra (repo: string, extra: ReadonlyMap<string, TreeFile>): Promise<string> {
  const files = await filesOf(repo, 'HEAD')
  for (const [p, f] of extra) files.set(p, f)
  return await commitTree(repo, await treeFromPaths(repo, files))
}

/** The path of a loose object in the repository. */
export function loosePath (repo: string, oid: string): string {
  return join(repo, '.git', 'objects', oid.slice(0, 2), oid.slice(2))
}

/**
 * Writes a hand-made loose object file at `oid`'s path holding `type`, `declaredSize` and
 * `body` — which need not match the id (a tampered store) nor each other (a header that
 * claims more bytes than the object holds, so that reading its body fails).
 */
export function writeLooseObject (repo: string, oid: string, type: string, declaredSize: number, body: Uint8Array): void {
  const p = loosePath(repo, oid)
  mkdirSync(join(repo, '.git', 'objects', oid.slice(0, 2)), { recursive: true })
  try { chmodSync(p, 0o644) } catch {}
  writeFileSync(p, deflateSync(Buffer.concat([Buffer.from(`${type} ${declaredSize}\0`), body])))
}
