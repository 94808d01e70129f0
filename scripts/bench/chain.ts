// The chain as a whole, on the node fixture with the local HTTPS Responses server:
//  - its own overhead: a whole driver run minus its two test runs (the sandboxed command's
//    own run time) and the provider's answer, against the floor of seven `node -e 0`;
//    issue goal ≤ 1.5 s; and the same with --no-standby, each tool started at its turn;
//  - readback of 32 sealed attempts (`receipt readback --state-dir`) against `sha256sum`
//    over the same sealed files; issue goal ≤ 3×.

import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run as spawnRun } from '@repairline/core'
import { makeFixture, makeCase, writeJson } from '../../test/helpers/fixture.ts'
import { makeTls } from '../../test/helpers/tls.ts'
import { ResponsesServer, NODE_FIX_PROPOSAL } from '../../test/helpers/responses-server.ts'
import { interleave, median, proc, fmt, SMOKE, type BenchRow } from './lib.ts'
import { STEPS, type Step } from '../attempt.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' }

interface Timed { wallMs: number, testsMs: number, providerMs: number }

/**
 * Sealed attempts made (and read back); the first TIMED of them are timed for the overhead,
 * and the last BY_HAND are run one tool at a time, as an operator would, to time each step.
 */
const ATTEMPTS = SMOKE ? 3 : 32
const TIMED = SMOKE ? 1 : 8
const BY_HAND = SMOKE ? 1 : 5

/**
 * One attempt through the seven tools by hand (each bin run by this node, as the driver runs
 * it, with the driver's environment): each step's wall time less what it waited for, the
 * test run for reproduce and verify, the provider's answer for ask-provider.
 */
async function stepsByHand (configPath: string, reportPath: string): Promise<Record<Step, number>> {
  const bin = (tool: string): string => join(ROOT, 'tools', tool, 'bin', `${tool}.js`)
  const timed = async (args: string[]): Promise<{ ms: number, stdout: string }> => {
    const t = performance.now()
    const r = await spawnRun(process.execPath, args, { env: ENV })
    const ms = performance.now() - t
    if (r.exitCode !== 0) throw new Error(`${args[0] ?? ''} exited ${String(r.exitCode)}: ${r.stderr.toString().slice(-400)}`)
    return { ms, stdout: r.stdout.toString() }
  }
  const out = {} as Record<Step, number>
  const admitted = await timed([bin('admit'), 'run', '--config', configPath, '--report', reportPath])
  const record = admitted.stdout.split('\n').filter(Boolean).map(l => JSON.parse(l) as { kind: string, path?: string }).find(r => r.kind === 'attempt')
  if (record?.path === undefined) throw new Error('admit printed no attempt record')
  const dir = record.path
  out.admit = admitted.ms
  for (const step of STEPS.slice(1)) {
    out[step] = (await timed(step === 'seal' ? [bin('receipt'), 'seal', '--attempt', dir] : [bin(step), '--attempt', dir])).ms
  }
  out.reproduce -= runMsOf(dir, 'baseline.json')
  out.verify -= runMsOf(dir, 'verify.json')
  out['ask-provider'] -= partsOf(dir).providerMs
  return out
}

