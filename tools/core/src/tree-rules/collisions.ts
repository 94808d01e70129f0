// Rule: every path names exactly one file on every filesystem. Refused: the same path twice
// (a tree built with `hash-object --literally`), paths that differ only in case or Unicode
// normalization (one file on macOS and Windows), a path that is both a file and a directory,
// and a listing out of git's canonical order (fsck's treeNotSorted: a malformed tree can hide
// an entry from git's own binary-searching lookups).

import type { ErrorCode } from '../errors.ts'

export interface CollisionViolation { code: ErrorCode, path: string, message: string }

/** What `add` returns for a path that collides with nothing (almost every path): no array each. */
const NONE: readonly CollisionViolation[] = Object.freeze([])

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/
// UTF-16 code-unit order equals UTF-8 byte order except where a surrogate (an astral code
// point) meets a code unit in U+E000–U+FFFF; only strings holding either need the bytes.
const HIGH = /[\ud800-\uffff]/

/** How two paths compare on a case-insensitive, normalizing filesystem. */
export function foldPath (path: string): string {
  return ASCII.test(path) ? path.toLowerCase() : path.normalize('NFC').toLowerCase()
}

/** Compares two strings by their UTF-8 bytes (git's and tree.tar's order). */
export function compareUtf8 (a: string, b: string): number {
  if (HIGH.test(a) || HIGH.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b))
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Tracks paths in listing order and reports collisions. `ls-tree -r` of a canonical tree
 * lists paths in strictly increasing byte order; anything else is malformed.
 */
export class PathCollisions {
  private readonly files = new Map<string, string>()
  private readonly dirs = new Map<string, string>()
  private readonly seenDirs = new Set<string>()
  private prev: string | undefined
  private prevHigh = false
  private prevParent: string | undefined

  add (path: string): readonly CollisionViolation[] {
    let out: CollisionViolation[] | undefined
    const ascii = ASCII.test(path)
    const high = !ascii && HIGH.test(path)
    const prev = this.prev
    if (prev !== undefined) {
      const after = high || this.prevHigh ? Buffer.compare(Buffer.from(prev), Buffer.from(path)) > 0 : prev > path
      if (after) (out ??= []).push({ code: 'TREE_MALFORMED', path, message: `${path} is listed after ${prev}: the tree is not in git's canonical order` })
    }
    this.prev = path
    this.prevHigh = high
    const folded = ascii ? path.toLowerCase() : foldPath(path)
    const priorFile = this.files.get(folded)
    const priorDir = this.dirs.get(folded)
    if (priorFile !== undefined) {
      (out ??= []).push({ code: 'TREE_PATH_DUPLICATE', path, message: priorFile === path ? `${path} appears twice in the tree` : `${path} and ${priorFile} differ only in case or Unicode normalization` })
    } else if (priorDir !== undefined) {
      (out ??= []).push({ code: 'TREE_PATH_DUPLICATE', path, message: priorDir === path ? `${path} is both a file and a directory` : `${path} and the directory ${priorDir} differ only in case or Unicode normalization` })
    } else {
      this.files.set(folded, path)
    }
    // Consecutive paths of a sorted listing mostly share their directory: it was checked then.
    const lastSlash = path.lastIndexOf('/')
    const parent = lastSlash === -1 ? '' : path.slice(0, lastSlash)
    if (parent !== this.prevParent) {
      this.prevParent = parent
      // Lowercasing ASCII keeps every '/' in place, so a directory's folded form is a prefix.
      let cut = path.indexOf('/')
      while (cut !== -1) {
        const dir = path.slice(0, cut)
        // A directory seen before was checked then; a file added since is checked on its own.
        if (!this.seenDirs.has(dir)) {
          this.seenDirs.add(dir)
          const dirFolded = ascii ? folded.slice(0, cut) : foldPath(dir)
          const file = this.files.get(dirFolded)
          if (file !== undefined) (out ??= []).push({ code: 'TREE_PATH_DUPLICATE', path, message: `${dir} is both a file (${file}) and a directory` })
          const other = this.dirs.get(dirFolded)
          if (other === undefined) this.dirs.set(dirFolded, dir)
          else (out ??= []).push({ code: 'TREE_PATH_DUPLICATE', path, message: `directories ${dir} and ${other} differ only in case or Unicode normalization` })
        }
        cut = path.indexOf('/', cut + 1)
      }
    }
    return out ?? NONE
  }
}
