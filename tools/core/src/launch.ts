// launch starts a bundled tool from its bin script (tools/<tool>/bin/<tool>.js).
//
// A step (any command line that does not ask for help) runs the tool's one CommonJS bundle,
// `dist/<tool>.cjs`, through node:vm with the V8 code cache made for it at build time: the
// process deserializes compiled functions instead of parsing and compiling ~0.9 MB of
// JavaScript as it first calls them. `--help` imports the split ESM bundle, `dist/<tool>.mjs`,
// which loads only the argument parser: deserializing the whole cache costs more than that.
// Node 20 has no compile cache for ES modules (module.enableCompileCache is Node 22), hence a
// CommonJS bundle run by hand.
//
// The cache only saves time; it never changes what runs. It is used when its header holds the
// sha256 of the exact bundle text (V8 itself checks only the text's length) and V8 accepts it
// (same V8 version and the same flags: STEP_V8_FLAGS is set before anything compiles, both
// here and when the cache is made). Otherwise the bundle compiles from its text.
//
// One more thing happens here, only to save time: a standby (STANDBY_VARIABLE, started by
// the driver ahead of its step) compiles the bundle, then waits for its arguments before it
// does anything else.

import type { Script } from 'node:vm'
import { EXIT } from './exit-codes.ts'
import { asksForHelp, STANDBY_VARIABLE, STEP_V8_FLAGS } from './help-request.ts'
import { printableLine } from './printable-line.ts'
import { writePlainFailure } from './plain-failure.ts'

// Built-ins are taken when a step needs them, not imported: --help would load them for
// nothing (~8 ms of a ~60 ms start, measured; node:crypto most of it).
const builtin = process.getBuiltinModule
const setFlagsFromString = (flags: string): void => builtin('node:v8').setFlagsFromString(flags)

/** The bytes of the header of a code cache file: the sha256 of the bundle it was made from. */
const HEADER_BYTES = 32

/** Where the code cache of a bundle lives: beside it. */
export const codeCachePath = (bundle: string): string => `${bundle}.v8cache`

/** What became of the code cache when a bundle was compiled. */
export type CodeCacheUse = 'used' | 'rejected_by_v8' | 'missing' | 'stale'

interface Bundle { text: string, digest: Buffer }

function readBundle (bundle: string): Bundle {
  const bytes = builtin('node:fs').readFileSync(bundle)
  return { text: bytes.toString('utf8'), digest: builtin('node:crypto').createHash('sha256').update(bytes).digest() }
}

// The CommonJS wrapper, as Node's own loader writes it.
const wrap = (text: string): string => `(function (exports, require, module, __filename, __dirname) {${text}\n})`

function readCodeCache (bundle: string, digest: Buffer): { data?: Buffer, use: CodeCacheUse } {
  let file: Buffer
  try {
    file = builtin('node:fs').readFileSync(codeCachePath(bundle))
  } catch {
    return { use: 'missing' }
  }
  if (file.length <= HEADER_BYTES || !file.subarray(0, HEADER_BYTES).equals(digest)) return { use: 'stale' }
  return { data: file.subarray(HEADER_BYTES), use: 'used' }
}

function compile (bundle: string): { script: Script, use: CodeCacheUse } {
  setFlagsFromString(STEP_V8_FLAGS)
  const { text, digest } = readBundle(bundle)
  const { data, use } = readCodeCache(bundle, digest)
  const script = new (builtin('node:vm').Script)(wrap(text), { filename: bundle, cachedData: data })
  return { script, use: data !== undefined && script.cachedDataRejected === true ? 'rejected_by_v8' : use }
}

/** Runs a CommonJS bundle as Node would run it as a main module, with its code cache if usable. */
export function runBundle (bundle: string, compiled: { script: Script, use: CodeCacheUse } = compile(bundle)): CodeCacheUse {
  const { script, use } = compiled
  const module = { exports: {} }
  const body = script.runInThisContext() as (...args: unknown[]) => void
  body.call(module.exports, module.exports, builtin('node:module').createRequire(bundle), module, bundle, builtin('node:path').dirname(bundle))
  return use
}

/** Compiles a bundle as runBundle would and says what became of its cache, running nothing. */
export function probeCodeCache (bundle: string): CodeCacheUse {
  return compile(bundle).use
}

/**
 * Writes a bundle's code cache (build time, in a fresh process: the flags must be those of a
 * step). Every function is compiled eagerly while the script compiles, so the cache holds them
 * all without running the tool; laziness is restored before the cache is written, because V8
 * stamps the cache with the flags in force then.
 */
export function writeCodeCache (bundle: string): void {
  setFlagsFromString(STEP_V8_FLAGS)
  const { text, digest } = readBundle(bundle)
  setFlagsFromString('--no-lazy')
  const script = new (builtin('node:vm').Script)(wrap(text), { filename: bundle })
  setFlagsFromString('--lazy')
  const fs = builtin('node:fs')
  const temp = `${codeCachePath(bundle)}.tmp`
  fs.writeFileSync(temp, Buffer.concat([digest, script.createCachedData()]))
  fs.renameSync(temp, codeCachePath(bundle))
}

/**
 * Blocks until the driver's line on stdin: the step's arguments; undefined when stdin ends
 * first (the driver went another way, or died mid-line); a string saying what was wrong with
 * a line that is not a JSON array of strings.
 */
function awaitArguments (): string[] | string | undefined {
  const fs = builtin('node:fs')
  const chunks: Buffer[] = []
  const buf = Buffer.alloc(64 << 10)
  for (;;) {
    let n: number
    try {
      n = fs.readSync(0, buf)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return `cannot read the standby's arguments: ${(e as Error).message}`
      // A non-blocking stdin: wait a millisecond and read again.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1)
      continue
    }
    if (n === 0) return undefined
    const chunk = buf.subarray(0, n)
    const nl = chunk.indexOf(0x0a)
    chunks.push(Buffer.from(nl < 0 ? chunk : chunk.subarray(0, nl)))
    if (nl >= 0) break
  }
  let args: unknown
  try {
    args = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    args = undefined
  }
  return Array.isArray(args) && args.every(a => typeof a === 'string') ? args : 'the standby\'s arguments are not a JSON array of strings'
}

/** A bin script's whole work: help from the ESM bundle, any step from the cached CommonJS one. */
export async function launch (dist: URL, tool: string): Promise<void> {
  const bundle = builtin('node:url').fileURLToPath(new URL(`${tool}.cjs`, dist))
  let compiled: ReturnType<typeof compile> | undefined
  if (process.env[STANDBY_VARIABLE] === '1') {
    delete process.env[STANDBY_VARIABLE]
    if (builtin('node:fs').existsSync(bundle)) compiled = compile(bundle)
    const args = awaitArguments()
    if (args === undefined) return
    if (typeof args === 'string') {
      writePlainFailure({ tool, code: 'INTERNAL', message: printableLine(args, 4000), hint: 'a standby takes one line from the driver (scripts/attempt.ts)', exit: EXIT.INTERNAL })
      return
    }
    process.argv = [process.argv[0] ?? process.execPath, process.argv[1] ?? '', ...args]
  }
  if (asksForHelp(process.argv.slice(2))) {
    await import(new URL(`${tool}.mjs`, dist).href)
    return
  }
  if (!builtin('node:fs').existsSync(bundle)) {
    // A build that did not finish (no command in the start record: which words are commands
    // is the bundle's to know).
    writePlainFailure({ tool, code: 'INTERNAL', message: printableLine(`${bundle} is missing`, 4000), hint: 'run pnpm build', exit: EXIT.INTERNAL })
    return
  }
  runBundle(bundle, compiled)
}
