// K10 (threat matrix): a power loss cannot be staged on the test machine, so the write
// protocol is asserted from a system-call trace of the real tools instead (ALICE's list of
// what a crash can reorder or lose). Each step of a whole chain runs under `strace` (the
// tool's own thread only: every durable write is a synchronous call there), and for every
// file the chain leaves in the attempt directory the trace must show
//   - the file written under a temporary name in the same directory and fsync'd,
//   - then renamed (or, write-once, hard-linked) into place,
//   - then that directory fsync'd before the next file is put in place,
// and for every directory the chain creates, its parent fsync'd before a file is put in it.
// A file written in place, or a rename whose directory is never fsync'd, fails the test;
// the positive control runs the same checker on a trace of a plain `cp`, which does neither.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: a one-shot probe of strace, argv array
import { execa } from 'execa'
import { NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, startProvider } from '../helpers/chain.ts'
import { BASE_ENV, ROOT } from '../helpers/bin.ts'
import { tempDir } from '../helpers/tmp.ts'

const STRACE = '/usr/bin/strace'

/** Why strace cannot trace here (not installed, or ptrace refused by the host), or false. */
function straceUnusable (): string | false {
  if (!existsSync(STRACE)) return 'strace is not installed (the bootstrap installs it as root)'
  const probe = spawnSync(STRACE, ['-qq', '-o', '/dev/null', '--', '/bin/true'])
  return probe.status === 0 ? false : `strace cannot trace on this host: ${String(probe.stderr).trim().split('\n')[0] ?? ''}`
}
const SKIP = straceUnusable()
const TRACED = 'openat,open,creat,fsync,fdatasync,rename,renameat,renameat2,link,linkat,mkdir,mkdirat'

type Op =
  | { op: 'create', path: string }
  | { op: 'fsync', path: string }
  | { op: 'place', from: string, to: string, how: 'rename' | 'link' }
  | { op: 'mkdir', path: string }

/** The successful operations of an `strace -y -qq` log, in order, with absolute paths. */
function parseTrace (text: string): Op[] {
  const ops: Op[] = []
  const str = /"((?:[^"\\]|\\.)*)"/g
  for (const line of text.split('\n')) {
    if (!/= 0$|= \d+</.test(line)) continue // failed calls (= -1 …) change nothing
    const name = /^(\w+)\(/.exec(line)?.[1]
    const quoted = [...line.matchAll(str)].map(m => JSON.parse(`"${m[1] ?? ''}"`) as string)
    if ((name === 'openat' || name === 'open' || name === 'creat') && (name === 'creat' || line.includes('O_CREAT'))) {
      const fd = /= \d+<([^>]*)>$/.exec(line)
      if (fd?.[1] !== undefined) ops.push({ op: 'create', path: fd[1] })
    } else if (name === 'fsync' || name === 'fdatasync') {
      const fd = /^\w+\(\d+<([^>]*)>\)/.exec(line)
      if (fd?.[1] !== undefined) ops.push({ op: 'fsync', path: fd[1] })
    } else if (name !== undefined && /^(rename|renameat2?|link|linkat)$/.test(name)) {
      // Relative names do not occur: the tools pass absolute paths (asserted below).
      const [from, to] = quoted
      assert.ok(from?.startsWith('/') === true && to?.startsWith('/') === true, `a relative path in ${line}`)
      ops.push({ op: 'place', from, to, how: name.startsWith('link') ? 'link' : 'rename' })
    } else if (name === 'mkdir' || name === 'mkdirat') {
      const [path] = quoted
      assert.ok(path?.startsWith('/') === true, `a relative path in ${line}`)
      ops.push({ op: 'mkdir', path })
    }
  }
  return ops
}

/**
 * The protocol violations of `ops` for the files in `files` and the directories created under
 * `under`; an empty list when every file and directory was made durable in order.
 */
function protocolViolations (ops: Op[], files: string[], under: string): string[] {
  const out: string[] = []
  const nextPlaceAfter = (i: number): number => {
    const j = ops.findIndex((o, k) => k > i && o.op === 'place')
    return j === -1 ? ops.length : j
  }
  const fsyncBetween = (path: string, from: number, to: number): boolean => ops.slice(from + 1, to).some(o => o.op === 'fsync' && o.path === path)
  for (const file of files) {
    const at = ops.findLastIndex(o => o.op === 'place' && o.to === file)
    if (at === -1) { out.push(`${file}: never renamed or linked into place (written in place?)`); continue }
    const placed = ops[at] as Extract<Op, { op: 'place' }>
    if (dirname(placed.from) !== dirname(file)) out.push(`${file}: its temporary file ${placed.from} is in another directory`)
    const created = ops.findLastIndex((o, k) => k < at && o.op === 'create' && o.path === placed.from)
    if (created === -1) out.push(`${file}: ${placed.from} was not created by this step`)
    else if (!fsyncBetween(placed.from, created, at)) out.push(`${file}: ${placed.from} was not fsync'd before the ${placed.how}`)
    if (!fsyncBetween(dirname(file), at, nextPlaceAfter(at))) out.push(`${file}: ${dirname(file)} was not fsync'd after the ${placed.how} and before the next file was placed`)
  }
  ops.forEach((o, i) => {
    // The directories that hold retained files; work trees and lock directories are scratch.
    if (o.op !== 'mkdir' || !o.path.startsWith(`${under}/`) || !files.some(f => f.startsWith(`${o.path}/`))) return
    if (!fsyncBetween(dirname(o.path), i, nextPlaceAfter(i))) out.push(`mkdir ${o.path}: ${dirname(o.path)} was not fsync'd before the next file was placed`)
  })
  return out
}

