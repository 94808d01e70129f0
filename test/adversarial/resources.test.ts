// Threat group R (threat-matrix §9.2): each resource attack runs inside the real sandbox with a
// small limit and must be held by it — the kernel's own counters (pids.events, the OOM kill
// count, cpu.stat) confirm the limit acted — and a positive control runs the same probe
// without that limit (outside the sandbox as the same uid, or with a generous limit) and gets
// past the point the limit stopped it at.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runTests, SANDBOX_LIMITS } from '@repairline/core'
import { TEST_LIMITS, lastJson, leftoverCgroups, makeTree, probeJson, rawProbeArgv, runArgv, runNodeProbe, runPlainProbe, sandboxTemp } from '../helpers/sandbox.ts'

const MiB = 1024 ** 2

// Starts `sleep 30` children until a spawn fails or `want` are running; kills them; reports.
const FORK_BOMB = `import { spawn } from 'node:child_process'
const want = Number(process.argv[2])
const kids = []
let error
for (let i = 0; i < want; i++) {
  const c = spawn('/usr/bin/sleep', ['30'], { stdio: 'ignore' })
  const failed = await new Promise(resolve => { c.once('spawn', () => resolve(undefined)); c.once('error', e => resolve(e.code)) })
  if (failed !== undefined) { error = failed; break }
  kids.push(c)
}
for (const c of kids) c.kill('SIGKILL')
process.stdout.write(JSON.stringify({ started: kids.length, error }))
`

test('R1: a fork bomb stops at the tasks limit (pids.max), five times in a row, and a benign run passes after each; outside, the same probe forks past it', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const tasks = 40
  for (let round = 0; round < 5; round++) {
    const r = await runNodeProbe(tree, FORK_BOMB, { args: ['200'], limits: { tasks } })
    const out = probeJson(r)
    assert.equal(out.error, 'EAGAIN', `round ${round}: ${JSON.stringify(out)}`)
    assert.ok(Number(out.started) < tasks, `round ${round}: ${String(out.started)} children under ${tasks} tasks`)
    assert.ok(r.report.usage.tasks_limit_hits > 0, 'pids.events counted the refused forks')
    assert.equal(r.report.survivors, 0)
    const benign = await runNodeProbe(tree, 'process.stdout.write(JSON.stringify({ ok: true }))', { limits: { tasks } })
    assert.deepEqual(probeJson(benign), { ok: true }, `round ${round}: the benign run after the bomb`)
    assert.equal(benign.report.usage.tasks_limit_hits, 0)
  }
  assert.deepEqual(lastJson(await runPlainProbe(tree, FORK_BOMB, ['100'])), { started: 100 })
  assert.deepEqual(leftoverCgroups(), [])
})

// Four children each allocate and touch `mib` MiB and hold it until the parent has heard from
// all four (held, or died) and no exit has come for 300 ms; `held` is how many are alive then,
// `killed` how many died of SIGKILL before the parent ends the survivors with SIGTERM (so only
// the OOM killer's).
const MEMORY_BOMB = `import { spawn } from 'node:child_process'
const mib = Number(process.argv[2])
if (process.argv[3] === 'child') {
  const b = Buffer.alloc(mib * 1024 * 1024, 1)
  process.stdout.write('held ' + b.length + '\\n')
  // The timer must reference b: a module-level binding no closure uses is garbage once the
  // body has run, and V8 may free the 100 MiB before the others are allocated.
  setInterval(() => { b[0] = 1 }, 1000)
} else {
  const kids = [0, 1, 2, 3].map(() => spawn(process.execPath, [process.argv[1], String(mib), 'child'], { stdio: ['ignore', 'pipe', 'ignore'] }))
  let killed = 0
  let exits = 0
  for (const c of kids) c.once('exit', (code, signal) => { exits++; if (signal === 'SIGKILL') killed++ })
  await Promise.all(kids.map(c => new Promise(resolve => { c.stdout.once('data', resolve); c.once('exit', resolve) })))
  // A child can report "held" and be the OOM killer's victim a moment later, and on a busy
  // host its exit reaches this loop late: wait until 300 ms pass without a new exit (at most 6 s).
  for (let seen = -1, n = 0; seen !== exits && n < 20; n++) {
    seen = exits
    await new Promise(resolve => setTimeout(resolve, 300))
  }
  const held = kids.filter(c => c.exitCode === null && c.signalCode === null).length
  for (const c of kids) c.kill('SIGTERM')
  process.stdout.write(JSON.stringify({ held, killed }))
}
`

