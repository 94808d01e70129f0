// Refusals that depend on the filesystem around the config and on the state root: mounts the
// sandbox user cannot read, a state_dir that cannot be used, a ca_file that is not a file, an
// attempt directory owned by another key. Each asserts the exact code and exit status, one
// stderr line, and that nothing was written or consumed: every entry under the fixture (the
// state root included) has the same bytes, mode, owner, mtime and ctime as before, and once
// the fault is removed `admit status` shows the case eligible and `admit run` admits it (the
// positive control). Also: `admit status` never writes, and an admission-only directory (a
// crash before started.json) does not count toward the 32 retained attempts.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { readOutcome, run, writeOutcome } from '@repairline/core'
import { makeCase, rewriteConfig, writeJson, type Fixture } from '../../../test/helpers/fixture.ts'
import { type BinResult } from '../../../test/helpers/bin.ts'
import { makeTls } from '../../../test/helpers/tls.ts'
import { admit, assertRefusal, attemptDirs, fixture } from './helpers.ts'

/** Every entry under `root`, in a fixed order: path, type and mode, owner, mtime and ctime (ns), and a file's sha256 or a link's target. */
function snapshot (root: string): string[] {
  const out: string[] = []
  const walk = (p: string): void => {
    const st = lstatSync(p, { bigint: true })
    const what = st.isSymbolicLink()
      ? `-> ${readlinkSync(p)}`
      : st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : st.isDirectory() ? 'dir' : 'special'
    out.push(`${relative(root, p) || '.'} ${st.mode.toString(8)} ${st.uid}:${st.gid} m${st.mtimeNs} c${st.ctimeNs} ${what}`)
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name))
  }
  walk(root)
  return out
}

/** Asserts a refusal (exit, code, path, records, one stderr line, no stack trace) and that nothing under the fixture changed. */
function assertRefusedUntouched (r: BinResult, exit: number, code: string, f: Fixture, before: string[], path?: string): void {
  assertRefusal(r, exit, code, path)
  assert.deepEqual(snapshot(f.dir), before, 'something under the fixture was written')
}

/** `case_id:status` for every case, from `admit status` (which must succeed). */
async function statuses (f: Fixture, env: Record<string, string> = {}): Promise<string[]> {
  const s = await admit(f, 'status', env)
  assert.equal(s.exitCode, 0, s.stderr)
  return s.records.flatMap(x => x.kind === 'case-status' ? [`${x.case_id}:${x.status}`] : [])
}

/** The attempt key `admit status` computes for the fixture's only case. */
async function keyOf (f: Fixture): Promise<string> {
  const s = await admit(f, 'status')
  const c = s.records.find(x => x.kind === 'case-status')
  assert.ok(c?.kind === 'case-status' && c.attempt_key !== undefined, s.stderr)
  return c.attempt_key
}

/** Positive control: nothing was consumed (the case is eligible) and the same fixture is admitted. */
async function assertAdmitsNow (f: Fixture): Promise<void> {
  assert.deepEqual(await statuses(f), f.report.cases.map(c => `${c.id}:eligible`), 'the refusal consumed the case')
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'result'])
}

/** Seals an admitted attempt as a later step would (frees the lock, consumes the key). */
function seal (f: Fixture, r: BinResult): string {
  const a = r.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt', r.stderr)
  writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'not_reproduced', code: 'NOT_REPRODUCED', message: 'fixture' }, new Date(), d => readOutcome(d, a.key))
  return a.path
}

const MOUNTS = [['go', 'go_mod_cache'], ['node', 'dependency_dir']] as const

