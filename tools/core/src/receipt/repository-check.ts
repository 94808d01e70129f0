// The receipt's `repository` clause (issue 37), built by seal and rebuilt by readback with the
// same function (repository/clause.ts) from the same retained bytes: gate.json's changed
// paths, tree-manifest.json's blob digests and the CODEOWNERS blob in tree.tar.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { GateReport, Receipt, TreeManifest } from '@repairline/schemas'
import { readJsonFile } from '../attempt-dir.ts'
import { jcs } from '../digest.ts'
import { openTreeReader } from '../tree-archive/index.ts'
import { repositoryClause, type RepositoryClause } from '../repository/clause.ts'
import type { CheckContext } from './checks.ts'

/** The clause of an attempt's retained files; without a tree, no path and no file. */
function clauseOf (dir: string, manifest: TreeManifest | undefined, gate: GateReport | undefined): RepositoryClause {
  if (manifest === undefined) return { codeowners: null, paths: [] }
  const tree = openTreeReader(dir)
  return repositoryClause(manifest, (gate?.changed_files ?? []).map(f => f.path), p => tree.readFile(p))
}

/**
 * What seal writes: read from the attempt directory (each file validated as it is read). A
 * tree that cannot be read (damaged after extraction) gives no path and no file: seal still
 * seals, and readback reports the tree.
 */
export function sealRepositoryClause (dir: string): RepositoryClause {
  try {
    const manifest = existsSync(join(dir, 'tree-manifest.json')) ? readJsonFile('tree-manifest', join(dir, 'tree-manifest.json')) : undefined
    const gate = existsSync(join(dir, 'gate.json')) ? readJsonFile('gate', join(dir, 'gate.json')) : undefined
    return clauseOf(dir, manifest, gate)
  } catch {
    return { codeowners: null, paths: [] }
  }
}

export const INSTRUCTIONS_CODE = 'INSTRUCTION_DIGEST_MISMATCH'
export const OWNERS_CODE = 'OWNERS_RULE_MISMATCH'

/**
 * Readback: a receipt of version 2 has the clause, and it is what the retained tree and gate
 * give: the changed paths and their instruction files (INSTRUCTION_DIGEST_MISMATCH), the
 * CODEOWNERS file and each path's effective rule (OWNERS_RULE_MISMATCH). Not judged where an
 * input is malformed or tree.tar is not its manifest's (their own findings say so).
 */
export function checkRepository (c: CheckContext): void {
  const receipt = c.docs.get('receipt.json') as Receipt | undefined
  if (receipt === undefined) return
  const f = c.findings
  const got = receipt.repository
  if (got === undefined) {
    if (receipt.v >= 2) f.add(INSTRUCTIONS_CODE, 'receipt.json (version 2) has no repository clause', 'receipt.json')
    return
  }
  const manifest = c.docs.get('tree-manifest.json') as TreeManifest | undefined
  const gate = c.docs.get('gate.json') as GateReport | undefined
  if ((manifest === undefined && c.files.has('tree-manifest.json')) || (gate === undefined && c.files.has('gate.json'))) return
  if (manifest !== undefined && (!c.files.has('tree.tar') || c.digestOf('tree.tar') !== manifest.tar_sha256)) return
  // Records of another attempt are the binding check's finding, not this clause's.
  if (gate !== undefined && gate.attempt_key !== c.admission.attempt_key) return
  let want: RepositoryClause
  try {
    want = clauseOf(c.dir, manifest, gate)
  } catch {
    // A manifest that contradicts itself cannot be opened: TREE_ARCHIVE_MISMATCH says so.
    return
  }
  const paths = (r: RepositoryClause): unknown => r.paths.map(p => ({ path: p.path, instructions: p.instructions }))
  if (jcs(paths(got)) !== jcs(paths(want))) {
    const differs = want.paths.find((p, i) => jcs(p.instructions) !== jcs(got.paths[i]?.instructions ?? null) || p.path !== got.paths[i]?.path)
    f.add(INSTRUCTIONS_CODE, `receipt.json's repository paths and instruction files are not what the tree at source_sha gives${differs === undefined ? ` (${got.paths.length} paths, ${want.paths.length} changed)` : ` for ${differs.path}: ${differs.instructions.map(i => `${i.path} ${i.sha256.slice(0, 12)}`).join(', ') || 'none'}`}`, 'receipt.json')
  }
  const owners = (r: RepositoryClause): unknown => ({ codeowners: r.codeowners, owners: r.paths.map(p => p.owners) })
  if (jcs(owners(got)) !== jcs(owners(want))) {
    const differs = want.paths.find((p, i) => jcs(p.owners) !== jcs(got.paths[i]?.owners ?? null))
    const what = jcs(got.codeowners) !== jcs(want.codeowners) || differs === undefined
      ? `file is not what the tree at source_sha gives: ${JSON.stringify(want.codeowners)}${got.paths.length === want.paths.length ? '' : ` (and it gives rules for ${got.paths.length} paths, not ${want.paths.length})`}`
      : `rule for ${differs.path} is not what the tree at source_sha gives: ${differs.owners === null ? 'no rule' : `${differs.owners.file}:${differs.owners.line} ${differs.owners.pattern} ${differs.owners.owners.join(' ') || '(unowned)'}`}`
    f.add(OWNERS_CODE, `receipt.json's CODEOWNERS ${what}`, 'receipt.json')
  }
}
