// candidate.patch is a unified diff that `git apply` accepts on source_sha: applied to a clean
// worktree of the commit it reproduces the candidate tree byte for byte — every file, the
// untouched ones included — for the shapes a text diff gets wrong (CRLF, no final newline,
// edits at the first and last line, emptied files, several files, an executable file, a path
// with a space, a non-ASCII path).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { buildUnifiedDiff, blobId, type CandidateFile } from '@repairline/core/gate/index'
import { createRepo, gitT } from '../../../../test/helpers/git.ts'
import { tempDir } from '../../../../test/helpers/tmp.ts'

interface Shape { name: string, files: Record<string, { before: string, after?: string, mode?: '100644' | '100755' }> }

const SHAPES: Shape[] = [
  { name: 'one-line fix', files: { 'calc.go': { before: 'package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n', after: 'package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' }, 'calc_test.go': { before: 'package calc\n' } } },
  { name: 'CRLF lines', files: { 'a.js': { before: 'const a = 1\r\nconst b = 2\r\nconst c = 3\r\n', after: 'const a = 1\r\nconst b = 5\r\nconst c = 3\r\n' } } },
  { name: 'no final newline, before and after', files: { 'a.js': { before: 'x\ny\nz', after: 'x\ny\nw' } } },
  { name: 'final newline removed', files: { 'a.js': { before: 'x\ny\n', after: 'x\ny' } } },
  { name: 'final newline added', files: { 'a.js': { before: 'x\ny', after: 'x\ny\n' } } },
  { name: 'first line changed, far from the last', files: { 'a.js': { before: `first\n${'mid\n'.repeat(20)}last\n`, after: `FIRST\n${'mid\n'.repeat(20)}LAST\n` } } },
  { name: 'file emptied (kept, not deleted)', files: { 'a.js': { before: 'a\nb\n', after: '' } } },
  { name: 'empty file filled', files: { 'a.js': { before: '', after: 'a\n' } } },
  { name: 'two files, one executable', files: { 'b/run.js': { before: '#!/usr/bin/env node\nrun(1)\n', after: '#!/usr/bin/env node\nrun(2)\n', mode: '100755' }, 'a/calc.js': { before: 'export const x = 1\n', after: 'export const x = 2\n' } } },
  { name: 'path with a space', files: { 'src/my calc.js': { before: 'a\n', after: 'b\n' } } },
  { name: 'non-ASCII path and content', files: { 'src/café.js': { before: 'const s = "é"\n', after: 'const s = "ü😀"\n' } } },
]

function walk (root: string, dir = root, out: Map<string, { bytes: Buffer, exec: boolean }> = new Map()): Map<string, { bytes: Buffer, exec: boolean }> {
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) walk(root, p, out)
    else out.set(relative(root, p), { bytes: readFileSync(p), exec: (st.mode & 0o100) !== 0 })
  }
  return out
}

for (const shape of SHAPES) {
  test(`git apply on a clean worktree of source_sha reproduces the candidate byte for byte: ${shape.name}`, async (t) => {
    const dir = tempDir(t)
    const repo = join(dir, 'repo')
    const sha = await createRepo(repo, Object.fromEntries(Object.entries(shape.files).map(([p, f]) => [p, { content: f.before, mode: f.mode === '100755' ? 0o755 : 0o644 }])))
    const changed: CandidateFile[] = Object.entries(shape.files)
      .filter(([, f]) => f.after !== undefined)
      .map(([path, f]) => ({ path, mode: f.mode ?? '100644', baselineMode: f.mode ?? '100644', before: f.before, after: f.after as string }))
      .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
    const patch = buildUnifiedDiff(changed)
    // The index line carries git's own blob ids.
    for (const f of changed) assert.ok(patch.includes(`index ${blobId(f.before)}..${blobId(f.after)} ${f.mode}\n`))
    const patchFile = join(dir, 'candidate.patch')
    writeFileSync(patchFile, patch)
    const wt = join(dir, 'wt')
    await gitT(repo, ['worktree', 'add', '-q', '--detach', wt, sha])
    await gitT(wt, ['apply', '--check', patchFile])
    await gitT(wt, ['apply', patchFile])
    const got = walk(wt)
    const want = new Map(Object.entries(shape.files).map(([p, f]) => [p, { bytes: Buffer.from(f.after ?? f.before), exec: f.mode === '100755' }]))
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort())
    for (const [p, w] of want) {
      assert.ok(got.get(p)?.bytes.equals(w.bytes), `${p}: ${JSON.stringify(got.get(p)?.bytes.toString())} != ${JSON.stringify(w.bytes.toString())}`)
      assert.equal(got.get(p)?.exec, w.exec, `${p}: mode`)
    }
    // And git agrees it is exactly the diff it would have written itself.
    const stat = await gitT(wt, ['diff', '--numstat'])
    assert.equal(stat.trim().split('\n').filter(l => l !== '').length, changed.length)
  })
}