for (const [runner, field] of MOUNTS) {
  // mount-not-listable: the sandbox (uid 65534) would bind a directory it cannot open.
  test(`runner.${field} that others cannot read (0700) is refused (MOUNT_UNREADABLE, 78)`, async (t) => {
    const f = await fixture(t, { runner })
    const mount = join(f.dir, 'mount')
    mkdirSync(mount)
    chmodSync(mount, 0o700)
    rewriteConfig(f, c => { c.runner = runner === 'go' ? { kind: 'go', package_roots: ['.'], go_mod_cache: mount } : { kind: 'node', dependency_dir: mount } })
    const before = snapshot(f.dir)
    const r = await admit(f)
    assertRefusedUntouched(r, 78, 'MOUNT_UNREADABLE', f, before, `/runner/${field}`)
    assert.match(r.stderr, new RegExp(`runner\\.${field} ${mount} is not readable by uid 65534`))
    assert.match(r.stderr, /hint: the sandbox runs as an unprivileged user \(uid 65534\)/)
    chmodSync(mount, 0o755)
    await assertAdmitsNow(f)
  })

  // mount-behind-private-ancestor: the directory is open but the path to it is not.
  test(`runner.${field} under an ancestor others cannot search is refused (MOUNT_UNREADABLE, 78)`, async (t) => {
    const f = await fixture(t, { runner })
    const home = join(f.dir, 'home')
    const mount = join(home, 'mount')
    mkdirSync(mount, { recursive: true })
    chmodSync(mount, 0o755)
    chmodSync(home, 0o750)
    rewriteConfig(f, c => { c.runner = runner === 'go' ? { kind: 'go', package_roots: ['.'], go_mod_cache: mount } : { kind: 'node', dependency_dir: mount } })
    const before = snapshot(f.dir)
    const r = await admit(f)
    assertRefusedUntouched(r, 78, 'MOUNT_UNREADABLE', f, before, `/runner/${field}`)
    assert.match(r.stderr, new RegExp(`has an ancestor ${home} that uid 65534 cannot search`))
    chmodSync(home, 0o751)
    await assertAdmitsNow(f)
  })

  // The sandbox user is judged as the kernel judges it: by the owner and group bits too, on
  // the directory a symlink leads to.
  test(`runner.${field} is judged by owner and group bits and through its symlink (MOUNT_UNREADABLE, 78)`, async (t) => {
    const f = await fixture(t, { runner })
    const use = (dir: string): void => rewriteConfig(f, c => { c.runner = runner === 'go' ? { kind: 'go', package_roots: ['.'], go_mod_cache: dir } : { kind: 'node', dependency_dir: dir } })
    // Owned by the sandbox user with no owner bits: others may read it, the sandbox user may not.
    const owned = join(f.dir, 'owned')
    mkdirSync(owned)
    chownSync(owned, 65534, 65534)
    chmodSync(owned, 0o075)
    use(owned)
    let before = snapshot(f.dir)
    assertRefusedUntouched(await admit(f), 78, 'MOUNT_UNREADABLE', f, before, `/runner/${field}`)
    // A symlink to a directory under a private parent: the link's own path is open.
    const hidden = join(f.dir, 'private', 'cache')
    mkdirSync(hidden, { recursive: true })
    chmodSync(join(f.dir, 'private'), 0o700)
    const link = join(f.dir, 'link')
    symlinkSync(hidden, link)
    use(link)
    before = snapshot(f.dir)
    const r = await admit(f)
    assertRefusedUntouched(r, 78, 'MOUNT_UNREADABLE', f, before, `/runner/${field}`)
    assert.match(r.stderr, new RegExp(`leads to ${hidden}, which has an ancestor ${join(f.dir, 'private')} that uid 65534 cannot search`))
    // Positive control: a 0700 directory the sandbox user owns is readable by it, and admitted.
    chmodSync(owned, 0o700)
    use(owned)
    await assertAdmitsNow(f)
  })
}

test("state_dir whose parent does not exist is refused (STATE_DIR_INVALID, 78) and the parent is not created", async (t) => {
  const f = await fixture(t)
  const parent = join(f.dir, 'absent')
  rewriteConfig(f, c => { c.state_dir = join(parent, 'state') })
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 78, 'STATE_DIR_INVALID', f, before, '/state_dir')
  assert.match(r.stderr, new RegExp(`state_dir's parent ${parent} does not exist`))
  mkdirSync(parent, { mode: 0o711 })
  chmodSync(parent, 0o711)
  await assertAdmitsNow(f)
  assert.ok(existsSync(join(parent, 'state', 'attempts')))
})

