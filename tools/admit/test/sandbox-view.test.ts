// A checkout or state root the sandbox would show to the tests (DESIGN §11: /usr, the loader
// paths, the toolchain and the work tree, nothing else). A checkout in /usr/local/src was
// visible inside the sandbox at its own path, ignored files such as .env included, and a test
// could send what it read to the provider through its failing name. Each refusal asserts the
// exact code and field, and that nothing was written or consumed; the positive control admits
// the same repository outside those directories.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { isToolError, sandboxSystemDirs } from '@repairline/core'
import type { ExecutionConfig } from '@repairline/schemas'
import { rewriteConfig } from '../../../test/helpers/fixture.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { checkOutsideSandboxView } from '../src/rules/paths.ts'
import { admit, assertRefused, fixture } from './helpers.ts'

/** The code and JSON pointer checkOutsideSandboxView throws for `config`, or 'ok'. */
function verdict (config: ExecutionConfig, systemDirs: readonly string[]): string {
  try {
    checkOutsideSandboxView(config, systemDirs)
    return 'ok'
  } catch (e) {
    if (!isToolError(e)) throw e
    return `${e.code} ${e.path ?? ''}`
  }
}

test('the rule: source_root or state_dir inside a directory the sandbox shows, or holding one, is refused by real path; beside them it passes', async t => {
  const f = await fixture(t, { runner: 'node' })
  // A directory standing for /usr (or GOROOT): one the sandbox shows at its own path.
  const shown = join(tempDir(t), 'usr')
  mkdirSync(join(shown, 'local', 'src'), { recursive: true })
  const repoIn = join(shown, 'local', 'src', 'repo')
  cpSync(f.repo, repoIn, { recursive: true })
  const link = join(f.dir, 'link-to-src')
  symlinkSync(join(shown, 'local', 'src'), link)
  let config = structuredClone(f.config)
  const set = (c: Partial<ExecutionConfig>): void => { config = { ...config, ...c } }
  const repo = f.repo
  const state = f.stateDir

  assert.equal(verdict(config, [shown]), 'ok', 'the fixture itself is outside')
  set({ source_root: repoIn })
  assert.equal(verdict(config, [shown]), 'CONFIG_INVALID /source_root')
  set({ source_root: join(link, 'repo') })
  assert.equal(verdict(config, [shown]), 'CONFIG_INVALID /source_root', 'through a symlink')
  set({ source_root: repo, state_dir: join(shown, 'local', 'state') })
  assert.equal(verdict(config, [shown]), 'STATE_DIR_INVALID /state_dir', 'a state_dir not created yet')
  set({ state_dir: state })
  // Holding one: the checkout (or state root) above a directory the sandbox shows.
  assert.equal(verdict(config, [join(repo, 'tools')]), 'CONFIG_INVALID /source_root')
  assert.equal(verdict(config, [join(state, 'node')]), 'STATE_DIR_INVALID /state_dir')
  // A configured mount may lie in the checkout (its own node_modules), never hold it.
  mkdirSync(join(repo, 'node_modules'))
  set({ runner: { kind: 'node', dependency_dir: join(repo, 'node_modules') } })
  assert.equal(verdict(config, [shown]), 'ok')
  set({ runner: { kind: 'node', dependency_dir: f.dir } })
  assert.equal(verdict(config, [shown]), 'CONFIG_INVALID /source_root')
})

/** A fresh directory under /usr (removed when the test ends), or undefined when we may not write there. */
function usrDir (t: { after: (fn: () => void) => void }): string | undefined {
  if (process.geteuid?.() !== 0) return undefined
  const parent = existsSync('/usr/local/src') ? '/usr/local/src' : '/usr/local'
  const dir = mkdtempSync(join(parent, 'rl-admit-view-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('admit refuses a checkout under /usr (CONFIG_INVALID at /source_root) and a state_dir under /usr (STATE_DIR_INVALID at /state_dir) before anything is written; outside /usr the same repository is admitted', async t => {
  const usr = usrDir(t)
  if (usr === undefined) { t.skip('needs root: the only directory every host\'s sandbox shows is /usr, writable by root alone'); return }
  assert.ok(sandboxSystemDirs('node').includes('/usr'))
  const f = await fixture(t, { runner: 'node' })
  const repoIn = join(usr, 'repo')
  cpSync(f.repo, repoIn, { recursive: true })
  const repo = f.repo

  rewriteConfig(f, c => ({ ...c, source_root: repoIn }))
  const r = await admit(f)
  assertRefused(r, 78, 'CONFIG_INVALID', f, '/source_root')
  assert.match(r.stderr, /source_root \/usr\/\S+ is inside \/usr, which the sandbox shows to the tests/)

  const stateIn = join(usr, 'state')
  rewriteConfig(f, c => ({ ...c, source_root: repo, state_dir: stateIn }))
  const s = await admit(f)
  assertRefused(s, 78, 'STATE_DIR_INVALID', f, '/state_dir')
  assert.equal(existsSync(stateIn), false, 'the state dir under /usr was created')
  assert.deepEqual(readdirSync(usr), ['repo'])

  // Positive control: the same repository and state root outside /usr are admitted.
  rewriteConfig(f, c => ({ ...c, source_root: repo, state_dir: f.stateDir }))
  const ok = await admit(f)
  assert.equal(ok.exitCode, 0, ok.stderr)
})
