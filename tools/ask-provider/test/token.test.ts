// threat-matrix group C (secrets): the pinned token helper (C1 the bytes executed are the
// bytes hashed, C2 mismatch/missing/non-executable/symlink, C3 hostile helper output), C5 a
// server that echoes the Authorization header, and C4 throughout: the canary is in no
// retained byte, record or stderr line. (C6 and C7 are in cli.test.ts.)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { execa } from 'execa'
import type { ExecutionConfig } from '@repairline/schemas'
import { isUnicodeText, parseJsonBytes, sha256File } from '@repairline/core'
import { readToken } from '../src/rules/token-helper.ts'
import { DEFAULT_LIMITS } from '../src/limits.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import { BASE_ENV, binPath, runBin } from '../../../test/helpers/bin.ts'
import { assertNoCanary, decodedStrings, leniently, scanBytes } from '../../../test/helpers/canary.ts'
import { ask, askInProcess, assertNoLeak, assertOutcome, attemptFiles, hits, outcomeOf, prepare, readJson, startServer } from './helpers.ts'
import { completedBody } from '../../../test/helpers/responses-server.ts'

function configFor (helper: string): ExecutionConfig {
  return { provider: { token_command: helper, token_command_sha256: sha256File(helper).sha256 } } as unknown as ExecutionConfig
}

function writeHelper (dir: string, name: string, source: string): string {
  const p = join(dir, name)
  writeFileSync(p, source)
  chmodSync(p, 0o755)
  return p
}

async function tokenCode (helper: string, limits = {}): Promise<string> {
  try {
    await readToken(configFor(helper), { ...DEFAULT_LIMITS, ...limits })
    return 'ok'
  } catch (e) {
    return `${(e as { code?: string }).code ?? '?'}: ${(e as Error).message}`
  }
}

test('C3: the helper prints exactly one printable line; anything else is TOKEN_HELPER_FAILED, bounded and timed', async t => {
  const dir = tempDir(t)
  const cases: Array<[string, string, RegExp, object?]> = [
    ['empty', '#!/bin/sh\nexit 0\n', /printed no token/],
    ['only a newline', "#!/bin/sh\nprintf '\\n'\n", /printed no token/],
    ['two lines', "#!/bin/sh\nprintf 'a\\nb\\n'\n", /more than one line/],
    ['a space', "#!/bin/sh\nprintf 'sk abc\\n'\n", /not printable ASCII/],
    ['CRLF', "#!/bin/sh\nprintf 'sk-abc\\r\\n'\n", /not printable ASCII/],
    ['a control byte', "#!/bin/sh\nprintf 'sk\\001abc\\n'\n", /not printable ASCII/],
    ['non-ASCII', "#!/bin/sh\nprintf 'sk-\\303\\251\\n'\n", /not printable ASCII/],
    ['over 64 KiB', `#!${process.execPath}\nprocess.stdout.write('x'.repeat(70000) + '\\n')\n`, /more than 65536 bytes/],
    ['slow', '#!/bin/sh\n/bin/sleep 5\nprintf tok\n', /did not finish within 300 ms/, { tokenTimeoutMs: 300 }],
    ['a failing exit', "#!/bin/sh\nprintf 'tok\\n'\nexit 3\n", /exited with 3/],
    ['a missing interpreter', '#!/nonexistent/interpreter\n', /could not be started/],
    // Shorter than any form redaction can tell apart from text (MIN_SECRET_CHARS).
    ['seven characters', "#!/bin/sh\nprintf 'sk-abcd\\n'\n", /printed a token of 7 characters; at least 8 are needed/],
  ]
  for (const [name, source, want, limits] of cases) {
    const got = await tokenCode(writeHelper(dir, name.replace(/\W+/g, '-'), source), limits)
    assert.match(got, /^TOKEN_HELPER_FAILED: /, `${name}: ${got}`)
    assert.match(got, want, name)
  }
  // Positive controls: one line with or without its newline (eight characters, the shortest
  // token taken); the helper's stderr is ignored.
  assert.equal(await readToken(configFor(writeHelper(dir, 'ok', "#!/bin/sh\nprintf 'sk-abcde\\n'\necho noise >&2\n")), DEFAULT_LIMITS), 'sk-abcde')
  assert.equal(await readToken(configFor(writeHelper(dir, 'ok2', "#!/bin/sh\nprintf 'sk-abcde'\n")), DEFAULT_LIMITS), 'sk-abcde')
})

