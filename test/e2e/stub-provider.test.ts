// The stub provider a user tries repairline with (scripts/stub-provider.ts): it prints the two
// provider fields, serves the given proposal as a Responses answer that repairline's own parser
// reads back to the same proposal, only over the CA it printed, and stops on SIGTERM. A
// proposal that breaks proposal.schema.json is refused before anything listens.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { execa } from 'execa'
import { Agent, request } from 'undici'
import { parseAnswer } from '@repairline/core'
import { NODE_FIX_PROPOSAL } from '../helpers/responses-server.ts'
import { tempDir } from '../helpers/tmp.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SCRIPT = join(ROOT, 'scripts', 'stub-provider.ts')

function startStub (args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, reject: false, extendEnv: false, env: { PATH: process.env.PATH ?? '' } })
}

test('stub-provider prints base_url and ca_file, answers with the proposal in the Responses shape, and stops on SIGTERM', async t => {
  const dir = tempDir(t)
  const file = join(dir, 'proposal.json')
  writeFileSync(file, JSON.stringify(NODE_FIX_PROPOSAL))
  const stub = startStub(['--proposal', file, '--dir', join(dir, 'stub')])
  t.after(() => { stub.kill('SIGKILL') })
  const lines = createInterface({ input: stub.stdout })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    void stub.then(r => { reject(new Error(`stub-provider ended before it printed: ${r.stderr}`)) })
  })
  const printed = JSON.parse(first) as { base_url: string, ca_file: string }
  assert.match(printed.base_url, /^https:\/\/127\.0\.0\.1:\d+\/ok$/)
  assert.equal(printed.ca_file, join(dir, 'stub', 'tls', 'test-ca.pem'))

  const trusting = new Agent({ connect: { ca: readFileSync(printed.ca_file, 'utf8'), rejectUnauthorized: true } })
  t.after(() => trusting.close())
  const res = await request(`${printed.base_url}/responses`, { method: 'POST', dispatcher: trusting, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'any', input: 'x' }) })
  assert.equal(res.statusCode, 200)
  const body = Buffer.from(await res.body.arrayBuffer())
  const answer = parseAnswer(body, String(res.headers['content-type']), 4000)
  assert.ok(answer.ok, JSON.stringify(answer))
  assert.deepEqual(JSON.parse(answer.text), NODE_FIX_PROPOSAL)
  const shape = JSON.parse(body.toString('utf8')) as { output: Array<{ type: string, content?: Array<{ type: string }> }> }
  assert.ok(shape.output.some(o => o.type === 'message' && o.content?.some(c => c.type === 'output_text')))

  // Control: without the printed CA the server is not trusted.
  const plain = new Agent({ connect: { rejectUnauthorized: true } })
  t.after(() => plain.close())
  await assert.rejects(request(`${printed.base_url}/responses`, { method: 'POST', dispatcher: plain, body: '{}' }))

  stub.kill('SIGTERM')
  const r = await stub
  assert.equal(r.exitCode, 0, r.stderr)
  assert.match(r.stderr, /"ca_file":/)
})

test('stub-provider refuses a proposal that breaks proposal.schema.json before it listens (exit 2), and a missing --proposal', async t => {
  const dir = tempDir(t)
  const file = join(dir, 'proposal.json')
  writeFileSync(file, JSON.stringify({ edits: [] }))
  const bad = await startStub(['--proposal', file])
  assert.equal(bad.exitCode, 2)
  assert.equal(bad.stdout, '')
  assert.match(bad.stderr, /stub-provider: .*proposal\.json/)
  const none = await startStub([])
  assert.equal(none.exitCode, 2)
  assert.match(none.stderr, /--proposal is required/)
})