// state-dir-symlink: a planted link would redirect every write of the state root.
test('state_dir that is a symlink, live or dangling, is refused (STATE_DIR_INVALID, 78) and nothing is written through it', async (t) => {
  const f = await fixture(t)
  const real = join(f.dir, 'real-state')
  mkdirSync(real, { mode: 0o711 })
  chmodSync(real, 0o711)
  symlinkSync(real, f.stateDir)
  let before = snapshot(f.dir)
  let r = await admit(f)
  assertRefusedUntouched(r, 78, 'STATE_DIR_INVALID', f, before, '/state_dir')
  assert.match(r.stderr, /is a symlink/)
  // Dangling: mkdir would create the target.
  unlinkSync(f.stateDir)
  symlinkSync(join(f.dir, 'elsewhere'), f.stateDir)
  before = snapshot(f.dir)
  r = await admit(f)
  assertRefusedUntouched(r, 78, 'STATE_DIR_INVALID', f, before, '/state_dir')
  assert.equal(existsSync(join(f.dir, 'elsewhere')), false)
  // Positive control: the link's target named directly is accepted.
  unlinkSync(f.stateDir)
  rewriteConfig(f, c => { c.state_dir = real })
  await assertAdmitsNow(f)
  assert.equal(attemptDirs({ ...f, stateDir: real }).length, 1)
})

test('state_dir that is a regular file is refused (STATE_DIR_INVALID, 78) and the file is unchanged', async (t) => {
  const f = await fixture(t)
  writeFileSync(f.stateDir, 'not a directory\n')
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 78, 'STATE_DIR_INVALID', f, before, '/state_dir')
  assert.match(r.stderr, /is not a directory/)
  rmSync(f.stateDir)
  await assertAdmitsNow(f)
})

// state-dir-foreign-owner: another user could swap anything we write beneath it.
test('state_dir owned by another uid is refused (STATE_DIR_INVALID, 78) and stays empty', async (t) => {
  const f = await fixture(t)
  mkdirSync(f.stateDir, { mode: 0o711 })
  chmodSync(f.stateDir, 0o711)
  chownSync(f.stateDir, 65534, 65534)
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 78, 'STATE_DIR_INVALID', f, before, '/state_dir')
  assert.match(r.stderr, /is owned by uid 65534, not by us/)
  assert.deepEqual(readdirSync(f.stateDir), [])
  chownSync(f.stateDir, process.getuid?.() ?? 0, process.getgid?.() ?? 0)
  await assertAdmitsNow(f)
})

test('provider.ca_file that is missing, a directory or a FIFO is refused (CONFIG_INVALID, 78)', async (t) => {
  const f = await fixture(t)
  const fifo = join(f.dir, 'ca.fifo')
  const made = await run('/usr/bin/mkfifo', [fifo], { env: { PATH: '/usr/bin:/bin' } })
  assert.equal(made.exitCode, 0)
  mkdirSync(join(f.dir, 'ca-dir'))
  for (const ca of [join(f.dir, 'missing.pem'), join(f.dir, 'ca-dir'), fifo]) {
    rewriteConfig(f, c => { c.provider.ca_file = ca })
    const before = snapshot(f.dir)
    const r = await admit(f)
    assertRefusedUntouched(r, 78, 'CONFIG_INVALID', f, before, '/provider/ca_file')
    assert.match(r.stderr, new RegExp(`provider\\.ca_file ${ca} cannot be read`))
  }
  const tls = await makeTls(join(f.dir, 'tls'))
  rewriteConfig(f, c => { c.provider.ca_file = tls.caFile })
  await assertAdmitsNow(f)
})

