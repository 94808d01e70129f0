// runner.go_build_cache: the operator's build cache, shown to the tests beneath each run's
// private GOCACHE. admit refuses one the sandbox user cannot reach through its whole path
// (its contents would be shown to sandboxed code that the operator's uid 65534 could not
// read), one that is not a directory, and one on the node runner; each with its positive
// control.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { rewriteConfig } from '../../../test/helpers/fixture.ts'
import { admit, assertRefused, fixture } from './helpers.ts'

test('go_build_cache under an ancestor uid 65534 cannot search (root\'s 0700 home) is refused (MOUNT_UNREADABLE, 78) with a hint that its contents become readable to the tests; searchable, it is admitted', async t => {
  const f = await fixture(t)
  const home = join(f.dir, 'home')
  const cache = join(home, '.cache', 'go-build')
  mkdirSync(cache, { recursive: true })
  chmodSync(join(home, '.cache'), 0o755)
  chmodSync(cache, 0o755)
  chmodSync(home, 0o700)
  rewriteConfig(f, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: cache } })
  const r = await admit(f)
  assertRefused(r, 78, 'MOUNT_UNREADABLE', f, '/runner/go_build_cache')
  assert.match(r.stderr, new RegExp(`runner\\.go_build_cache ${cache} has an ancestor ${home} that uid 65534 cannot search`))
  assert.match(r.stderr, /hint: .*the tests can read everything in it/)
  chmodSync(home, 0o711)
  const ok = await admit(f)
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('go_build_cache that is not a directory is refused (MOUNT_UNREADABLE, 78); a directory is admitted', async t => {
  const f = await fixture(t)
  const file = join(f.dir, 'cache-file')
  writeFileSync(file, 'x')
  rewriteConfig(f, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: file } })
  const r = await admit(f)
  assertRefused(r, 78, 'MOUNT_UNREADABLE', f, '/runner/go_build_cache')
  assert.match(r.stderr, /is not a directory/)
  const dir = join(f.dir, 'cache-dir')
  mkdirSync(dir, { mode: 0o755 })
  chmodSync(dir, 0o755)
  rewriteConfig(f, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: dir } })
  const ok = await admit(f)
  assert.equal(ok.exitCode, 0, ok.stderr)
})

test('go_build_cache on the node runner, or relative, is refused (CONFIG_INVALID, 78)', async t => {
  const n = await fixture(t, { runner: 'node' })
  rewriteConfig(n, c => { c.runner = { kind: 'node', go_build_cache: n.dir } })
  assertRefused(await admit(n), 78, 'CONFIG_INVALID', n, '/runner/go_build_cache')
  const g = await fixture(t)
  rewriteConfig(g, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: 'cache/go-build' } })
  assertRefused(await admit(g), 78, 'CONFIG_INVALID', g, '/runner/go_build_cache')
})
