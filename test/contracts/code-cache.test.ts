// The code cache a step starts from (tools/core/src/launch.ts): made at build time for each
// tool's CommonJS bundle, accepted by a plain node as the driver starts it, and never able to
// change what runs. A cache whose header does not name the exact bundle text is not used (V8
// itself checks only the text's length: the control shows a same-length edit would run the
// old code), and a missing or V8-rejected cache only costs time.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { parseRecordLine, TOOL_NAMES as TOOLS } from '@repairline/core'
import { BASE_ENV, ROOT } from '../helpers/bin.ts'
import { tempDir } from '../helpers/tmp.ts'

/** What a fresh node (optionally with extra V8 flags) makes of a bundle's cache. */
async function probe (dist: string, tool: string, nodeFlags: string[] = []): Promise<string> {
  const code = `import { probeCodeCache } from ${JSON.stringify(pathToFileURL(join(dist, 'launch.mjs')).href)}; process.stdout.write(probeCodeCache(${JSON.stringify(join(dist, `${tool}.cjs`))}))`
  const r = await execa(process.execPath, [...nodeFlags, '--input-type=module', '-e', code], { env: BASE_ENV, extendEnv: false, reject: false })
  assert.equal(r.exitCode, 0, r.stderr)
  return r.stdout
}

/** A copy of receipt's bin and dist, to edit; and an empty state root to read back. */
function receiptCopy (t: Parameters<typeof tempDir>[0]): { dir: string, dist: string, bundle: string, stateDir: string } {
  const dir = tempDir(t, 'rl-cache-')
  for (const part of ['bin', 'dist']) cpSync(join(ROOT, 'tools', 'receipt', part), join(dir, part), { recursive: true })
  const stateDir = join(dir, 'state')
  mkdirSync(join(stateDir, 'attempts'), { recursive: true })
  return { dir, dist: join(dir, 'dist'), bundle: join(dir, 'dist', 'receipt.cjs'), stateDir }
}

async function readbackStderr (dir: string, stateDir: string, nodeFlags: string[] = []): Promise<string> {
  const r = await execa(process.execPath, [...nodeFlags, join(dir, 'bin', 'receipt.js'), 'readback', '--state-dir', stateDir], { env: BASE_ENV, extendEnv: false, reject: false, stripFinalNewline: false })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.match(r.stdout, /"kind":"result","tool":"receipt","exit":0/)
  return r.stderr
}

/** The bundle with its summary line reworded, the text's length unchanged. */
function reword (bundle: string): void {
  const text = readFileSync(bundle, 'utf8')
  assert.equal(text.split('receipt: read back ').length, 2, 'the summary line is in the bundle once')
  writeFileSync(bundle, text.replace('receipt: read back ', 'receipt: READ back '))
}

for (const tool of TOOLS) {
  test(`${tool}: the built code cache names its bundle and a plain node accepts it`, async () => {
    assert.equal(await probe(join(ROOT, 'tools', tool, 'dist'), tool), 'used')
  })
}

test('a cache made for other text is not used, and the edited text runs; control: with a forged header V8 runs the old code', async t => {
  const c = receiptCopy(t)
  assert.equal(await readbackStderr(c.dir, c.stateDir), 'receipt: read back 0 attempts, 0 invalid\n')
  reword(c.bundle)
  assert.equal(await probe(c.dist, 'receipt'), 'stale')
  assert.equal(await readbackStderr(c.dir, c.stateDir), 'receipt: READ back 0 attempts, 0 invalid\n')
  // The header is the defense: name the edited text in it and V8 takes the cache whole.
  const cacheFile = `${c.bundle}.v8cache`
  const cache = readFileSync(cacheFile)
  writeFileSync(cacheFile, Buffer.concat([createHash('sha256').update(readFileSync(c.bundle)).digest(), cache.subarray(32)]))
  assert.equal(await probe(c.dist, 'receipt'), 'used')
  assert.equal(await readbackStderr(c.dir, c.stateDir), 'receipt: read back 0 attempts, 0 invalid\n')
})

test('a missing cache, or one V8 rejects (other flags), only costs time: the step runs from its text', async t => {
  const c = receiptCopy(t)
  assert.equal(await probe(c.dist, 'receipt', ['--no-opt']), 'rejected_by_v8')
  assert.equal(await readbackStderr(c.dir, c.stateDir, ['--no-opt']), 'receipt: read back 0 attempts, 0 invalid\n')
  rmSync(`${c.bundle}.v8cache`)
  assert.equal(await probe(c.dist, 'receipt'), 'missing')
  assert.equal(await readbackStderr(c.dir, c.stateDir), 'receipt: read back 0 attempts, 0 invalid\n')
})

test('--help comes from the ESM entry, not the step bundle', async t => {
  const c = receiptCopy(t)
  rmSync(c.bundle)
  const r = await execa(process.execPath, [join(c.dir, 'bin', 'receipt.js'), '--help'], { env: BASE_ENV, extendEnv: false, reject: false })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.match(r.stdout, /receipt readback/)
  // Control: a step needs the bundle just removed, and says so in one line.
  const step = await execa(process.execPath, [join(c.dir, 'bin', 'receipt.js'), 'readback', '--state-dir', c.stateDir], { env: BASE_ENV, extendEnv: false, reject: false })
  assert.equal(step.exitCode, 70)
  assert.equal(step.stderr, `receipt: INTERNAL: ${c.bundle} is missing\nreceipt: hint: run pnpm build`)
  assert.deepEqual(step.stdout.split('\n').map((l, i) => parseRecordLine(l, `stdout:${i + 1}`).kind), ['start', 'error', 'result'])
})
