// Parsing for the structure gates (DESIGN §10): tree-sitter's WebAssembly runtime
// (web-tree-sitter) with the Go and JavaScript grammars' .wasm files. No native build is
// involved anywhere: the grammar packages' install scripts are never run.
//
// Where the .wasm files come from (one rule, two layouts): a file beside the running module
// wins; otherwise the file is resolved from the npm packages core depends on. A bundled bin
// (tools/<tool>/dist/<tool>.mjs) finds the copies scripts/build.ts puts beside it; the
// TypeScript sources under tsx find the packages. A bin never resolves from the packages:
// its directory has no node_modules that holds them, so a missing copy fails loudly.
//
// The parsed tree is copied once into plain objects (type, field, range, children) and the
// WebAssembly tree is freed at once, so the rules walk ordinary JavaScript data.

import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Language, Parser } from 'web-tree-sitter'
import { toolError } from '../../errors.ts'
import { printableLine } from '../../printable-line.ts'
import { WASM_PACKAGES, type WasmFile } from './wasm-files.ts'

export type GrammarName = 'go' | 'javascript'

/** One node of a parsed file, detached from the WebAssembly heap. */
export interface SyntaxNode {
  type: string
  /** False for anonymous tokens such as `(`, `:=` or `const`. */
  named: boolean
  /** The field name under which the parent holds this node (`name`, `function`, …). */
  field: string | undefined
  /** UTF-16 offsets into the source string. */
  start: number
  end: number
  /** 1-based line of the node's first character. */
  line: number
  children: SyntaxNode[]
  parent: SyntaxNode | undefined
}

export interface SyntaxTree {
  grammar: GrammarName
  source: string
  root: SyntaxNode
  /** One line per ERROR or MISSING node (`line N: …`), empty when the file parses. */
  errors: string[]
}

export { WASM_FILES, type WasmFile } from './wasm-files.ts'

/** The absolute path of one .wasm file: beside the running module, else from its package. */
export function wasmPath (file: WasmFile): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const beside = join(here, file)
  if (existsSync(beside)) return beside
  try {
    return createRequire(import.meta.url).resolve(WASM_PACKAGES[file])
  } catch (e) {
    throw toolError('INTERNAL', `cannot find ${file} beside ${here} nor in its package: ${(e as Error).message}`, { hint: 'run pnpm build: it copies the grammar files next to each bundled tool' })
  }
}

let loaded: Promise<{ parser: Parser, languages: Record<GrammarName, Language> }> | undefined

async function load (): Promise<{ parser: Parser, languages: Record<GrammarName, Language> }> {
  const runtime = wasmPath('tree-sitter.wasm')
  await Parser.init({ locateFile: () => runtime })
  const [go, javascript] = await Promise.all([
    Language.load(readFileSync(wasmPath('tree-sitter-go.wasm'))),
    Language.load(readFileSync(wasmPath('tree-sitter-javascript.wasm'))),
  ])
  return { parser: new Parser(), languages: { go, javascript } }
}

/** The grammar for a path by its extension, or undefined when neither grammar applies. */
export function grammarFor (path: string): GrammarName | undefined {
  if (path.endsWith('.go')) return 'go'
  if (/\.(js|mjs|cjs)$/.test(path)) return 'javascript'
  return undefined
}

