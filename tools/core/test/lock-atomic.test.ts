// The lock (DESIGN §7) and atomic writes inside the state root.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs, { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import type { Lock } from '@repairline/schemas'
import { acquireLock, assertLockNames, readLock, releaseLock, writeFileAtomic, writeJsonAtomic, ensureDir, isLockStale } from '../src/index.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

const T0 = new Date('2026-11-30T10:00:00.000Z')
const at = (s: number): Date => new Date(T0.getTime() + s * 1000)

function lockFor (root: string, n: number, deadline: Date): Lock {
  const key = String(n).repeat(64).slice(0, 64).replace(/[^0-9a-f]/g, 'a')
  return { v: 1, attempt_key: key, attempt_dir: join(root, 'attempts', key.slice(0, 16)), deadline: deadline.toISOString() }
}

test('one holder at a time; a live lock is never broken before deadline + 30 s', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  const b = lockFor(root, 2, at(500))
  assert.deepEqual(acquireLock(root, a, T0), { acquired: true })
  for (const now of [at(0), at(120), at(150)]) {
    const r = acquireLock(root, b, now)
    assert.equal(r.acquired, false, `broken at ${now.toISOString()}`)
  }
  assert.deepEqual(readLock(root), a)
  assert.doesNotThrow(() => assertLockNames(root, a.attempt_key, a.attempt_dir))
  assert.throws(() => assertLockNames(root, b.attempt_key, b.attempt_dir), { code: 'LOCK_LOST' })
})

test('a lock past deadline + 30 s is broken by renaming it aside and reported', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  const b = lockFor(root, 2, at(500))
  acquireLock(root, a, T0)
  assert.equal(isLockStale(a, at(150)), false)
  assert.equal(isLockStale(a, at(151)), true)
  const r = acquireLock(root, b, at(151))
  assert.deepEqual(r, { acquired: true, broken: a })
  assert.deepEqual(readLock(root), b)
  const graves = readdirSync(root).filter(n => n.startsWith('lock.broken.'))
  assert.equal(graves.length, 1)
  assert.deepEqual(JSON.parse(readFileSync(join(root, graves[0] ?? ''), 'utf8')), a)
  assert.throws(() => assertLockNames(root, a.attempt_key, a.attempt_dir), { code: 'LOCK_LOST' })
})

test('a lock whose attempt has outcome.json is stale at once', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  mkdirSync(a.attempt_dir, { recursive: true })
  acquireLock(root, a, T0)
  writeFileSync(join(a.attempt_dir, 'outcome.json'), '{}')
  const r = acquireLock(root, lockFor(root, 2, at(500)), at(1))
  assert.equal(r.acquired, true)
})

test('release removes only a lock that names the releasing attempt', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  acquireLock(root, a, T0)
  assert.equal(releaseLock(root, 'b'.repeat(64), a.attempt_dir), false)
  assert.ok(existsSync(join(root, 'lock')))
  assert.equal(releaseLock(root, a.attempt_key, a.attempt_dir), true)
  assert.equal(existsSync(join(root, 'lock')), false)
})

test('the lock names one directory by any path to it: a symlinked path is held and released; another directory, or one that no longer resolves, is LOCK_LOST and not released', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  mkdirSync(a.attempt_dir, { recursive: true })
  acquireLock(root, a, T0)
  const link = join(tempDir(t), 'link')
  symlinkSync(root, link)
  const via = join(link, 'attempts', a.attempt_key.slice(0, 16))
  assert.doesNotThrow(() => assertLockNames(root, a.attempt_key, via))
  assert.doesNotThrow(() => assertLockNames(link, a.attempt_key, via))
  const other = join(root, 'attempts', 'ffffffffffffffff')
  mkdirSync(other)
  assert.throws(() => assertLockNames(root, a.attempt_key, other), { code: 'LOCK_LOST', message: /names this attempt at/ })
  assert.throws(() => assertLockNames(root, a.attempt_key, join(root, 'attempts', 'missing')), { code: 'LOCK_LOST' })
  assert.equal(releaseLock(root, a.attempt_key, other), false)
  assert.ok(existsSync(join(root, 'lock')))
  assert.equal(releaseLock(link, a.attempt_key, via), true)
  assert.equal(existsSync(join(root, 'lock')), false)
})

