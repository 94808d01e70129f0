// The bind check's memo (bind-scan-memo.ts) holds only while every directory under a system
// directory keeps its stamp: 16,837 lstat calls for /usr, 80–106 ms of a step's own thread
// in Node (measured), paid by admit, reproduce and verify just before their sandbox starts.
// A step that may start the sandbox therefore has its launcher hand the memos' directory
// lists, before the step's bundle loads, to `bind-stamps` (tools/core/native/bind-stamps.c),
// a small C program that takes the same stamps as Node's number Stats on the second core in
// ~50 ms; the step compares them with the memo when it gets to the check
// (prefetchedFreshRoots), while its own thread did its own work. A Node worker thread was
// measured first and was slower than checking in place: its own start takes 50–90 ms.
//
// The helper only reads stamps; every decision stays in TypeScript: the memo's checks (this
// user's, closed to others, named for its root) are made on the memo as the launcher read
// it, and the stamps must equal the memo's, exactly as the in-place check compares them.
// Anything else — no helper (no C compiler at build), no memo, a helper that failed or is
// too slow — and the step checks in place. The helper's stamps are a few tens of ms older
// than in-place ones would be; either is older than the sandbox's start, which is why the
// memo is a cache and binds are nodev.
//
// The launcher and the step are separate bundles, each with its own copy of this module: the
// prefetch passes between them on globalThis under a registered symbol.

import type { ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { startHelper } from '../spawn.ts'
import { unnamedFileWith } from '../unnamed-file.ts'
import { defaultScanMemoDir, MAX_MEMOS, MEMO_NAME, memoCount, memoPathsAt } from './bind-scan-format.ts'

/** The helper's file name in every tool's dist/ (scripts/build.ts compiles it). */
export const BIND_STAMPS_HELPER = 'bind-stamps'

/** A memo as the launcher read it, with what fstat said of the file it read it from. */
export interface ReadMemo { name: string, bytes: Buffer, count: number, uid: number, mode: number }

/** The memos handed to the helper, in order, and its output (undefined when it failed). */
export interface BindStampPrefetch { memoDir: string, memos: ReadMemo[], stamps: Promise<Buffer | undefined> }

/** How long a step waits for the helper before it checks in place. */
const HELPER_WAIT_MS = 10_000

const NUL = Buffer.from([0])

interface Pending extends BindStampPrefetch { child: ChildProcess }

const KEY = Symbol.for('repairline.bindStampPrefetch')
const registry = globalThis as typeof globalThis & { [KEY]?: Pending }

/** The memos in `memoDir` (the first MAX_MEMOS by name), read without following a symlink. */
function readMemos (memoDir: string): ReadMemo[] {
  const fs = process.getBuiltinModule('node:fs')
  const memos: ReadMemo[] = []
  for (const name of fs.readdirSync(memoDir).filter(n => MEMO_NAME.test(n)).sort().slice(0, MAX_MEMOS)) {
    let fd: number | undefined
    try {
      fd = fs.openSync(join(memoDir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      const st = fs.fstatSync(fd)
      if (!st.isFile()) continue
      const bytes = fs.readFileSync(fd)
      const count = memoCount(bytes)
      if (count !== undefined) memos.push({ name, bytes, count, uid: st.uid, mode: st.mode })
    } catch {
      continue
    } finally {
      if (fd !== undefined) fs.closeSync(fd)
    }
  }
  return memos
}

/**
 * Starts the helper (`helper`, a path) on the memos in `memoDir` (default: the current
 * user's). Never throws and never keeps the process alive: a prefetch that cannot start is
 * only time not saved.
 */
export function startBindStampPrefetch (helper: string, memoDir: string = defaultScanMemoDir()): void {
  let input: number | undefined
  try {
    const memos = readMemos(memoDir)
    if (memos.length === 0) return
    // Every memo's directory list, each path ended by a NUL, from an unnamed file: a pipe
    // would be refilled only when this thread's event loop turns, which it does not while
    // the step's bundle loads.
    const paths = Buffer.concat(memos.flatMap(m => [m.bytes.subarray(memoPathsAt(m.count)), NUL]))
    input = unnamedFileWith(paths, ['/dev/shm', process.getBuiltinModule('node:os').tmpdir()])
    if (input === undefined) return
    const child = startHelper(helper, input)
    const stamps = new Promise<Buffer | undefined>(resolve => {
      const chunks: Buffer[] = []
      child.stdout?.on('data', (c: Buffer) => { chunks.push(c) })
      child.on('error', () => { resolve(undefined) })
      child.on('close', code => { resolve(code === 0 ? Buffer.concat(chunks) : undefined) })
    })
    // Neither the helper nor its pipe keeps a step alive that never gets to the check, and a
    // helper still running when the step ends is ended with it.
    child.unref()
    ;(child.stdout as Socket | null)?.unref()
    process.once('exit', () => { child.kill('SIGKILL') })
    registry[KEY] = { memoDir, memos, stamps, child }
  } catch {
    delete registry[KEY]
  } finally {
    if (input !== undefined) process.getBuiltinModule('node:fs').closeSync(input)
  }
}

/**
 * The prefetch started for `memoDir`, once (it is forgotten as it is taken), or undefined.
 * Its stamps resolve undefined when the helper failed or took more than HELPER_WAIT_MS.
 */
export function takeBindStampPrefetch (memoDir: string): BindStampPrefetch | undefined {
  const p = registry[KEY]
  delete registry[KEY]
  if (p === undefined || p.memoDir !== memoDir) return undefined
  // The step now waits for the answer: the helper and its pipe must keep the process alive.
  p.child.ref()
  ;(p.child.stdout as Socket | null)?.ref()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>(resolve => { timer = setTimeout(() => { p.child.kill('SIGKILL'); resolve(undefined) }, HELPER_WAIT_MS) })
  return { memoDir, memos: p.memos, stamps: Promise.race([p.stamps, late]).finally(() => { clearTimeout(timer) }) }
}
