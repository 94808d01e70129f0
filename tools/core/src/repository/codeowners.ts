// CODEOWNERS with GitHub's semantics (docs.github.com, "About code owners"): the file is the
// first of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS; each line is a gitignore-style
// pattern and its owners; the last matching line wins, and a line with no owners makes the
// path unowned. Where GitHub departs from gitignore, this does too: paths are case sensitive;
// `!` negation, `[ ]` character ranges and a `\#` escape are not supported (GitHub reports
// such a line as an error and it owns nothing, so here it matches nothing); a pattern ending
// in `/*` matches only the files directly in that directory, not deeper ones. The npm
// libraries measured (codeowners-utils 1.0.2, @snyk/github-codeowners 1.1.0) match with the
// gitignore library `ignore`, which is case-insensitive and supports `[ ]`, so neither is used
// (docs/repository-clauses.md).

/** Where GitHub looks for the file, in order: the first that exists is the one. */
export const CODEOWNERS_FILES = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const

export interface CodeownersRule {
  /** 1-based line number in the file. */
  line: number
  pattern: string
  /** Owners as written (`@user`, `@org/team`, an email); empty: the path is unowned. */
  owners: string[]
  /** Undefined for a line GitHub does not accept (it matches nothing). */
  regex: RegExp | undefined
}

const escapeRe = (s: string): string => s.replace(/[.+^${}()|\\]/g, '\\$&')

/** One segment's glob (`*`, `?`, literal text) as a regular expression. */
function segmentRe (seg: string): string {
  let out = ''
  for (const ch of seg) out += ch === '*' ? '[^/]*' : ch === '?' ? '[^/]' : escapeRe(ch)
  return out
}

/** The regular expression of a pattern GitHub accepts, or undefined for one it does not. */
export function patternRegex (pattern: string): RegExp | undefined {
  if (pattern.startsWith('!') || pattern.includes('[') || pattern.includes(']') || pattern.startsWith('\\')) return undefined
  const dirOnly = pattern.endsWith('/')
  let body = dirOnly ? pattern.slice(0, -1) : pattern
  // A slash at the start or in the middle anchors the pattern at the root.
  const anchored = body.includes('/')
  if (body.startsWith('/')) body = body.slice(1)
  if (body === '') return undefined
  const segs = body.split('/')
  let re = ''
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1
    if (seg === '**') {
      // Leading or middle: zero or more directories; trailing: everything inside.
      re += last ? (i === 0 ? '.*' : '.*') : '(?:[^/]+/)*'
      return
    }
    re += segmentRe(seg) + (last ? '' : '/')
  })
  const prefix = anchored ? '^' : '^(?:[^/]+/)*'
  const lastSeg = segs[segs.length - 1]
  // dir/ : everything under it; dir/* : the files directly in it; else the path or anything under it.
  const suffix = dirOnly ? '/.+$' : lastSeg === '*' || lastSeg === '**' ? '$' : '(?:/.+)?$'
  return new RegExp(prefix + re + suffix, 'u')
}

/** The rules of a CODEOWNERS file, in order. Comments and blank lines are not rules. */
export function parseCodeowners (text: string): CodeownersRule[] {
  const rules: CodeownersRule[] = []
  text.split('\n').forEach((raw, i) => {
    const l = raw.replace(/\r$/, '').trim()
    if (l === '' || l.startsWith('#')) return
    const tokens = l.split(/\s+/)
    const pattern = tokens[0] ?? ''
    const owners: string[] = []
    // An inline comment ends the owners.
    for (const t of tokens.slice(1)) { if (t.startsWith('#')) break; owners.push(t) }
    rules.push({ line: i + 1, pattern, owners, regex: patternRegex(pattern) })
  })
  return rules
}

/** The last rule that matches `path` (repository-relative), or undefined. */
export function effectiveRule (rules: readonly CodeownersRule[], path: string): CodeownersRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i]
    if (r?.regex?.test(path) === true) return r
  }
  return undefined
}