async function driveOnce (configPath: string, reportPath: string, noStandby: boolean): Promise<number> {
  const t = performance.now()
  const r = await spawnRun(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', configPath, '--report', reportPath, ...(noStandby ? ['--no-standby'] : [])], { env: ENV })
  if (r.exitCode !== 0) throw new Error(`the driver exited ${String(r.exitCode)}: ${r.stderr.toString().slice(-400)}`)
  return performance.now() - t
}

/** The sandboxed test run's own time, from baseline.json or verify.json. */
function runMsOf (attemptDir: string, file: 'baseline.json' | 'verify.json'): number {
  return (JSON.parse(readFileSync(join(attemptDir, file), 'utf8')) as { run?: { timing?: { run_ms?: number } } }).run?.timing?.run_ms ?? 0
}

function partsOf (attemptDir: string): { testsMs: number, providerMs: number } {
  const testsMs = runMsOf(attemptDir, 'baseline.json') + runMsOf(attemptDir, 'verify.json')
  const dispatched = Date.parse((JSON.parse(readFileSync(join(attemptDir, 'dispatch.json'), 'utf8')) as { dispatched_at: string }).dispatched_at)
  const received = Date.parse((JSON.parse(readFileSync(join(attemptDir, 'response.json'), 'utf8')) as { received_at: string }).received_at)
  return { testsMs, providerMs: received - dispatched }
}

export async function run (): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rl-bench-chain-'))
  chmodSync(dir, 0o711)
  const tls = await makeTls(join(dir, 'tls'))
  const server = await ResponsesServer.start({ tls })
  server.proposal = NODE_FIX_PROPOSAL
  try {
    // One fixture, ATTEMPTS cases: each driver run admits the next case, so the attempts are
    // real, sealed and distinct. The first TIMED runs are timed for the overhead.
    mkdirSync(join(dir, 'f'))
    const f = await makeFixture(join(dir, 'f'), { runner: 'node', baseUrl: server.baseUrl('ok'), caFile: tls.caFile })
    writeJson(f.reportPath, { ...f.report, cases: Array.from({ length: ATTEMPTS }, (_, i) => makeCase(`case-${String(i).padStart(2, '0')}`, 'test', 'test/calc.test.js::add adds')) })
    const timed: Timed[] = []
    const timedPlain: Timed[] = []
    const byHand: Array<Record<Step, number>> = []
    for (let i = 0; i < ATTEMPTS; i++) {
      if (i >= ATTEMPTS - BY_HAND) {
        byHand.push(await stepsByHand(f.configPath, f.reportPath))
        continue
      }
      // The first 2 × TIMED runs alternate: the driver as it is, and with --no-standby.
      const plain = i < 2 * TIMED && i % 2 === 1
      const wallMs = await driveOnce(f.configPath, f.reportPath, plain)
      if (i < 2 * TIMED) {
        const attempts = readdirSync(join(f.stateDir, 'attempts')).sort()
        const newest = attempts.map(a => join(f.stateDir, 'attempts', a)).sort((a, b) => Date.parse(JSON.parse(readFileSync(join(b, 'admission.json'), 'utf8')).admitted_at) - Date.parse(JSON.parse(readFileSync(join(a, 'admission.json'), 'utf8')).admitted_at))[0] ?? ''
        ;(plain ? timedPlain : timed).push({ wallMs, ...partsOf(newest) })
      }
    }
    const floor = await interleave([proc('node -e 0', process.execPath, ['-e', '0'])], 15, 2)
    const sevenNodes = 7 * median(floor.get('node -e 0') ?? [])
    const overheads = timed.map(t => t.wallMs - t.testsMs - t.providerMs)
    const overhead = median(overheads)
    const rows: BenchRow[] = [{
      name: 'chain overhead (driver run − test runs − provider answer)',
      baseline: '7 × node -e 0',
      ratio: overhead / sevenNodes,
      goal: '≤ 1.5 s',
      detail: `${(overhead / 1000).toFixed(2)} s overhead of ${(median(timed.map(t => t.wallMs)) / 1000).toFixed(2)} s per run (tests ${fmt(median(timed.map(t => t.testsMs)))}, provider ${fmt(median(timed.map(t => t.providerMs)))}); 7 × node -e 0 = ${fmt(sevenNodes)}; median of ${TIMED} runs`,
    }]
    const overheadPlain = median(timedPlain.map(t => t.wallMs - t.testsMs - t.providerMs))
    rows.push({
      name: 'chain overhead with standbys (the next tool started while a step runs)',
      baseline: 'the same driver with --no-standby',
      ratio: overhead / overheadPlain,
      detail: `${(overhead / 1000).toFixed(2)} s vs ${(overheadPlain / 1000).toFixed(2)} s; ${TIMED} runs each, alternating`,
    })
    const perStep = STEPS.map(step => ({ step, ms: median(byHand.map(h => h[step])) }))
    const stepsTotal = perStep.reduce((sum, x) => sum + x.ms, 0)
    rows.push({
      name: 'chain overhead, step by step (each tool run by hand; reproduce and verify less their test run, ask-provider less the answer)',
      baseline: '7 × node -e 0',
      ratio: stepsTotal / sevenNodes,
      detail: `${perStep.map(x => `${x.step} ${fmt(x.ms)}`).join(', ')}: ${(stepsTotal / 1000).toFixed(2)} s in all; node -e 0 = ${fmt(sevenNodes / 7)}; median of ${BY_HAND} attempts`,
    })

    // Readback of the sealed attempts vs sha256sum over exactly the files they seal.
    const attemptDirs = readdirSync(join(f.stateDir, 'attempts')).map(a => join(f.stateDir, 'attempts', a))
    const sealed = attemptDirs.flatMap(a => (JSON.parse(readFileSync(join(a, 'receipt.json'), 'utf8')) as { files: Array<{ path: string }> }).files.map(x => join(a, x.path)))
    // Where the floor is: readback of a state root with no attempt (start-up, schemas, the
    // gate's parsers loaded on demand), and the least a Node program does to check the digests
    // (read and sha256 each file, nothing else).
    const empty = join(dir, 'empty-state')
    mkdirSync(join(empty, 'attempts'), { recursive: true })
    const hashOnly = "const{readFileSync:r}=require('fs'),{createHash:h}=require('crypto');for(const f of process.argv.slice(1))h('sha256').update(r(f)).digest('hex')"
    const s = await interleave([
      proc('receipt readback --state-dir', join(ROOT, 'node_modules', '.bin', 'receipt'), ['readback', '--state-dir', f.stateDir], ENV),
      proc('sha256sum', '/usr/bin/sha256sum', sealed, ENV),
      proc('receipt readback (no attempts)', join(ROOT, 'node_modules', '.bin', 'receipt'), ['readback', '--state-dir', empty], ENV),
      proc('node: read + sha256 each file', process.execPath, ['-e', hashOnly, ...sealed], ENV),
    ], 7, 1)
    const rb = median(s.get('receipt readback --state-dir') ?? [])
    const sum = median(s.get('sha256sum') ?? [])
    const none = median(s.get('receipt readback (no attempts)') ?? [])
    const hashed = median(s.get('node: read + sha256 each file') ?? [])
    rows.push({ name: `receipt readback of ${ATTEMPTS} sealed attempts`, baseline: `sha256sum of their ${sealed.length} sealed files`, ratio: rb / sum, goal: '≤ 3×', detail: `${fmt(rb)} vs ${fmt(sum)}; floors: readback of no attempt ${fmt(none)} (${(none / sum).toFixed(2)}×), node reading and hashing the same files and nothing else ${fmt(hashed)} (${(hashed / sum).toFixed(2)}×)` })
    return rows
  } finally {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
