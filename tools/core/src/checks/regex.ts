// What "RE2-safe" means for the regular expressions of the execution config's checks
// (source_absent with regex: true, matches.regex, commands[].stdout_matches): the pattern
// compiles under RE2's syntax — so no backreference, no lookahead or lookbehind, no
// possessive or atomic group, and no repetition count above 1000 — and is at most 512 bytes.
// It is then matched by RE2's automaton (re2js, a port of RE2), whose time is linear in the
// input whatever the pattern: a pattern like (a+)+$ cannot backtrack catastrophically on a
// file or a command's output, as it can under JavaScript's RegExp. admit refuses any other
// pattern (CHECK_REGEX_UNSAFE) before anything is consumed; the checks never run a pattern
// through RegExp.
//
// Patterns are compiled multi-line (^ and $ match at line ends), the natural reading for
// source files and command output.

import { RE2JS } from 're2js'

/** The longest pattern admitted, in UTF-8 bytes. */
export const MAX_REGEX_BYTES = 512

/** Why `pattern` is not RE2-safe, or undefined when it is. */
export function regexRefusal (pattern: string): string | undefined {
  const bytes = Buffer.byteLength(pattern, 'utf8')
  if (bytes > MAX_REGEX_BYTES) return `it is ${bytes} bytes, over ${MAX_REGEX_BYTES}`
  try {
    RE2JS.compile(pattern, RE2JS.MULTILINE)
    return undefined
  } catch (e) {
    return `RE2 refuses it: ${(e as Error).message}`
  }
}

/** A compiled RE2-safe pattern; throws for a pattern regexRefusal refuses (admit refused it before). */
export function compileSafeRegex (pattern: string): RE2JS {
  const why = regexRefusal(pattern)
  if (why !== undefined) throw new Error(`regular expression ${JSON.stringify(pattern)} is not RE2-safe: ${why}`)
  return RE2JS.compile(pattern, RE2JS.MULTILINE)
}

/** The UTF-16 offsets of the first match of `re` in `text` from `from`, or undefined. */
export function findMatch (re: RE2JS, text: string, from = 0): { start: number, end: number } | undefined {
  const m = re.matcher(text)
  if (!m.find(from)) return undefined
  return { start: m.start(), end: m.end() }
}