test('C3: the helper runs with an empty environment, from a private copy that is removed', async t => {
  const dir = tempDir(t)
  const tmp = join(dir, 'tmp')
  mkdirSync(tmp)
  const saved = process.env.TMPDIR
  process.env.TMPDIR = tmp
  process.env.RL_SECRET_SHOULD_NOT_PASS = 'x'
  try {
    const helper = writeHelper(dir, 'envcount', `#!${process.execPath}\nprocess.stdout.write('envcount-' + String(Object.keys(process.env).length) + '-' + __filename.startsWith(${JSON.stringify(tmp)}) + '\\n')\n`)
    assert.equal(await readToken(configFor(helper), DEFAULT_LIMITS), 'envcount-0-true')
    assert.deepEqual(readdirSync(tmp), [], 'the copy and its directory are removed')
  } finally {
    delete process.env.RL_SECRET_SHOULD_NOT_PASS
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved
  }
})

test('C3: ask-provider interrupted while its helper runs leaves no copy of the helper (which holds the canary here); one killed outright leaves it only until the next helper run', async t => {
  const server = await startServer(t)
  const dir = tempDir(t)
  const tmp = join(dir, 'tmp')
  mkdirSync(tmp)
  const marker = join(dir, 'helper-started')
  const p = await prepare(t, server, 'ok', { fixture: { tokenHelperSource: canary => `#!/bin/sh\n: > '${marker}'\n/bin/sleep 3\nprintf '%s\\n' '${canary}'\n` } })
  const interrupt = async (signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    rmSync(marker, { force: true })
    const child = execa(binPath('ask-provider'), ['--attempt', p.a.dir], { env: { ...BASE_ENV, TMPDIR: tmp }, extendEnv: false, reject: false })
    for (let waited = 0; !existsSync(marker) && waited < 30_000; waited += 20) await new Promise(resolve => setTimeout(resolve, 20))
    assert.ok(existsSync(marker), 'the helper was running when the step was stopped')
    assert.equal(readdirSync(tmp).length, 1, 'the copy exists while the helper runs')
    child.kill(signal)
    const r = await child
    assert.equal(r.signal, signal, 'the step still ends by the signal')
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    await interrupt(signal)
    assert.deepEqual(readdirSync(tmp), [], `no copy is left after ${signal}`)
  }
  await interrupt('SIGKILL')
  assert.equal(readdirSync(tmp).length, 1, 'nothing can clean up after SIGKILL')
  // The next helper run removes it (its pid is gone) and leaves nothing of its own.
  const saved = process.env.TMPDIR
  process.env.TMPDIR = tmp
  try {
    assert.equal(await readToken(configFor(writeHelper(dir, 'quick2', "#!/bin/sh\nprintf 'sk-abcdef\\n'\n")), DEFAULT_LIMITS), 'sk-abcdef')
  } finally {
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved
  }
  assert.deepEqual(readdirSync(tmp), [])
  assert.equal(hits(p), 0)
})

test('C1: a helper swapped while it is checked: the bytes run are always the bytes hashed', async t => {
  const dir = tempDir(t)
  // The good helper prints the sha256 of the file it runs from; the evil one prints "evil".
  const good = writeHelper(dir, 'good', '#!/bin/sh\nset -- $(/usr/bin/sha256sum "$0")\nprintf \'%s\\n\' "$1"\n')
  const evil = writeHelper(dir, 'evil', "#!/bin/sh\nprintf 'evil\\n'\n")
  const helper = join(dir, 'helper')
  copyFileSync(good, helper)
  chmodSync(helper, 0o755)
  const pinned = sha256File(good).sha256
  const config = { provider: { token_command: helper, token_command_sha256: pinned } } as unknown as ExecutionConfig
  const swapper = execa(process.execPath, ['-e', `
    const fs = require('node:fs'); const [good, evil, helper] = process.argv.slice(1)
    for (let i = 0; ; i++) { const src = i % 2 ? evil : good; fs.copyFileSync(src, helper + '.next'); fs.chmodSync(helper + '.next', 0o755); fs.renameSync(helper + '.next', helper) }
  `, good, evil, helper], { env: BASE_ENV, extendEnv: false, reject: false })
  const seen = { ok: 0, refused: 0 }
  try {
    for (let i = 0; i < 80; i++) {
      try {
        const token = await readToken(config, DEFAULT_LIMITS)
        assert.equal(token, pinned, 'a token from bytes that were not hashed')
        seen.ok++
      } catch (e) {
        assert.equal((e as { code?: string }).code, 'TOKEN_HELPER_MISMATCH', (e as Error).message)
        seen.refused++
      }
    }
  } finally {
    swapper.kill('SIGKILL')
    await swapper
  }
  assert.ok(seen.ok > 0 && seen.refused > 0, `the race must go both ways to prove anything: ${JSON.stringify(seen)}`)
})

