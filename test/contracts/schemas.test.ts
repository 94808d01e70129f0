// The contract holds itself to its own rules: every schema has valid and invalid examples
// (valid ones pass, invalid ones fail with the keyword their file name gives), every object
// is closed, every property is described, and the generated types and validators match the
// schemas (the drift check).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { validators, schemaIds, type SchemaName } from '@repairline/schemas'
import { ROOT } from '../helpers/bin.ts'

const schemaDir = join(ROOT, 'schemas')
const names = Object.keys(validators) as SchemaName[]

test('every schema file has a generated validator and every validator a schema file', () => {
  const files = readdirSync(schemaDir).filter(f => f.endsWith('.schema.json')).map(f => f.replace('.schema.json', '')).filter(n => n !== 'defs').sort()
  assert.deepEqual(files, [...names].sort())
})

for (const name of names) {
  test(`${name}: valid examples pass, invalid examples fail on their keyword`, () => {
    const base = join(schemaDir, 'examples', name)
    assert.ok(existsSync(join(base, 'valid')), `schemas/examples/${name}/valid is missing`)
    assert.ok(existsSync(join(base, 'invalid')), `schemas/examples/${name}/invalid is missing`)
    const valid = readdirSync(join(base, 'valid'))
    const invalid = readdirSync(join(base, 'invalid'))
    assert.ok(valid.length > 0 && invalid.length > 0, `${name} needs at least one valid and one invalid example`)
    const validate = validators[name]
    for (const f of valid) {
      const ok = validate(JSON.parse(readFileSync(join(base, 'valid', f), 'utf8')))
      assert.ok(ok, `${name}/valid/${f}: ${JSON.stringify(validate.errors)}`)
    }
    for (const f of invalid) {
      const ok = validate(JSON.parse(readFileSync(join(base, 'invalid', f), 'utf8')))
      assert.equal(ok, false, `${name}/invalid/${f} unexpectedly passed`)
      const keyword = /\.([A-Za-z]+)\.json$/.exec(f)?.[1]
      if (keyword !== undefined) {
        assert.ok(validate.errors?.some(e => e.keyword === keyword), `${name}/invalid/${f}: expected a ${keyword} error, got ${JSON.stringify(validate.errors?.map(e => e.keyword))}`)
      }
    }
  })
}

type Node = Record<string, unknown>

/** Walks a schema and reports objects that are open and properties without a description. */
function lint (node: unknown, at: string, out: string[]): void {
  if (Array.isArray(node)) { node.forEach((n, i) => lint(n, `${at}/${i}`, out)); return }
  if (typeof node !== 'object' || node === null) return
  const n = node as Node
  if (n.type === 'object' && n.additionalProperties === undefined) out.push(`${at}: object without additionalProperties`)
  if (n.type === 'object' && n.additionalProperties === true) out.push(`${at}: open object`)
  if (typeof n.properties === 'object' && n.properties !== null) {
    for (const [k, v] of Object.entries(n.properties as Node)) {
      if (typeof (v as Node).description !== 'string') out.push(`${at}/properties/${k}: no description`)
    }
  }
  for (const [k, v] of Object.entries(n)) if (!['examples', 'const', 'enum', 'if', 'not'].includes(k)) lint(v, `${at}/${k}`, out)
}

test('every schema: 2020-12, urn $id, unique title, closed objects, described properties', () => {
  const titles = new Set<string>()
  const problems: string[] = []
  for (const f of readdirSync(schemaDir).filter(x => x.endsWith('.schema.json'))) {
    const s = JSON.parse(readFileSync(join(schemaDir, f), 'utf8')) as Node
    const name = f.replace('.schema.json', '')
    assert.equal(s.$schema, 'https://json-schema.org/draft/2020-12/schema', f)
    assert.match(String(s.$id), new RegExp(`^urn:repairline:${name}:v\\d+$`), f)
    if (name !== 'defs') assert.equal(schemaIds[name as SchemaName], s.$id)
    assert.ok(!titles.has(String(s.title)), `${f}: title ${String(s.title)} is not unique`)
    titles.add(String(s.title))
    lint(s, f, problems)
  }
  assert.deepEqual(problems, [])
})

test('generated types and validators match the schemas (drift check)', async () => {
  const r = await execa(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'gen-contracts.ts'), '--check'], { cwd: ROOT, reject: false })
  assert.equal(r.exitCode, 0, String(r.stderr))
})
