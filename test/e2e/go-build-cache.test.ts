// The driver with runner.go_build_cache: both runs of the attempt show the operator's build
// cache beneath their private GOCACHE (baseline.json and verify.json say overlay and name it),
// and the baseline is warm: built at the checkout's path from a cache the operator warmed
// there, it writes less into its private layer than the same attempt without the cache (the
// control, which says it ran cold). The operator's cache is never written.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readbackAttempt, run } from '@repairline/core'
import { rewriteConfig } from '../helpers/fixture.ts'
import { GO_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../helpers/chain.ts'
import { sandboxTemp } from '../helpers/sandbox.ts'

const p: Provider = await startProvider({ after })
p.server.proposals.set('go-fix', GO_FIX_PROPOSAL)

interface GoCacheField { seeded_from?: string, method?: string, files: number, bytes: number, note?: string }
const goCacheOf = (dir: string, file: string): GoCacheField => (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { go_cache: GoCacheField }).go_cache

/** Every file under `dir` with its size and mtime: the operator's cache, before and after. */
function listing (dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name)
    const s = statSync(p)
    out.push(`${p} ${s.size} ${s.mtimeMs}`)
  }
  return out.sort()
}

test('driver: with go_build_cache the attempt runs warm over the operator\'s cache (baseline.json and verify.json: overlay, seeded_from) and leaves it untouched; without it the same attempt runs cold and says so', async t => {
  const warm = await chainFixture(t, p, 'proposal/go-fix')
  // The operator warms a cache for this project by building the checkout where it lies.
  const cache = join(sandboxTemp(t), 'go-build')
  mkdirSync(cache, { mode: 0o755 })
  const go = await run('/usr/bin/go', ['test', '-count=1', '.'], { cwd: warm.repo, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', GOCACHE: cache, GOPATH: join(cache, '..', 'gopath'), GOPROXY: 'off', GOFLAGS: '', GOTOOLCHAIN: 'local', GOWORK: 'off', GOENV: 'off' } })
  assert.equal(go.exitCode, 1, go.stderr.toString())
  rewriteConfig(warm, c => { c.runner = { kind: 'go', package_roots: ['.'], go_build_cache: cache } })
  const before = listing(cache)
  const r = await driveChain(warm)
  assert.equal(r.exit, 0, r.stderr)
  assert.equal(r.outcome?.outcome, 'scoped_test_verified', r.stderr)
  const dir = r.attemptDir ?? ''
  const baseline = goCacheOf(dir, 'baseline.json')
  const candidate = goCacheOf(dir, 'verify.json')
  for (const g of [baseline, candidate]) {
    assert.equal(g.method, 'overlay', JSON.stringify(g))
    assert.equal(g.seeded_from, cache)
    assert.equal(g.note, undefined)
  }
  assert.deepEqual(listing(cache), before, 'the operator\'s cache is never written')
  assert.deepEqual(readdirSync(join(dir, 'work')).filter(n => n.endsWith('-run')), [], 'both runs\' scratch is removed')
  assert.equal((await readbackAttempt(dir)).valid, true)

  // Control: the same attempt without go_build_cache runs cold and writes more.
  const cold = await chainFixture(t, p, 'proposal/go-fix')
  const c = await driveChain(cold)
  assert.equal(c.outcome?.outcome, 'scoped_test_verified', c.stderr)
  const coldBaseline = goCacheOf(c.attemptDir ?? '', 'baseline.json')
  assert.equal(coldBaseline.method, undefined)
  assert.equal(coldBaseline.seeded_from, undefined)
  assert.equal(coldBaseline.note, 'cold: no runner.go_build_cache configured')
  assert.ok(baseline.bytes < coldBaseline.bytes, `warm wrote ${baseline.bytes} bytes, cold ${coldBaseline.bytes}`)
})
