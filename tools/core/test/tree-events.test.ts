// The tree listing rules (DESIGN §8) and the event summary (DESIGN §9).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkTreeListing, parseLsTree, unsafePathReason, normalizeEventLine, summarizeEvents, type TreeEntry } from '../src/index.ts'

const blob = (path: string, size = 10, mode = '100644'): TreeEntry => ({ mode, type: 'blob', oid: 'a'.repeat(40), size, path })

test('ls-tree -z --long parses sizes, gitlinks and raw path bytes', () => {
  const out = Buffer.concat([
    Buffer.from(`100644 blob ${'a'.repeat(40)}      12\tgo.mod\0`),
    Buffer.from(`160000 commit ${'b'.repeat(40)}       -\tsub\0`),
    Buffer.from(`100644 blob ${'c'.repeat(40)}       1\t`), Buffer.from([0x66, 0xff, 0x00]),
  ])
  const { entries, violations } = parseLsTree(out)
  assert.deepEqual(entries.map(e => [e.path, e.size, e.mode]), [['go.mod', 12, '100644'], ['sub', -1, '160000']])
  assert.equal(violations[0]?.code, 'TREE_PATH_UNSAFE')
})

test('unsafe paths', () => {
  for (const p of ['.git/config', 'a/.GIT/x', 'a/.git./x', 'GIT~1/x', '../x', 'a/../b', './a', 'a//b', '/abs', 'a\\b', 'a\nb', 'a\u0001', 'a\u202eb']) {
    assert.notEqual(unsafePathReason(p), undefined, JSON.stringify(p))
  }
  for (const p of ['a/.gitignore', '.github/x', 'git/x', 'a.git/b']) assert.equal(unsafePathReason(p), undefined, p)
})

test('tree bounds, modes, duplicates, case collisions and node_modules', () => {
  const codes = (entries: TreeEntry[]): string[] => checkTreeListing(entries).violations.map(v => v.code)
  assert.deepEqual(codes([blob('a.go'), blob('b/c.go')]), [])
  assert.deepEqual(codes([blob('l', 5, '120000')]), ['TREE_SYMLINK'])
  assert.deepEqual(codes([{ ...blob('s', -1, '160000'), type: 'commit' }]), ['TREE_GITLINK'])
  assert.deepEqual(codes([blob('a'), blob('a')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([blob('README'), blob('readme')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([blob('Dir/a'), blob('dir/b')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([blob('node_modules/x/index.js')]), ['TREE_NODE_MODULES'])
  assert.deepEqual(codes([blob('big', 16 * 1024 * 1024 + 1)]), ['TREE_TOO_LARGE'])
  assert.deepEqual(codes([blob('big', 16 * 1024 * 1024)]), [])
  // Names sort by bytes, as ls-tree lists a canonical tree (an unsorted listing is TREE_MALFORMED).
  const many = Array.from({ length: 20_001 }, (_, i) => blob(`f${String(i).padStart(5, '0')}`, 1))
  assert.deepEqual(codes(many), ['TREE_TOO_MANY_ENTRIES'])
  assert.deepEqual(codes(many.slice(1)), [])
})

test('events: last terminal wins, forged names and unfinished tests are flagged, build failures are identities', () => {
  const lines = [
    '{"Action":"run","Package":"m","Test":"TestA"}',
    '{"Action":"output","Package":"m","Test":"TestA","Output":"--- PASS: TestGhost\\n"}',
    '{"Action":"pass","Package":"m","Test":"TestGhost"}',
    '{"Action":"pass","Package":"m","Test":"TestA"}',
    '{"Action":"fail","Package":"m","Test":"TestA"}',
    '{"Action":"run","Package":"m","Test":"TestHang"}',
    '{"Action":"fail","Package":"m"}',
    'FAIL\tm/broken [build failed]',
    'some plain text',
  ]
  const s = summarizeEvents(lines.map(l => normalizeEventLine(l)).filter(e => e !== undefined))
  assert.deepEqual(s.identities, {
    'm/broken::': { result: 'fail', buildFailed: true },
    'm::TestA': { result: 'fail', duplicateTerminal: true, conflicting: true },
    'm::TestHang': { result: 'fail', unfinished: true },
  })
  assert.deepEqual(s.failing, ['m/broken::', 'm::TestA', 'm::TestHang'])
  assert.equal(s.anomalies.length, 3)
  assert.match(s.anomalies.join('\n'), /TestGhost: pass without a run event/)
})

test('a package that fails with no failed test of its own is the identity <pkg>::', () => {
  const s = summarizeEvents([
    { Action: 'run', Package: 'm', Test: 'TestA' }, { Action: 'pass', Package: 'm', Test: 'TestA' },
    { Action: 'fail', Package: 'm' },
  ])
  assert.deepEqual(s.failing, ['m::'])
})
