// The fourth to seventh gate audits' cases against shared-writes, in process: each attack (a
// write that reaches state the tests share, through a property, `this`, a catch binding, a
// parameter, a literal's selected key, a class field, a named or required module, a go
// pointer, channel, type assertion, receiver or embedded field) is rejected and named by
// calls-preserved; each ordinary fix (off-by-one, fields on locals, fresh objects, sentinels
// from globals, a project module's exports, go units and sentinels, a value passed to a
// standard function that only reads it) draws no shared-state finding. Some fixes are
// rejected by other rules for reasons of their own (an added call or name); those are checked
// for the absence of a shared-state finding only. A few are stated costs (COST, below).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { evaluateGate } from '../../src/gate/index.ts'
import type { Case } from './shared-writes-cases/case.ts'
import { CASES as HOLDERS } from './shared-writes-cases/attacks-holders.ts'
import { CASES as HOLDERS_2 } from './shared-writes-cases/attacks-holders-2.ts'
import { CASES as GO_ATTACKS } from './shared-writes-cases/attacks-go.ts'
import { CASES as REJECTED_BEFORE } from './shared-writes-cases/attacks-rejected-before.ts'
import { CASES as JS_FIXES } from './shared-writes-cases/fixes-js.ts'
import { CASES as GO_FIXES } from './shared-writes-cases/fixes-go.ts'
import { CASES as ROUND5_ATTACKS } from './shared-writes-cases/attacks-round5.ts'
import { CASES as ROUND5_FIXES } from './shared-writes-cases/fixes-round5.ts'
import { CASES as ROUND6_ATTACKS } from './shared-writes-cases/attacks-round6.ts'
import { CASES as ROUND6_FIXES } from './shared-writes-cases/fixes-round6.ts'
import { CASES as ROUND7_ATTACKS } from './shared-writes-cases/attacks-round7.ts'
import { CASES as ROUND7_FIXES } from './shared-writes-cases/fixes-round7.ts'

/** A finding of shared-writes (as calls-preserved prints it). */
const SHARED = /shared state|may hold|no scope around it declares|reached through an expression|imported module|imported package/

async function gate (c: Case): Promise<{ passed: boolean, shared: string[] }> {
  const r = await evaluateGate({
    runner: c.runner,
    allowedFiles: [c.path],
    maxPatchBytes: 65536,
    tree: [{ path: c.path, mode: '100644' }],
    readBaseline: () => Buffer.from(c.before),
    edits: c.edits.map(([search, replace]) => ({ path: c.path, search, replace })),
  })
  return { passed: r.passed, shared: r.rules.filter(x => x.rule === 'calls-preserved').flatMap(x => x.findings).filter(f => SHARED.test(f)) }
}

/**
 * Ordinary fixes the gate rejects for another rule's reason (an added call, name or signature;
 * an environment key changed through an alias of process.env, which names-preserved cannot tell
 * from a key only the sandbox sets, as it cannot for process.env.PROT → process.env.PORT).
 */
const OTHER_RULE = new Set(['js-map-set', 'js-map-parseInt-to-Number', 'js-filter-boolean', 'go-strings', 'go-named-result-defer', 'fp-go-exec-cmd-dir', 'fp-js-env-alias-typo', 'fp-js-env-destructured-typo'])
/** A harmless edit an attack list holds (`_ = &want` writes nothing). */
const HARMLESS = new Set(['esm-control-fix', 'go-named-result-ptr'])
/** Edits of the attack lists that write no shared state, rejected by another rule (a new name, a held callee). */
const OTHERWISE_REJECTED = new Set(['esm-member-then-alias', 'go-bare-pass'])
/**
 * Stated costs: a go struct copied from another file's var may be a pointer, map or slice;
 * flows are matched by name, not by scope, so a local that holds shared state in one function
 * makes a local of the same name in another one suspect too; any binding taken from a package
 * (`import { basename } from 'node:path'`) may be an object the tests use too (`import {
 * strict as assert }` is the assert module), so passing it to a changed call is a finding.
 */
