// ask-provider refuses what changed under an admitted attempt before it can reach the provider:
// a provider.ca_file that is no longer a PEM certificate (PROVIDER_CA_INVALID: provider_error,
// not retryable, exit 1, decided before dispatch.json), and a register tuple in admission.json
// that the manifest blob no longer resolves (REGISTER_TUPLE_MISMATCH, 65, refused before
// anything is rendered, DESIGN §6). Each sends nothing, and each has its positive control: the
// same preparation left alone sends exactly once.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission } from '@repairline/schemas'
import { attemptKey, isValid, jsonFileBytes } from '@repairline/core'
import { errorOf, type BinResult } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import type { ResponsesServer } from '../../../test/helpers/responses-server.ts'
import { ask, askInProcess, assertNoLeak, assertOutcome, attemptFiles, hits, outcomeOf, prepare, readJson, startServer, type Prepared } from './helpers.ts'

/** What the step writes before it reads ca_file: the owned texts, their records and the request. */
const RENDERED = ['job.txt', 'prompt.txt', 'request.json', 'validation/job_instructions.json', 'validation/prompt.json', 'validation/request_instructions.json']

/**
 * An attempt whose provider.ca_file is a private copy of the test CA: the process-wide CA file
 * is shared by every test of this file, so only the copy may be broken.
 */
async function prepareWithOwnCa (t: TestContext, server: ResponsesServer): Promise<Prepared & { ca: string }> {
  const ca = join(tempDir(t, 'rl-ca-'), 'ca.pem')
  copyFileSync(server.tls.caFile, ca)
  const p = await prepare(t, server, 'ok', { fixture: { caFile: ca } })
  assert.equal(p.f.config.provider.ca_file, ca)
  return { ...p, ca }
}

