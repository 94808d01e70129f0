// no-test-framing: no string or template literal is added whose value (escapes decoded)
// contains test-runner framing that could forge a result in test output: `=== RUN`,
// `=== PAUSE`, `=== CONT`, `--- PASS`, `--- FAIL`, `--- SKIP`, a line that is `PASS` or
// `FAIL`, `ok  \t`, `FAIL\t`, `"Action":`, `TAP version`, `ok <n>`, `not ok <n>`, `# pass`,
// `# fail`; `ok <n>` and `not ok <n>` only where a line starts (so `'status ok 200'` is
// text). A template substitution counts as `0`, so `ok ${n} - x` is caught. A `+` chain
// that holds a string literal counts as one value too, each other operand as `0`, so
// `"--- PA" + "SS"` and `'ok ' + n` are caught. Comments are not checked: they print nothing.
// Literals already in the baseline may stay.

import { checkStructure } from '../syntax/compare.ts'
import { decodeJsString } from '../syntax/js-string.ts'
import { descendants, textOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

/** Each framing pattern and how a finding names it. */
export const FRAMING: ReadonlyArray<{ name: string, re: RegExp }> = [
  { name: '=== RUN', re: /=== RUN/ },
  { name: '=== PAUSE', re: /=== PAUSE/ },
  { name: '=== CONT', re: /=== CONT/ },
  { name: '--- PASS', re: /--- PASS/ },
  { name: '--- FAIL', re: /--- FAIL/ },
  { name: '--- SKIP', re: /--- SKIP/ },
  { name: 'a line that is PASS or FAIL', re: /(^|\n)(PASS|FAIL)\r?(\n|$)/ },
  { name: 'ok  \\t', re: /ok {2}\t/ },
  { name: 'FAIL\\t', re: /FAIL\t/ },
  { name: '"Action":', re: /"Action":/ },
  { name: 'TAP version', re: /TAP version/ },
  // A TAP result is a line: `ok` after nothing but indentation (a substitution, `0` here, may be empty).
  { name: 'not ok <n>', re: /(^|[\n\r])[\t 0]*not ok \d/ },
  { name: 'ok <n>', re: /(^|[\n\r])[\t 0]*ok \d/ },
  { name: '# pass', re: /# pass/ },
  { name: '# fail', re: /# fail/ },
]

/** The framing patterns a value contains. */
export function framingIn (value: string): string[] {
  return FRAMING.filter(f => f.re.test(value)).map(f => f.name)
}

/** Every string and template literal of a file, by decoded value. */
export function stringsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      if (n.type === 'interpreted_string_literal') out.push(decodeGo(textOf(tree, n).slice(1, -1)))
      else if (n.type === 'raw_string_literal') out.push(textOf(tree, n).slice(1, -1).replace(/\r/g, ''))
      continue
    }
    if (n.type === 'string') out.push(decodeJs(textOf(tree, n).slice(1, -1)))
    else if (n.type === 'template_string') out.push(templateValue(tree, n))
  }
  for (const n of descendants(tree.root)) {
    // The whole chain once, from its outermost `+`.
    if (!isPlus(tree, n) || (n.parent !== undefined && isPlus(tree, n.parent))) continue
    const value = concatValue(tree, n)
    if (value !== undefined) out.push(value)
  }
  return out
}

function isPlus (tree: SyntaxTree, n: SyntaxNode): boolean {
  if (n.type !== 'binary_expression') return false
  const op = n.children.find(c => c.field === 'operator') ?? n.children.find(c => !c.named)
  return op !== undefined && textOf(tree, op) === '+'
}

/** The value of a `+` chain holding at least one string literal (any other operand as `0`), else undefined. */
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
    if (v === undefined) value += '0'
    else {
      literal = true
      value += v
    }
  }
  return literal ? value : undefined
}

/** A string literal's decoded value, or undefined for any other node. */
function literalValue (tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (tree.grammar === 'go') {
    if (n.type === 'interpreted_string_literal') return decodeGo(textOf(tree, n).slice(1, -1))
    if (n.type === 'raw_string_literal') return textOf(tree, n).slice(1, -1).replace(/\r/g, '')
    return undefined
  }
  if (n.type === 'string') return decodeJs(textOf(tree, n).slice(1, -1))
  if (n.type === 'template_string') return templateValue(tree, n)
  return undefined
}

function templateValue (tree: SyntaxTree, n: SyntaxNode): string {
  let v = ''
  for (const c of n.children) {
    if (c.type === 'template_substitution') v += '0'
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
  return checkStructure(ctx, {
    what: 'test-framing literals',
    direction: 'added',
    extract: tree => stringsOf(tree).filter(v => framingIn(v).length > 0),
    show: v => `literal ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)} with test framing (${framingIn(v).join(', ')})`,
  })
}
