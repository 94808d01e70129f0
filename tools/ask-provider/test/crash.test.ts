// Once only, under kills at each step of the call: dispatch.json is durable before the
// first byte, so a step killed after it — by the fault hook (SIGKILL at a labelled point) or
// by a real signal while the request is in flight or half answered — is never sent again:
// the rerun records DISPATCH_INTERRUPTED (provider_error, retryable) and the server's count
// stays at one (or zero, when the kill came before the first byte). A kill after a complete
// answer was kept in response.json is decided on rerun from that answer, with the token
// read again for the checks only its holder can make; nothing is sent. A kill before
// dispatch leaves the attempt unsent, and the rerun sends exactly once. The canary is
// nowhere after any of it.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: the child's stdout must be /dev/full itself
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { binPath, BASE_ENV, type BinResult } from '../../../test/helpers/bin.ts'
import { parseRecordLine } from '@repairline/core'
import { ask, askInProcess, assertNoLeak, assertOutcome, hits, outcomeOf, prepare, startServer, type Prepared } from './helpers.ts'
import { completedBody } from '../../../test/helpers/responses-server.ts'

/** Starts the bin without waiting; the result becomes one of p.runs when it ends. */
function spawnAsk (p: Prepared, env: Record<string, string> = {}): { child: ResultPromise, done: Promise<BinResult> } {
  const child = execa(binPath('ask-provider'), ['--attempt', p.a.dir], { env: { ...BASE_ENV, ...env }, extendEnv: false, reject: false, stripFinalNewline: false, timeout: 120_000 })
  const done = child.then(r => {
    const stdout = String(r.stdout)
    const lines = stdout.split('\n').filter(l => l !== '')
    const res: BinResult = { exitCode: r.exitCode ?? -1, records: lines.map((l, i) => parseRecordLine(l, `stdout:${i + 1}`)), stdout, stderr: String(r.stderr) }
    p.runs.push(res)
    return res
  })
  return { child, done }
}

/** The rerun after a kill: nothing is sent, the attempt ends DISPATCH_INTERRUPTED. */
async function rerunAfterKill (p: Prepared, sent: number): Promise<void> {
  assert.ok(existsSync(join(p.a.dir, 'dispatch.json')), 'dispatch.json was durable before the kill')
  assert.equal(outcomeOf(p), undefined, 'a killed step wrote no outcome')
  assert.equal(hits(p), sent)
  const r = await ask(p)
  const o = assertOutcome(p, r, 'provider_error', 'DISPATCH_INTERRUPTED', { retryable: true })
  assert.match(o.reason.message, /never sent twice/)
  assert.equal(hits(p), sent, 'the rerun sent again')
  const again = await ask(p)
  assert.equal(again.exitCode, 69)
  assert.equal(hits(p), sent)
  assertNoLeak(p)
}

const HOOKS = { REPAIRLINE_TEST_HOOKS: '1' }

test('fault hook at dispatch: killed after dispatch.json is durable and before the first byte; the rerun never sends', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { admitEnv: HOOKS })
  const { done } = spawnAsk(p, { ...HOOKS, REPAIRLINE_FAULT_AT: 'dispatch' })
  const r = await done
  assert.equal(r.exitCode, -1, r.stderr)
  assert.equal(existsSync(join(p.a.dir, 'response.json')), false)
  await rerunAfterKill(p, 0)
})

test('fault hook after a complete answer is kept: one request, and the rerun decides from response.json: the same proposal an uninterrupted run keeps, nothing sent', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { admitEnv: HOOKS })
  const r = await spawnAsk(p, { ...HOOKS, REPAIRLINE_FAULT_AT: 'provider-response' }).done
  assert.equal(r.exitCode, -1, r.stderr)
  assert.ok(existsSync(join(p.a.dir, 'response.json')))
  assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false, 'killed before the answer was decided')
  assert.equal(hits(p), 1)
  const rerun = await ask(p)
  assert.equal(rerun.exitCode, 0, rerun.stderr)
  assert.match(rerun.stderr, /deciding from response\.json, nothing is sent/)
  assert.equal(hits(p), 1, 'the rerun sent again')
  assert.equal(outcomeOf(p), undefined)
  // The control: an uninterrupted run on the same server keeps the very same decision.
  const control = await prepare(t, server, 'ok')
  assert.equal((await ask(control)).exitCode, 0)
  for (const file of ['proposal.json', 'validation/summary.json']) assert.equal(readFileSync(join(p.a.dir, file), 'utf8'), readFileSync(join(control.a.dir, file), 'utf8'), file)
  const usage = (q: Prepared): unknown => ({ ...JSON.parse(readFileSync(join(q.a.dir, 'usage.json'), 'utf8')), attempt_key: '' })
  assert.deepEqual(usage(p), usage(control))
  const again = await ask(p)
  assert.equal(again.exitCode, 0)
  assert.equal(hits(p), 1)
  assertNoLeak(p)
})

