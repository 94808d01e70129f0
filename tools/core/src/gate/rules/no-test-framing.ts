// no-test-framing: no string or template literal is added whose value (escapes decoded)
// contains test-runner framing that could forge a result in test output: `=== RUN`,
// `=== PAUSE`, `=== CONT`, `--- PASS`, `--- FAIL`, `--- SKIP`, a line that is `PASS` or
// `FAIL`, `ok  \t`, `FAIL\t`, `"Action":`, `TAP version`, `ok <n>`, `not ok <n>`, `# pass`,
// `# fail`; `ok <n>` and `not ok <n>` only where a line starts (so `'status ok 200'` is
// text). A `+` chain that holds a string literal counts as one value too, so `"--- PA" +
// "SS"` is caught. What the literal text does not fix — a template substitution, any other
// operand of the chain, and a format verb (`%c`, `%s`, `%v`, … as Go's fmt and Node's
// util.format read them) — may be any text, and so may what another print put before a
// value on its line (`fmt.Print("--- ")` then `fmt.Print("PASS: TestAdd")`), so in a go
// file go test runs a value that starts with go test's `PASS: `, `RUN `, … is framing, and
// so (since checker version 7) is one that ends with `--- ` or `=== ` and the start of the
// keyword (`fmt.Print("--- P")` then `fmt.Print("ASS: TestAdd")`, or `"--- PASS"` then
// `": TestAdd"`), whose rest another print may put after it. A
// framing whose keyword (`PASS`, `RUN`, `ok`, …) is in the literal text and whose other
// characters such text could supply is caught, so `ok ${n} - x`,
// `fmt.Sprintf("%c%c%c PASS", 45, 45, 45)` and `dashes + " PASS"` are. The keyword itself
// must be literal, and `"Action":`, `TAP version`, `# pass` and `# fail` are matched on the
// literal text alone. A call holding a string literal among its arguments counts what it
// may print from them too, whatever it calls: its arguments joined by a space and by
// nothing, and each string argument read as a format with each verb given the argument
// after it (a literal's value, a go `%c` of a number its character, Node's `%c` nothing),
// so `fmt.Sprintf("--- %cASS: TestAdd", 80)`, `fmt.Fprintf(os.Stdout, "--- %cASS", 80)`,
// `format('%s 1 - add', 'ok')` and `util.format('ok', 1, '- add')` are caught. In a go file
// that go test runs, only go test's framing is checked (TAP's `ok <n>` frames nothing
// there). Comments are not checked: they print nothing. Literals already in the baseline
// may stay.

