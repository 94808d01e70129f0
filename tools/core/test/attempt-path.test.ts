// resolveAttemptPath: --attempt wins; else the attempt record on stdin, the same one however
// often it is repeated (a pipe forwards it once per tool); two that differ are RECORD_INVALID,
// and the message names both keys, which is what differs when the paths agree.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { resolveAttemptPath, type ToolIo } from '../src/index.ts'

const KEY_A = 'a'.repeat(64)
const KEY_B = 'b'.repeat(64)

function stdinOf (...records: object[]): ToolIo {
  const text = records.map(r => JSON.stringify(r) + '\n').join('')
  return { stdin: Readable.from([Buffer.from(text)]) } as unknown as ToolIo
}

const attempt = (path: string, key: string): object => ({ v: 1, kind: 'attempt', path, key })

test('two attempt records with the same path and different keys are RECORD_INVALID, naming both keys; the same record twice is that attempt', async () => {
  await assert.rejects(resolveAttemptPath(undefined, stdinOf(attempt('/s/attempts/x', KEY_A), attempt('/s/attempts/x', KEY_B))), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'RECORD_INVALID')
    assert.match(e.message, new RegExp(`\\(key ${KEY_A}\\) and /s/attempts/x \\(key ${KEY_B}\\)$`))
    return true
  })
  assert.equal(await resolveAttemptPath(undefined, stdinOf(attempt('/s/attempts/x', KEY_A), attempt('/s/attempts/x', KEY_A))), '/s/attempts/x')
  assert.equal(await resolveAttemptPath('/given', stdinOf(attempt('/s/attempts/x', KEY_A))), '/given')
})
