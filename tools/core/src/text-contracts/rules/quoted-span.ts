// Prose may not hide in quotes or inline code: every quoted or backticked span holds exactly
// one token (an identifier, path, number or identity) — non-empty, no whitespace. Spans are
// found per line:
//   `…` and "…"   every mark pairs with the next one; an odd count is unbalanced;
//   “…” «…»       each opener pairs with the next closer; a stray mark is unbalanced;
//   '…' ‘…’       an opener is a mark not preceded by a letter or digit, its closer the next
//                 mark not followed by one; apostrophes (don't, tests') never open a span,
//                 and an opener without a closer is left alone (it quotes nothing).
// A code-fence line is code-fence's finding, not an unbalanced backtick.

import type { Finding, TextRule } from '../types.ts'
import { FENCE } from './code-fence.ts'

const ALNUM = /[\p{L}\p{N}]/u
const SPACE = /\s/u

interface Span { text: string, column: number, mark: string }

function symmetric (chars: string[], mark: string): { spans: Span[], unbalanced?: number } {
  const at: number[] = []
  chars.forEach((c, i) => { if (c === mark) at.push(i) })
  const spans: Span[] = []
  for (let k = 0; k + 1 < at.length; k += 2) {
    const a = at[k] ?? 0
    const b = at[k + 1] ?? 0
    spans.push({ text: chars.slice(a + 1, b).join(''), column: a + 1, mark })
  }
  return at.length % 2 === 1 ? { spans, unbalanced: (at.at(-1) ?? 0) + 1 } : { spans }
}

function paired (chars: string[], open: string, close: string): { spans: Span[], unbalanced?: number } {
  const spans: Span[] = []
  let start = -1
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === open) {
      if (start !== -1) return { spans, unbalanced: start + 1 }
      start = i
    } else if (chars[i] === close) {
      if (start === -1) return { spans, unbalanced: i + 1 }
      spans.push({ text: chars.slice(start + 1, i).join(''), column: start + 1, mark: open })
      start = -1
    }
  }
  return start === -1 ? { spans } : { spans, unbalanced: start + 1 }
}

function single (chars: string[], marks: readonly string[]): Span[] {
  const spans: Span[] = []
  const isMark = (c: string | undefined): boolean => c !== undefined && marks.includes(c)
  for (let i = 0; i < chars.length; i++) {
    if (!isMark(chars[i]) || ALNUM.test(chars[i - 1] ?? ' ')) continue
    let j = i + 1
    while (j < chars.length && !(isMark(chars[j]) && !ALNUM.test(chars[j + 1] ?? ' '))) j++
    if (j >= chars.length) continue
    spans.push({ text: chars.slice(i + 1, j).join(''), column: i + 1, mark: chars[i] ?? "'" })
    i = j
  }
  return spans
}

export const quotedSpan: TextRule = ({ lines }) => {
  const findings: Finding[] = []
  lines.forEach((line, i) => {
    if (FENCE.test(line)) return
    const chars = [...line]
    const results = [
      symmetric(chars, '`'),
      symmetric(chars, '"'),
      paired(chars, '\u201c', '\u201d'),
      paired(chars, '\u00ab', '\u00bb'),
      { spans: single(chars, ["'", '\u2018', '\u2019']) },
    ]
    for (const r of results) {
      if (r.unbalanced !== undefined) {
        findings.push({ rule: 'quoted-span', line: i + 1, detail: `an unbalanced quote or backtick at column ${r.unbalanced}` })
        return
      }
      for (const s of r.spans) {
        if (s.text === '' || SPACE.test(s.text)) {
          findings.push({ rule: 'quoted-span', line: i + 1, detail: `the span opened by ${s.mark} at column ${s.column} ${s.text === '' ? 'is empty' : 'holds more than one token'}; a quoted or backticked span holds exactly one token` })
          return
        }
      }
    }
  })
  return findings
}