test('release races a breaker: a lock taken away between its read and its rename releases nothing and does not throw', (t) => {
  const root = tempDir(t)
  const a = lockFor(root, 1, at(120))
  acquireLock(root, a, T0)
  // The breaker (a later admit) renames the lock aside at the last moment before ours.
  const original = fs.renameSync
  let raced = false
  fs.renameSync = (from: fs.PathLike, to: fs.PathLike): void => {
    fs.renameSync = original
    syncBuiltinESMExports()
    original(join(root, 'lock'), join(root, 'lock.broken.race'))
    raced = true
    original(from, to)
  }
  syncBuiltinESMExports()
  try {
    assert.equal(releaseLock(root, a.attempt_key, a.attempt_dir), false)
  } finally {
    fs.renameSync = original
    syncBuiltinESMExports()
  }
  assert.ok(raced)
  assert.deepEqual(readdirSync(root).sort(), ['lock.broken.race'], 'the breaker\'s file is untouched and no release temp is left')
  // Positive control: without the breaker the same release succeeds.
  acquireLock(root, a, T0)
  assert.equal(releaseLock(root, a.attempt_key, a.attempt_dir), true)
})

test('atomic writes refuse a symlinked directory, a foreign owner and a planted symlink target', (t) => {
  const root = tempDir(t)
  mkdirSync(join(root, 'real'))
  symlinkSync(join(root, 'real'), join(root, 'link'))
  assert.throws(() => writeFileAtomic(join(root, 'link', 'x.json'), '{}', { stateRoot: root }), { code: 'STATE_UNSAFE' })
  assert.equal(existsSync(join(root, 'real', 'x.json')), false)
  // positive control: the same write into the real directory works
  assert.equal(writeFileAtomic(join(root, 'real', 'x.json'), '{}', { stateRoot: root }), true)

  symlinkSync('/etc/passwd', join(root, 'real', 'y.json'))
  assert.throws(() => writeFileAtomic(join(root, 'real', 'y.json'), '{}', { stateRoot: root }), { code: 'STATE_UNSAFE' })
  assert.notEqual(readFileSync('/etc/passwd', 'utf8'), '{}')

  if (process.geteuid?.() === 0) {
    mkdirSync(join(root, 'foreign'))
    chownSync(join(root, 'foreign'), 65534, 65534)
    assert.throws(() => writeFileAtomic(join(root, 'foreign', 'z.json'), '{}', { stateRoot: root }), { code: 'STATE_UNSAFE' })
    assert.equal(existsSync(join(root, 'foreign', 'z.json')), false)
  }
})

test('exclusive writes never replace; an invalid document is never written; no temp files remain', (t) => {
  const root = tempDir(t)
  ensureDir(root, join(root, 'a'), 0o711)
  const p = join(root, 'a', 'started.json')
  const doc = { v: 1 as const, attempt_key: 'a'.repeat(64), started_at: T0.toISOString() }
  assert.equal(writeJsonAtomic('started', p, doc, { stateRoot: root, exclusive: true }), true)
  assert.equal(writeJsonAtomic('started', p, { ...doc, started_at: at(5).toISOString() }, { stateRoot: root, exclusive: true }), false)
  assert.equal(JSON.parse(readFileSync(p, 'utf8')).started_at, T0.toISOString())
  assert.throws(() => writeJsonAtomic('started', join(root, 'a', 'bad.json'), { v: 2 } as never, { stateRoot: root }), { code: 'INTERNAL' })
  assert.deepEqual(readdirSync(join(root, 'a')), ['started.json'])
})
