// The syntax tree's depth bound: a tree deeper than MAX_DEPTH is a parse error, found while
// the tree is copied (a loop, not recursion), so no walk of a copied tree is driven deeper
// by the proposal. 20,000 nested parentheses fit in a proposal and overflowed the stack of
// the recursive copy; gate-patch exited 70 with no gate.json.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { evaluateGate, parseSource, type SyntaxNode } from '@repairline/core/gate/index'
import { MAX_DEPTH } from '../../src/gate/syntax/parse.ts'
import { REJECTED, gateInput, nested } from './fixtures.ts'

function depthOf (root: SyntaxNode): number {
  let max = 0
  const stack: Array<[SyntaxNode, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [n, d] = stack.pop() as [SyntaxNode, number]
    if (d > max) max = d
    for (const c of n.children) stack.push([c, d + 1])
  }
  return max
}

test(`a tree exactly ${MAX_DEPTH} levels deep is copied whole; one level more is a parse error, found without recursion`, async () => {
  // The depth of `return <nested(n)>` inside Add is n plus the enclosing levels; find the n
  // that lands exactly on the bound, then check one more paren is refused.
  const src = (n: number): string => `package calc\n\nfunc Add(a, b int) int {\n\treturn ${nested(n)}\n}\n`
  const base = depthOf((await parseSource('go', src(0))).root)
  const deepest = await parseSource('go', src(MAX_DEPTH - base))
  assert.deepEqual(deepest.errors, [])
  assert.equal(depthOf(deepest.root), MAX_DEPTH)
  const over = await parseSource('go', src(MAX_DEPTH - base + 1))
  assert.deepEqual(over.errors, ['line 4: nested more than 1000 levels deep'])
  assert.equal(depthOf(over.root), MAX_DEPTH, 'the copy stops at the bound')
  // Far past the depth where a recursive copy overflowed the stack (about 8,000).
  for (const grammar of ['go', 'javascript'] as const) {
    const t = await parseSource(grammar, grammar === 'go' ? src(30000) : `export function f (a, b) { return ${nested(30000)} }\n`)
    assert.equal(t.errors.length, 1, grammar)
    assert.match(t.errors[0] ?? '', /nested more than 1000 levels deep/)
  }
})

test('a file too deep to copy fails parses and leaves the structure rules not_checked, naming the file', async () => {
  const c = REJECTED.find(x => x.name === 'proposal-go-nested-20000-deep')
  assert.ok(c !== undefined)
  const r = await evaluateGate(gateInput(c.baseline, c.edits, c.maxPatchBytes))
  assert.deepEqual(r.rules.find(x => x.rule === 'parses')?.findings, ['calc.go (candidate): line 17: nested more than 1000 levels deep'])
  for (const id of ['declarations-preserved', 'calls-preserved', 'directives-preserved'] as const) {
    const x = r.rules.find(y => y.rule === id)
    assert.equal(x?.status, 'not_checked', id)
    assert.match(x?.detail ?? '', /not compared \(does not parse\): calc\.go/)
  }
})
