// Event normalization without a sandbox: go test -json streams (forged framing, duplicate
// terminals, unfinished tests, build failures) fed whole, line by line and in 1- and 2-byte
// chunks; over-long lines; the node reporter's lines to §6a identities; the exit-code
// cross-check.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { AmbiguousEventError, EventSummarizer, NODE_REPORTER_SHA256, NODE_REPORTER_SOURCE, NodeEventNormalizer, assessRun, normalizeEventLine, normalizeGoStream, splitEventLines, summarizeEvents } from '../src/index.ts'
import type { TestEvent } from '@repairline/schemas'

const GO_STREAM = [
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"run","Package":"m/ghost","Test":"TestA"}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"output","Package":"m/ghost","Test":"TestA","Output":"--- PASS: TestGhost (0.00s)\\n"}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"pass","Package":"m/ghost","Test":"TestGhost","Elapsed":0}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"pass","Package":"m/ghost","Test":"TestA","Elapsed":0}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"run","Package":"m/ghost","Test":"TestB"}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"pass","Package":"m/ghost","Test":"TestB","Elapsed":0}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"fail","Package":"m/ghost","Test":"TestB","Elapsed":0}',
  '{"Time":"2026-11-30T11:08:01.59Z","Action":"fail","Package":"m/ghost","Elapsed":0.004}',
  '{"Action":"run","Package":"m/gpanic","Test":"TestA"}',
  '{"Action":"output","Package":"m/gpanic","Output":"panic: boom\\n"}',
  '{"Action":"fail","Package":"m/gpanic","Elapsed":0.006}',
  'FAIL\tm/build [build failed]',
  '{"Action":"pass","Package":"m/exit0","Elapsed":0.003}',
  'héllo plain ünicode text',
].join('\n') + '\n'

function chunks (s: string, size: number): Buffer[] {
  const b = Buffer.from(s)
  const out: Buffer[] = []
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size))
  return out
}

async function collect (src: Iterable<Buffer | string>): Promise<TestEvent[]> {
  const out: TestEvent[] = []
  for await (const ev of normalizeGoStream(src)) out.push(ev)
  return out
}

test('go streams normalize identically whole, line by line and in 1- and 2-byte chunks', async () => {
  const whole = await collect([GO_STREAM])
  assert.equal(whole.length, 14)
  assert.deepEqual(whole[11], { Action: 'fail', Package: 'm/build', FailedBuild: 'm/build' })
  assert.deepEqual(whole[13], { Action: 'output', Output: 'héllo plain ünicode text\n' })
  for (const split of [GO_STREAM.split(/(?<=\n)/), chunks(GO_STREAM, 1), chunks(GO_STREAM, 2), chunks(GO_STREAM, 7)]) {
    assert.deepEqual(await collect(split), whole)
  }
})