/** Parses `source` with one grammar and returns a detached tree with its parse errors. */
export async function parseSource (grammar: GrammarName, source: string): Promise<SyntaxTree> {
  loaded ??= load()
  const { parser, languages } = await loaded
  parser.setLanguage(languages[grammar])
  const tree = parser.parse(source)
  if (tree === null) throw toolError('INTERNAL', `tree-sitter returned no tree for a ${grammar} file`)
  const errors: string[] = []
  const cursor = tree.walk()
  try {
    const make = (parent: SyntaxNode | undefined): SyntaxNode => {
      const node: SyntaxNode = {
        type: cursor.nodeType,
        named: cursor.nodeIsNamed,
        field: cursor.currentFieldName ?? undefined,
        start: cursor.startIndex,
        end: cursor.endIndex,
        line: cursor.startPosition.row + 1,
        children: [],
        parent,
      }
      if (cursor.nodeType === 'ERROR') errors.push(`line ${node.line}: syntax error near ${JSON.stringify(clip(source, node.start, node.end))}`)
      else if (cursor.nodeIsMissing) errors.push(`line ${node.line}: missing ${JSON.stringify(cursor.nodeType)}`)
      parent?.children.push(node)
      return node
    }
    // A loop, not recursion: the proposal decides how deep the tree is, and a recursive copy
    // overflowed the call stack (RangeError) on 20,000 nested parentheses, inside
    // proposal.json's size bound. Below MAX_DEPTH the copy is complete; a deeper subtree is
    // cut off and the file does not parse (the `parses` rule fails, the structure rules leave
    // it out), so no walk of a copied tree ever goes deeper than MAX_DEPTH.
    const root = make(undefined)
    let node = root
    let depth = 0
    let tooDeep = false
    for (;;) {
      if (cursor.gotoFirstChild()) {
        if (depth < MAX_DEPTH) {
          node = make(node)
          depth++
          continue
        }
        cursor.gotoParent()
        if (!tooDeep) errors.push(`line ${node.line}: nested more than ${MAX_DEPTH} levels deep`)
        tooDeep = true
      }
      while (!cursor.gotoNextSibling()) {
        if (depth === 0 || !cursor.gotoParent()) return { grammar, source, root, errors }
        node = node.parent as SyntaxNode
        depth--
      }
      node = make(node.parent)
    }
  } finally {
    cursor.delete()
    tree.delete()
  }
}

/**
 * How deep a copied tree may be. Written code stays far below it: in Go 1.19's standard
 * library the 99th percentile is 33 levels and the deepest hand-written file under 250; the
 * JavaScript files of this repository's dependencies (11,594) peak at 114. Only generated
 * tables come near (a long `+` chain nests one level per operand: x/text's norm tables 946,
 * time/tzdata's zipdata.go beyond 1000), and an edit to one is rejected, which is the safe
 * side. The bound keeps every recursive walk of a copied tree (patternNames, …) a thousand
 * frames deep at most, a tenth of what overflowed V8's default stack, and the walks that
 * cost depth × nodes (a declaration's scope chain, a nested call's callee tokens) small.
 */
export const MAX_DEPTH = 1000

/** An ERROR node's text for a message: whitespace folded, at most 60 code points. */
function clip (source: string, start: number, end: number): string {
  return printableLine(source.slice(start, Math.min(end, start + 1000)).replace(/\s+/g, ' '), 60)
}

/** The exact source text of a node. */
export function textOf (tree: SyntaxTree, node: SyntaxNode): string {
  return tree.source.slice(node.start, node.end)
}

/**
 * The node's tokens (leaves, comments left out) joined by `sep`: whitespace-insensitive text.
 * `substitute` may give a node one token in place of its whole subtree (`<literal>`, `{…}`).
 */
export function tokensOf (tree: SyntaxTree, node: SyntaxNode, sep: string, substitute?: (n: SyntaxNode) => string | undefined): string {
  const out: string[] = []
  const stack: SyntaxNode[] = [node]
  while (stack.length > 0) {
    const n = stack.pop() as SyntaxNode
    if (n.type === 'comment') continue
    const instead = substitute?.(n)
    if (instead !== undefined) {
      out.push(instead)
      continue
    }
    if (n.children.length === 0) {
      const t = tree.source.slice(n.start, n.end)
      if (t !== '') out.push(t)
      continue
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as SyntaxNode)
  }
  return out.join(sep)
}

/** Every node of the subtree, depth first, in source order. */
export function * descendants (node: SyntaxNode): Generator<SyntaxNode> {
  const stack: SyntaxNode[] = [node]
  while (stack.length > 0) {
    const n = stack.pop() as SyntaxNode
    yield n
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as SyntaxNode)
  }
}

/** The first child held under `field`. */
export function field (node: SyntaxNode, name: string): SyntaxNode | undefined {
  return node.children.find(c => c.field === name)
}

/** Every child held under `field`. */
export function fields (node: SyntaxNode, name: string): SyntaxNode[] {
  return node.children.filter(c => c.field === name)
}
