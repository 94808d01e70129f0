// The tree rules of DESIGN §8 on listings built in memory: each rule's refusals with their
// exact codes, and the look-alikes that must pass (the positive controls of each rule).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkTreeListing, MAX_PATH_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES, maxTreePathBytes, parseLsTree, unsafePathReason, type TreeEntry } from '@repairline/core'

const OID = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
const file = (path: string, size = 0, mode = '100644', type = 'blob'): TreeEntry => ({ path, size, mode, type, oid: OID })
const codes = (entries: TreeEntry[]): string[] => checkTreeListing(entries).violations.map(v => v.code)

test('path-safety: every spelling of .git, dot components, controls and oversize paths are unsafe', () => {
  const unsafe = [
    '', '/abs', 'a//b', 'a/', '.', '..', 'a/../b', 'a/./b',
    '.git', '.GIT', '.Git', 'x/.git/config', '.git.', '.git ', '.git. .', 'git~1', 'GIT~1',
    '.g\u200cit', '\ufeff.git', '.git\u200d', '.git::$INDEX_ALLOCATION', '.git:stream',
    'a\rb', 'a\nb', 'a\u0000b', 'a\u001bb', 'a\u007fb', 'a\u0085b', 'a\u202eb', 'a\u2066b', 'a\\b',
    'x'.repeat(256), `${'d'.repeat(255)}/`.repeat(16) + 'f',
  ]
  for (const p of unsafe) assert.notEqual(unsafePathReason(p), undefined, `expected ${JSON.stringify(p)} to be unsafe`)
})

test('path-safety: ordinary names that merely resemble .git pass', () => {
  const fine = ['.gitignore', '.github/workflows/ci.yml', 'a.git/b', 'git~10', '.gitx', 'x.git', 'src/.gitkeep', 'é/ü.go', 'x'.repeat(255), `${'d'.repeat(200)}/`.repeat(20) + 'f']
  for (const p of fine) assert.equal(unsafePathReason(p), undefined, `expected ${JSON.stringify(p)} to be safe`)
})

test('path-safety: the attempt directory bounds a path by what fits under its work/candidate/ within PATH_MAX (4095 bytes with the NUL)', () => {
  const dir = '/srv/state/attempts/0123456789abcdef'
  const limit = maxTreePathBytes(dir)
  assert.equal(limit, 4095 - `${dir}/work/candidate/`.length)
  assert.equal(maxTreePathBytes(`${dir}/`), limit)
  assert.ok(maxTreePathBytes('/') < MAX_PATH_BYTES, 'always below the tree\'s own bound')
  const at = `${'d'.repeat(200)}/`.repeat(19) + 'f'.repeat(limit - 201 * 19)
  assert.equal(at.length, limit)
  assert.equal(unsafePathReason(at, limit), undefined)
  assert.match(unsafePathReason(`${at}f`, limit) ?? '', new RegExp(`^longer than ${limit} bytes, the most that fits within PATH_MAX`))
  assert.equal(unsafePathReason(`${at}f`), undefined, 'without the attempt directory only the tree\'s own bound applies')
  // Counted in UTF-8 bytes: one two-byte character past the bound.
  assert.notEqual(unsafePathReason(`${at.slice(0, -1)}é`, limit), undefined)
  assert.deepEqual(checkTreeListing([file(`${at}f`)], { maxPathBytes: limit }).violations.map(v => v.code), ['TREE_PATH_UNSAFE'])
})

test('entry-kind: symlink, gitlink, tree and other modes are refused with their own codes', () => {
  assert.deepEqual(codes([file('l', 4, '120000')]), ['TREE_SYMLINK'])
  assert.deepEqual(codes([{ path: 'sub', size: -1, mode: '160000', type: 'commit', oid: OID }]), ['TREE_GITLINK'])
  assert.deepEqual(codes([file('d', 0, '040000', 'tree')]), ['TREE_MODE_UNSUPPORTED'])
  assert.deepEqual(codes([file('x', 0, '100664')]), ['TREE_MODE_UNSUPPORTED'])
  assert.deepEqual(codes([file('a', 1, '100644'), file('b', 1, '100755')]), [])
})

test('node-modules: any node_modules component is refused, look-alikes pass', () => {
  assert.deepEqual(codes([file('node_modules/x/index.js')]), ['TREE_NODE_MODULES'])
  assert.deepEqual(codes([file('pkg/node_modules/y.js')]), ['TREE_NODE_MODULES'])
  assert.deepEqual(codes([file('node_modules_x/y.js'), file('src/node_modules.js')]), [])
})

