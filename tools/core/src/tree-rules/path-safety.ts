// Rule: every tree path is a plain, relative, printable path that cannot name or alias git's
// own directory on any filesystem a reviewer might check it out on (DESIGN §8; threat matrix
// §4.1: CVE-2014-9390 `.GIT`/`git~1`/HFS ignorables, CVE-2025-48384 trailing CR).

/** Longest path accepted, in UTF-8 bytes (git fsck's largePathname default; Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096
/** Longest path component accepted, in UTF-8 bytes (Linux NAME_MAX: longer cannot be materialized). */
export const MAX_COMPONENT_BYTES = 255
/** Linux PATH_MAX, its terminating NUL included: a system call takes at most PATH_MAX - 1 bytes. */
export const PATH_MAX = 4096
/** The longest directory a tree path is written under, below the attempt: verify's work tree (reproduce's work/baseline/ is shorter). */
export const LONGEST_WORK_ROOT = 'work/candidate/'

/**
 * The longest tree path, in UTF-8 bytes, that can be written under `<attemptDir>/work/candidate/`
 * within PATH_MAX (always below MAX_PATH_BYTES). A longer path passes the tree's own rules but
 * cannot be materialized: the run would fail after the key is consumed.
 */
export function maxTreePathBytes (attemptDir: string): number {
  const root = `${attemptDir.replace(/\/+$/, '')}/${LONGEST_WORK_ROOT}`
  return Math.max(0, PATH_MAX - 1 - Buffer.byteLength(root))
}

// C0 controls, DEL and C1 controls: CR, LF, ESC and friends change how a path prints or parses.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u
// Bidirectional-override and isolate controls can make a path read differently than it is.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u
// Code points HFS+ ignores when it compares names (git's is_hfs_dotgit): ".g\u200cit" is .git there.
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu

// Printable ASCII without backslash: such a path needs none of the Unicode checks, and its
// length in bytes is its length in characters (the fast path for almost every real path).
const PLAIN = /^[\u0020-\u005b\u005d-\u007e]*$/

/** True when a path component names git's directory on Linux, Windows (NTFS, 8.3) or macOS (HFS+). */
export function isDotGitAlias (part: string): boolean {
  // NTFS drops trailing dots and spaces and reads `name::$INDEX_ALLOCATION` as `name`.
  const folded = part.replace(HFS_IGNORABLE, '').toLowerCase().split(':')[0]?.replace(/[. ]+$/u, '') ?? ''
  return folded === '.git' || folded === 'git~1'
}

/**
 * Why a path is unsafe, or undefined when it is fine. `maxBytes` (default MAX_PATH_BYTES) is
 * lower where the attempt directory is known (maxTreePathBytes).
 */
export function unsafePathReason (path: string, maxBytes = MAX_PATH_BYTES): string | undefined {
  if (path === '') return 'empty path'
  if (path.startsWith('/')) return 'absolute path'
  const plain = PLAIN.test(path)
  if (!plain) {
    if (CONTROL.test(path)) return 'control character'
    if (BIDI.test(path)) return 'bidirectional control character'
    if (path.includes('\\')) return 'backslash'
  }
  if (path.length > maxBytes || (!plain && Buffer.byteLength(path) > maxBytes)) {
    return maxBytes < MAX_PATH_BYTES ? `longer than ${maxBytes} bytes, the most that fits within PATH_MAX (${PATH_MAX}) under the attempt's ${LONGEST_WORK_ROOT}` : `longer than ${MAX_PATH_BYTES} bytes`
  }
  let start = 0
  while (start <= path.length) {
    let end = path.indexOf('/', start)
    if (end === -1) end = path.length
    const part = path.slice(start, end)
    if (part === '') return 'empty component'
    if (part === '.' || part === '..') return `"${part}" component`
    const c = part.charCodeAt(0)
    // Only a component starting with '.', 'g' or 'G' (or holding HFS ignorables) can fold to .git or git~1.
    if ((c === 0x2e || c === 0x67 || c === 0x47 || !plain) && isDotGitAlias(part)) return '.git component'
    if (part.length > MAX_COMPONENT_BYTES || (!plain && Buffer.byteLength(part) > MAX_COMPONENT_BYTES)) return `a component longer than ${MAX_COMPONENT_BYTES} bytes`
    start = end + 1
  }
  return undefined
}
