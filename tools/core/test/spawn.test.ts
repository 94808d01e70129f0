// core's run() is plain child_process. Each case below runs through it and through execa 9
// with the options run() used to pass execa, and the two results must be identical: exit code,
// signal, both outputs byte for byte, timedOut, truncated, spawnError. The cases cover what the
// tools rely on: exit statuses, a signal death, the timeout and the abort signal (SIGKILL),
// output over maxBuffer (killed, kept output cut at the cap), stdin input (also to a child
// that never reads it), an environment that is exactly the one given, a program that cannot
// be started. One difference is deliberate: execa 9 stops keeping output at maxBuffer but lets
// the child run on to its own end; run() kills it at once (an over-long token helper that then
// hangs costs nothing), so for those cases the exit state is compared separately.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { run, type RunOptions, type RunResult } from '@repairline/core'

/** What run() returned when it was built on execa (the reference). */
async function viaExeca (file: string, args: readonly string[], o: RunOptions): Promise<RunResult> {
  const r = await execa(file, args, {
    env: o.env,
    extendEnv: false,
    shell: false,
    reject: false,
    stripFinalNewline: false,
    encoding: 'buffer',
    stdin: o.input === undefined ? 'ignore' : 'pipe',
    input: o.input,
    cwd: o.cwd,
    timeout: o.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: o.maxBuffer ?? 64 << 20,
    cancelSignal: o.signal,
  })
  const spawnError = r.failed && r.exitCode === undefined && r.signal === undefined && !r.timedOut && !r.isMaxBuffer ? r.originalMessage ?? r.shortMessage : undefined
  return { exitCode: r.exitCode, signal: r.signal, stdout: Buffer.from(r.stdout as Uint8Array), stderr: Buffer.from(r.stderr as Uint8Array), timedOut: r.timedOut, truncated: r.isMaxBuffer, spawnError }
}

const NODE = process.execPath
const js = (code: string): [string, string[]] => [NODE, ['-e', code]]

interface Case { name: string, argv: [string, string[]], o?: Partial<RunOptions>, abortAfterMs?: number, killsOnOverflow?: boolean, expect: (r: RunResult) => void }

const CASES: Case[] = [
  { name: 'exit 0, both streams', argv: js('process.stdout.write("out\\n"); process.stderr.write("err\\n")'), expect: r => { assert.equal(r.exitCode, 0); assert.equal(r.stdout.toString(), 'out\n'); assert.equal(r.stderr.toString(), 'err\n') } },
  { name: 'exit 3', argv: js('process.exitCode = 3'), expect: r => { assert.equal(r.exitCode, 3); assert.equal(r.signal, undefined) } },
  { name: 'death by SIGTERM', argv: js('process.kill(process.pid, "SIGTERM"); setTimeout(() => {}, 5000)'), expect: r => { assert.equal(r.exitCode, undefined); assert.equal(r.signal, 'SIGTERM') } },
  { name: 'timeout', argv: js('setTimeout(() => {}, 20000)'), o: { timeoutMs: 300 }, expect: r => { assert.equal(r.timedOut, true); assert.equal(r.signal, 'SIGKILL'); assert.equal(r.exitCode, undefined) } },
  { name: 'abort signal', argv: js('setTimeout(() => {}, 20000)'), abortAfterMs: 300, expect: r => { assert.equal(r.signal, 'SIGKILL'); assert.equal(r.timedOut, false) } },
  { name: 'stdout over maxBuffer', argv: js('process.stdout.write("x".repeat(100000)); setTimeout(() => {}, 1500)'), o: { maxBuffer: 1000 }, killsOnOverflow: true, expect: r => { assert.equal(r.truncated, true); assert.equal(r.stdout.toString(), 'x'.repeat(1000)) } },
  { name: 'stderr over maxBuffer', argv: js('process.stderr.write("y".repeat(5000)); setTimeout(() => {}, 1500)'), o: { maxBuffer: 100 }, killsOnOverflow: true, expect: r => { assert.equal(r.truncated, true); assert.equal(r.stderr.toString(), 'y'.repeat(100)) } },
  { name: 'stdin input', argv: js('let s = ""; process.stdin.on("data", d => { s += d }).on("end", () => process.stdout.write(s.toUpperCase()))'), o: { input: 'héllo\n' }, expect: r => { assert.equal(r.stdout.toString(), 'HÉLLO\n') } },
  { name: 'input a child never reads', argv: js('process.exitCode = 4'), o: { input: Buffer.alloc(4 << 20, 0x61) }, expect: r => { assert.equal(r.exitCode, 4) } },
  { name: 'exactly the given environment', argv: js('process.stdout.write(JSON.stringify(Object.keys(process.env).sort()))'), o: { env: { ONLY: '1', PATH: '/usr/bin' } }, expect: r => { assert.equal(r.stdout.toString(), '["ONLY","PATH"]') } },
  { name: 'cwd', argv: js('process.stdout.write(process.cwd())'), o: { cwd: '/tmp' }, expect: r => { assert.equal(r.stdout.toString(), '/tmp') } },
  { name: 'a program that does not exist', argv: ['/nonexistent/program', []], expect: r => { assert.match(r.spawnError ?? '', /ENOENT/); assert.equal(r.exitCode, undefined) } },
  { name: 'a directory as the program', argv: ['/tmp', []], expect: r => { assert.match(r.spawnError ?? '', /EACCES/) } },
]