test('R2: a memory bomb across processes is held by the tree limit (OOM kills counted, peak at the limit); outside, all four allocations succeed', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const limit = 256 * MiB
  const r = await runNodeProbe(tree, MEMORY_BOMB, { args: ['100'], limits: { memoryBytes: limit } })
  const out = probeJson(r)
  // On failure, say what the kernel counted and which memory limits were read back.
  const seen = JSON.stringify({ out, usage: r.report.usage, memory: r.report.limits.filter(l => l.name.startsWith('memory')) })
  assert.ok(Number(out.killed) >= 1, seen)
  assert.ok(Number(out.held) < 4, seen)
  assert.ok(r.report.usage.oom_kills >= 1, `memory.oom_control counted ${r.report.usage.oom_kills} OOM kills`)
  assert.ok(r.report.usage.memory_peak_bytes <= limit, `peak ${r.report.usage.memory_peak_bytes} ≤ ${limit}`)
  assert.equal(r.report.limits.find(l => l.name === 'memory+swap')?.got, String(limit), 'swap is held at 0 (memsw = memory)')
  assert.deepEqual(lastJson(await runPlainProbe(tree, MEMORY_BOMB, ['100'])), { held: 4, killed: 0 })
})

// Writes `mib` MiB to `path` in 1 MiB blocks; reports how far it got.
const FLOOD_FILE = `import { openSync, writeSync, closeSync } from 'node:fs'
const [path, mib] = [process.argv[2], Number(process.argv[3])]
const block = Buffer.alloc(1024 * 1024, 120)
let written = 0
let error
try {
  const fd = openSync(path, 'w')
  try { for (let i = 0; i < mib; i++) written += writeSync(fd, block) } finally { closeSync(fd) }
} catch (e) { error = e.code }
process.stdout.write(JSON.stringify({ written, error }))
`

test('R5: a tmpfs flood stops at the tmpfs size (ENOSPC); writing beside /tmp is refused (EROFS); outside, the same write completes', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', {})
  const r = await runNodeProbe(tree, FLOOD_FILE, { args: ['/tmp/flood', '16'], limits: { tmpfsBytes: 8 * MiB } })
  const out = probeJson(r)
  assert.equal(out.error, 'ENOSPC')
  assert.ok(Number(out.written) <= 8 * MiB, `${String(out.written)} bytes`)
  const root = probeJson(await runNodeProbe(tree, FLOOD_FILE, { args: ['/flood', '1'] }))
  assert.deepEqual(root, { written: 0, error: 'EROFS' })
  // Controls: outside (a host directory the same uid may write), and / writable without --remount-ro.
  const out2 = join(dir, 'out')
  mkdirSync(out2, { mode: 0o777 })
  chmodSync(out2, 0o777)
  assert.deepEqual(lastJson(await runPlainProbe(tree, FLOOD_FILE, [join(out2, 'flood'), '16'])), { written: 16 * MiB })
  assert.deepEqual(lastJson(await runArgv(rawProbeArgv(tree, ['/flood', '1'], { drop: ['--remount-ro'] }))), { written: MiB })
})

test('R6: a file written past the file-size limit stops there (EFBIG: Node ignores SIGXFSZ); with a larger limit the same write completes', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const capped = probeJson(await runNodeProbe(tree, FLOOD_FILE, { args: ['/tmp/big', '4'], limits: { fileSizeBytes: 2 * MiB } }))
  assert.deepEqual(capped, { written: 2 * MiB, error: 'EFBIG' })
  // Positive control: the same probe under the test limit (64 MiB) writes all of it.
  assert.deepEqual(probeJson(await runNodeProbe(tree, FLOOD_FILE, { args: ['/tmp/big', '4'] })), { written: 4 * MiB })
})

// A go test that reserves 2 GiB without touching it: only the address space is asked for.
const RESERVE_GO = {
  'go.mod': 'module example.com/reserve\n\ngo 1.19\n',
  'reserve_test.go': 'package reserve\n\nimport "testing"\n\nfunc TestReserve(t *testing.T) {\n\tb := make([]byte, 2<<30)\n\tif len(b) != 2<<30 {\n\t\tt.Fatal("short")\n\t}\n}\n',
}

test('R3: a go test reserving 2 GiB under a 1 GiB address-space limit is refused it and dies out of memory (the test started and never finished: failed, never passed); under the 4 GiB limit the same test passes', async t => {
  const dir = sandboxTemp(t)
  const tree = makeTree(dir, 'tree', RESERVE_GO)
  const run = async (addressSpaceBytes: number): ReturnType<typeof runTests> => await runTests({ runner: 'go', tree, testPackages: ['.'], scratch: makeTree(dir, `scratch-${addressSpaceBytes}`, {}), timeoutMs: 120_000, limits: { ...TEST_LIMITS, memoryBytes: 1024 * MiB, addressSpaceBytes } })
  const capped = await run(1024 * MiB)
  assert.equal(capped.sandbox?.limits.find(l => l.name === 'address space per process')?.got, String(1024 * MiB))
  assert.match(capped.stderrTail + capped.events.map(e => e.Output ?? '').join(''), /out of memory/)
  // The runtime's own crash inside a test: the runner counts a started, unfinished test as
  // failed (DESIGN §9), as for any panic; unlike a cgroup OOM kill it is not a fault.
  assert.deepEqual(capped.summary.identities, { 'example.com/reserve::TestReserve': { result: 'fail', unfinished: true } })
  assert.equal(capped.fault, undefined)
  // Positive control: the production limit (4 GiB) leaves room, and the reservation succeeds.
  const roomy = await run(4096 * MiB)
  assert.equal(roomy.fault, undefined, JSON.stringify(roomy.fault))
  assert.deepEqual(roomy.summary.identities, { 'example.com/reserve::TestReserve': { result: 'pass' } })
  assert.deepEqual(leftoverCgroups(), [])
})

