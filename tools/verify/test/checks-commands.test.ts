// The commands of the execution config's checks on real candidates, each run by the real bins
// in the real sandbox (admit → extract-tree → reproduce → gate-patch → verify), classified as
// seed 004's table says: exit 0 passes; exit 1 ran and disagreed (fails the candidate); an exit
// code in fault_exit_codes, exit 127 and a run past its own timeout_ms are faults that say
// nothing about the candidate. Each command asks the candidate itself (does add(2, 3) give 5?),
// so on the baseline every one exits 0 and the attempt reaches verify; the stdout assertions
// fail there, which is recorded and does not stop the attempt.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ExecutionConfig } from '@repairline/schemas'
import { readJsonFile } from '@repairline/core'
import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { rewriteConfig } from '../../../test/helpers/fixture.ts'
import { fixture, gatedAttempt, GO_FIX, goCacheEnv, NODE_FIX, readOutcomeFile, readVerify, runVerify } from './helpers.ts'

type Command = NonNullable<NonNullable<ExecutionConfig['checks']>['commands']>[number]

/** A node command that exits 0 on the baseline and does `then` on a candidate where add(2, 3) is 5. */
function onFixed (then: string, extra: Partial<Command> = {}): Command {
  return { exec: 'node', args: ['--input-type=module', '-e', `const m = await import('./src/calc.js'); if (m.add(2, 3) !== 5) process.exit(0); ${then}`], timeout_ms: 5000, fault_exit_codes: [3], ...extra }
}

test('node: commands exiting 0, 1, a fault code, 127 and past their timeout, each classified per seed 004 on the candidate; the attempt is fault (CHECK_FAULT_EXIT, the first), never failed', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  const commands: Command[] = [
    onFixed(''),
    onFixed('process.exit(1)'),
    onFixed('process.exit(3)'),
    onFixed('process.exit(127)'),
    onFixed('setInterval(() => {}, 1000)', { timeout_ms: 1500 }),
    onFixed('process.stdout.write("ok\\n")', { stdout_matches: '^ok$' }),
    onFixed('process.stdout.write("ok\\n")', { stdout_contains: 'all good' }),
  ]
  rewriteConfig(f, c => { c.checks = { commands } })
  const a = await gatedAttempt(f, NODE_FIX)
  const baseline = readJsonFile('baseline', join(a.dir, 'baseline.json'))
  assert.deepEqual(baseline.checks?.map(x => `${x.index}:${x.status}:${x.code}`), ['0:pass:CHECK_PASSED', '1:pass:CHECK_PASSED', '2:pass:CHECK_PASSED', '3:pass:CHECK_PASSED', '4:pass:CHECK_PASSED', '5:fail:CHECK_STDOUT_MISMATCH', '6:fail:CHECK_STDOUT_MISMATCH'], 'on the baseline every command exits 0; a fail there is recorded and the attempt goes on')

  const r = await runVerify(a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.red_then_green.shape, 'red_then_green', 'the tests passed')
  assert.deepEqual(v.checks?.map(x => `${x.clause}[${x.index}]:${x.status}:${x.code}`), [
    'commands[0]:pass:CHECK_PASSED',
    'commands[1]:fail:CHECK_EXIT_NONZERO',
    'commands[2]:fault:CHECK_FAULT_EXIT',
    'commands[3]:fault:CHECK_NOT_STARTED',
    'commands[4]:fault:CHECK_TIMED_OUT',
    'commands[5]:pass:CHECK_PASSED',
    'commands[6]:fail:CHECK_STDOUT_MISMATCH',
  ])
  const [ok, one, three, notFound, slow, matched] = v.checks ?? []
  assert.equal(ok?.command?.resolved, join(dirname(realpathSync(process.execPath)), 'node'), 'exec resolved once, in Node\'s own bin directory')
  assert.equal(ok?.command?.argv[0], ok?.command?.resolved)
  assert.deepEqual([one?.command?.exit_code, three?.command?.exit_code, notFound?.command?.exit_code], [1, 3, 127])
  assert.equal(slow?.command?.timed_out, true)
  assert.equal(slow?.command?.run?.stop?.reason, 'deadline')
  assert.equal(matched?.command?.stdout_matched, true)
  // The same sandbox and limits as the tests: the command ran under the test run's limits.
  const want = Object.fromEntries((v.run?.limits ?? []).filter(l => !l.name.startsWith('mount') && !l.name.startsWith('uid')).map(l => [l.name, l.want]))
  const got = Object.fromEntries((ok?.command?.run?.limits ?? []).filter(l => !l.name.startsWith('mount') && !l.name.startsWith('uid')).map(l => [l.name, l.want]))
  assert.deepEqual(got, want)
  assert.deepEqual(ok?.command?.run?.env_names, v.run?.env_names)
  assert.equal(ok?.command?.run?.cwd, v.run?.cwd)
  assert.equal(v.classification, 'fault')
  assert.equal(v.fault?.code, 'CHECK_FAULT_EXIT', 'the test run had no fault: verify.json names the first check that could not run')
  const o = readOutcomeFile(a)
  assert.equal(o.outcome, 'fault')
  assert.equal(o.reason.code, 'CHECK_FAULT_EXIT')
  assert.match(o.reason.message, /says nothing about the candidate/)
})

