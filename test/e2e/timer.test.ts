// The timer (scripts/systemd/): the service and timer units pass `systemd-analyze verify`
// (where systemd is installed), and the commands the service runs, taken from the unit file
// and expanded with a fixture's settings as systemd expands them, behave as the unit's
// comments say: the condition (`admit status --next`) names the next case or exits 1
// NOTHING_ELIGIBLE, and a driver started while another attempt holds the lock exits 75
// (LOCK_HELD) and consumes nothing — both exit statuses the unit counts as success.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { EXIT, readOutcome, writeOutcome } from '@repairline/core'
import { BASE_ENV, ROOT, runBin } from '../helpers/bin.ts'
import { makeFixture, type Fixture } from '../helpers/fixture.ts'
import { tempDir } from '../helpers/tmp.ts'

const UNITS = join(ROOT, 'scripts', 'systemd')
const SERVICE = join(UNITS, 'repairline-attempt.service')
const TIMER = join(UNITS, 'repairline-attempt.timer')

/** The values of `key=` in a unit file (comments and sections skipped). */
function unitValues (path: string, key: string): string[] {
  return readFileSync(path, 'utf8').split('\n').flatMap(l => l.startsWith(`${key}=`) ? [l.slice(key.length + 1)] : [])
}

/** A unit command line as systemd runs it: split on spaces, each `${NAME}` replaced by its value. */
function expand (line: string, env: Record<string, string>): string[] {
  return line.split(' ').filter(w => w !== '').map(w => w.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => {
    const v = env[name]
    if (v === undefined) throw new Error(`the unit uses \${${name}}, which attempt.env.example does not set`)
    return v
  }))
}

/** attempt.env.example's settings, with the fixture's paths and this checkout. */
function settings (f: Fixture): Record<string, string> {
  const names = readFileSync(join(UNITS, 'attempt.env.example'), 'utf8').split('\n').flatMap(l => /^[A-Z_]+=/.test(l) ? [l.slice(0, l.indexOf('='))] : [])
  const mine: Record<string, string> = { REPAIRLINE_HOME: ROOT, REPAIRLINE_CONFIG: f.configPath, REPAIRLINE_REPORT: f.reportPath, REPAIRLINE_REPAIR_ROUNDS: '0' }
  for (const n of names) assert.ok(Object.hasOwn(mine, n), `attempt.env.example sets ${n}, which this test does not know`)
  return Object.fromEntries(names.map(n => [n, mine[n] ?? '']))
}

/** Runs a unit command (its first word found on PATH, as systemd finds a bare name). */
async function runUnitCommand (argv: string[]): Promise<{ exitCode: number, stdout: string, stderr: string }> {
  const [file, ...args] = argv
  assert.ok(file !== undefined)
  const r = await execa(file, args, { env: BASE_ENV, extendEnv: false, reject: false, cwd: '/', timeout: 300_000 })
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) }
}

const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find(p => existsSync(p))

test('systemd-analyze verify accepts the service and timer units, and names a misspelt key (control)', { skip: ANALYZE === undefined ? 'systemd-analyze is not installed on this machine' : false }, async (t) => {
  assert.ok(ANALYZE !== undefined)
  const dir = tempDir(t)
  copyFileSync(SERVICE, join(dir, 'repairline-attempt.service'))
  copyFileSync(TIMER, join(dir, 'repairline-attempt.timer'))
  const ok = await execa(ANALYZE, ['verify', join(dir, 'repairline-attempt.service'), join(dir, 'repairline-attempt.timer')], { reject: false, env: BASE_ENV, extendEnv: false })
  assert.equal(ok.exitCode, 0, String(ok.stderr))
  assert.equal(String(ok.stderr), '', 'systemd-analyze verify warned')
  // Control: verify does read these units (it warns on a key it does not know).
  writeFileSync(join(dir, 'repairline-attempt.service'), readFileSync(SERVICE, 'utf8').replace('\nExecStart=', '\nExecStrat=ignored\nExecStart='))
  const bad = await execa(ANALYZE, ['verify', join(dir, 'repairline-attempt.service')], { reject: false, env: BASE_ENV, extendEnv: false })
  assert.match(String(bad.stderr), /Unknown key 'ExecStrat' in section \[Service\]/)
})

test('the unit\'s commands: the condition names the next case or exits 1 NOTHING_ELIGIBLE; a driver that meets a held lock exits 75 and consumes nothing; both count as success', async (t) => {
  const f = await makeFixture(tempDir(t), { cases: [{ id: 'first', package: '.', name: 'example.com/calc::TestAdd' }, { id: 'second', package: '.', name: 'example.com/calc::TestDouble' }] })
  const env = settings(f)
  const [condition] = unitValues(SERVICE, 'ExecCondition')
  const [start] = unitValues(SERVICE, 'ExecStart')
  assert.ok(condition !== undefined && start !== undefined)
  assert.deepEqual(unitValues(SERVICE, 'SuccessExitStatus'), [`${EXIT.NO} ${EXIT.UNAVAILABLE} ${EXIT.TEMP}`])
  assert.deepEqual(unitValues(TIMER, 'Unit'), ['repairline-attempt.service'])

  const named = async (): Promise<string[]> => {
    const r = await runUnitCommand(expand(condition, env))
    assert.equal(r.exitCode, 0, r.stderr)
    return r.stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { kind: string, case_id?: string }).flatMap(x => x.kind === 'case-status' ? [x.case_id ?? ''] : [])
  }
  assert.deepEqual(await named(), ['first'])

  // An attempt on `first` runs (admitted, its chain not finished): it holds the lock.
  const held = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(held.exitCode, 0, held.stderr)
  const a = held.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt')
  assert.deepEqual(await named(), ['second'])
  const blocked = await runUnitCommand(expand(start, env))
  assert.equal(blocked.exitCode, EXIT.TEMP, blocked.stderr)
  assert.match(blocked.stderr, /not admitted: exit 75 LOCK_HELD/)
  assert.deepEqual(await named(), ['second'], 'the blocked run consumed the case')

  // The running attempt ends; `second` is taken by another run; nothing is left.
  writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, a.key))
  const second = await runBin('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  assert.equal(second.exitCode, 0, second.stderr)
  const b = second.records.find(x => x.kind === 'attempt')
  assert.ok(b?.kind === 'attempt')
  writeOutcome(f.stateDir, b.path, b.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, b.key))
  const none = await runUnitCommand(expand(condition, env))
  assert.equal(none.exitCode, EXIT.NO, none.stderr)
  assert.match(none.stderr, /^admit: NOTHING_ELIGIBLE: /)
  // The driver started anyway (by hand, or after the condition looked) ends the same way.
  const late = await runUnitCommand(expand(start, env))
  assert.equal(late.exitCode, EXIT.NO, late.stderr)
  assert.match(late.stderr, /not admitted: exit 1 NOTHING_ELIGIBLE/)
})
