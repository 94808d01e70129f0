// An attempt's test run (DESIGN §9, §11): the one TestRunSpec that `reproduce` (on the
// baseline) and `verify` (on the candidate) both build, so the two runs use the identical
// fixed command in the identical sandbox and differ only in the tree that is mounted; the
// scratch trees under `<attempt>/work/`; and the events file both write
// (baseline.events.ndjson, candidate.events.ndjson) with the digest their summaries record.

import { lstatSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { TestEvent } from '@repairline/schemas'
import type { Attempt } from './attempt-dir.ts'
import { ensureDir, writeFileAtomic } from './atomic.ts'
import { sha256Hex } from './digest.ts'
import { hasErrno, toolError } from './errors.ts'
import { removeScratch } from './runners/scratch.ts'
import type { TestRun, TestRunSpec } from './runners/run-tests.ts'
import type { PlacedSandbox } from './sandbox/run.ts'
import { materializeTree, type MaterializedTree } from './tree-archive/read.ts'

/** The scratch trees of an attempt: `work/baseline` (reproduce) and `work/candidate` (verify). */
export type WorkTreeName = 'baseline' | 'candidate'

export interface AttemptRunOptions {
  /** The work tree to mount read-only (from prepareWorkTree). */
  tree: string
  /** A directory the sandbox user can traverse (from prepareScratch). */
  scratch: string
  /** The step's clock: the run's budget is what is left until the attempt's deadline. */
  now: Date
  signal?: AbortSignal
  onPlaced?: (p: PlacedSandbox) => void | Promise<void>
  /** Live progress: how many tests have finished. */
  onProgress?: (finished: number) => void
}

/** Margin kept between the sandbox's kill and the attempt's deadline, to write the results. */
export const WRITE_MARGIN_MS = 1_000

/**
 * The TestRunSpec of an attempt: runner, test_packages, go_mod_cache, go_build_cache and dependency_dir from
 * the execution config copy, the tree shown at source_root's path inside the sandbox (runTests
 * falls back to /src where the sandbox's layout owns that path), the fixed CLI limits
 * (runTests' default), the state root among
 * the sampled filesystems, and as the run's budget the time left until the deadline less
 * WRITE_MARGIN_MS (at least 1 ms). go's own -timeout is set below that budget, so it is the one
 * argument of the command that differs between two runs of one attempt.
 */
export function attemptTestRunSpec (attempt: Attempt, o: AttemptRunOptions): TestRunSpec {
  const { runner } = attempt.config
  const timeoutMs = Math.max(1, Date.parse(attempt.admission.deadline) - o.now.getTime() - WRITE_MARGIN_MS)
  return {
    runner: runner.kind,
    tree: o.tree,
    mountPoint: attempt.config.source_root,
    testPackages: attempt.config.test_packages,
    scratch: o.scratch,
    timeoutMs,
    diskPaths: [attempt.stateRoot],
    ...(runner.go_mod_cache === undefined ? {} : { goModCache: runner.go_mod_cache }),
    ...(runner.go_build_cache === undefined ? {} : { goBuildCache: runner.go_build_cache }),
    ...(runner.dependency_dir === undefined ? {} : { dependencyDir: runner.dependency_dir }),
    ...(o.signal === undefined ? {} : { signal: o.signal }),
    ...(o.onPlaced === undefined ? {} : { onPlaced: o.onPlaced }),
    ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
  }
}

/** `<attempt>/work/`, created 0755 (the sandbox user traverses it); never a symlink. */
function workDir (attempt: Attempt): string {
  const dir = join(attempt.dir, 'work')
  ensureDir(attempt.stateRoot, dir, 0o755)
  return dir
}

/** Removes a leftover of an earlier run of the same step (a crash); `work/` itself was checked. */
function removeLeftover (path: string): void {
  try {
    lstatSync(path)
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return
    throw e
  }
  rmSync(path, { recursive: true, force: true })
}

/**
 * Writes the work tree `work/<name>` from tree.tar (verified against the manifest), with
 * `overrides` replacing existing files (the candidate). A leftover from an earlier run of the
 * same step that crashed is removed first: scratch trees are not sealed.
 */
export function prepareWorkTree (attempt: Attempt, name: WorkTreeName, overrides: ReadonlyMap<string, Buffer> = new Map()): MaterializedTree {
  const dest = join(workDir(attempt), name)
  removeLeftover(dest)
  return materializeTree(attempt.dir, dest, overrides)
}

/**
 * An empty `work/<name>-run/` (0755) for the run's GOCACHE mount point or reporter; remove it
 * after the run with removeScratch. A leftover of a run killed before its cleanup (its GOCACHE
 * still mounted, any tree a test built in it) is detached and removed first; one that cannot
 * be is WRITE_FAILED, before anything runs.
 */
export async function prepareScratch (attempt: Attempt, name: WorkTreeName): Promise<string> {
  const dir = join(workDir(attempt), `${name}-run`)
  const left = await removeScratch(dir)
  if (left !== undefined) throw toolError('WRITE_FAILED', `cannot remove the leftover scratch of an earlier run: ${left}`, { path: dir })
  ensureDir(attempt.stateRoot, dir, 0o755)
  return dir
}

/** events.{count, bytes, sha256} of a summary file. */
export interface EventsDigest { count: number, bytes: number, sha256: string }

/** The bytes of an events file: one normalized test event per line, JSON.stringify + "\n". */
export function testEventsBytes (events: readonly TestEvent[]): Buffer {
  return Buffer.from(events.map(e => `${JSON.stringify(e)}\n`).join(''))
}

/** Writes an events file atomically and returns what its summary file records about it. */
export function writeTestEvents (path: string, events: readonly TestEvent[], stateRoot: string): EventsDigest {
  const bytes = testEventsBytes(events)
  writeFileAtomic(path, bytes, { stateRoot })
  return { count: events.length, bytes: bytes.length, sha256: sha256Hex(bytes) }
}

/**
 * The fields baseline.json and verify.json share about the run itself: the runner, toolchain
 * and command, how it ended, the fault if the run says nothing usable, the events file's
 * digest, the sandbox report, the GOCACHE copy or the reporter digest, and stderr's tail.
 */
export interface TestRunFields {
  runner: TestRun['runner']
  toolchain: string
  command: string[]
  exit_code: number | null
  timed_out: boolean
  fault?: { code: string, message: string }
  events: EventsDigest
  run?: NonNullable<TestRun['sandbox']>
  go_cache?: { seeded_from?: string, files: number, bytes: number, method?: 'link' | 'copy' | 'overlay', note?: string }
  reporter_sha256?: string
  stderr_tail: string
}

export function testRunFields (run: TestRun, events: EventsDigest): TestRunFields {
  const g = run.goCache
  return {
    runner: run.runner,
    toolchain: run.toolchain,
    command: [...run.command],
    exit_code: run.sandbox?.exit.code ?? null,
    timed_out: run.timedOut,
    ...(run.fault === undefined ? {} : { fault: { code: run.fault.code, message: run.fault.message.replace(/[\r\n]+/g, ' ').slice(0, 8000) } }),
    events,
    ...(run.sandbox === undefined ? {} : { run: run.sandbox }),
    ...(g === undefined ? {} : { go_cache: { ...(g.seededFrom === undefined ? {} : { seeded_from: g.seededFrom }), files: g.files, bytes: g.bytes, ...(g.method === undefined ? {} : { method: g.method }), ...(g.note === undefined ? {} : { note: g.note }) } }),
    ...(run.reporterSha256 === undefined ? {} : { reporter_sha256: run.reporterSha256 }),
    stderr_tail: run.stderrTail.length > 8192 ? run.stderrTail.slice(-8192) : run.stderrTail,
  }
}