/** Every regular file under `dir`, but the unsealed scratch (logs/, work/). */
function retainedFiles (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      const rel = relative(dir, p)
      if (rel === 'logs' || rel === 'work') continue
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out.push(p)
    }
  }
  walk(dir)
  return out.sort()
}

async function traced (traceFile: string, tool: string, args: string[]): Promise<{ exitCode: number, stdout: string, stderr: string }> {
  const r = await execa(STRACE, ['-o', traceFile, '-qq', '-y', '-s', '4096', '-e', `trace=${TRACED}`, '--', process.execPath, join(ROOT, 'tools', tool, 'bin', `${tool}.js`), ...args], {
    env: { ...BASE_ENV }, extendEnv: false, reject: false, cwd: ROOT, timeout: 300_000,
  })
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) }
}

test('K10: every file of a whole chain is written to a temporary name, fsync\'d, renamed into place and its directory fsync\'d, in order', { skip: SKIP }, async (t) => {
  const p = await startProvider(t)
  p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)
  const f = await chainFixture(t, p, 'proposal/node-fix', { runner: 'node' })
  const traces = tempDir(t, 'rl-trace-')
  const ops: Op[] = []
  const run = async (tool: string, args: string[]): Promise<string> => {
    const file = join(traces, `${tool}.trace`)
    const r = await traced(file, tool, args)
    assert.equal(r.exitCode, 0, `${tool}: ${r.stderr}`)
    ops.push(...parseTrace(readFileSync(file, 'utf8')))
    return r.stdout
  }
  const admitted = await run('admit', ['run', '--config', f.configPath, '--report', f.reportPath])
  const attempt = (JSON.parse(admitted.split('\n').find(l => l.includes('"kind":"attempt"')) ?? '{}') as { path?: string }).path
  assert.ok(attempt !== undefined && statSync(attempt).isDirectory(), admitted)
  for (const tool of ['extract-tree', 'reproduce', 'ask-provider', 'gate-patch', 'verify']) await run(tool, ['--attempt', attempt])
  await run('receipt', ['seal', '--attempt', attempt])
  assert.equal(JSON.parse(readFileSync(join(attempt, 'outcome.json'), 'utf8')).outcome, 'scoped_test_verified')

  const files = retainedFiles(attempt)
  // The chain's whole record: a check that saw only a few files would prove little.
  for (const name of ['admission.json', 'started.json', 'inputs/execution.json', 'tree.tar', 'tree-manifest.json', 'baseline.json', 'baseline.events.ndjson', 'dispatch.json', 'response.json', 'proposal.json', 'candidate.patch', 'gate.json', 'verify.json', 'candidate.events.ndjson', 'outcome.json', 'receipt.json']) {
    assert.ok(files.includes(join(attempt, name)), `${name} is among the retained files`)
  }
  assert.deepEqual(protocolViolations(ops, files, f.stateDir), [])
})

test('K10 positive control: the checker flags a file written in place and a rename whose directory is never fsync\'d', { skip: SKIP }, async (t) => {
  const dir = tempDir(t, 'rl-trace-')
  writeFileSync(join(dir, 'src'), 'x\n')
  const trace = join(dir, 'cp.trace')
  // cp writes its target in place: no temporary name, no fsync.
  const cp = await execa(STRACE, ['-o', trace, '-qq', '-y', '-s', '4096', '-e', `trace=${TRACED}`, '--', '/bin/cp', join(dir, 'src'), join(dir, 'copy')], { reject: false })
  assert.equal(cp.exitCode, 0, String(cp.stderr))
  assert.deepEqual(protocolViolations(parseTrace(readFileSync(trace, 'utf8')), [join(dir, 'copy')], dir), [`${join(dir, 'copy')}: never renamed or linked into place (written in place?)`])
  // A rename with its temporary file fsync'd, but no directory fsync afterwards.
  const ops: Op[] = [{ op: 'create', path: join(dir, '.f.tmp') }, { op: 'fsync', path: join(dir, '.f.tmp') }, { op: 'place', from: join(dir, '.f.tmp'), to: join(dir, 'f'), how: 'rename' }]
  assert.deepEqual(protocolViolations(ops, [join(dir, 'f')], dir), [`${join(dir, 'f')}: ${dir} was not fsync'd after the rename and before the next file was placed`])
  // Positive control of the positive control: with the directory fsync'd, the same sequence passes.
  assert.deepEqual(protocolViolations([...ops, { op: 'fsync', path: dir }], [join(dir, 'f')], dir), [])
})