test('C2: a helper changed, missing, not executable or a symlink after admission is refused; nothing is sent', async t => {
  const server = await startServer(t)
  const breaks: Record<string, (helper: string, dir: string) => void> = {
    changed: h => writeFileSync(h, readFileSync(h, 'utf8') + '# one more line\n'),
    missing: h => unlinkSync(h),
    'not executable': h => chmodSync(h, 0o644),
    'a symlink to the same bytes': (h, dir) => {
      const real = join(dir, 'real-helper')
      copyFileSync(h, real)
      chmodSync(real, 0o755)
      unlinkSync(h)
      symlinkSync(real, h)
    },
  }
  for (const [name, breakIt] of Object.entries(breaks)) {
    const p = await prepare(t, server, 'ok')
    breakIt(p.f.tokenHelper, p.f.dir)
    const r = await askInProcess(p)
    const o = assertOutcome(p, r, 'provider_error', name === 'not executable' ? 'TOKEN_HELPER_NOT_EXECUTABLE' : 'TOKEN_HELPER_MISMATCH', { retryable: false })
    assert.ok(o.reason.message.length > 0, name)
    assert.equal(hits(p), 0, name)
    assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false, `${name}: no dispatch without a token`)
    assert.ok(attemptFiles(p).includes('request.json'))
  }
  // Positive control: the same preparation with the helper left alone sends.
  const intact = await prepare(t, server, 'ok')
  assert.equal((await askInProcess(intact)).exitCode, 0)
  assert.equal(hits(intact), 1)
  // Through the bin as well.
  const p = await prepare(t, server, 'ok')
  chmodSync(p.f.tokenHelper, 0o644)
  assertOutcome(p, await ask(p), 'provider_error', 'TOKEN_HELPER_NOT_EXECUTABLE', { retryable: false })
  assert.equal(hits(p), 0)
})

test('C3 through the bin: a helper that fails is provider_error (not retryable), and its stderr (holding the canary) is never shown', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { fixture: { tokenHelperSource: canary => `#!/bin/sh\necho "helper error for ${canary}" >&2\nexit 1\n` } })
  const r = await ask(p)
  assertOutcome(p, r, 'provider_error', 'TOKEN_HELPER_FAILED', { retryable: false })
  assert.equal(hits(p), 0)
})

test('C3 through the bin: a token too short to scan for (7 characters) is never sent, and an echo of it could not be kept', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok', { fixture: { tokenHelperSource: () => "#!/bin/sh\nprintf 'Zq7xK2p\\n'\n" } })
  const r = await ask(p)
  assertOutcome(p, r, 'provider_error', 'TOKEN_HELPER_FAILED', { retryable: false })
  assert.match(r.stderr, /printed a token of 7 characters/)
  assert.equal(hits(p), 0)
  assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false, 'nothing was dispatched')
})

test('C5: a server that echoes the Authorization header (raw, base64, hex, URL, reversed, double base64) is redacted before anything is kept', async t => {
  const server = await startServer(t)
  for (const [status, code, retryable] of [[401, 'PROVIDER_HTTP_ERROR', false], [500, 'PROVIDER_SERVER_ERROR', true]] as const) {
    const p = await prepare(t, server, `echo-auth/${status}`)
    const r = status === 401 ? await ask(p) : await askInProcess(p)
    const o = assertOutcome(p, r, 'provider_error', code, { retryable })
    assert.match(o.reason.message, /\[REDACTED\]/)
    const kept = readJson(p, 'response.json')
    assert.ok((kept.redactions as number) >= 8, `redactions: ${String(kept.redactions)}`)
    assert.match(String((kept.headers as Record<string, string>)['x-request-id']), /\[REDACTED\]/)
  }
  // A 2xx answer that echoed the token is redacted and kept, but never used.
  const p = await prepare(t, server, 'echo-auth/200')
  const r = await askInProcess(p)
  assertOutcome(p, r, 'provider_error', 'PROVIDER_ECHOED_TOKEN', { retryable: false })
  assert.match(String(readJson(p, 'response.json').body), /\[REDACTED\]/)
  assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false)
  // Positive control: the server really sent the token back, in every encoding.
  const sent = Buffer.concat(server.sent)
  const forms = new Set(scanBytes(sent, p.f.canary, 'sent').map(h => h.form))
  for (const f of ['raw', 'hex', 'reversed']) assert.ok(forms.has(f), `the echo did not carry the ${f} form`)
  assert.ok([...forms].some(f => f.startsWith('base64+')) && [...forms].some(f => f.startsWith('double-base64')))
})

