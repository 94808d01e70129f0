// The checks' classification as pure functions (seed 004): every row of the command table
// from the facts of a run, the precedence of the tests' verdict and the checks', what
// RE2-safe refuses, and exec resolution within what the sandbox shows.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { CheckResult } from '@repairline/schemas'
import { classifyCommand, classifyWithChecks, regexRefusal, resolveCheckExec, type CommandCheck, type CommandFacts } from '@repairline/core'

const cmd: CommandCheck = { exec: 'go', args: ['vet', './internal/calc'], timeout_ms: 60000, fault_exit_codes: [3], stdout_contains: 'ok' }
const ran = (f: Partial<CommandFacts>): CommandFacts => ({ exitCode: 0, signal: null, ownTimeout: true, resolved: '/usr/bin/go', ...f })

test('a command\'s run is classified per seed 004: pass, fail (disagreed) or fault (could not run), with its code', () => {
  const rows: Array<[string, CommandFacts, CheckResult['status'], CheckResult['code']]> = [
    ['exit 0, stdout holds', ran({ stdoutMatched: true }), 'pass', 'CHECK_PASSED'],
    ['exit 0, stdout does not hold', ran({ stdoutMatched: false }), 'fail', 'CHECK_STDOUT_MISMATCH'],
    ['exit 1', ran({ exitCode: 1 }), 'fail', 'CHECK_EXIT_NONZERO'],
    ['killed by a signal inside (137)', ran({ exitCode: 137 }), 'fail', 'CHECK_EXIT_NONZERO'],
    ['a fault exit code', ran({ exitCode: 3 }), 'fault', 'CHECK_FAULT_EXIT'],
    ['exit 127', ran({ exitCode: 127 }), 'fault', 'CHECK_NOT_STARTED'],
    ['exit 126', ran({ exitCode: 126 }), 'fault', 'CHECK_NOT_STARTED'],
    ['exec not resolvable', { exitCode: null, signal: null, ownTimeout: true, notStarted: 'go is not an executable in /usr/bin' }, 'fault', 'CHECK_NOT_STARTED'],
    ['past its own timeout_ms', ran({ exitCode: null, signal: 'SIGKILL', stop: { reason: 'deadline', detail: 'the deadline (60000 ms) passed' } }), 'fault', 'CHECK_TIMED_OUT'],
    ['stopped for its output', ran({ exitCode: null, stop: { reason: 'output_limit', detail: 'stdout passed the cap' } }), 'fault', 'CHECK_RUN_INCOMPLETE'],
    ['the memory limit hit', ran({ exitCode: 137, limitHit: 'the memory limit killed 1 process(es)' }), 'fault', 'CHECK_RUN_INCOMPLETE'],
  ]
  for (const [name, facts, status, code] of rows) {
    const r = classifyCommand(cmd, facts)
    assert.deepEqual([r.status, r.code], [status, code], name)
    assert.match(r.detail, /^go vet \.\/internal\/calc: /, name)
    if (status === 'fault') assert.match(r.detail, /says nothing about the code$/, name)
  }
})

test('the tests\' timed_out or fault stands; then a deadline-stopped check is timed_out; then a check fault is fault (never failed); then a failing test or check is failed', () => {
  const r = (status: CheckResult['status'], code: CheckResult['code']): CheckResult => ({ clause: 'commands', index: 0, status, code, detail: 'x' })
  const fault = r('fault', 'CHECK_FAULT_EXIT')
  const fail = r('fail', 'CHECK_EXIT_NONZERO')
  const late = r('not_run', 'CHECK_DEADLINE_PASSED')
  assert.equal(classifyWithChecks('timed_out', [fault]), 'timed_out')
  assert.equal(classifyWithChecks('fault', [fail]), 'fault')
  assert.equal(classifyWithChecks('scoped_test_verified', [late, fault]), 'timed_out')
  assert.equal(classifyWithChecks('failed', [fault]), 'fault')
  assert.equal(classifyWithChecks('scoped_test_verified', [fail, fault]), 'fault')
  assert.equal(classifyWithChecks('scoped_test_verified', [fail]), 'failed')
  assert.equal(classifyWithChecks('failed', [r('pass', 'CHECK_PASSED')]), 'failed')
  assert.equal(classifyWithChecks('scoped_test_verified', [r('pass', 'CHECK_PASSED')]), 'scoped_test_verified')
  assert.equal(classifyWithChecks('scoped_test_verified', undefined), 'scoped_test_verified')
})

test('RE2-safe: backreferences, lookaround, counts over 1000 and patterns over 512 bytes are refused; RE2 syntax within them is accepted', () => {
  for (const p of ['(a)\\1', '(?=x)', '(?!x)', '(?<=x)y', '(?<!x)y', 'a{1001}', 'a'.repeat(513), '[']) assert.notEqual(regexRefusal(p), undefined, p)
  for (const p of ['os\\.Exit', '^\\s*panic\\(', '(?i)todo', '(a+)+$', 'a{2,1000}', '\\bfunc\\b', 'a'.repeat(512)]) assert.equal(regexRefusal(p), undefined, p)
})

test('exec resolves within what the sandbox shows: the runner\'s toolchain bin, /usr/bin; an absolute path only under /usr or the toolchain', () => {
  const node = resolveCheckExec('node', 'node')
  assert.ok('resolved' in node && node.resolved.endsWith('/node'), JSON.stringify(node))
  assert.deepEqual(resolveCheckExec('env', 'go'), { resolved: '/usr/bin/env' })
  assert.deepEqual(resolveCheckExec('/usr/bin/env', 'node'), { resolved: '/usr/bin/env' })
  assert.ok('why' in resolveCheckExec('/etc/passwd', 'node'))
  assert.ok('why' in resolveCheckExec('/usr/bin/../bin/env', 'node'))
  assert.ok('why' in resolveCheckExec('no-such-program-rl', 'go'))
})
