// Admitting a fixture's case directly with core functions, bypassing admit and therefore
// every one of its checks — the cheap tree check included. Later steps must not rely on
// admit having refused a bad tree (the repository may change after admission), so their
// tests need attempts whose tree breaks a rule; `admit run` cannot produce those. The files
// written are exactly admit's: inputs/, admission.json, started.json, and the lock.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Admission, ExecutionConfig, RegisterManifest, RoutingPolicy } from '@repairline/schemas'
import {
  acquireLock, attemptDirFor, attemptKey, ensureDir, jsonFileBytes, keyInputsFor, listTree, resolvePromptRegister, resolveRoute,
  resolveTaskRegister, writeFileAtomic, writeJsonAtomic,
} from '@repairline/core'
import { MINIMAL_REGISTERS, type Fixture } from './fixture.ts'

export interface DirectAttempt { dir: string, key: string, stateRoot: string }

/**
 * Admits the first case of the fixture's report for the commit in its config file (which a
 * test may point at a hostile commit) without any check. `now` defaults to the wall clock.
 * `testHooks` records the attempt as admitted with REPAIRLINE_TEST_HOOKS=1, so its steps may
 * (and must) run with the hooks, e.g. a test clock that holds them inside the deadline.
 */
export async function admitDirect (f: Fixture, o: { now?: Date, registers?: RegisterManifest, testHooks?: boolean } = {}): Promise<DirectAttempt> {
  const configBytes = readFileSync(f.configPath)
  const config = JSON.parse(configBytes.toString('utf8')) as ExecutionConfig
  const policyBytes = readFileSync(f.policyPath)
  const policy = JSON.parse(policyBytes.toString('utf8')) as RoutingPolicy
  const registers = o.registers ?? (MINIMAL_REGISTERS as RegisterManifest)
  const c = f.report.cases[0]
  if (c === undefined) throw new Error('the fixture report has no case')
  const route = resolveRoute(policy, c.kind)
  if (!route.ok) throw new Error(route.message)
  const keyInputs = keyInputsFor(config, policy, registers, c)
  const key = attemptKey(keyInputs)
  // Sizes only, for admission.json; violations are deliberately ignored.
  const listing = await listTree(config.source_root, config.source_sha)
  const now = o.now ?? new Date()
  const deadline = new Date(now.getTime() + config.timeout_seconds * 1000)
  const stateRoot = config.state_dir
  const dir = attemptDirFor(stateRoot, key)
  ensureDir(stateRoot, stateRoot, 0o711)
  ensureDir(stateRoot, join(stateRoot, 'attempts'), 0o711)
  const lock = acquireLock(stateRoot, { v: 1, attempt_key: key, attempt_dir: dir, deadline: deadline.toISOString() }, now)
  if (!lock.acquired) throw new Error(`the lock is held by ${lock.holder.attempt_dir}`)
  ensureDir(stateRoot, dir, 0o711)
  ensureDir(stateRoot, join(dir, 'inputs'), 0o711)
  writeFileAtomic(join(dir, 'inputs', 'execution.json'), configBytes, { stateRoot })
  writeFileAtomic(join(dir, 'inputs', 'routing-policy.json'), policyBytes, { stateRoot })
  writeFileAtomic(join(dir, 'inputs', 'registers.json'), jsonFileBytes(registers), { stateRoot })
  writeJsonAtomic('case', join(dir, 'inputs', 'case.json'), c, { stateRoot })
  const admission: Admission = {
    v: 1,
    attempt_key: key,
    key_inputs: keyInputs,
    case: c,
    route: route.route,
    task_register: resolveTaskRegister(registers, route.route.task_label),
    prompt_register: resolvePromptRegister(registers),
    admitted_at: now.toISOString(),
    deadline: deadline.toISOString(),
    timeout_seconds: config.timeout_seconds,
    test_hooks: o.testHooks === true,
    source: { root: config.source_root, sha: config.source_sha, clean: true, tree_entries: listing.blobCount, tree_bytes: listing.blobBytes },
  }
  writeJsonAtomic('admission', join(dir, 'admission.json'), admission, { stateRoot })
  writeFileAtomic(join(dir, 'started.json'), jsonFileBytes({ v: 1, attempt_key: key, started_at: now.toISOString() }), { stateRoot, exclusive: true })
  return { dir, key, stateRoot }
}
