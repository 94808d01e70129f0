// The attempt's test-run spec and events file, shared by reproduce and verify: the budget is
// the time left until the deadline less the write margin (never below 1 ms), the config's
// runner, packages and mounts pass through unchanged, the state root is sampled, and the
// events file is one JSON line per event with the digest its summary records.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission, ExecutionConfig, TestEvent } from '@repairline/schemas'
import { attemptTestRunSpec, testEventsBytes, writeTestEvents, WRITE_MARGIN_MS, type Attempt } from '../src/index.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

function attemptWith (runner: ExecutionConfig['runner'], deadline: string, stateRoot = '/srv/rl/state'): Attempt {
  const config = { runner, source_root: '/srv/src/calc', test_packages: ['./internal/calc', '.'] } as unknown as ExecutionConfig
  const admission = { deadline } as unknown as Admission
  return { dir: join(stateRoot, 'attempts', 'a'.repeat(16)), stateRoot, key: 'a'.repeat(64), admission, config }
}

test('the spec: time left less the write margin, the config\'s runner, packages and mounts, the tree at source_root\'s path, the state root sampled', () => {
  const a = attemptWith({ kind: 'go', go_mod_cache: '/srv/gomod' }, '2026-11-30T12:01:00.000Z')
  const s = attemptTestRunSpec(a, { tree: '/t', scratch: '/s', now: new Date('2026-11-30T12:00:00.000Z') })
  assert.deepEqual(s, { runner: 'go', tree: '/t', mountPoint: '/srv/src/calc', testPackages: ['./internal/calc', '.'], scratch: '/s', timeoutMs: 60_000 - WRITE_MARGIN_MS, diskPaths: ['/srv/rl/state'], goModCache: '/srv/gomod' })
  const n = attemptTestRunSpec(attemptWith({ kind: 'node', dependency_dir: '/srv/node_modules' }, '2026-11-30T12:00:00.500Z'), { tree: '/t', scratch: '/s', now: new Date('2026-11-30T12:00:00.000Z') })
  assert.equal(n.timeoutMs, 1, 'never below 1 ms')
  assert.equal(n.dependencyDir, '/srv/node_modules')
  assert.equal(n.goModCache, undefined)
})

test('the events file: one JSON line per event; its digest is what the summary records', (t) => {
  const dir = tempDir(t)
  const events: TestEvent[] = [{ Action: 'run', Package: 'p', Test: 'TestA' }, { Action: 'output', Package: 'p', Test: 'TestA', Output: 'héllo\n' }, { Action: 'pass', Package: 'p', Test: 'TestA', Elapsed: 0.01 }]
  const bytes = testEventsBytes(events)
  assert.equal(bytes.toString(), events.map(e => JSON.stringify(e) + '\n').join(''))
  const d = writeTestEvents(join(dir, 'x.events.ndjson'), events, dir)
  const onDisk = readFileSync(join(dir, 'x.events.ndjson'))
  assert.deepEqual(d, { count: 3, bytes: onDisk.length, sha256: createHash('sha256').update(onDisk).digest('hex') })
  assert.deepEqual(writeTestEvents(join(dir, 'empty.ndjson'), [], dir), { count: 0, bytes: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' })
})