import { checkStructure } from '../syntax/compare.ts'
import { decodeJsString } from '../syntax/js-string.ts'
import { descendants, field, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

/** What a substitution, a non-literal `+` operand or a format verb stands for: any text. */
export const ANY_TEXT = '\uFFFF'

/** Whether `p`, each ANY_TEXT in it replaced by some text, can end with `f`. */
function canEndWith (p: string, f: string): boolean {
  for (let i = p.length - 1, k = f.length - 1; k >= 0; i--, k--) {
    if (i < 0) return false
    if (p[i] === ANY_TEXT) return true
    if (p[i] !== f[k]) return false
  }
  return true
}

/** Whether `s`, each ANY_TEXT in it replaced by some text, can start with `f`. */
function canStartWith (s: string, f: string): boolean {
  for (let i = 0; i < f.length; i++) {
    if (i >= s.length) return false
    if (s[i] === ANY_TEXT) return true
    if (s[i] !== f[i]) return false
  }
  return true
}

/** Each position of `keyword` in `v`, as the text before and after it. */
function * around (v: string, keyword: string): Generator<[string, string]> {
  for (let p = v.indexOf(keyword); p !== -1; p = v.indexOf(keyword, p + 1)) yield [v.slice(0, p), v.slice(p + keyword.length)]
}

/** `before`, then the literal `keyword`, then `after`, the two ends possibly supplied by any text. */
const framed = (before: string, keyword: string, after: string) => (v: string): boolean => {
  for (const [b, a] of around(v, keyword)) if (canEndWith(b, before) && canStartWith(a, after)) return true
  return false
}

/** Whether the text before a position can end a line (or is the start), indentation allowed when `indent`. */
function lineStartBefore (b: string, indent: boolean): boolean {
  const t = indent ? b.replace(/[\t ]+$/, '') : b
  return t === '' || t.endsWith('\n') || (indent && t.endsWith('\r')) || t.endsWith(ANY_TEXT)
}

/** A line that is exactly `keyword` (go test's package verdict): `(^|\n)keyword\r?(\n|$)`. */
const wholeLine = (keyword: string) => (v: string): boolean => {
  for (const [b, a] of around(v, keyword)) {
    const rest = a.startsWith('\r') ? a.slice(1) : a
    if (lineStartBefore(b, false) && (rest === '' || rest.startsWith('\n') || rest.startsWith(ANY_TEXT) || a.startsWith(ANY_TEXT))) return true
  }
  return false
}

/** go test's package line (`ok  \\t<pkg>`, `FAIL\\t<pkg>`): `keyword` where a line starts, then `after`. */
const packageLine = (keyword: string, after: string) => (v: string): boolean => {
  for (const [b, a] of around(v, keyword)) if (lineStartBefore(b, false) && canStartWith(a, after)) return true
  return false
}

/** A TAP result line: `keyword` after nothing but indentation, then a digit. */
const tapResult = (keyword: string) => (v: string): boolean => {
  for (const [b, a] of around(v, keyword)) if (lineStartBefore(b, true) && (/^\d/.test(a) || a.startsWith(ANY_TEXT))) return true
  return false
}

/** Matched on the literal text alone (what any text stands for read as `0`). */
const literally = (re: RegExp) => (v: string): boolean => re.test(v.replaceAll(ANY_TEXT, '0'))

/**
 * Whether `v` can end with `lead` and then the start of `rest` (cut inside it: at least one
 * character of it, not all), that start literal: another print may put the rest after it
 * on the same line (`fmt.Print("--- P")` then `fmt.Print("ASS: TestAdd")`).
 */
const endsInside = (lead: string, rest: string) => (v: string): boolean => {
  for (let m = 1; m < rest.length; m++) {
    if (v.endsWith(rest.slice(0, m)) && canEndWith(v.slice(0, v.length - m), lead)) return true
  }
  return false
}

/** Each framing and how a finding names it. */
export const FRAMING: ReadonlyArray<{ name: string, test: (value: string) => boolean, printedAfter?: (value: string) => boolean }> = [
  // As go test prints them: `=== RUN   TestX`, `--- PASS: TestX (0.00s)`. In a go file go
  // test runs, a value starting with the keyword may follow another print's `--- ` on the
  // same line, and one ending inside the keyword or just after it may be followed by
  // another's rest of the line (printedAfter: since checker version 7, the second).
  { name: '=== RUN', test: framed('=== ', 'RUN', ' '), printedAfter: endsInside('=== ', 'RUN ') },
  { name: '=== PAUSE', test: framed('=== ', 'PAUSE', ' '), printedAfter: endsInside('=== ', 'PAUSE ') },
  { name: '=== CONT', test: framed('=== ', 'CONT', ' '), printedAfter: endsInside('=== ', 'CONT ') },
  { name: '--- PASS', test: framed('--- ', 'PASS', ': '), printedAfter: endsInside('--- ', 'PASS: ') },
  { name: '--- FAIL', test: framed('--- ', 'FAIL', ': '), printedAfter: endsInside('--- ', 'FAIL: ') },
  { name: '--- SKIP', test: framed('--- ', 'SKIP', ': '), printedAfter: endsInside('--- ', 'SKIP: ') },
  { name: 'a line that is PASS or FAIL', test: v => wholeLine('PASS')(v) || wholeLine('FAIL')(v) },
  { name: 'ok  \\t', test: packageLine('ok ', ' \t') },
  { name: 'FAIL\\t', test: packageLine('FAIL', '\t') },
  { name: '"Action":', test: literally(/"Action":/) },
  { name: 'TAP version', test: literally(/TAP version/) },
  { name: 'not ok <n>', test: tapResult('not ok ') },
  { name: 'ok <n>', test: tapResult('ok ') },
  { name: '# pass', test: literally(/# pass/) },
  { name: '# fail', test: literally(/# fail/) },
  // node --test's child protocol: each event is a v8-serialized frame after a length, read
  // from the child's stdout wherever it starts (an e2e audit forged two passes from a source
  // file's process.stdout.write('ff0f…', 'hex')). Its header is 0xFF 0x0F; a value that
  // writes it as latin1, UTF-16 or hex or base64 text is framing.
  { name: 'a v8-serialized frame (node --test)', test: carriesV8Header },
]

/** V8's serialization header, which node --test's child protocol frames start with. */
const V8_HEADER = Buffer.from([0xff, 0x0f])

/**
 * Whether `v` (literal text only) holds V8_HEADER as a write of it in any of node's encodings
 * would put it: each piece decoded as node's own decoders do, leniently (hex up to its first
 * non-hex character or odd nibble, base64 skipping white space, latin1 keeping each
 * character's low byte, UTF-16 in little-endian pairs). An eighth audit got the frames past
 * stricter readings of hex and base64 and with `\u01ff` written for 0xFF.
 */
function carriesV8Header (v: string): boolean {
  // Each piece, and the pieces joined as if what stands between them were empty
  // (`ff${''}0f`, `'\xff' + sep + '\x0f'`).
  for (const run of [...v.split(ANY_TEXT), v.replaceAll(ANY_TEXT, '')]) {
    for (const encoding of ['hex', 'base64', 'latin1', 'utf16le'] as const) {
      if (Buffer.from(run, encoding).includes(V8_HEADER)) return true
    }
  }
  return false
}

/** A format verb as Go's fmt (flags, width, precision, argument index) and Node's util.format read it; `%%` is a literal `%`. */
const FORMAT_VERB = /%(?:%|[-+# 0]*(?:\[\d+\])?(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:\[\d+\])?[a-zA-Z])/g

/** The framings go test reads; in a go file run by go test the others (TAP's) frame nothing. */
const GO_FRAMING = new Set(['=== RUN', '=== PAUSE', '=== CONT', '--- PASS', '--- FAIL', '--- SKIP', 'a line that is PASS or FAIL', 'ok  \\t', 'FAIL\\t', '"Action":'])

/**
 * The framings a value contains, its format verbs read as literal text, as any text, or (a
 * bare `%c`, which Node's util.format prints as nothing) as no text. `goOnly`: only the
 * framings go test reads.
 */
export function framingIn (value: string, goOnly = false): string[] {
  const verbs = value.replace(FORMAT_VERB, m => m === '%%' ? '%' : ANY_TEXT)
  const css = value.replace(FORMAT_VERB, m => m === '%%' ? '%' : m === '%c' ? '' : ANY_TEXT)
  const variants = [...new Set([value, verbs, css])]
  return FRAMING.filter(f => (!goOnly || GO_FRAMING.has(f.name)) && variants.some(v => f.test(v) || (goOnly && f.printedAfter !== undefined && (f.test(ANY_TEXT + v) || f.printedAfter(v))))).map(f => f.name)
}

/** Every string and template literal of a file, by decoded value, and what calls may print from their arguments (see argumentValues). */
export function stringsOf (tree: SyntaxTree, goOnly = false): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    const codes = codesOf(tree, n)
    if (codes !== undefined) out.push(String.fromCodePoint(...codes))
    if (tree.grammar === 'go') {
      if (n.type === 'interpreted_string_literal') out.push(decodeGo(textOf(tree, n).slice(1, -1)))
      else if (n.type === 'raw_string_literal') out.push(textOf(tree, n).slice(1, -1).replace(/\r/g, ''))
      continue
    }
    if (n.type === 'string') out.push(decodeJs(textOf(tree, n).slice(1, -1)))
    else if (n.type === 'template_string') out.push(templateValue(tree, n))
  }
  for (const n of descendants(tree.root)) {
    if (n.type === 'call_expression') out.push(...argumentValues(tree, n, goOnly))
  }
  for (const n of descendants(tree.root)) {
    // The whole chain once, from its outermost `+`.
    if (!isPlus(tree, n) || (n.parent !== undefined && isPlus(tree, n.parent))) continue
    const value = concatValue(tree, n)
    if (value !== undefined) out.push(value)
  }
  return out
}

/**
 * What a call holding a string literal among its arguments may print from them, whatever
 * function it calls: the arguments joined by a space (console.log, util.format, fmt.Println)
 * and by nothing (fmt.Print of strings), and each string literal read as a format
 * (fmt.Sprintf, util.format; fmt.Fprintf and log.Printf after a writer or prefix) with each
 * verb given the argument after it — a literal's value, a number's digits, the
 * character of a go `%c` of a number or rune, nothing for Node's `%c` — and the arguments
 * left over joined after it. An argument that is not a literal is any text.
 */
function argumentValues (tree: SyntaxTree, call: SyntaxNode, goOnly: boolean): string[] {
  const list = field(call, 'arguments')
  if (list === undefined || list.type === 'template_string') return []
  const args = list.children.filter(c => c.named && c.type !== 'comment')
  const values = args.map(a => literalValue(tree, a) ?? numberValue(tree, a))
  const literals = values.filter((v, i) => v !== undefined && literalValue(tree, args[i] as SyntaxNode) !== undefined) as string[]
  // A literal that frames on its own is counted as itself.
  if (literals.length === 0 || literals.some(v => framingIn(v, goOnly).length > 0)) return []
  const text = (v: string | undefined): string => v ?? ANY_TEXT
  const out = [values.map(text).join(' '), values.map(text).join('')]
  // Each string literal read as the format: a writer or a prefix may come first
  // (fmt.Fprintf(os.Stdout, "--- %cASS: TestAdd", 80), log.Printf).
  args.forEach((first, at) => {
    const format = values[at]
    if (format === undefined || literalValue(tree, first) === undefined) return
    if (tree.grammar === 'go') {
      for (const formatted of goFormatted(tree, format, args.slice(at + 1), values.slice(at + 1))) out.push(formatted)
      return
    }
    let next = at + 1
    const formatted = format.replace(FORMAT_VERB, m => {
      if (m === '%%') return '%'
      const v = values[next]
      next++
      if (m === '%c') return ''
      return /^%[svdi]$/.test(m) ? text(v) : ANY_TEXT
    })
    out.push([formatted, ...values.slice(next).map(text)].join(' '))
  })
  return [...new Set(out)]
}

/** A go fmt verb: flags, an argument index for a `*` width, the width, precision (with its own index), the verb's argument index, the verb. */
const GO_VERB = /%([-+# 0]*)(?:\[(\d+)\])?(\d+|\*)?(?:\.(?:\[(\d+)\])?(\d+|\*)?)?(?:\[(\d+)\])?([a-zA-Z%])/g

/**
 * What go's fmt prints for `format` with `args` (the arguments after it; `values` their
 * literal values), as fmt reads it: explicit argument indexes (`%[2]s`, after which the next
 * verb takes argument 3), a `*` width or precision taking an argument, a literal width
 * padding with spaces (on the right with `-`), a precision cutting a string to that many
 * characters, `%q` quoting, `%c` of a number or rune. A verb whose argument is not a literal,
 * or whose result fmt's reading does not fix, is any text; a `*` precision over a literal
 * string may cut it anywhere, so each cut is a reading of its own (the readings are capped:
 * past the cap the verb is any text). Arguments no verb took are printed after it, as
 * fmt's %!(EXTRA …) does, space-separated.
 */
function goFormatted (tree: SyntaxTree, format: string, args: readonly SyntaxNode[], values: ReadonlyArray<string | undefined>): string[] {
  let readings = ['']
  let next = 0
  let last = 0
  const used = new Set<number>()
  const take = (index: string | undefined): number => {
    const i = index === undefined ? next : Number(index) - 1
    next = i + 1
    used.add(i)
    return i
  }
  for (const m of format.matchAll(GO_VERB)) {
    const literal = format.slice(last, m.index)
    last = m.index + m[0].length
    const [, flags = '', widthIndex, width, precisionIndex, precision, argIndex, verb = ''] = m
    if (verb === '%') { readings = readings.map(r => r + literal + '%'); continue }
    if (width === '*') take(widthIndex)
    else if (widthIndex !== undefined) next = Number(widthIndex) - 1
    if (precision === '*') take(precisionIndex)
    else if (precisionIndex !== undefined) next = Number(precisionIndex) - 1
    const i = take(argIndex)
    const arg = args[i]
    const v = values[i]
    let texts: string[]
    if (arg === undefined || v === undefined) texts = [ANY_TEXT]
    else if (verb === 'c') texts = [arg.type === 'rune_literal' ? v : /^\d[\d_]*$/.test(v) ? charOf(Number(v.replaceAll('_', ''))) : ANY_TEXT]
    else if (verb === 's' || verb === 'v' || verb === 'q' || ((verb === 'd' || verb === 'i') && literalValue(tree, arg) === undefined)) {
      const chars = [...v]
      const cuts = precision === '*' ? (chars.length <= MAX_CUTS ? chars.map((_, k) => chars.slice(0, k + 1).join('')) : [ANY_TEXT]) : [precision === undefined || literalValue(tree, arg) === undefined ? v : chars.slice(0, Number(precision)).join('')]
      texts = cuts.map(c => verb === 'q' && c !== ANY_TEXT ? JSON.stringify(c) : c)
    } else texts = [ANY_TEXT]
    texts = texts.map(t => {
      if (width === '*') return flags.includes('-') ? t + ANY_TEXT : ANY_TEXT + t
      const pad = width === undefined || t.includes(ANY_TEXT) ? '' : ' '.repeat(Math.max(0, Number(width) - [...t].length))
      return flags.includes('-') ? t + pad : pad + t
    })
    readings = readings.flatMap(r => texts.map(t => r + literal + t)).slice(0, MAX_CUTS)
  }
  const extra = values.map((v, i) => used.has(i) ? undefined : v ?? ANY_TEXT).filter(v => v !== undefined)
  return readings.map(r => [r + format.slice(last), ...extra].join(' '))
}

/** The most readings of one go format (each cut of a `*` precision is one). */
const MAX_CUTS = 64

/** A number's or go rune's literal text as printed (its digits; a rune as its character), else undefined. */
function numberValue (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (n.type === 'number' || n.type === 'int_literal' || n.type === 'float_literal') return textOf(tree, n)
  if (n.type === 'rune_literal') return decodeGo(textOf(tree, n).slice(1, -1))
  // A byte of a go string literal (`"PASS"[0]`): its number, which `%c` prints as the character.
  if (tree.grammar === 'go' && n.type === 'index_expression') {
    const operand = field(n, 'operand')
    const index = field(n, 'index')
    const whole = operand === undefined ? undefined : literalValue(tree, operand)
    if (whole !== undefined && index?.type === 'int_literal') {
      const byte = Buffer.from(whole, 'utf8')[Number(textOf(tree, index).replaceAll('_', ''))]
      return byte === undefined ? undefined : String(byte)
    }
  }
  return undefined
}

function charOf (code: number): string {
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ANY_TEXT
}

function isPlus (tree: SyntaxTree, n: SyntaxNode): boolean {
  if (n.type !== 'binary_expression') return false
  const op = n.children.find(c => c.field === 'operator') ?? n.children.find(c => !c.named)
  return op !== undefined && textOf(tree, op) === '+'
}

/** The value of a `+` chain holding at least one string literal (any other operand as ANY_TEXT), else undefined. */
function concatValue (tree: SyntaxTree, root: SyntaxNode): string | undefined {
  let literal = false
  let value = ''
  // Left to right without recursion: a chain is as long as the proposal makes it.
  const stack: SyntaxNode[] = [root]
  while (stack.length > 0) {
    let n = stack.pop() as SyntaxNode
    while (n.type === 'parenthesized_expression') {
      const inner = n.children.filter(c => c.named && c.type !== 'comment')
      if (inner.length !== 1) break
      n = inner[0] as SyntaxNode
    }
    if (isPlus(tree, n)) {
      const operands = n.children.filter(c => c.named && c.type !== 'comment')
      for (let i = operands.length - 1; i >= 0; i--) stack.push(operands[i] as SyntaxNode)
      continue
    }
    const v = literalValue(tree, n)
    if (v === undefined) value += ANY_TEXT
    else {
      literal = true
      value += v
    }
  }
  return literal ? value : undefined
}

/**
 * A string literal's decoded value, or undefined for any other node; through parentheses, and
 * in go a slice of one with literal bounds (`"--- P"[:]`, `"x--- P"[1:]`: an eighth audit split
 * framing across such slices, which were no literals here).
 */
function literalValue (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (n.type === 'parenthesized_expression') {
    const inner = n.children.filter(c => c.named && c.type !== 'comment')
    return inner.length === 1 ? literalValue(tree, inner[0] as SyntaxNode) : undefined
  }
  // Character codes spelled as literals: go `[]byte{45, 45, 45}` or `[]rune{'-', …}` printed with
  // %s, a JavaScript array of numbers (`[255, 15]` to a Buffer or String.fromCharCode).
  const codes = codesOf(tree, n)
  if (codes !== undefined) return String.fromCodePoint(...codes)
  if (tree.grammar === 'go') {
    if (n.type === 'interpreted_string_literal') return decodeGo(textOf(tree, n).slice(1, -1))
    if (n.type === 'raw_string_literal') return textOf(tree, n).slice(1, -1).replace(/\r/g, '')
    if (n.type === 'slice_expression') {
      const operand = field(n, 'operand')
      const whole = operand === undefined ? undefined : literalValue(tree, operand)
      if (whole === undefined) return undefined
      const bound = (name: string): number | undefined => {
        const b = field(n, name)
        return b === undefined ? undefined : b.type === 'int_literal' ? Number(textOf(tree, b).replaceAll('_', '')) : NaN
      }
      const start = bound('start')
      const end = bound('end')
      if (Number.isNaN(start) || Number.isNaN(end)) return ANY_TEXT
      return Buffer.from(whole, 'utf8').subarray(start ?? 0, end).toString('latin1')
    }
    return undefined
  }
  if (n.type === 'string') return decodeJs(textOf(tree, n).slice(1, -1))
  if (n.type === 'template_string') return templateValue(tree, n)
  return undefined
}

/** The most elements of a literal array of character codes that are read as text. */
const MAX_CODES = 65536

/** The codes of a go `[]byte`/`[]rune`/`[]uint8`/`[]int32` literal or a JavaScript array whose every element is an integer or rune literal, else undefined. */
function codesOf (tree: SyntaxTree, n: SyntaxNode): number[] | undefined {
  let elements: SyntaxNode[]
  if (tree.grammar === 'go') {
    if (n.type !== 'composite_literal') return undefined
    const type = field(n, 'type')
    const element = type?.type === 'slice_type' || type?.type === 'array_type' ? field(type, 'element') : undefined
    if (element === undefined || !['byte', 'rune', 'uint8', 'int32'].includes(textOf(tree, element))) return undefined
    elements = (field(n, 'body')?.children ?? []).filter(c => c.named && c.type !== 'comment').map(c => c.type === 'literal_element' ? c.children.find(x => x.named) ?? c : c)
  } else {
    if (n.type !== 'array') return undefined
    elements = n.children.filter(c => c.named && c.type !== 'comment')
  }
  if (elements.length === 0 || elements.length > MAX_CODES) return undefined
  const codes: number[] = []
  for (const e of elements) {
    const text = textOf(tree, e)
    const code = e.type === 'rune_literal' ? decodeGo(text.slice(1, -1)).codePointAt(0) : e.type === 'int_literal' || e.type === 'number' ? Number(text.replaceAll('_', '')) : undefined
    if (code === undefined || !Number.isInteger(code) || code < 0 || code > 0x10ffff) return undefined
    codes.push(code)
  }
  return codes
}

function templateValue (tree: SyntaxTree, n: SyntaxNode): string {
  let v = ''
  for (const c of n.children) {
    if (c.type === 'template_substitution') {
      // A substitution of a literal (`${''}`, `${'PA'}`) is that literal's text.
      const inner = c.children.filter(x => x.named && x.type !== 'comment')
      const literal = inner.length === 1 ? literalValue(tree, inner[0] as SyntaxNode) : undefined
      v += literal ?? ANY_TEXT
    }
    else if (c.type === 'string_fragment' || c.type === 'escape_sequence') v += decodeJs(textOf(tree, c))
  }
  return v
}

const SIMPLE_GO: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' }

/** The value of a go interpreted string literal's body. */
export function decodeGo (body: string): string {
  return body.replace(/\\(?:([abfnrtv\\'"])|x([0-9a-fA-F]{2})|([0-7]{3})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/g, (_m, s: string | undefined, x: string | undefined, o: string | undefined, u: string | undefined, U: string | undefined) => {
    if (s !== undefined) return SIMPLE_GO[s] ?? s
    if (x !== undefined) return String.fromCharCode(parseInt(x, 16))
    if (o !== undefined) return String.fromCharCode(parseInt(o, 8))
    const cp = parseInt((u ?? U) as string, 16)
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : ''
  })
}

/** The value of a JavaScript string literal's or template fragment's body (legacy octal escapes included). */
export const decodeJs = decodeJsString

export function checkNoTestFraming (ctx: GateContext): RuleOutcome {
  // go test reads only its own framing, so TAP in a go file it runs frames nothing.
  const goOnly = (tree: SyntaxTree): boolean => tree.grammar === 'go' && ctx.input.runner === 'go'
  let shownGoOnly = false
  return checkStructure(ctx, {
    what: 'test-framing literals',
    direction: 'added',
    extract: tree => { shownGoOnly = goOnly(tree); return stringsOf(tree, shownGoOnly).filter(v => framingIn(v, shownGoOnly).length > 0) },
    show: v => { const shown = v.replaceAll(ANY_TEXT, '…'); return `literal ${JSON.stringify(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown)} with test framing (${framingIn(v, shownGoOnly).join(', ')})` },
  })
}