/** Kills ask-provider once its answer is kept, then runs `between`, then reruns it. */
async function killedAfterAnswer (p: Prepared, between: () => void = () => {}): Promise<BinResult> {
  const r = await spawnAsk(p, { ...HOOKS, REPAIRLINE_FAULT_AT: 'provider-response' }).done
  assert.equal(r.exitCode, -1, r.stderr)
  assert.ok(existsSync(join(p.a.dir, 'response.json')))
  between()
  return await ask(p)
}

test('a retained answer is checked for the token on rerun as it is live: split across two output_text parts it is PROVIDER_ECHOED_TOKEN; with the part unsplit, the same', async t => {
  const server = await startServer(t)
  const proposal = JSON.stringify(server.proposal)
  for (const split of [true, false]) {
    const name = `split-${String(split)}`
    const p = await prepare(t, server, `answer/${name}`, { admitEnv: HOOKS })
    const text = proposal.replace(/"cause":"/, `"cause":"${p.f.canary} `)
    const at = text.indexOf(p.f.canary) + 5
    const b = completedBody(text) as { output: Array<{ content?: Array<Record<string, unknown>> }> }
    const msg = b.output[1]
    if (msg?.content === undefined) throw new Error('no message')
    if (split) msg.content = [{ type: 'output_text', text: text.slice(0, at), annotations: [] }, { type: 'output_text', text: text.slice(at), annotations: [] }]
    server.answers.set(name, { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) })
    const rerun = await killedAfterAnswer(p)
    // Unsplit, the body itself holds the token: response.json keeps it redacted and counted.
    assertOutcome(p, rerun, 'provider_error', 'PROVIDER_ECHOED_TOKEN', { retryable: false })
    assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false)
    assert.equal(hits(p), 1)
    assertNoLeak(p)
  }
})

test('a retained answer whose token cannot be read again on rerun is DISPATCH_INTERRUPTED (the helper changed: TOKEN_HELPER_MISMATCH); with the helper intact the rerun decides', async t => {
  const server = await startServer(t)
  for (const tamper of [true, false]) {
    const p = await prepare(t, server, 'ok', { admitEnv: HOOKS })
    const rerun = await killedAfterAnswer(p, () => {
      if (tamper) writeFileSync(p.f.config.provider.token_command, '#!/bin/sh\necho other\n')
    })
    assert.equal(hits(p), 1)
    if (tamper) {
      const o = assertOutcome(p, rerun, 'provider_error', 'DISPATCH_INTERRUPTED', { retryable: true })
      assert.match(o.reason.message, /cannot be checked for the token now: TOKEN_HELPER_MISMATCH/)
      assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false)
    } else {
      assert.equal(rerun.exitCode, 0, rerun.stderr)
      assert.ok(existsSync(join(p.a.dir, 'proposal.json')))
    }
    assertNoLeak(p)
  }
})

test('a partial answer kept before the kill (the body was cut short) is DISPATCH_INTERRUPTED on rerun: nothing is decided from it, nothing sent', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'truncated', { admitEnv: HOOKS })
  const rerun = await killedAfterAnswer(p, () => {
    assert.equal(JSON.parse(readFileSync(join(p.a.dir, 'response.json'), 'utf8')).body_complete, false)
  })
  assert.equal(hits(p), 1)
  const o = assertOutcome(p, rerun, 'provider_error', 'DISPATCH_INTERRUPTED', { retryable: true })
  assert.match(o.reason.message, /failed mid-answer/)
  assert.equal(existsSync(join(p.a.dir, 'usage.json')), false)
  assertNoLeak(p)
})

test('a stderr whose reader went away (EPIPE) does not stop the step: the call is made once and the records are complete; with stderr read, the same', async t => {
  const server = await startServer(t)
  for (const closeStderr of [true, false]) {
    const p = await prepare(t, server, 'ok')
    const child = execa(binPath('ask-provider'), ['--attempt', p.a.dir], { env: BASE_ENV, extendEnv: false, reject: false, stderr: 'pipe', timeout: 120_000 })
    if (closeStderr) child.stderr?.destroy()
    const r = await child
    assert.equal(r.exitCode, 0, `stderr closed: ${String(closeStderr)}`)
    assert.deepEqual(String(r.stdout).trim().split('\n').map(l => (JSON.parse(l) as { kind: string }).kind).at(-1), 'result')
    assert.equal(hits(p), 1)
    assert.ok(existsSync(join(p.a.dir, 'proposal.json')))
  }
})

test('a stdout that cannot take records (a full disk) is found before dispatch: OUTPUT_FAILED (73), nothing sent, nothing dispatched; with a working stdout the same attempt sends once', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const devFull = openSync('/dev/full', 'w')
  const child = spawn(binPath('ask-provider'), ['--attempt', p.a.dir], { env: BASE_ENV, stdio: ['ignore', devFull, 'pipe'] })
  closeSync(devFull)
  let stderr = ''
  child.stderr?.on('data', (b: Buffer) => { stderr += b.toString() })
  const exitCode = await new Promise<number>(resolve => child.once('close', code => resolve(code ?? -1)))
  assert.equal(exitCode, 73, stderr)
  assert.deepEqual(stderr.trim().split('\n').filter(l => !l.startsWith('ask-provider: hint:') && l.includes('OUTPUT_FAILED')).length, 1, stderr)
  assert.match(stderr, /^ask-provider: OUTPUT_FAILED: cannot write records to stdout: .*ENOSPC/m)
  assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false)
  assert.equal(hits(p), 0)
  assert.equal(outcomeOf(p), undefined)
  const r = await ask(p)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(hits(p), 1)
})

for (const [signal, scenario] of [['SIGKILL', 'hang'], ['SIGKILL', 'half-then-hang'], ['SIGTERM', 'hang'], ['SIGINT', 'half-then-hang']] as const) {
  test(`${signal} while the call is in flight (${scenario}): one request, and the rerun never sends`, async t => {
    const server = await startServer(t)
    const p = await prepare(t, server, scenario)
    const hung = new Promise<void>(resolve => server.once('hang', () => resolve()))
    const { child, done } = spawnAsk(p)
    await hung
    child.kill(signal)
    const r = await done
    assert.notEqual(r.exitCode, 0)
    await rerunAfterKill(p, 1)
  })
}

test('killed before dispatch (while the token helper runs): nothing was sent, and the rerun sends exactly once', async t => {
  const server = await startServer(t)
  const tag = `rl-helper-${process.pid}-${Date.now()}`
  const marker = join(tmpdir(), `${tag}.marker`)
  const secret = join(tmpdir(), `${tag}.secret`)
  const p = await prepare(t, server, 'ok', {
    fixture: {
      tokenHelperSource: canary => {
        writeFileSync(secret, `${canary}\n`)
        // First run: leave a marker with our pid and sleep; later runs: print the token at once.
        return `#!/bin/sh\nif [ ! -e ${marker} ]; then echo $$ > ${marker}; /bin/sleep 60; fi\nIFS= read -r t < ${secret}\nprintf '%s\\n' "$t"\n`
      },
    },
  })
  t.after(() => {
    rmSync(marker, { force: true })
    rmSync(secret, { force: true })
    // The killed step could not remove its private copy of the helper (it holds no secret).
    for (const d of readdirSync(tmpdir()).filter(n => n.startsWith('rl-token-'))) {
      const copy = join(tmpdir(), d, 'helper')
      if (existsSync(copy) && readFileSync(copy, 'utf8').includes(tag)) rmSync(join(tmpdir(), d), { recursive: true, force: true })
    }
  })
  const { child, done } = spawnAsk(p)
  while (!existsSync(marker) || readFileSync(marker, 'utf8').trim() === '') await new Promise(resolve => setTimeout(resolve, 20))
  child.kill('SIGKILL')
  await done
  process.kill(Number(readFileSync(marker, 'utf8').trim()), 'SIGKILL')
  assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false)
  assert.equal(hits(p), 0)
  const r = await ask(p)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(hits(p), 1)
  const again = await ask(p)
  assert.equal(again.exitCode, 0)
  assert.equal(hits(p), 1)
  assertNoLeak(p)
})

test('two runs on one attempt at once: one request; the loser sends nothing and decides nothing', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const runs = await Promise.all([askInProcess(p), askInProcess(p), askInProcess(p)])
  assert.equal(hits(p), 1)
  for (const r of runs) assert.ok(r.exitCode === 0 || r.exitCode === 75, `exit ${r.exitCode}: ${r.stderr}`)
  assert.ok(runs.some(r => r.exitCode === 0))
  assert.equal(outcomeOf(p), undefined)
  assertNoLeak(p)
})