// attempt-dir-prefix-collision: a directory named by our key's first 16 hex digits holds
// another key's attempt; admitting into it would mix two attempts.
test('an attempt directory owned by another key with the same 16-hex prefix is refused by run and status (ATTEMPT_KEY_COLLISION, 73)', async (t) => {
  const f = await fixture(t)
  const key = await keyOf(f)
  // A real attempt of another key (another fixture's admission), moved under our prefix and
  // renamed so its full key shares our first 16 hex digits.
  const g = await fixture(t)
  const other = await admit(g)
  assert.equal(other.exitCode, 0, other.stderr)
  const [otherDir] = attemptDirs(g)
  assert.ok(otherDir !== undefined)
  const foreignKey = key.slice(0, 16) + (JSON.parse(readFileSync(join(g.stateDir, 'attempts', otherDir, 'admission.json'), 'utf8')) as { attempt_key: string }).attempt_key.slice(16)
  assert.notEqual(foreignKey, key)
  mkdirSync(join(f.stateDir, 'attempts'), { recursive: true, mode: 0o711 })
  chmodSync(f.stateDir, 0o711)
  chmodSync(join(f.stateDir, 'attempts'), 0o711)
  const dir = join(f.stateDir, 'attempts', key.slice(0, 16))
  cpSync(join(g.stateDir, 'attempts', otherDir), dir, { recursive: true })
  for (const name of ['admission.json', 'started.json']) {
    const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>
    writeJson(join(dir, name), { ...doc, attempt_key: foreignKey })
  }
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 73, 'ATTEMPT_KEY_COLLISION', f, before, dir)
  assert.match(r.stderr, new RegExp(`belongs to key ${foreignKey}, which shares its first 16 hex digits with ${key}`))
  const s = await admit(f, 'status')
  assertRefusedUntouched(s, 73, 'ATTEMPT_KEY_COLLISION', f, before, dir)
  // Positive control: the same foreign attempt under its own prefix is no collision.
  rmSync(dir, { recursive: true })
  cpSync(join(g.stateDir, 'attempts', otherDir), join(f.stateDir, 'attempts', otherDir), { recursive: true })
  await assertAdmitsNow(f)
  assert.deepEqual(attemptDirs(f), [key.slice(0, 16), otherDir].sort())
})

test('admit status never writes: consumed, running and interrupted attempts and the lock are left byte for byte, mtime for mtime', async (t) => {
  const f = await fixture(t, { cases: [{ id: 'first', package: '.', name: 'example.com/calc::TestAdd' }, { id: 'second', package: '.', name: 'example.com/calc::TestDouble' }] })
  seal(f, await admit(f))
  const running = await admit(f)
  assert.equal(running.exitCode, 0, running.stderr)
  const a = running.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt')
  assert.ok(existsSync(join(f.stateDir, 'lock')))
  const before = snapshot(f.dir)
  assert.ok(before.some(l => l.includes('outcome.json')) && before.some(l => l.includes('started.json')))
  assert.deepEqual(await statuses(f), ['first:consumed', 'second:running'])
  assert.deepEqual(snapshot(f.dir), before)
  // Past the running attempt's deadline + 30 s: reported interrupted, yet nothing is sealed
  // and the stale lock is not broken.
  const admission = JSON.parse(readFileSync(join(a.path, 'admission.json'), 'utf8')) as { deadline: string }
  const later = new Date(Date.parse(admission.deadline) + 3_600_000).toISOString()
  assert.deepEqual(await statuses(f, { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: later }), ['first:consumed', 'second:interrupted'])
  assert.deepEqual(snapshot(f.dir), before)
})

