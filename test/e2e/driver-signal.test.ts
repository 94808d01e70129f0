// SIGTERM or SIGINT to the driver (scripts/attempt.ts) while a step's sandbox runs: the driver
// passes the signal to the step and to the standby started for the next step, waits for both,
// and ends by that signal; the step's tool kills its sandbox whole on the way
// (docs/sandbox-lifetime.md). Afterwards no process of the chain is left (found by a unique
// value in their environment) and no cgroup of the step's sandbox (found by its supervisor's
// pid in the group's name). Control: while the chain runs, the same finders see the step, the
// standby and the sandbox's cgroups. A Go step also detaches the private GOCACHE it mounted
// for its run (docs/go-build-cache.md) before it ends by the signal: the control sees it
// mounted while the run is alive.

import { after, test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { findHierarchies, mountsUnder } from '@repairline/core'
import { chainFixture, startProvider, type Provider } from '../helpers/chain.ts'
import { BASE_ENV, ROOT } from '../helpers/bin.ts'
import { GO_FILES, NODE_FILES, rewriteConfig, type Fixture } from '../helpers/fixture.ts'
import { sandboxTemp } from '../helpers/sandbox.ts'

const p: Provider = await startProvider({ after })

/** The live processes whose environment holds `entry` (NAME=value). */
function processesWith (entry: string): number[] {
  const found: number[] = []
  for (const pid of readdirSync('/proc').filter(n => /^\d+$/.test(n))) {
    try {
      if (readFileSync(join('/proc', pid, 'environ'), 'latin1').split('\0').includes(entry)) found.push(Number(pid))
    } catch {}
  }
  return found
}

const cmdline = (pid: number): string => { try { return readFileSync(`/proc/${pid}/cmdline`, 'latin1') } catch { return '' } }

/** The sandbox cgroups whose supervisor is `pid`. */
function groupsOf (pid: number): string[] {
  const found = findHierarchies()
  if (!found.ok) throw new Error(found.why)
  return found.hierarchies.flatMap(h => readdirSync(h.ownDir).filter(n => n.startsWith(`rl-sbx-${pid}-`)).map(n => join(h.ownDir, n)))
}

/** Polls `check` until it holds or `ms` passes; returns whether it did. */
async function eventually (check: () => boolean, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise(resolve => setTimeout(resolve, 5))) if (check()) return true
  return check()
}

/**
 * Starts the driver on `f` with a unique marker in its environment (every tool it starts
 * inherits it) and resolves once reproduce runs with its sandbox's groups made; the driver is
 * SIGKILLed when the test ends.
 */
async function driverInReproduce (t: TestContext, f: Fixture, waitMs: number): Promise<{ driver: ResultPromise, marker: string, reproduce: number }> {
  const now = new Date(Date.now() + Math.floor(Math.random() * 1e6)).toISOString()
  const marker = `REPAIRLINE_TEST_NOW=${now}`
  const driver = execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', f.configPath, '--report', f.reportPath], {
    env: { ...BASE_ENV, REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: now }, extendEnv: false, reject: false, cwd: ROOT, timeout: waitMs * 2,
  })
  t.after(() => { driver.kill('SIGKILL') })
  let reproduce: number | undefined
  const running = await eventually(() => {
    reproduce = processesWith(marker).find(pid => cmdline(pid).includes('reproduce'))
    return reproduce !== undefined && groupsOf(reproduce).length > 0
  }, waitMs)
  if (!running || reproduce === undefined) {
    driver.kill('SIGKILL')
    assert.fail(`reproduce's sandbox never ran: ${String((await driver).stderr)}`)
  }
  return { driver, marker, reproduce }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to the driver while reproduce's sandbox runs ends the step, its sandbox and the standby, then the driver by ${signal}`, async t => {
    // A test that runs for a minute: reproduce's sandbox is alive when the signal comes.
    const slow = "import { test } from 'node:test'\n\ntest('waits', async () => {\n  await new Promise(resolve => setTimeout(resolve, 60000))\n})\n"
    const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node', files: { ...NODE_FILES, 'test/slow.test.js': slow } })
    // The step's tool and its sandbox's groups, once both are there.
    const { driver, marker, reproduce } = await driverInReproduce(t, f, 60_000)
    const chain = processesWith(marker)
    // Control: the driver, reproduce and the standby for ask-provider all carry the marker.
    assert.ok(chain.length >= 3, `only ${chain.join(', ')}`)
    assert.ok(chain.some(pid => cmdline(pid).includes('ask-provider')), 'no standby seen')
    driver.kill(signal)
    const r = await driver
    assert.equal(r.signal, signal, String(r.stderr))
    // The driver waited for its step and standby: none is left when it has ended.
    assert.deepEqual(processesWith(marker), [])
    assert.ok(await eventually(() => groupsOf(reproduce).length === 0, 3000), `left ${groupsOf(reproduce).join(', ')}`)
  })
}

test('SIGTERM to the driver while a Go reproduce runs over go_build_cache: the step detaches its private GOCACHE before it ends, and nothing of the run is left', async t => {
  const slow = 'package calc\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestWaits(t *testing.T) {\n\ttime.Sleep(60 * time.Second)\n}\n'
  const f = await chainFixture(t, p, 'proposal/go-fix', { runner: 'go', files: { ...GO_FILES, 'slow_test.go': slow } })
  const cache = join(sandboxTemp(t), 'go-build')
  mkdirSync(cache, { mode: 0o755 })
  rewriteConfig(f, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: cache } })
  const { driver, marker, reproduce } = await driverInReproduce(t, f, 120_000)
  // Control: the run's GOCACHE (a tmpfs and the overlay on it) is mounted under the attempt.
  assert.ok(mountsUnder(f.stateDir).some(m => /\/gocache-[0-9a-f]+$/.test(m)), `no GOCACHE mounted under ${f.stateDir}`)
  driver.kill('SIGTERM')
  const r = await driver
  assert.equal(r.signal, 'SIGTERM', String(r.stderr))
  assert.deepEqual(processesWith(marker), [])
  assert.deepEqual(mountsUnder(f.stateDir), [], 'the step ended with its GOCACHE still mounted')
  assert.ok(await eventually(() => groupsOf(reproduce).length === 0, 3000), `left ${groupsOf(reproduce).join(', ')}`)
})