test('C8 (the part ask-provider owns): the token never enters an environment, argv or file a later step could see', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'ok')
  const r = await askInProcess(p)
  assert.equal(r.exitCode, 0, r.stderr)
  assert.equal(hits(p), 1)
  const env = Object.entries(process.env).map(([k, v]) => `${k}=${v ?? ''}`).join('\n')
  assert.deepEqual(scanBytes(env, p.f.canary, 'process.env'), [])
  assert.deepEqual(scanBytes(process.argv.join('\n'), p.f.canary, 'argv'), [])
  // The attempt directory — what the sandbox of later steps mounts work trees from — holds no form of it.
  assertNoLeak(p)
})

/** `s` with its first character written as a JSON \\u escape: no byte form of the token. */
const firstEscaped = (s: string): string => `\\u${(s.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}${s.slice(1)}`

/** A completed body whose one message is a refusal. */
const refusalBody = (text: string): string => JSON.stringify(completedBody('')).replace('"output":[', `"output":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":${JSON.stringify(text)}}]},`)

/** The output_text parts of a body, joined: the answer a client reads. */
/** A completed answer whose proposal holds the token, cut after its fifth character into two output_text parts. */
function splitParts (proposal: string, canary: string): string {
  const text = proposal.replace(/"cause":"/, `"cause":"${canary} `)
  const at = text.indexOf(canary) + 5
  const b = completedBody(text) as { output: Array<{ content?: Array<Record<string, unknown>> }> }
  const msg = b.output[1]
  if (msg?.content === undefined) throw new Error('no message')
  msg.content = [{ type: 'output_text', text: text.slice(0, at), annotations: [] }, { type: 'output_text', text: text.slice(at), annotations: [] }]
  return JSON.stringify(b)
}

const answerText = (body: string): string => (JSON.parse(body) as { output: Array<{ content?: Array<{ text?: string }> }> }).output.flatMap(i => i.content ?? []).map(x => x.text ?? '').join('')

test('C5: the token behind a JSON escape, in mixed-case hex, across two output_text parts or inside the answer\'s own JSON reaches no file, record or stderr line', async t => {
  const server = await startServer(t)
  const proposal = JSON.stringify(server.proposal)
  const cases: Array<{ name: string, status: number, body: (canary: string) => string, code: string, decoded: (body: string, canary: string) => boolean }> = [
    {
      name: 'escaped-401',
      status: 401,
      body: c => `{"error":{"message":"Incorrect API key provided: ${firstEscaped(c)}","type":"invalid_request_error","code":"invalid_api_key"}}`,
      code: 'PROVIDER_HTTP_ERROR',
      decoded: (b, c) => decodedStrings(b).some(x => x.includes(c)),
    },
    {
      name: 'mixed-hex-401',
      status: 401,
      body: c => JSON.stringify({ error: { message: `key ${Buffer.from(c).toString('hex').replace(/[a-f]/, x => x.toUpperCase())}`, type: 'invalid_request_error', code: null } }),
      code: 'PROVIDER_HTTP_ERROR',
      decoded: (b, c) => b.toLowerCase().includes(Buffer.from(c).toString('hex')),
    },
    {
      name: 'escaped-refusal',
      status: 200,
      body: c => refusalBody('no, PLACEHOLDER').replace('PLACEHOLDER', firstEscaped(c)),
      code: 'PROVIDER_REFUSAL',
      decoded: (b, c) => decodedStrings(b).some(x => x.includes(c)),
    },
    {
      name: 'escaped-model',
      status: 200,
      body: c => JSON.stringify(completedBody(proposal, { model: 'PLACEHOLDER' })).replace('PLACEHOLDER', firstEscaped(c)),
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => decodedStrings(b).some(x => x.includes(c)),
    },
    {
      name: 'split-parts',
      status: 200,
      body: c => splitParts(proposal, c),
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => answerText(b).includes(c),
    },
    // The same split in a body that is not strict JSON (a duplicate key) or nests past the
    // bound: refused unparsed by the answer's reader, but a forgiving reader joins its parts.
    {
      name: 'split-parts-duplicate-key',
      status: 200,
      body: c => splitParts(proposal, c).replace('{"id":', '{"id":"resp_dup","id":'),
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => answerText(b).includes(c),
    },
    {
      name: 'split-parts-deep',
      status: 200,
      body: c => splitParts(proposal, c).replace('{"id":', `{"metadata":{"x":${'['.repeat(70)}${']'.repeat(70)}},"id":`),
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => answerText(b).includes(c),
    },
    {
      name: 'escaped-in-answer',
      status: 200,
      body: c => JSON.stringify(completedBody(proposal.replace(/"cause":"/, `"cause":"${firstEscaped(c)} `))),
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => decodedStrings(answerText(b)).some(x => x.includes(c)),
    },
    // Not strict JSON, so never decoded as JSON: what a forgiving reader decodes is the token.
    {
      name: 'escaped-duplicate-keys-401',
      status: 401,
      body: c => `{"error":{"message":"bad key ${firstEscaped(c)}"},"error":{"message":"bad key ${firstEscaped(c)}"}}`,
      code: 'PROVIDER_HTTP_ERROR',
      decoded: (b, c) => leniently(b).some(x => x.includes(c)),
    },
    {
      name: 'escaped-beside-lone-surrogate',
      status: 200,
      body: c => `{"leak":"${firstEscaped(c)}","x":"\\ud800"}`,
      code: 'PROVIDER_ECHOED_TOKEN',
      decoded: (b, c) => leniently(b).some(x => x.includes(c)),
    },
  ]
  for (const k of cases) {
    const p = await prepare(t, server, `answer/${k.name}`)
    const body = k.body(p.f.canary)
    server.answers.set(k.name, { status: k.status, headers: { 'content-type': 'application/json' }, body })
    // Positive control: what the server sends carries the token once decoded, and no byte form
    // the scanner knows shows it (mixed-case hex aside, which is a byte form in either case).
    assert.ok(k.decoded(body, p.f.canary), `${k.name}: the answer does not carry the token`)
    const r = await askInProcess(p)
    assert.equal(hits(p), 1)
    assertOutcome(p, r, 'provider_error', k.code, { retryable: false })
    assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false, k.name)
    // Kept, the answer shows the token to no reader: not even joined, as its text parts.
    const kept = readJson(p, 'response.json').body
    const shows = (): boolean => { try { return typeof kept === 'string' && k.decoded(kept, p.f.canary) } catch { return false } }
    assert.equal(shows(), false, `${k.name}: response.json keeps the token in a form its reader decodes`)
  }
})