for (const c of CASES) {
  test(`run() matches execa: ${c.name}`, async () => {
    const results: RunResult[] = []
    for (const impl of [run, viaExeca]) {
      const controller = new AbortController()
      const timer = c.abortAfterMs === undefined ? undefined : setTimeout(() => { controller.abort() }, c.abortAfterMs)
      const o: RunOptions = { env: { PATH: '/usr/bin:/bin' }, ...c.o, ...(c.abortAfterMs === undefined ? {} : { signal: controller.signal }) }
      results.push(await impl(c.argv[0], c.argv[1], o))
      clearTimeout(timer)
    }
    const [ours, theirs] = results as [RunResult, RunResult]
    c.expect(ours)
    c.expect(theirs) // the expectation is execa's behaviour too, not only ours
    if (c.killsOnOverflow === true) {
      assert.deepEqual({ ours: [ours.exitCode, ours.signal], execa: [theirs.exitCode, theirs.signal] }, { ours: [undefined, 'SIGKILL'], execa: [0, undefined] })
      assert.deepEqual({ ...ours, exitCode: 0, signal: undefined }, theirs)
    } else {
      assert.deepEqual(ours, theirs)
    }
  })
}

test('after a timeout run() returns once the child is gone, though a process it left behind holds stdout (positive control: without a timeout it waits for that process)', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-spawn-'))
  t.after(() => { rmSync(dir, { recursive: true, force: true }) })
  // The child starts a detached grandchild that inherits stdout, writes `marker` when it ends
  // after 1.5 s, and then the child hangs.
  const script = (marker: string): string => `
    const { spawn } = require('node:child_process')
    spawn(process.execPath, ['-e', 'setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"), 1500)'], { stdio: ['ignore', 'inherit', 'ignore'], detached: true }).unref()
    process.stdout.write('started\\n')
    setTimeout(() => {}, 60000)`
  const killed = join(dir, 'after-timeout')
  const r = await run(NODE, ['-e', script(killed)], { env: {}, timeoutMs: 400 })
  assert.equal(r.timedOut, true)
  assert.equal(existsSync(killed), false, 'run() waited for the grandchild')
  const waited = join(dir, 'without-timeout')
  const control = await run(NODE, ['-e', script(waited).replace('setTimeout(() => {}, 60000)', '')], { env: {} })
  assert.equal(control.exitCode, 0)
  assert.equal(control.stdout.toString(), 'started\n')
  assert.equal(existsSync(waited), true, 'without a kill, run() returns when the last holder of stdout is gone')
  await new Promise(resolve => setTimeout(resolve, 1600))
})

test('stopAfter kills the child once stdout holds more than max of the byte (truncated); at max it runs to the end', async () => {
  const script = 'for (let i = 0; i < 50000; i++) process.stdout.write("x\\0"); process.stdout.write("done")'
  const stopped = await run(process.execPath, ['-e', script], { env: {}, stopAfter: { byte: 0, max: 3 } })
  assert.equal(stopped.truncated, true)
  assert.equal(stopped.exitCode, undefined, 'killed')
  const whole = await run(process.execPath, ['-e', script], { env: {}, stopAfter: { byte: 0, max: 50000 } })
  assert.deepEqual([whole.truncated, whole.exitCode, whole.stdout.toString().endsWith('done')], [false, 0, true])
})