test('node: a command that exits 1 on the candidate fails it (VERIFY_FAILED); the same command passing is scoped_test_verified (positive control)', async (t) => {
  const f = await fixture(t, { runner: 'node' })
  rewriteConfig(f, c => { c.checks = { commands: [{ exec: 'node', args: ['--check', 'src/calc.js'], timeout_ms: 10000 }, onFixed('process.exit(1)')] } })
  const a = await gatedAttempt(f, NODE_FIX)
  const r = await runVerify(a.dir)
  assert.equal(r.exitCode, 1, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'failed')
  assert.deepEqual(v.checks?.map(x => `${x.index}:${x.status}`), ['0:pass', '1:fail'])
  assert.match(v.reasons.join('\n'), /^check commands\[1\] failed \(CHECK_EXIT_NONZERO\): node --input-type=module -e .*: ran and exited 1$/m)
  assert.equal(readOutcomeFile(a).reason.code, 'VERIFY_FAILED')

  const g = await fixture(t, { runner: 'node' })
  rewriteConfig(g, c => { c.checks = { commands: [{ exec: 'node', args: ['--check', 'src/calc.js'], timeout_ms: 10000 }] } })
  const b = await gatedAttempt(g, NODE_FIX)
  const ok = await runVerify(b.dir)
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(readVerify(b).classification, 'scoped_test_verified')
})

test('go: go vet on the candidate, in the tests\' sandbox with its private GOCACHE, passes; the attempt is scoped_test_verified', async (t) => {
  const f = await fixture(t, { runner: 'go' })
  const env = await goCacheEnv()
  rewriteConfig(f, c => { c.checks = { commands: [{ exec: 'go', args: ['vet', '.'], timeout_ms: 60000, fault_exit_codes: [3] }], source_absent: [{ pattern: 'os.Exit' }] } })
  const a = await gatedAttempt(f, GO_FIX, env)
  const r = await runVerify(a.dir, { env })
  assert.equal(r.exitCode, 0, r.stderr)
  const v = readVerify(a)
  assert.equal(v.classification, 'scoped_test_verified')
  assert.deepEqual(v.checks?.map(x => `${x.clause}:${x.status}`), ['source_absent:pass', 'commands:pass'])
  const vet = v.checks?.[1]?.command
  assert.match(vet?.resolved ?? '', /\/bin\/go$/)
  assert.deepEqual(vet?.argv.slice(1), ['vet', '.'])
  assert.equal(vet?.run?.mounts.find(m => m.dest === '/gocache')?.mode, 'rw', 'a private writable GOCACHE, as the tests have')
  assert.deepEqual(vet?.run?.mounts.map(m => m.dest), v.run?.mounts.map(m => m.dest), 'the tests\' mounts')
})
