// The content clauses of the execution config's checks (seed 004) on a real candidate: admit →
// extract-tree → reproduce → gate-patch → verify, every step the real bin. A forbidden pattern
// the fix adds (source_absent), a text or regex an allowed file lacks (contains, matches) each
// fail the candidate although its tests pass, and each clause's result is in verify.json; the
// same fix under clauses that hold is scoped_test_verified (the positive control).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ExecutionConfig } from '@repairline/schemas'
import { evaluateContentChecks } from '@repairline/core'
import { rewriteConfig } from '../../../test/helpers/fixture.ts'
import { fixture, gatedAttempt, NODE_FIX, readOutcomeFile, readVerify, runVerify } from './helpers.ts'

type Checks = NonNullable<ExecutionConfig['checks']>

test('node: a source_absent hit fails a candidate whose tests pass, naming the file and line; the clause that holds beside it passes', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  rewriteConfig(f, c => { c.checks = { source_absent: [{ pattern: 'a + b' }, { pattern: '^\\s*eval\\(', regex: true }] } })
  const a = await gatedAttempt(f, NODE_FIX)
  const r = await runVerify(a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'failed')
  assert.equal(v.red_then_green.shape, 'red_then_green', 'the tests themselves passed')
  assert.deepEqual(v.checks?.map(x => [x.clause, x.index, x.status, x.code]), [['source_absent', 0, 'fail', 'CHECK_PATTERN_PRESENT'], ['source_absent', 1, 'pass', 'CHECK_PASSED']])
  assert.deepEqual(v.checks?.[0]?.hits, [{ path: 'src/calc.js', line: 3 }])
  assert.match(v.reasons.join('\n'), /^check source_absent\[0\] failed \(CHECK_PATTERN_PRESENT\): forbidden text "a \+ b" is present 1 time\(s\) in the changed files: src\/calc\.js:3$/m)
  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'failed')
  assert.equal(o.reason.code, 'VERIFY_FAILED')
  assert.match(r.stderr, /verify: check source_absent\[0\]: fail \(CHECK_PATTERN_PRESENT\)/)
})

test('node: contains and matches on an allowed file: clauses that hold verify the fix (positive control); a missing text and a regex with no match fail it', async (t) => {
  const good: Checks = { contains: [{ path: 'src/calc.js', text: 'return a + b' }], matches: [{ path: 'src/calc.js', regex: '^export function double \\(n\\)' }], source_absent: [{ pattern: 'eval(' }] }
  const f = await fixture(t, { runner: 'node' })
  rewriteConfig(f, c => { c.checks = good })
  const a = await gatedAttempt(f, NODE_FIX)
  const ok = await runVerify(a.dir)
  assert.equal(ok.exitCode, 0, ok.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'scoped_test_verified')
  assert.deepEqual(v.checks?.map(x => `${x.clause}[${x.index}]:${x.status}`), ['source_absent[0]:pass', 'contains[0]:pass', 'matches[0]:pass'])
  assert.deepEqual(v.checks?.[2]?.hits, [{ path: 'src/calc.js', line: 7 }])

  const g = await fixture(t, { runner: 'node' })
  rewriteConfig(g, c => { c.checks = { contains: [{ path: 'src/calc.js', text: 'return b + a' }], matches: [{ path: 'src/calc.js', regex: '^export function triple' }] } })
  const b = await gatedAttempt(g, NODE_FIX)
  const bad = await runVerify(b.dir)
  assert.equal(bad.exitCode, 1, bad.stderr)
  const w = readVerify(b)
  assert.equal(w.classification, 'failed')
  assert.deepEqual(w.checks?.map(x => [x.clause, x.status, x.code, x.detail]), [
    ['contains', 'fail', 'CHECK_TEXT_ABSENT', 'src/calc.js does not contain text "return b + a"'],
    ['matches', 'fail', 'CHECK_NO_MATCH', 'src/calc.js does not match regex "^export function triple"'],
  ])
})

test('content clauses in-process: literal patterns are never regexes, a regex is matched multi-line by RE2 in linear time, hits are capped at 32', () => {
  const changed = new Map([['a.go', Buffer.from('x := (a)\\1\nos.Exit(1)\n' + 'os.Exit(2)\n'.repeat(40))]])
  const read = (p: string): Buffer => changed.get(p) ?? Buffer.from('')
  const [lit, re, none] = evaluateContentChecks({ source_absent: [{ pattern: '(a)\\1' }, { pattern: '^os\\.Exit\\(\\d\\)$', regex: true }, { pattern: 'panic(' }] }, { changed, read })
  assert.deepEqual([lit?.status, lit?.hits], ['fail', [{ path: 'a.go', line: 1 }]])
  assert.equal(re?.status, 'fail')
  assert.equal(re?.hits?.length, 32)
  assert.match(re?.detail ?? '', /present 41 time\(s\)/)
  assert.equal(none?.status, 'pass')
  // (a+)+$ backtracks exponentially under RegExp; under RE2 it is one linear pass.
  const evil = new Map([['b.go', Buffer.from('a'.repeat(100_000) + '!')]])
  const [r] = evaluateContentChecks({ source_absent: [{ pattern: '(a+)+$', regex: true }] }, { changed: evil, read })
  assert.equal(r?.status, 'pass')
})