// One line without a newline: `mib` MiB (or forever, if 0) of "x".
const FLOOD_OUT = `const mib = Number(process.argv[2])
const chunk = 'x'.repeat(64 * 1024)
let sent = 0
const more = () => {
  while (mib === 0 || sent < mib * 16) { sent++; if (!process.stdout.write(chunk)) { process.stdout.once('drain', more); return } }
}
more()
`

test('R7: one unterminated line flooding stdout is cut at the supervisor cap and the run stopped; pipes ignore RLIMIT_FSIZE, so without the cap it all arrives', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const r = await runNodeProbe(tree, FLOOD_OUT, { args: ['0'], limits: { stdoutBytes: MiB }, timeoutMs: 30_000 })
  assert.equal(r.report.stop?.reason, 'output_limit')
  assert.equal(r.stdout.length, MiB)
  assert.equal(r.report.output.stdout_kept, MiB)
  assert.ok(r.report.output.stdout_bytes > MiB)
  assert.equal(r.report.survivors, 0)
  assert.equal(r.stdout.indexOf(10), -1, 'one line')
  // Control: a 4 MiB line under a 1 MiB RLIMIT_FSIZE and an 8 MiB cap passes whole.
  const c = await runNodeProbe(tree, FLOOD_OUT, { args: ['4'], limits: { stdoutBytes: 8 * MiB, fileSizeBytes: MiB } })
  assert.equal(c.report.stop, undefined)
  assert.equal(c.report.exit.code, 0)
  assert.equal(c.stdout.length, 4 * MiB)
  assert.equal(c.report.limits.find(l => l.name === 'file size per process')?.got, String(MiB))
})

const FLOOD_RSS = fileURLToPath(new URL('../helpers/flood-rss.ts', import.meta.url))

/** flood-rss.ts's report of one flood, run in a fresh process. */
async function floodInFreshProcess (spec: { mode: 'sandbox' | 'buffered', tree: string, args: string[], capBytes: number }): Promise<{ grewBytes: number, kept: number, seen: number, stop?: string }> {
  const r = await runArgv([process.execPath, '--import', 'tsx', FLOOD_RSS, JSON.stringify({ ...spec, probe: FLOOD_OUT })], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 120_000 })
  return lastJson(r) as { grewBytes: number, kept: number, seen: number, stop?: string }
}

test('R7: under an endless flood the supervisor grows by less than the CLI\'s output cap + 64 MiB (threat matrix §10), measured in a fresh process; a supervisor that keeps what it is sent grows by all of it', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const cap = SANDBOX_LIMITS.stdoutBytes
  const held = await floodInFreshProcess({ mode: 'sandbox', tree, args: ['0'], capBytes: cap })
  assert.equal(held.stop, 'output_limit')
  assert.equal(held.kept, cap)
  assert.ok(held.seen > cap)
  assert.ok(held.grewBytes < cap + 64 * MiB, `the supervisor grew by ${held.grewBytes} bytes`)
  // Control: four times the cap, all kept, shows in the same measure.
  const buffered = await floodInFreshProcess({ mode: 'buffered', tree, args: [String(4 * cap / MiB)], capBytes: 8 * cap })
  assert.equal(buffered.kept, 4 * cap)
  assert.ok(buffered.grewBytes > 4 * cap, `the buffering control grew by only ${buffered.grewBytes} bytes`)
})

const OPEN_FILES = `import { openSync } from 'node:fs'
const want = Number(process.argv[2])
const fds = []
let error
try { for (let i = 0; i < want; i++) fds.push(openSync('/dev/null', 'r')) } catch (e) { error = e.code }
process.stdout.write(JSON.stringify({ opened: fds.length, error }))
`

test('R8: opening files stops at the open-files limit (EMFILE); outside, the same probe opens more', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const out = probeJson(await runNodeProbe(tree, OPEN_FILES, { args: ['1000'], limits: { openFiles: 64 } }))
  assert.equal(out.error, 'EMFILE')
  assert.ok(Number(out.opened) < 64)
  assert.deepEqual(lastJson(await runPlainProbe(tree, OPEN_FILES, ['200'])), { opened: 200 })
})

