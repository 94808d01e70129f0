// Where free disk is sampled: sampleDisks skips a path that is not there (a run samples what it
// writes to); existingAncestor names the filesystem a directory not made yet will be made on,
// which admit samples for a state_dir it has not created (RESOURCES_LOW before the key is spent).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { existingAncestor, sampleDisks } from '../src/index.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'

test('existingAncestor: the path itself when it exists, else its nearest existing ancestor; sampleDisks samples that and skips the missing path', t => {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'made'))
  writeFileSync(join(dir, 'file'), '')
  assert.equal(existingAncestor(dir), dir)
  assert.equal(existingAncestor(join(dir, 'made')), join(dir, 'made'))
  assert.equal(existingAncestor(join(dir, 'file')), join(dir, 'file'))
  assert.equal(existingAncestor(join(dir, 'state')), dir)
  assert.equal(existingAncestor(join(dir, 'made', 'a', 'b', 'state')), join(dir, 'made'))
  assert.equal(existingAncestor(`${dir}/made/../state/`), dir)
  assert.equal(existingAncestor('/'), '/')
  // A path that is not there is no filesystem of its own: skipped, so its ancestor is sampled.
  assert.deepEqual(sampleDisks([join(dir, 'state')]), [])
  const [disk] = sampleDisks([existingAncestor(join(dir, 'state'))])
  assert.equal(disk?.path, dir)
  assert.ok((disk?.free_bytes ?? -1) >= 0)
})