const COST = new Map([
  ['go-struct-copy-of-other-file-var', /cfg\.Timeout, through cfg/],
  ['fp-js-same-local-name-other-function', /env\.LANG, under env/],
  ['fp-go-same-local-name-other-function', /cfg\.Timeout, through cfg/],
  ['cost-js-named-package-import-passed', /passes basename/],
])

for (const c of [...HOLDERS, ...HOLDERS_2, ...GO_ATTACKS, ...REJECTED_BEFORE, ...ROUND5_ATTACKS, ...ROUND6_ATTACKS, ...ROUND7_ATTACKS]) {
  if (HARMLESS.has(c.name)) {
    test(`accepted (control): ${c.name}`, async () => { assert.equal((await gate(c)).passed, true) })
    continue
  }
  test(`rejected: ${c.name}${OTHERWISE_REJECTED.has(c.name) ? ' (by another rule)' : ', with a shared-state finding'}`, async () => {
    const r = await gate(c)
    assert.equal(r.passed, false)
    if (!OTHERWISE_REJECTED.has(c.name)) assert.ok(r.shared.length > 0, `${c.name}: no shared-state finding`)
  })
}

for (const c of [...JS_FIXES, ...GO_FIXES, ...ROUND5_FIXES, ...ROUND6_FIXES, ...ROUND7_FIXES]) {
  test(`${COST.has(c.name) ? 'rejected (stated cost)' : 'no shared-state finding'}: ${c.name}`, async () => {
    const r = await gate(c)
    const cost = COST.get(c.name)
    if (cost !== undefined) {
      assert.equal(r.passed, false)
      assert.match(r.shared.join('\n'), cost)
      return
    }
    assert.deepEqual(r.shared, [], c.name)
    if (!OTHER_RULE.has(c.name)) assert.equal(r.passed, true, c.name)
  })
}

// jslint's fix of #405 writes `the_await.expression` in the branch that wrote
// `the_await.block`: a second write where the file already writes is not an added one.
test('a write to a shared path the file already writes is not added (a real fix moved one between branches); a write to a new shared path is', async () => {
  const before = 'export function settle (n) {\n  if (n > 0) {\n    state.high = n\n  } else {\n    state.low = n\n  }\n  return n\n}\n'
  const base = { runner: 'node' as const, path: 'src/settle.js', before }
  const again = await gate({ ...base, name: 'write-again', edits: [['state.high = n', 'state.low = n']] })
  assert.deepEqual(again.shared, [])
  assert.equal(again.passed, true)
  const added = await gate({ ...base, name: 'write-new-path', edits: [['state.high = n', 'state.other = n']] })
  assert.equal(added.passed, false)
  assert.match(added.shared.join('\n'), /state\.other/)
})

// Six self-references under one root multiply into 6^7 distinct paths of MAX_PATH segments;
// followed one by one they overflowed a Set after minutes (a 12,000-line script did the same).
test('paths that multiply through cycles are widened to their root: the gate decides, a fix passes and a write under the root is still a finding', async () => {
  const before = "import assert from 'node:assert'\n\nconst o = {}\no.a = o\no.b = o\no.c = o\no.d = o\no.e = o\no.f = o\no.x = assert\n\nexport function add (a, b) {\n  return a - b\n}\n"
  const base = { runner: 'node' as const, path: 'src/calc.js', before }
  const fix = await gate({ ...base, name: 'fix-beside-cycles', edits: [['return a - b', 'return a + b']] })
  assert.deepEqual(fix.shared, [])
  assert.equal(fix.passed, true)
  const attack = await gate({ ...base, name: 'write-through-cycle', edits: [['  return a - b\n', '  o.c.x.equal = Object\n  return a + b\n']] })
  assert.equal(attack.passed, false)
  assert.ok(attack.shared.length > 0, 'a shared-state finding')
})
