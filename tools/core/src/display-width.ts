// displayWidth stands in for the `string-width` package inside the bundled tools (the build
// aliases every `string-width` import to this module; see scripts/build.ts). yargs lays out its
// help with cliui and wrap-ansi, which measure text with string-width; string-width builds an
// Intl.Segmenter and five Unicode-property regular expressions when it is imported, which cost
// about 60 ms of every tool's start (scripts/bench.ts startup). Here nothing is built until a
// string that is not plain ASCII is measured.
//
// Contract: the number of terminal columns `text` occupies, ANSI escape sequences excluded.
// Exact for ASCII. For other text, per grapheme cluster: 0 for controls, marks and
// zero-width characters; 2 for emoji and East Asian wide or fullwidth letters; else 1 — the
// same answers string-width gives for the help text, labels and paths the tools print.

// eslint-disable-next-line no-control-regex -- matching ESC and BEL is the point
const ANSI_ESCAPE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])/g
const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/

interface UnicodeTables {
  readonly segmenter: Intl.Segmenter
  readonly zeroWidth: RegExp
  readonly wide: RegExp
}

let tables: UnicodeTables | undefined

function unicodeTables(): UnicodeTables {
  tables ??= {
    segmenter: new Intl.Segmenter(),
    zeroWidth: /^[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Mark}\p{Surrogate}]+$/u,
    // East Asian Wide and Fullwidth blocks, and pictographs that terminals draw two columns wide.
    wide: /[\p{Extended_Pictographic}\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u,
  }
  return tables
}

export default function displayWidth(text: unknown, options: { countAnsiEscapeCodes?: boolean } = {}): number {
  if (typeof text !== 'string' || text.length === 0) return 0
  const visible = options.countAnsiEscapeCodes === true ? text : text.replace(ANSI_ESCAPE, '')
  if (PRINTABLE_ASCII.test(visible)) return visible.length
  const { segmenter, zeroWidth, wide } = unicodeTables()
  let width = 0
  for (const { segment } of segmenter.segment(visible)) {
    if (zeroWidth.test(segment)) continue
    width += wide.test(segment) ? 2 : 1
  }
  return width
}
