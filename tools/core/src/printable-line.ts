// One line of text we did not write (a server's error message, a model name, a test's name),
// fit for a stderr line and a JSON file. Line breaks become spaces and every other control
// character but tab is shown escaped (`\x1b`), so the text can neither forge a second
// `<tool>: …` line nor drive the operator's terminal. A lone surrogate becomes U+FFFD: a string
// holding one has no UTF-8 form and our strict JSON reader refuses it, so a file written with
// it could never be read back. The cut is by code points and never splits a pair.

/** `s` as one printable line of at most `max` code points (`...` marks a cut). */
export function printableLine (s: string, max: number): string {
  // Every code point yields at least one character, so the first 2·max + 2 code units decide.
  const head = s.length > 2 * max + 2 ? s.slice(0, 2 * max + 2) : s
  const chars: string[] = []
  for (const ch of head.replace(/[\r\n\u2028\u2029]+/g, ' ')) {
    const c = ch.codePointAt(0) ?? 0
    if ((c < 0x20 && c !== 0x09) || (c >= 0x7f && c <= 0x9f)) chars.push(...`\\x${c.toString(16).padStart(2, '0')}`)
    else if (c >= 0xd800 && c <= 0xdfff) chars.push('\ufffd')
    else chars.push(ch)
    if (chars.length > max) break
  }
  return chars.length > max ? `${chars.slice(0, Math.max(0, max - 3)).join('')}...` : chars.join('')
}