test('an admission-only attempt directory (no started.json) does not count toward the 32 retained attempts', async (t) => {
  const f = await fixture(t)
  const consumed = Array.from({ length: 31 }, (_, i) => makeCase(`case-${String(i).padStart(2, '0')}`, '.', 'example.com/calc::TestAdd'))
  const orphan = makeCase('orphan', '.', 'example.com/calc::TestAdd')
  const next = makeCase('next', '.', 'example.com/calc::TestAdd')
  writeJson(f.reportPath, { ...f.report, cases: consumed })
  for (let i = 0; i < consumed.length; i++) seal(f, await admit(f))
  // A crash between admission.json and started.json: admitted under an old test clock, then
  // started.json removed. Its lock stays behind, stale by now.
  writeJson(f.reportPath, { ...f.report, cases: [orphan] })
  const crashed = await admit(f, 'run', { REPAIRLINE_TEST_HOOKS: '1', REPAIRLINE_TEST_NOW: '2026-01-01T00:00:00.000Z' })
  assert.equal(crashed.exitCode, 0, crashed.stderr)
  const a = crashed.records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt')
  unlinkSync(join(a.path, 'started.json'))
  const orphanBefore = snapshot(a.path)
  assert.equal(attemptDirs(f).length, 32)
  assert.equal(attemptDirs(f).filter(d => existsSync(join(f.stateDir, 'attempts', d, 'started.json'))).length, 31)

  writeJson(f.reportPath, { ...f.report, cases: [...consumed, next, orphan] })
  assert.deepEqual(await statuses(f), [...consumed.map(c => `${c.id}:consumed`), 'next:eligible', 'orphan:eligible'])
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  const admitted = seal(f, r)
  assert.notEqual(admitted, a.path)
  assert.deepEqual(snapshot(a.path), orphanBefore, 'the admission-only directory was touched')
  assert.equal(attemptDirs(f).length, 33)

  // Control: with 32 started attempts the limit holds, the orphan's case included.
  const before = snapshot(f.dir)
  const full = await admit(f)
  assertRefusedUntouched(full, 73, 'RETENTION_FULL', f, before)
  assert.deepEqual((await statuses(f)).slice(-2), ['next:consumed', 'orphan:eligible'])
})

test('an attempt directory with started.json but no admission.json is STATE_UNSAFE (73): nothing written into it, the case not consumed', async (t) => {
  const f = await fixture(t)
  const key = await keyOf(f)
  const dir = join(f.stateDir, 'attempts', key.slice(0, 16))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'started.json'), '{}\n')
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 73, 'STATE_UNSAFE', f, before, dir)
  assert.deepEqual(readdirSync(dir), ['started.json'])
  // Positive control: with the stray directory moved out, the same case is admitted.
  rmSync(dir, { recursive: true })
  await assertAdmitsNow(f)
})

test('admit status shows a damaged attempt (outcome.json not JSON, admission.json a directory) as consumed but invalid and goes on; admit run admits the next case', async (t) => {
  const f = await fixture(t, { cases: [{ id: 'first', package: '.', name: 'example.com/calc::TestAdd' }, { id: 'second', package: '.', name: 'example.com/calc::TestDouble' }] })
  const dir = seal(f, await admit(f))
  const caseStatus = async (): Promise<Array<{ case_id: string, status: string, outcome?: string, readback?: { valid: boolean, codes?: string[] } }>> => {
    const s = await admit(f, 'status')
    assert.equal(s.exitCode, 0, s.stderr)
    return s.records.flatMap(x => x.kind === 'case-status' ? [{ case_id: x.case_id, status: x.status, ...(x.outcome === undefined ? {} : { outcome: x.outcome }), ...(x.readback === undefined ? {} : { readback: x.readback }) }] : [])
  }
  // Positive control: the intact attempt is consumed with its outcome (not sealed, so invalid).
  const intact = await caseStatus()
  assert.deepEqual(intact.map(x => [x.case_id, x.status, x.outcome]), [['first', 'consumed', 'not_reproduced'], ['second', 'eligible', undefined]])
  const outcome = readFileSync(join(dir, 'outcome.json'))
  writeFileSync(join(dir, 'outcome.json'), '{')
  const broken = await caseStatus()
  assert.deepEqual(broken.map(x => [x.case_id, x.status, x.outcome]), [['first', 'consumed', undefined], ['second', 'eligible', undefined]])
  assert.ok(broken[0]?.readback?.valid === false && broken[0].readback.codes?.includes('MALFORMED'), JSON.stringify(broken[0]))
  writeFileSync(join(dir, 'outcome.json'), outcome)
  const admission = readFileSync(join(dir, 'admission.json'))
  unlinkSync(join(dir, 'admission.json'))
  mkdirSync(join(dir, 'admission.json'))
  const noAdmission = await caseStatus()
  assert.deepEqual(noAdmission.map(x => [x.case_id, x.status, x.readback?.valid]), [['first', 'consumed', false], ['second', 'eligible', undefined]])
  assert.ok(noAdmission[0]?.readback?.codes?.includes('MISSING_STAGE_RECORD'), JSON.stringify(noAdmission[0]))
  // admit run leaves the damaged attempt alone and admits the next case.
  const before = snapshot(dir)
  const r = await admit(f)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.notEqual(seal(f, r), dir)
  assert.deepEqual(snapshot(dir), before)
  rmSync(join(dir, 'admission.json'), { recursive: true })
  writeFileSync(join(dir, 'admission.json'), admission)
})