// Spins two workers for `ms` milliseconds of wall time (or forever, if 0).
const SPIN = `import { Worker } from 'node:worker_threads'
const ms = Number(process.argv[2])
const code = 'const until = ' + (ms === 0 ? 'Infinity' : 'Date.now() + ' + ms) + '; let x = 0; while (Date.now() < until) x++'
await Promise.all([0, 1].map(() => new Promise(resolve => new Worker(code, { eval: true }).on('exit', resolve))))
process.stdout.write(JSON.stringify({ done: true }))
`

test('R9: CPU spin is throttled by the cgroup quota and killed by RLIMIT_CPU; without them it runs unthrottled until the deadline', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const throttled = await runNodeProbe(tree, SPIN, { args: ['1500'], limits: { cpuPercent: 50 } })
  assert.deepEqual(probeJson(throttled), { done: true })
  assert.ok(throttled.report.usage.cpu_throttled_periods > 0, 'cpu.stat nr_throttled counted the quota')
  const free = await runNodeProbe(tree, SPIN, { args: ['1500'], limits: { cpuPercent: 400 } })
  assert.equal(free.report.usage.cpu_throttled_periods, 0, 'control: a quota above the machine never throttles')
  // RLIMIT_CPU: one second of CPU (soft = hard, so the kernel's SIGKILL at the hard limit), long before the deadline.
  const killed = await runNodeProbe(tree, SPIN, { args: ['0'], limits: { cpuSeconds: 1, cpuPercent: 400 }, timeoutMs: 60_000 })
  assert.equal(killed.report.stop, undefined, 'the rlimit stopped it, not the deadline')
  assert.ok([128 + 9, 128 + 24].includes(killed.report.exit.code ?? 0), `killed by SIGKILL/SIGXCPU: ${JSON.stringify(killed.report.exit)}`)
  const unlimited = await runNodeProbe(tree, SPIN, { args: ['0'], limits: { cpuSeconds: 600, cpuPercent: 400 }, timeoutMs: 3000 })
  assert.equal(unlimited.report.stop?.reason, 'deadline')
})

const HANG = `let bytes = 0
process.stdin.on('data', b => { bytes += b.length })
process.stdin.on('end', () => { process.stdout.write(JSON.stringify({ stdinEnded: true, bytes }) + '\\n'); setInterval(() => {}, 1000) })
`

test('R10: stdin is /dev/null (a read ends at once) and a hang is killed at the deadline with nothing left; a run that ends in time is not stopped', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const r = await runNodeProbe(tree, HANG, { timeoutMs: 2500 })
  assert.deepEqual(JSON.parse(r.stdout.toString().trim()), { stdinEnded: true, bytes: 0 })
  assert.equal(r.report.stop?.reason, 'deadline')
  assert.equal(r.report.exit.signal, 'SIGKILL')
  assert.equal(r.report.survivors, 0)
  assert.deepEqual(leftoverCgroups(), [])
  const quick = await runNodeProbe(tree, 'process.stdout.write("{}")', { timeoutMs: 20_000 })
  assert.equal(quick.report.stop, undefined)
  assert.equal(quick.report.exit.code, 0)
})

// Allocates `mib` MiB and holds it for `ms` milliseconds.
const HOLD = `const b = Buffer.alloc(Number(process.argv[2]) * 1024 * 1024, 1)
setTimeout(() => process.stdout.write(JSON.stringify({ held: b.length })), Number(process.argv[3]))
`

test('resource samples: a run that drives available memory below the floor is stopped (resource_low); the same floor lets a quiet run finish', async t => {
  const tree = makeTree(sandboxTemp(t), 'tree', {})
  const { memAvailableBytes } = await import('@repairline/core')
  const floor = memAvailableBytes() - 600 * MiB
  const r = await runNodeProbe(tree, HOLD, { args: ['1200', '8000'], limits: { memoryBytes: 2048 * MiB, minAvailableMemoryBytes: floor, sampleIntervalMs: 100 }, timeoutMs: 30_000 })
  assert.equal(r.report.stop?.reason, 'resource_low', JSON.stringify(r.report.stop))
  assert.match(r.report.stop?.detail ?? '', /available memory .* is below the floor/)
  assert.ok(r.report.samples.length >= 2)
  assert.equal(r.report.survivors, 0)
  const quiet = await runNodeProbe(tree, HOLD, { args: ['1', '300'], limits: { minAvailableMemoryBytes: memAvailableBytes() - 600 * MiB, sampleIntervalMs: 100 } })
  assert.equal(quiet.report.stop, undefined)
  assert.deepEqual(probeJson(quiet), { held: MiB })
})
