// The go runner (DESIGN §9): `go test -json -count=1 -timeout <below the deadline>
// <test_packages>` with GOTOOLCHAIN=local GOPROXY=off GOWORK=off GOENV=off GOFLAGS= and a
// private, writable, capped GOCACHE (go-cache.ts) that shows the operator's
// runner.go_build_cache read-only beneath the run's writes when one is configured (a
// read-only cache fails; an empty one makes every run several times slower). Nothing is
// taken from HOME or the environment. go_mod_cache, when set, is mounted read-only as
// GOMODCACHE.
//
// A go.mod that Go 1.19 cannot read — a three-part `go 1.21.0` line or a `toolchain` line —
// is refused before the run with a message naming the Go it needs; anything newer than the
// local toolchain that it can read is left to the toolchain.

import { readFileSync } from 'node:fs'
import { join, posix } from 'node:path'

/** Where the private GOCACHE is mounted (read-write) inside the sandbox. */
export const GO_CACHE_DEST = '/gocache'

/**
 * The fixed environment of `go test` (names and values). `modCache` is where go_mod_cache is
 * mounted, when it is.
 */
export function goEnv (goroot: string, modCache: string | undefined): Record<string, string> {
  return {
    PATH: `${goroot}/bin:/usr/bin:/bin`,
    HOME: '/tmp',
    TMPDIR: '/tmp',
    GOROOT: goroot,
    GOPATH: '/tmp/gopath',
    GOCACHE: GO_CACHE_DEST,
    GOMODCACHE: modCache ?? '/tmp/gopath/pkg/mod',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    GOWORK: 'off',
    GOENV: 'off',
    GOFLAGS: '',
  }
}

/** go test's own -timeout, in whole seconds: below the hard deadline so go reports in-band. */
export function goTestTimeoutSeconds (timeoutMs: number): number {
  const grace = Math.min(10_000, Math.max(1_000, timeoutMs / 10))
  return Math.max(1, Math.floor((timeoutMs - grace) / 1000))
}

export function goCommand (goBin: string, testPackages: readonly string[], timeoutMs: number): string[] {
  return [goBin, 'test', '-json', '-count=1', `-timeout=${goTestTimeoutSeconds(timeoutMs)}s`, ...testPackages]
}

function versionParts (v: string): number[] {
  return v.replace(/^go/, '').split(/[^0-9]+/).filter(p => p !== '').map(Number)
}

function versionLess (a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0
    const y = b[i] ?? 0
    if (x !== y) return x < y
  }
  return false
}

/**
 * The value of a one-line go.mod directive (`module`, `go`, `toolchain`), without its quotes,
 * or undefined. A trailing `// comment` is part of the line as go reads it: `module x //
 * Deprecated: …` is where go.mod marks a deprecated module.
 */
export function goModDirective (text: string, keyword: 'module' | 'go' | 'toolchain'): string | undefined {
  return new RegExp(`^${keyword}[ \\t]+("?)([^\\s"]+)\\1[ \\t]*(?://.*)?$`, 'm').exec(text)?.[2]
}

/**
 * Why the local toolchain cannot read the tree's go.mod files (the root's and those on the
 * way to each test package), or undefined. Go before 1.21 refuses a three-part go version
 * and a toolchain directive outright.
 */
export function goModUnreadable (tree: string, testPackages: readonly string[], localVersion: string): string | undefined {
  const local = versionParts(localVersion)
  if (!versionLess(local, [1, 21])) return undefined
  for (const d of goModDirs(testPackages)) {
    const file = join(tree, d, 'go.mod')
    let text: string
    try { text = readFileSync(file, 'utf8') } catch { continue }
    const rel = d === '' ? 'go.mod' : `${d}/go.mod`
    const goLine = goModDirective(text, 'go')
    const toolchain = goModDirective(text, 'toolchain')
    const needs: string[] = []
    if (goLine !== undefined && versionParts(goLine).length >= 3) needs.push(`go ${goLine}`)
    if (toolchain !== undefined) needs.push(`toolchain ${toolchain}`)
    if (needs.length > 0) {
      const want = goLine !== undefined && !versionLess(versionParts(goLine), [1, 21]) ? goLine : '1.21'
      return `${rel} says ${needs.join(' and ')}: the local ${localVersion} cannot read it; it needs Go ${want} or newer`
    }
  }
  return undefined
}

/**
 * A `replace` in a go.mod on the way to a test package whose replacement is a directory
 * outside the tree (an absolute path, or a relative one that climbs above the tree's root),
 * or undefined. The sandbox shows the tree and nothing beside it: go would not find the
 * directory, and the run would say nothing about the case.
 */
export function goModReplacesOutside (tree: string, testPackages: readonly string[]): string | undefined {
  for (const d of goModDirs(testPackages)) {
    let text: string
    try { text = readFileSync(join(tree, d, 'go.mod'), 'utf8') } catch { continue }
    const rel = d === '' ? 'go.mod' : `${d}/go.mod`
    for (const r of goModReplacements(text)) {
      // Only a path is a directory: go reads `./x`, `../x` and absolute paths so (go.mod reference).
      if (!r.to.startsWith('./') && !r.to.startsWith('../') && !r.to.startsWith('/')) continue
      const resolved = posix.normalize(posix.join(d === '' ? '.' : d, r.to))
      if (r.to.startsWith('/') || resolved === '..' || resolved.startsWith('../')) {
        return `${rel} replaces ${r.from} with ${r.to}, a directory outside the tree: the sandbox shows only the tree (vendor the module, or replace it with a directory inside the tree)`
      }
    }
  }
  return undefined
}

/** The go.mod files go reads for the test packages: the root's and those on the way down. */
function goModDirs (testPackages: readonly string[]): string[] {
  const dirs = new Set<string>([''])
  for (const p of testPackages) {
    const parts = p.replace(/^\.\/?/, '').split('/').filter(x => x !== '')
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'))
  }
  return [...dirs].sort()
}

/** The `replace` directives of a go.mod, one-line and in blocks: `old [v] => new [v]`. */
function goModReplacements (text: string): Array<{ from: string, to: string }> {
  const out: Array<{ from: string, to: string }> = []
  let inBlock = false
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim()
    let spec: string | undefined
    if (inBlock) {
      if (line === ')') { inBlock = false; continue }
      spec = line
    } else if (/^replace[ \t]*\($/.test(line)) {
      inBlock = true
      continue
    } else if (/^replace[ \t]/.test(line)) {
      spec = line.slice('replace'.length)
    }
    const m = spec === undefined ? null : /^\s*("[^"]*"|\S+)(?:\s+\S+)?\s*=>\s*("[^"]*"|\S+)/.exec(spec)
    if (m !== null) out.push({ from: unquote(m[1] ?? ''), to: unquote(m[2] ?? '') })
  }
  return out
}

const unquote = (s: string): string => (s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1) : s)

/** The private GOCACHE a run used, as baseline.json and verify.json record it (go_cache). */
export interface GoCacheCopy {
  /** The operator's build cache (runner.go_build_cache) shown read-only beneath the run's writes. */
  seededFrom?: string
  /** overlay: a kernel overlay over seededFrom; absent: the bare capped tmpfs (cold). */
  method?: 'overlay'
  /** Files and bytes the run wrote into its private layer. */
  files: number
  bytes: number
  /** Why the run is cold. */
  note?: string
}
