// admit's refusals of the execution config's checks (seed 004), each before anything is
// written, with its exact code and the JSON pointer of the clause; and the positive control:
// a config with every clause, RE2-safe patterns and resolvable commands is admitted.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ExecutionConfig } from '@repairline/schemas'
import { rewriteConfig } from '../../../test/helpers/fixture.ts'
import { admit, assertRefused, fixture } from './helpers.ts'

type Checks = NonNullable<ExecutionConfig['checks']>

const GOOD: Checks = {
  source_absent: [{ pattern: 'os.Exit' }, { pattern: '^\\s*panic\\(', regex: true }],
  contains: [{ path: 'calc.go', text: 'func Add(' }],
  matches: [{ path: 'calc.go', regex: '^package calc$' }],
  commands: [{ exec: 'go', args: ['vet', '.'], timeout_ms: 60000, fault_exit_codes: [3], stdout_matches: '^$' }, { exec: '/usr/bin/env', args: ['true'], timeout_ms: 1000 }],
}

test('positive control: a config with every clause of checks is admitted (go and node)', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { c.checks = GOOD })
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  const n = await fixture(t, { runner: 'node' })
  rewriteConfig(n, c => { c.checks = { contains: [{ path: 'src/calc.js', text: 'export function add' }], commands: [{ exec: 'node', args: ['--check', 'src/calc.js'], timeout_ms: 10000 }] } })
  const rn = await admit(n)
  assert.equal(rn.exitCode, 0, rn.stderr)
})

const refusals: Array<[string, (c: Checks) => void, string, string]> = [
  ['a backreference', c => { c.matches = [{ path: 'calc.go', regex: '(a)\\1' }] }, 'CHECK_REGEX_UNSAFE', '/checks/matches/0/regex'],
  ['a lookahead', c => { c.source_absent = [{ pattern: 'os(?=\\.Exit)', regex: true }] }, 'CHECK_REGEX_UNSAFE', '/checks/source_absent/0/pattern'],
  ['a lookbehind in stdout_matches', c => { c.commands = [{ exec: 'go', args: ['vet', '.'], timeout_ms: 1000, stdout_matches: '(?<=ok)x' }] }, 'CHECK_REGEX_UNSAFE', '/checks/commands/0/stdout_matches'],
  ['a repetition count over 1000', c => { c.matches = [{ path: 'calc.go', regex: 'a{1001}' }] }, 'CHECK_REGEX_UNSAFE', '/checks/matches/0/regex'],
  ['a 600-byte regex in source_absent', c => { c.source_absent = [{ pattern: 'a'.repeat(600), regex: true }] }, 'CHECK_REGEX_UNSAFE', '/checks/source_absent/0/pattern'],
  ['contains on a file that is not allowed', c => { c.contains = [{ path: 'calc_test.go', text: 'x' }] }, 'CHECK_INVALID', '/checks/contains/0/path'],
  ['matches on a file that is not allowed', c => { c.matches = [{ path: 'go.mod', regex: 'x' }] }, 'CHECK_INVALID', '/checks/matches/0/path'],
  ['an exec no directory of the sandbox holds', c => { c.commands = [{ exec: 'no-such-program-rl', args: [], timeout_ms: 1000 }] }, 'CHECK_EXEC_UNRESOLVED', '/checks/commands/0/exec'],
  ['an absolute exec outside /usr and the toolchain', c => { c.commands = [{ exec: '/opt/check', args: [], timeout_ms: 1000 }] }, 'CHECK_EXEC_UNRESOLVED', '/checks/commands/0/exec'],
]
for (const [name, change, code, path] of refusals) {
  test(`checks refused (${code}, 78): ${name}`, async (t) => {
    const f = await fixture(t)
    const checks = structuredClone(GOOD)
    change(checks)
    rewriteConfig(f, c => { c.checks = checks })
    assertRefused(await admit(f), 78, code, f, path)
  })
}

test('a literal source_absent pattern is never read as a regex: a backreference-looking literal is admitted', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { c.checks = { source_absent: [{ pattern: '(a)\\1' }] } })
  assert.equal((await admit(f)).exitCode, 0)
})

test('a command without timeout_ms is refused by the schema (CONFIG_INVALID, 78)', async (t) => {
  const f = await fixture(t)
  rewriteConfig(f, c => { (c as unknown as Record<string, unknown>).checks = { commands: [{ exec: 'go', args: ['vet', '.'] }] } })
  assertRefused(await admit(f), 78, 'CONFIG_INVALID', f, '/checks/commands/0/timeout_ms')
})
