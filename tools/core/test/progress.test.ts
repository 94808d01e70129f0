// Live progress counts finished tests in raw runner output however it is chunked, and only
// terminal events of tests (not packages, not node suites).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ProgressCounter, throttledProgress } from '../src/index.ts'

function feed (runner: 'go' | 'node', text: string, size: number): number[] {
  const seen: number[] = []
  const c = new ProgressCounter(runner, n => seen.push(n))
  const b = Buffer.from(text)
  for (let i = 0; i < b.length; i += size) c.push(b.subarray(i, i + size))
  return seen
}

test('go: test terminal events count, package results do not, in any chunking', () => {
  const go = [
    '{"Action":"run","Package":"m","Test":"TestA"}',
    '{"Action":"pass","Package":"m","Test":"TestA","Elapsed":0}',
    '{"Action":"fail","Package":"m","Test":"TestB","Elapsed":0}',
    '{"Action":"skip","Package":"m","Test":"TestC","Elapsed":0}',
    '{"Action":"fail","Package":"m","Elapsed":0.1}',
  ].join('\n') + '\n'
  for (const size of [1, 2, 7, 1 << 16]) assert.equal(feed('go', go, size).at(-1), 3, `chunks of ${size}`)
})

test('node: pass and fail of tests count, suites do not', () => {
  const node = [
    '{"type":"test:start","name":"a"}',
    '{"type":"test:pass","name":"a"}',
    '{"type":"test:fail","name":"b"}',
    '{"type":"test:pass","name":"s","suite":true}',
  ].join('\n') + '\n'
  assert.equal(feed('node', node, 3).at(-1), 2)
})

test('throttled progress reports the first count at once and then at most once per interval', () => {
  const out: number[] = []
  const p = throttledProgress(n => out.push(n), 60_000)
  p(0); p(1); p(2); p(3)
  assert.deepEqual(out, [1])
})