/** The test CA in DER form: the same certificate, but not PEM. */
function derOf (pemFile: string): Buffer {
  return Buffer.from(readFileSync(pemFile, 'utf8').replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64')
}

// Each replaces the admitted ca_file after admission (admit checked it was a readable file).
const CA_BREAKS: Record<string, { breakIt: (ca: string) => void, says: RegExp }> = {
  'the DER form of the same CA (not PEM)': { breakIt: ca => writeFileSync(ca, derOf(ca)), says: /holds no PEM certificate/ },
  'prose, not a certificate': { breakIt: ca => writeFileSync(ca, 'see the wiki for our CA\n'), says: /holds no PEM certificate/ },
  'a private key, not a certificate': { breakIt: ca => writeFileSync(ca, '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKnx\n-----END PRIVATE KEY-----\n'), says: /holds no PEM certificate/ },
  empty: { breakIt: ca => writeFileSync(ca, ''), says: /holds no PEM certificate/ },
  'a directory': { breakIt: ca => { rmSync(ca); mkdirSync(ca) }, says: /cannot be read: .*is not a regular file/ },
  missing: { breakIt: ca => rmSync(ca), says: /cannot be read: .*ENOENT/ },
  'a symlink to the same PEM (never followed)': {
    breakIt: ca => { const real = `${ca}.real`; copyFileSync(ca, real); rmSync(ca); symlinkSync(real, ca) },
    says: /cannot be read: .*ELOOP/,
  },
  'over the 1 MiB bound': { breakIt: ca => writeFileSync(ca, readFileSync(ca, 'utf8') + '#'.repeat(1 << 20)), says: /cannot be read: .*larger than 1048576 bytes/ },
}

/** PROVIDER_CA_INVALID as decided: outcome, exit 1, only the rendered files and outcome.json written, nothing sent. */
function assertCaRefused (p: Prepared, r: BinResult, before: string[], says: RegExp, name: string): void {
  const o = assertOutcome(p, r, 'provider_error', 'PROVIDER_CA_INVALID', { retryable: false })
  assert.match(o.reason.message, new RegExp(`^provider\\.ca_file ${p.f.config.provider.ca_file ?? ''} `), name)
  assert.match(o.reason.message, says, name)
  assert.deepEqual(attemptFiles(p), [...before, ...RENDERED, 'outcome.json'].sort(), `${name}: only the rendered files and the outcome are written`)
  assert.equal(existsSync(join(p.a.dir, 'dispatch.json')), false, `${name}: decided before dispatch`)
  assert.equal(hits(p), 0, `${name}: nothing sent`)
}

test('a provider.ca_file replaced after admission by something unusable is PROVIDER_CA_INVALID (not retryable, exit 1); nothing is dispatched or sent', async t => {
  const server = await startServer(t)
  for (const [name, { breakIt, says }] of Object.entries(CA_BREAKS)) {
    const p = await prepareWithOwnCa(t, server)
    const before = attemptFiles(p)
    breakIt(p.ca)
    assertCaRefused(p, await askInProcess(p), before, says, name)
    // The outcome stands: a rerun repeats it and still sends nothing.
    const again = await askInProcess(p)
    assert.equal(again.exitCode, 1, again.stderr)
    assert.equal(outcomeOf(p)?.reason.code, 'PROVIDER_CA_INVALID')
    assert.equal(hits(p), 0, `${name}: the rerun sent`)
  }
  // Through the bin as well.
  const p = await prepareWithOwnCa(t, server)
  const before = attemptFiles(p)
  rmSync(p.ca)
  mkdirSync(p.ca)
  assertCaRefused(p, await ask(p), before, /is not a regular file/, 'bin, a directory')

  // Positive control: the same preparation with its own CA copy left alone sends, once.
  const intact = await prepareWithOwnCa(t, server)
  const ok = await askInProcess(intact)
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.equal(hits(intact), 1)
  assert.ok(attemptFiles(intact).includes('dispatch.json'))
  assertNoLeak(intact)
})

test('a ca_file holding only the PEM markers around no certificate is refused before dispatch, not sent as PROVIDER_TLS', async t => {
  const server = await startServer(t)
  const p = await prepareWithOwnCa(t, server)
  const before = attemptFiles(p)
  writeFileSync(p.ca, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n')
  assertCaRefused(p, await askInProcess(p), before, /holds a certificate that does not parse \(1 of 1\)/, 'markers around no certificate')
})

// Forged register tuples in admission.json. admission.json carries no digest of its own and the
// tuples are not attempt-key inputs, so every other binding check still passes (asserted below):
// only the re-resolution from the manifest blob (assertRegisterTuples) can catch these.
const TUPLE_FORGES: Record<string, { forge: (a: Admission) => void, field: string }> = {
  'the task row downgraded to social (its text contracts would be not_applicable)': { forge: a => { a.task_register.register = 'social' }, field: 'register' },
  'the task row named as surfaces.agent': { forge: a => { a.task_register.register_source = 'surfaces.agent' }, field: 'register_source' },
  'the job budget raised': { forge: a => { a.task_register.max_output_tokens = 64000 }, field: 'max_output_tokens' },
  'the job budget dropped': { forge: a => { delete a.task_register.max_output_tokens }, field: 'max_output_tokens' },
  'the prompt row changed to docs': { forge: a => { a.prompt_register.prompt_register = 'docs' }, field: 'prompt_register' },
}

/** Rewrites admission.json with `forge` applied, as our JSON file form; returns the original bytes. */
function forgeAdmission (p: Prepared, forge: (a: Admission) => void): Buffer {
  const path = join(p.a.dir, 'admission.json')
  const original = readFileSync(path)
  const admission = readJson<Admission>(p, 'admission.json')
  forge(admission)
  // Only the tuple check can catch it: the file still validates and its key inputs still hash to the key.
  assert.ok(isValid('admission', admission), 'the forged admission.json must still be schema-valid')
  assert.equal(attemptKey(admission.key_inputs), p.a.key)
  writeFileSync(path, jsonFileBytes(admission))
  assert.ok(!readFileSync(path).equals(original), 'the forge changed nothing')
  return original
}

/** REGISTER_TUPLE_MISMATCH as refused: 65, the error record naming the field, nothing written, nothing sent. */
function assertTupleRefused (p: Prepared, r: BinResult, before: string[], field: string, name: string): void {
  const err = errorOf(r)
  assert.equal(err?.code, 'REGISTER_TUPLE_MISMATCH', `${name}: ${JSON.stringify(err)}; stderr: ${r.stderr}`)
  assert.equal(r.exitCode, 65, `${name}: ${r.stderr}`)
  assert.match(err?.message ?? '', new RegExp(`register tuple field ${field} is .*, but the manifest resolves `), name)
  assert.deepEqual(r.records.map(x => x.kind), ['start', 'attempt', 'error', 'result'], name)
  assert.match(r.stderr, /^ask-provider: REGISTER_TUPLE_MISMATCH: /m, name)
  assert.deepEqual(attemptFiles(p), before, `${name}: nothing written`)
  assert.equal(outcomeOf(p), undefined, `${name}: no outcome`)
  assert.equal(hits(p), 0, `${name}: nothing sent`)
}

test('a register tuple in admission.json that the manifest blob no longer resolves is REGISTER_TUPLE_MISMATCH (65) before rendering or dispatch', async t => {
  const server = await startServer(t)
  for (const [name, { forge, field }] of Object.entries(TUPLE_FORGES)) {
    const p = await prepare(t, server, 'ok')
    const original = forgeAdmission(p, forge)
    const before = attemptFiles(p)
    assertTupleRefused(p, await askInProcess(p), before, field, name)
    // --check re-resolves the same way: it refuses too, and writes nothing.
    assertTupleRefused(p, await askInProcess(p, { check: true }), before, field, `${name} (--check)`)
    // Positive control: the admitted bytes put back, the same attempt sends once.
    writeFileSync(join(p.a.dir, 'admission.json'), original)
    const ok = await askInProcess(p)
    assert.equal(ok.exitCode, 0, `${name} (control): ${ok.stderr}`)
    assert.equal(hits(p), 1, `${name} (control)`)
    assertNoLeak(p)
  }
  // Through the bin as well.
  const p = await prepare(t, server, 'ok')
  forgeAdmission(p, a => { a.task_register.register = 'docs' })
  const before = attemptFiles(p)
  assertTupleRefused(p, await ask(p), before, 'register', 'bin')
})
