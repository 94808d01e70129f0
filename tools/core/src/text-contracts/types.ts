// The shapes every text rule shares. A rule reads the decoded text split into lines and
// returns findings; it never throws for bad text.

/** Which owned (or returned) text a check is about; each surface enables its own rules. */
export type TextSurface = 'job' | 'scaffold' | 'instructions' | 'summary'

/** One broken rule: the rule's name, the 1-based line (0 = the whole text) and what was found. */
export interface Finding {
  rule: string
  line: number
  detail: string
}

export interface TextRuleInput {
  /** The text's lines, split on "\n"; a final "\n" does not add an empty line. */
  lines: readonly string[]
  surface: TextSurface
  /** The untrusted-payload delimiter of this request, when one has been chosen. */
  delimiter?: string
}

export type TextRule = (input: TextRuleInput) => Finding[]

/** Code points, not UTF-16 units: "no line over 200 characters" counts what a reader sees. */
export function charLength (s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** A character as U+XXXX, for findings about invisible characters. */
export function codePointName (ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
}