test('the summary ignores forged names, flags conflicting terminals, fails unfinished tests and build failures', async () => {
  const s = summarizeEvents(await collect([GO_STREAM]))
  assert.deepEqual(s.identities, {
    'm/build::': { result: 'fail', buildFailed: true },
    'm/ghost::TestA': { result: 'pass' },
    'm/ghost::TestB': { result: 'fail', duplicateTerminal: true, conflicting: true },
    'm/gpanic::TestA': { result: 'fail', unfinished: true },
  })
  assert.deepEqual(s.failing, ['m/build::', 'm/ghost::TestB', 'm/gpanic::TestA'])
  assert.equal(s.ran, 3)
  assert.deepEqual(s.packages, { 'm/ghost': 'fail', 'm/gpanic': 'fail', 'm/build': 'fail', 'm/exit0': 'pass' })
  const text = s.anomalies.join('\n')
  assert.match(text, /m\/ghost::TestGhost: pass without a run event \(ignored/)
  assert.match(text, /m\/ghost::TestB: 2 terminal events \(fail, pass\); the last one, fail, wins \(conflicting\)/)
  assert.match(text, /m\/gpanic::TestA: started and never finished/)
  assert.ok(!('m/ghost::TestGhost' in s.identities))
})

test('a forged pass printed after the real fail wins by the last-terminal rule but is marked conflicting', () => {
  const s = summarizeEvents([
    { Action: 'run', Package: 'm', Test: 'TestAdd' }, { Action: 'fail', Package: 'm', Test: 'TestAdd' },
    { Action: 'run', Package: 'm', Test: 'TestB' }, { Action: 'pass', Package: 'm', Test: 'TestAdd' }, { Action: 'pass', Package: 'm', Test: 'TestB' },
    { Action: 'fail', Package: 'm' },
  ])
  assert.deepEqual(s.identities['m::TestAdd'], { result: 'pass', duplicateTerminal: true, conflicting: true })
  // The package still failed and no test of its own says so: <pkg>:: fails, so a forged pass cannot make a clean run.
  assert.deepEqual(s.failing, ['m::'])
})

test('a forged run line for a test that already ran is flagged', () => {
  const s = summarizeEvents([
    { Action: 'run', Package: 'm', Test: 'TestA' }, { Action: 'fail', Package: 'm', Test: 'TestA' },
    { Action: 'run', Package: 'm', Test: 'TestA' }, { Action: 'pass', Package: 'm', Test: 'TestA' },
  ])
  assert.match(s.anomalies.join('\n'), /m::TestA: started more than once/)
  assert.equal(s.identities['m::TestA']?.conflicting, true)
})

test('an over-long line is cut at the limit and flagged, never buffered whole, in any chunking', async () => {
  const long = 'x'.repeat(5000)
  const input = `{"Action":"run","Package":"m","Test":"TestA"}\n${long}\n{"Action":"pass","Package":"m","Test":"TestA"}\n${long}`
  const expect = [
    { line: 1, text: '{"Action":"run","Package":"m","Test":"TestA"}', truncated: false },
    { line: 2, text: 'x'.repeat(1000), truncated: true },
    { line: 3, text: '{"Action":"pass","Package":"m","Test":"TestA"}', truncated: false },
    { line: 4, text: 'x'.repeat(1000), truncated: true },
  ]
  for (const src of [[input], chunks(input, 1), chunks(input, 2), chunks(input, 999), chunks(input, 1000), chunks(input, 1001)]) {
    const got = []
    for await (const l of splitEventLines(src, 1000)) got.push(l)
    assert.deepEqual(got, expect)
  }
  const evs = []
  for await (const ev of normalizeGoStream([input], 1000)) evs.push(ev)
  assert.match(evs[1]?.Output ?? '', /… \[line 2 truncated at 1000 bytes\]\n$/)
})

// event-line-with-a-duplicate-key: JSON.parse keeps a repeated key's last value, a first-wins
// reader the first, so `{"Action":"pass","Action":"fail"}` is a pass to one reader and a fail
// to another (an audit turned a passing test into an admitted case this way).
const AMBIGUOUS: Array<[string, string, string]> = [
  ['Action twice', 'Action', '{"Action":"pass","Action":"fail","Package":"p","Test":"t1"}'],
  ['Test twice', 'Test', '{"Action":"fail","Package":"p","Test":"t2","Test":"t1"}'],
  ['Action escaped (\\u0069)', 'Action', '{"Action":"pass","Act\\u0069on":"fail","Package":"p","Test":"t1"}'],
  ['Action escaped both times', 'Action', '{"\\u0041ction":"pass","Acti\\u006Fn":"fail","Package":"p","Test":"t1"}'],
  ['Package twice around a nested object', 'Package', '{"Action":"fail","Package":"p","X":{"Package":"q"},"Package":"q","Test":"t1"}'],
  ['Action twice, with whitespace before the colons', 'Action', '{ "Action" : "pass" , "Action"\t:\r"fail" , "Package":"p","Test":"t1"}'],
  // The last value breaks the schema (the line would be output text), the first is a pass.
  ['Action twice, the last no string', 'Action', '{"Action":"pass","Package":"p","Test":"t1","Action":5}'],
  ['Elapsed twice', 'Elapsed', '{"Action":"pass","Package":"p","Test":"t1","Elapsed":1,"Elapsed":2}'],
  // Strict JSON, as every file and record: a key the normalizer drops is no less ambiguous.
  ['an ignored key twice', 'Extra', '{"Action":"pass","Package":"p","Test":"t1","Extra":1,"Extra":2}'],
  ['a key twice in a nested object', 'Action', '{"Action":"pass","Package":"p","Test":"t1","X":{"Action":"fail","Action":"pass"}}'],
]

test('an event line with a duplicate key is refused (AmbiguousEventError), escaped or not; the same line without the duplicate is an event', () => {
  for (const [name, key, line] of AMBIGUOUS) {
    assert.throws(() => normalizeEventLine(line), (e: unknown) => e instanceof AmbiguousEventError && e.reason.startsWith(`duplicate key ${JSON.stringify(key)} at offset `), name)
  }
  // Positive controls: the same events, each key named once.
  assert.deepEqual(normalizeEventLine('{"Action":"fail","Package":"p","Test":"t1"}'), { Action: 'fail', Package: 'p', Test: 't1' })
  assert.deepEqual(normalizeEventLine('{"Act\\u0069on":"fail","Package":"p","Test":"t1"}'), { Action: 'fail', Package: 'p', Test: 't1' })
  assert.deepEqual(normalizeEventLine('{ "Action" : "fail" , "Package"\t:\r"p","Test":"t1"}'), { Action: 'fail', Package: 'p', Test: 't1' })
  assert.deepEqual(normalizeEventLine('{"Action":"pass","Package":"p","Test":"t1","Elapsed":1}'), { Action: 'pass', Package: 'p', Test: 't1', Elapsed: 1 })
  assert.deepEqual(normalizeEventLine('{"Action":"pass","Package":"p","Test":"t1","X":{"Action":"fail"}}'), { Action: 'pass', Package: 'p', Test: 't1' })
})

test('a key name inside a value is no duplicate: the line is the event it was', () => {
  const ok: Array<[string, string, TestEvent]> = [
    ['"Action" in the output text', '{"Action":"output","Package":"p","Test":"t1","Output":"got {\\"Action\\":\\"fail\\",\\"Action\\":\\"pass\\"}\\n"}', { Action: 'output', Package: 'p', Test: 't1', Output: 'got {"Action":"fail","Action":"pass"}\n' }],
    ['"Action" as a value', '{"Action":"pass","Package":"p","Test":"Action","Elapsed":0}', { Action: 'pass', Package: 'p', Test: 'Action', Elapsed: 0 }],
    ['colons after quotes and spaces in the output text', '{"Action":"output","Package":"p","Output":"a \\":\\" b : c\\":\\n"}', { Action: 'output', Package: 'p', Output: 'a ":" b : c":\n' }],
    ['an escape in the output text (Go writes < as \\u003c)', '{"Action":"output","Package":"p","Output":"\\u003cnil\\u003e\\n"}', { Action: 'output', Package: 'p', Output: '<nil>\n' }],
    ['an escaped lone surrogate (refused later, as an identity, not here)', '{"Action":"run","Package":"p","Test":"t\\ud800"}', { Action: 'run', Package: 'p', Test: 't\ud800' }],
  ]
  for (const [name, line, want] of ok) assert.deepEqual(normalizeEventLine(line), want, name)
})

/** mulberry32: a seeded generator, so a failure names its case and reruns the same. */
function seeded (seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

test('the cheap prefilter misses no duplicate: random lines with keys literal or \\u-escaped, whitespace around colons, nested objects, key names and colons in values', () => {
  const fields = ['Time', 'Action', 'Package', 'Test', 'Elapsed', 'Output', 'FailedBuild', 'ImportPath', 'Extra']
  const rnd = seeded(20261130)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T
  // A key as JSON text: literal, or with some letters as \uXXXX (either hex case).
  const encode = (k: string): string => `"${[...k].map(ch => rnd() < 0.3 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')[rnd() < 0.5 ? 'toLowerCase' : 'toUpperCase']()}` : ch).join('')}"`
  const ws = (): string => rnd() < 0.85 ? '' : pick([' ', '\t', '\r', ' \t'])
  const value = (k: string): string => k === 'Elapsed' ? String(Math.floor(rnd() * 9)) : k === 'Action' ? JSON.stringify(pick(['run', 'pass', 'fail', 'output'])) : JSON.stringify(pick(['t1', ...fields, `{"${pick(fields)}":1,"${pick(fields)}":2}`, '<x>', 'a": b :c', '12:00:01']))
  /** An object's text from its members, a key repeated when `repeat`; returns whether one was. */
  const object = (keys: string[], repeat: boolean, extra: string[] = []): string => {
    const members = keys.map(k => `${encode(k)}${ws()}:${ws()}${value(k)}`)
    if (repeat) { const k = pick(keys); members.splice(1 + Math.floor(rnd() * members.length), 0, `${encode(k)}${ws()}:${ws()}${value(k)}`) }
    return `{${ws()}${[...members, ...extra].join(`${ws()},${ws()}`)}${ws()}}`
  }
  let refused = 0
  for (let n = 0; n < 4000; n++) {
    const keys = ['Action', ...fields.filter(k => k !== 'Action' && rnd() < 0.4)]
    const topRepeat = rnd() < 0.4
    const nested = rnd() < 0.3 ? ['Test', ...fields.filter(k => k !== 'Test' && rnd() < 0.3)] : undefined
    const nestedRepeat = nested !== undefined && rnd() < 0.4
    const line = object(keys, topRepeat, nested === undefined ? [] : [`"N":${object(nested, nestedRepeat)}`])
    if (topRepeat || nestedRepeat) {
      refused++
      assert.throws(() => normalizeEventLine(line), (e: unknown) => e instanceof AmbiguousEventError && /^duplicate key "/.test(e.reason), JSON.stringify(line))
    } else {
      assert.doesNotThrow(() => normalizeEventLine(line), JSON.stringify(line))
    }
  }
  assert.ok(refused > 1000 && refused < 3000, `${refused} of 4000 lines held a duplicate`)
})

test('exit code and events are cross-checked: zero tests, exit 0 with a failure, exit ≠ 0 without one', () => {
  const pass = summarizeEvents([{ Action: 'run', Package: 'm', Test: 'T' }, { Action: 'pass', Package: 'm', Test: 'T' }])
  const fail = summarizeEvents([{ Action: 'run', Package: 'm', Test: 'T' }, { Action: 'fail', Package: 'm', Test: 'T' }])
  const none = summarizeEvents([{ Action: 'pass', Package: 'm' }])
  assert.equal(assessRun(pass, 0), undefined)
  assert.equal(assessRun(fail, 1), undefined)
  assert.equal(assessRun(none, 0)?.code, 'TESTS_NOT_RUN')
  assert.equal(assessRun(fail, 0)?.code, 'EVENTS_EXIT_MISMATCH')
  assert.equal(assessRun(pass, 1)?.code, 'EVENTS_EXIT_MISMATCH')
  assert.equal(assessRun(pass, null)?.code, 'EVENTS_EXIT_MISMATCH')
})

test('node reporter lines become §6a identities built from test:start order, paths made repo-relative', () => {
  const lines = [
    { type: 'test:stdout', file: '/src/test/a.test.js', message: 'hello\n' },
    { type: 'test:start', file: '/src/test/a.test.js', name: 'outer', nesting: 0 },
    { type: 'test:start', file: '/src/test/a.test.js', name: 'inner1', nesting: 1 },
    { type: 'test:pass', file: '/src/test/a.test.js', name: 'inner1', nesting: 1, duration_ms: 1.5 },
    { type: 'test:start', file: '/src/test/a.test.js', name: 'inner2', nesting: 1 },
    { type: 'test:fail', file: '/src/test/a.test.js', name: 'inner2', nesting: 1, duration_ms: 2, error: '1 == 2' },
    { type: 'test:fail', file: '/src/test/a.test.js', name: 'outer', nesting: 0, duration_ms: 6, error: '1 subtest failed' },
    { type: 'test:start', file: '/src/test/a.test.js', name: 'suite', nesting: 0 },
    { type: 'test:start', file: '/src/test/a.test.js', name: 'y', nesting: 1 },
    { type: 'test:pass', file: '/src/test/a.test.js', name: 'y', nesting: 1, skip: true },
    { type: 'test:start', file: '/src/test/a.test.js', name: 't', nesting: 1 },
    { type: 'test:fail', file: '/src/test/a.test.js', name: 't', nesting: 1, todo: true, error: 'no' },
    { type: 'test:pass', file: '/src/test/a.test.js', name: 'suite', nesting: 0, suite: true },
    { type: 'test:start', file: '/src/test/plain.js', name: '/src/test/plain.js', nesting: 0 },
    { type: 'test:fail', file: '/src/test/plain.js', name: '/src/test/plain.js', nesting: 0, error: 'test failed' },
    { type: 'test:diagnostic', nesting: 0, message: 'fail 3' },
  ].map(l => JSON.stringify(l))
  const n = new NodeEventNormalizer('/src')
  const s = new EventSummarizer()
  const events = [...lines, 'forged text on stdout'].flatMap(l => n.line(l))
  for (const ev of events) s.add(ev)
  const summary = s.finish()
  assert.deepEqual(summary.identities, {
    'test/a.test.js::outer': { result: 'fail' },
    'test/a.test.js::outer > inner1': { result: 'pass' },
    'test/a.test.js::outer > inner2': { result: 'fail' },
    'test/a.test.js::suite': { result: 'pass' },
    'test/a.test.js::suite > t': { result: 'skip' },
    'test/a.test.js::suite > y': { result: 'skip' },
    'test/plain.js::test/plain.js': { result: 'fail' },
  })
  assert.equal(n.reportedFailures, 3)
  assert.deepEqual(events.find(e => e.Action === 'pass' && e.Test === 'outer > inner1'), { Action: 'pass', Package: 'test/a.test.js', Test: 'outer > inner1', Elapsed: 0.0015 })
  assert.deepEqual(events.find(e => e.Action === 'output' && e.Test === 'outer > inner2'), { Action: 'output', Package: 'test/a.test.js', Test: 'outer > inner2', Output: '1 == 2\n' })
  assert.match(n.anomalies.join('\n'), /stdout line is not the reporter's: "forged text on stdout"/)
  assert.deepEqual(events.at(-1), { Action: 'output', Output: 'forged text on stdout\n' })
})

test('the node reporter source hashes to its pin', () => {
  assert.equal(createHash('sha256').update(NODE_REPORTER_SOURCE).digest('hex'), NODE_REPORTER_SHA256)
})