test('an error reply whose detail nests 10,000 deep is provider_error with its status\'s code, never an internal error, and so is its rerun', async t => {
  const server = await startServer(t)
  for (const [status, code, retryable] of [[400, 'PROVIDER_HTTP_ERROR', false], [302, 'PROVIDER_REDIRECT', false], [500, 'PROVIDER_SERVER_ERROR', true]] as const) {
    const p = await prepare(t, server, `answer/deep-detail-${status}`)
    server.answers.set(`deep-detail-${status}`, { status, headers: { 'content-type': 'application/json' }, body: `{"detail":${'['.repeat(10_000)}${']'.repeat(10_000)}}` })
    const r = await ask(p)
    const o = assertOutcome(p, r, 'provider_error', code, { retryable })
    assert.match(o.reason.message, /body: \{"detail":\[\[\[/, 'quoted as text')
    assert.doesNotMatch(r.stderr, /INTERNAL/)
    const again = await ask(p)
    assert.equal(again.exitCode, r.exitCode, again.stderr)
    assert.equal(hits(p), 1)
  }
})

test('a redirect whose Location percent-encodes one character of the token keeps no form of it', async t => {
  const server = await startServer(t)
  const p = await prepare(t, server, 'answer/location-escaped')
  const c = p.f.canary
  const location = `https://elsewhere.example/?k=%${(c.codePointAt(0) ?? 0).toString(16)}${c.slice(1)}`
  server.answers.set('location-escaped', { status: 302, headers: { location, 'content-type': 'text/plain' }, body: 'moved' })
  // Positive control: decoded, the Location is the token.
  assert.ok(leniently(location).some(x => x.includes(c)))
  const r = await askInProcess(p)
  const o = assertOutcome(p, r, 'provider_error', 'PROVIDER_REDIRECT', { retryable: false })
  assert.match(o.reason.message, /to \[REDACTED\] \(never followed\)/)
  assert.equal((readJson(p, 'response.json').headers as Record<string, string>).location, '[REDACTED]')
})

test('server text reaches outcome.json, usage.json and stderr as one printable line, cut by code points: it can forge no line, drive no terminal, and leave no lone surrogate', async t => {
  const server = await startServer(t)
  const proposal = JSON.stringify(server.proposal)
  const refusal = refusalBody
  // clip keeps 197 code points of a 200 cut: an emoji straddling code unit 197 is split by a code-unit slice.
  server.answers.set('emoji-refusal', { status: 200, headers: { 'content-type': 'application/json' }, body: refusal(`${'r'.repeat(196)}😀 and more`) })
  server.answers.set('control-refusal', { status: 200, headers: { 'content-type': 'application/json' }, body: refusal('no\nask-provider: scoped_test_verified: forged line\u001b]0;title\u0007\u009b2K') })
  server.answers.set('emoji-model', { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(completedBody(proposal, { model: `${'m'.repeat(199)}😀` })) })
  for (const name of ['emoji-refusal', 'control-refusal']) {
    const p = await prepare(t, server, `answer/${name}`)
    const r = await askInProcess(p)
    const o = assertOutcome(p, r, 'provider_error', 'PROVIDER_REFUSAL', { retryable: false })
    // The strict reader takes the file (a lone surrogate would be refused), and seal can cover it.
    assert.ok(parseJsonBytes(readFileSync(join(p.a.dir, 'outcome.json'))).ok, name)
    assert.ok(isUnicodeText(o.reason.message), name)
    // eslint-disable-next-line no-control-regex -- the control characters are what must be absent
    assert.doesNotMatch(r.stderr.replace(/\n/g, '') + o.reason.message, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, name)
    assert.equal(r.stderr.trimEnd().split('\n').filter(l => /provider_error/.test(l)).length, 1, r.stderr)
    assert.doesNotMatch(r.stderr, /^ask-provider: scoped_test_verified/m)
  }
  const p = await prepare(t, server, 'answer/emoji-model')
  const r = await askInProcess(p)
  assert.equal(r.exitCode, 0, r.stderr)
  const usage = readFileSync(join(p.a.dir, 'usage.json'))
  assert.ok(parseJsonBytes(usage).ok, usage.toString())
  // 200 code points fit whole; a cut at 200 code units would have split the emoji.
  assert.equal((JSON.parse(usage.toString()) as { server_model: string }).server_model, `${'m'.repeat(199)}😀`)
})

test('a status outside 100–599 is provider_error PROVIDER_RESPONSE_INVALID with its answer kept, not an internal error', async t => {
  const server = await startServer(t)
  for (const status of [600, 999]) {
    server.answers.set(`s${status}`, { status, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"odd"}}' })
    const p = await prepare(t, server, `answer/s${status}`)
    const r = await askInProcess(p)
    assertOutcome(p, r, 'provider_error', 'PROVIDER_RESPONSE_INVALID', { retryable: false })
    assert.equal(readJson(p, 'response.json').http_status, status)
    // The rerun keeps the outcome and sends nothing.
    const again = await askInProcess(p)
    assert.equal(again.exitCode, 1)
    assert.equal(hits(p), 1)
  }
})

test('a deadline that passes while the token helper runs sends nothing: timed_out, no dispatch.json, no request', async t => {
  const server = await startServer(t)
  for (const late of [true, false]) {
    const dir = tempDir(t, 'rl-late-')
    const marker = join(dir, 'helper-ran')
    const p = await prepare(t, server, 'ok', {
      fixture: {
        tokenHelperSource: canary => {
          writeFileSync(join(dir, 'canary.secret'), `${canary}\n`)
          return `#!/bin/sh\n: > '${marker}'\nIFS= read -r t < '${join(dir, 'canary.secret')}'\nprintf '%s\\n' "$t"\n`
        },
      },
    })
    const deadline = Date.parse(readJson<{ deadline: string }>(p, 'admission.json').deadline)
    // The clock reads the deadline as passed once the helper has run (when `late`).
    const now = (): Date => new Date(late && existsSync(marker) ? deadline + 1000 : deadline - 60_000)
    const r = await askInProcess(p, { now })
    if (late) {
      assertOutcome(p, r, 'timed_out', 'DEADLINE_PASSED')
      assert.match(outcomeOf(p)?.reason.message ?? '', /nothing was sent/)
      assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false)
      assert.equal(hits(p), 0)
    } else {
      // Control: the same helper and clock, the deadline not passed, makes the call.
      assert.equal(r.exitCode, 0, r.stderr)
      assert.equal(hits(p), 1)
    }
    assert.ok(existsSync(marker), 'the helper ran')
  }
})

test('C5: edits that put the token together when applied (half in each edit, or in pieces the gate joins as tokens) are never kept', async t => {
  const server = await startServer(t)
  // A token whose pieces between dashes are identifiers: `(sk - proj - …)()` is a call whose
  // callee the gate's findings print as its tokens joined, i.e. as the token itself.
  const letters = (n: number): string => Array.from(randomBytes(n), b => String.fromCharCode(0x61 + (b % 26))).join('')
  const token = `sk-proj-${letters(24)}`
  const half = token.length >> 1
  const cases: Array<{ name: string, edits: (tok: string) => Array<{ path: string, search: string, replace: string }> }> = [
    { name: 'split-edits', edits: tok => [{ path: 'calc.go', search: 'return a - b', replace: `return a + b // QQ${tok.slice(half)}` }, { path: 'calc.go', search: 'QQ', replace: tok.slice(0, half) }] },
    { name: 'joined-callee', edits: tok => [{ path: 'calc.go', search: 'return a - b', replace: `return a + b + (${tok.split('-').join(' - ')})()` }] },
  ]
  for (const k of cases) {
    for (const control of [false, true]) {
      // The control: the same edits around another string of the same shape, which is no secret.
      const name = `${k.name}${control ? '-control' : ''}`
      server.proposals.set(name, { summary: { cause: 'Add subtracts b.', change: 'Add adds b.', risk: 'Low.' }, edits: k.edits(control ? `sk-proj-${letters(24)}` : token) })
      const p = await prepare(t, server, `proposal/${name}`, { fixture: { tokenHelperSource: () => `#!/bin/sh\nprintf '%s\\n' '${token}'\n` } })
      const r = await ask(p)
      const sent = p.server.requests.filter(x => x.path === `${new URL(p.f.config.provider.base_url).pathname}/responses` && x.headers.authorization === `Bearer ${token}`)
      assert.equal(sent.length, 1, `${name}: ${r.stderr}`)
      if (control) {
        assert.equal(r.exitCode, 0, `${name}: ${r.stderr}`)
        assert.ok(existsSync(join(p.a.dir, 'proposal.json')), `${name}: the proposal is kept`)
        continue
      }
      assertOutcome(p, r, 'provider_error', 'PROVIDER_ECHOED_TOKEN', { retryable: false })
      assert.equal(existsSync(join(p.a.dir, 'proposal.json')), false, name)
      // Sealed, readback takes the outcome as recorded (it cannot repeat a check that needs the
      // token). The fixture's baseline is written, not run, so only the answer's checks count.
      const sealed = await runBin('receipt', ['seal', '--attempt', p.a.dir])
      assert.equal(sealed.exitCode, 1, sealed.stderr)
      const back = await runBin('receipt', ['readback', '--attempt', p.a.dir])
      const findings = back.records.flatMap(x => x.kind === 'readback' ? x.findings : [])
      assert.deepEqual(findings.filter(x => ['PROVIDER_ANSWER_MISMATCH', 'OUTCOME_MISMATCH', 'MISSING_STAGE_RECORD'].includes(x.code) && x.path !== 'baseline.events.ndjson'), [], back.stdout)
      assertNoCanary(token, { paths: [p.f.stateDir], texts: { stdout: r.stdout, stderr: r.stderr, seal: sealed.stdout + sealed.stderr, readback: back.stdout + back.stderr } })
    }
  }
})