test('admit status reads a consumed attempt back with its clock: an outcome decided in 2099 is invalid (STAGE_ORDER); decided just past the deadline, it is not', async (t) => {
  const f = await fixture(t)
  const a = (await admit(f)).records.find(x => x.kind === 'attempt')
  assert.ok(a?.kind === 'attempt')
  const deadline = (JSON.parse(readFileSync(join(a.path, 'admission.json'), 'utf8')) as { deadline: string }).deadline
  // timed_out, decided by reproduce at or after the deadline: neither the deadline rule nor the
  // deciding record's applies, so only the reader's clock can find the year wrong.
  const codesAt = async (decidedAt: string): Promise<string[]> => {
    rmSync(join(a.path, 'outcome.json'), { force: true })
    writeOutcome(f.stateDir, a.path, a.key, 'reproduce', { outcome: 'timed_out', code: 'DEADLINE_PASSED', message: 'fixture' }, new Date(decidedAt), d => readOutcome(d, a.key))
    const s = await admit(f, 'status')
    assert.equal(s.exitCode, 0, s.stderr)
    const rec = s.records.find(x => x.kind === 'case-status')
    assert.ok(rec?.kind === 'case-status' && rec.status === 'consumed', JSON.stringify(rec))
    return rec.readback?.codes ?? []
  }
  // Positive control: unsealed, so invalid, but nothing about time.
  const control = await codesAt(new Date(Date.parse(deadline) + 1000).toISOString())
  assert.ok(control.includes('NOT_SEALED') && !control.includes('STAGE_ORDER'), control.join(', '))
  assert.ok((await codesAt('2099-01-01T00:00:00.000Z')).includes('STAGE_ORDER'))
})

test('an attempt that went on but lost its started.json stays consumed: status shows it invalid, admit run does not reuse its directory (NOTHING_ELIGIBLE, 1) and writes nothing', async (t) => {
  const f = await fixture(t)
  const dir = seal(f, await admit(f))
  assert.deepEqual(await statuses(f), [`${f.report.cases[0]?.id ?? ''}:consumed`])
  unlinkSync(join(dir, 'started.json'))
  const s = await admit(f, 'status')
  assert.equal(s.exitCode, 0, s.stderr)
  const rec = s.records.find(x => x.kind === 'case-status')
  assert.ok(rec?.kind === 'case-status')
  assert.deepEqual([rec.status, rec.outcome, rec.readback?.valid], ['consumed', 'not_reproduced', false])
  assert.ok(rec.readback?.codes?.includes('MISSING_STAGE_RECORD'), JSON.stringify(rec.readback))
  const before = snapshot(f.dir)
  const r = await admit(f)
  assertRefusedUntouched(r, 1, 'NOTHING_ELIGIBLE', f, before)
  // Positive control: with only what admit writes before started.json left, the case is not
  // consumed, and admit reuses the directory (the lock, stale only while outcome.json was there, removed too).
  for (const name of readdirSync(dir)) if (name !== 'admission.json' && name !== 'inputs') rmSync(join(dir, name), { recursive: true })
  rmSync(join(f.stateDir, 'lock'))
  await assertAdmitsNow(f)
  assert.ok(existsSync(join(dir, 'started.json')))
})