test('collisions: duplicates, case, Unicode normalization, file/directory, order', () => {
  assert.deepEqual(codes([file('a'), file('a')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([file('A'), file('a')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([file('Dir/x'), file('dir/y')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([file('caf\u0065\u0301'), file('caf\u00e9')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([file('a'), file('a/b')]), ['TREE_PATH_DUPLICATE'])
  assert.deepEqual(codes([file('b'), file('a')]), ['TREE_MALFORMED'])
  // Canonical order is by bytes: "a-b" < "a/c" < "a0", and U+FFFD (EF BF BD) < U+1F600 (F0 9F 98 80).
  assert.deepEqual(codes([file('a-b'), file('a/c'), file('a0'), file('\ufffd'), file('\u{1f600}')]), [])
})

test('bounds: 20,000 entries and 16 MiB pass, one more of either is refused', () => {
  const many = (n: number, size: number): TreeEntry[] => Array.from({ length: n }, (_, i) => file(`f${String(i).padStart(6, '0')}`, size))
  assert.deepEqual(codes(many(MAX_TREE_ENTRIES, 0)), [])
  assert.deepEqual(codes(many(MAX_TREE_ENTRIES + 1, 0)), ['TREE_TOO_MANY_ENTRIES'])
  assert.deepEqual(codes([file('a', MAX_TREE_BYTES)]), [])
  assert.deepEqual(codes([file('a', MAX_TREE_BYTES - 1), file('b', 2)]), ['TREE_TOO_LARGE'])
  // Bounds come first, before any per-path violation.
  assert.deepEqual(codes([file('l', 1, '120000'), ...many(MAX_TREE_ENTRIES, 0)]).slice(0, 2), ['TREE_TOO_MANY_ENTRIES', 'TREE_SYMLINK'])
})

test('parseLsTree: sizes, gitlinks, unreadable blobs, invalid UTF-8 paths and garbage', () => {
  const rec = (meta: string, path: Buffer | string): Buffer => Buffer.concat([Buffer.from(`${meta}\t`), Buffer.from(path), Buffer.from([0])])
  const ok = Buffer.concat([
    rec(`100644 blob ${OID}      12`, 'a.go'),
    rec(`160000 commit ${OID}       -`, 'sub'),
    rec(`100644 blob ${OID}     BAD`, 'gone.go'),
    rec(`100755 blob ${OID} 123456789`, 'é/big.bin'),
  ])
  const parsed = parseLsTree(ok)
  assert.deepEqual(parsed.violations, [])
  assert.deepEqual(parsed.entries.map(e => [e.path, e.mode, e.type, e.size]), [['a.go', '100644', 'blob', 12], ['sub', '160000', 'commit', -1], ['gone.go', '100644', 'blob', -1], ['é/big.bin', '100755', 'blob', 123456789]])
  // One record with a path that is not UTF-8: a violation; the others still parse.
  const mixed = parseLsTree(Buffer.concat([rec(`100644 blob ${OID}       1`, Buffer.from([0x61, 0xff, 0x62])), rec(`100644 blob ${OID}       2`, 'b.go')]))
  assert.deepEqual(mixed.violations.map(v => v.code), ['TREE_PATH_UNSAFE'])
  assert.deepEqual(mixed.entries.map(e => e.path), ['b.go'])
  assert.throws(() => parseLsTree(Buffer.from('not ls-tree output\0')), { code: 'GIT_FAILED' })
  assert.throws(() => parseLsTree(rec('100644 blob nothex 1', 'x')), { code: 'GIT_FAILED' })
  // A path holding a tab or spaces is the path; a last record without its NUL still parses.
  const tabbed = parseLsTree(Buffer.concat([rec(`100644 blob ${OID}       3`, 'a\tb c'), Buffer.from(`100644 blob ${OID}       4\tlast`)]))
  assert.deepEqual(tabbed.entries.map(e => [e.path, e.size]), [['a\tb c', 3], ['last', 4]])
  // Each field out of shape, and a record cut short or doubled NULs, is refused, never skipped.
  for (const bad of [
    rec(`10064 4 blob ${OID} 1`, 'x'), rec(`1006440 blob ${OID} 1`, 'x'), rec(`100644 blob ${OID.toUpperCase()} 1`, 'x'),
    rec(`100644 blob ${OID}x 1`, 'x'), Buffer.from(`100644 blob ${OID}\0`), Buffer.concat([rec(`100644 blob ${OID} 1`, 'x'), Buffer.from([0])]),
  ]) assert.throws(() => parseLsTree(bad), { code: 'GIT_FAILED' }, JSON.stringify(bad.toString()))
})
