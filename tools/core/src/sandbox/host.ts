// Host facts the sandbox is built from: the four programs it starts (prlimit, setpriv,
// keyctl, bwrap), the loader paths of a merged-/usr system, Node's install prefix and GOROOT. Every
// path is absolute and resolved, so nothing depends on PATH.

import { accessSync, constants, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { toolError } from '../errors.ts'

export const BWRAP = '/usr/bin/bwrap'
export const SETPRIV = '/usr/bin/setpriv'
export const PRLIMIT = '/usr/bin/prlimit'
/** keyutils' keyctl: `keyctl session - PROGRAM…` joins a new anonymous session keyring, then execs. */
export const KEYCTL = '/usr/bin/keyctl'

/** The unprivileged host user the sandbox runs as when the tool runs as root (nobody:nogroup). */
export const SANDBOX_UID = 65534
export const SANDBOX_GID = 65534

/** Whether each program the sandbox needs exists and is executable; missing ones by path. */
export function missingPrograms (): string[] {
  const missing: string[] = []
  for (const p of [BWRAP, SETPRIV, PRLIMIT, KEYCTL]) {
    try { accessSync(p, constants.X_OK) } catch { missing.push(p) }
  }
  return missing
}

/** A top-level loader path as the sandbox shows it: a symlink into /usr, or a read-only bind. */
export type LoaderPath = { path: string, kind: 'symlink', target: string } | { path: string, kind: 'bind' }

export const LOADER_PATHS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']

/** The loader paths present on this host (merged /usr: symlinks; otherwise directories). */
export function loaderPaths (): LoaderPath[] {
  const out: LoaderPath[] = []
  for (const p of LOADER_PATHS) {
    let st
    try { st = lstatSync(p) } catch { continue }
    if (st.isSymbolicLink()) out.push({ path: p, kind: 'symlink', target: readlinkSync(p) })
    else if (st.isDirectory()) out.push({ path: p, kind: 'bind' })
  }
  return out
}

/** The directories every sandbox shows at their own paths: /usr and the loader paths that are directories, not symlinks into it. */
export function baseSystemDirs (loader: readonly LoaderPath[] = loaderPaths()): string[] {
  return ['/usr', ...loader.filter(l => l.kind === 'bind').map(l => l.path)]
}

/**
 * Every host directory a sandbox of `runner` shows at its own path besides its mounts
 * (DESIGN §11: /usr, the loader paths, Node's prefix or GOROOT), each resolved. A Go toolchain
 * that cannot be found is left out: the sandbox preflight refuses that host on its own.
 */
export function sandboxSystemDirs (runner: 'go' | 'node'): string[] {
  const dirs = baseSystemDirs()
  if (runner === 'node') dirs.push(nodeInstall().prefix)
  else {
    try { dirs.push(goInstall().goroot) } catch {}
  }
  return [...new Set(dirs.map(d => { try { return realpathSync(d) } catch { return d } }))]
}

/** True when `p` is /usr or below it (already visible in the sandbox). */
export function underUsr (p: string): boolean {
  return p === '/usr' || p.startsWith('/usr/')
}

export interface NodeInstall {
  /** The resolved node binary the sandbox runs. */
  execPath: string
  /** Its install prefix (…/bin/node → …). */
  prefix: string
  version: string
}

/** The Node running this process: its resolved binary and install prefix. */
export function nodeInstall (execPath = process.execPath): NodeInstall {
  const real = realpathSync(execPath)
  return { execPath: real, prefix: dirname(dirname(real)), version: process.version }
}

export interface GoInstall {
  /** GOROOT/bin/go, resolved. */
  goBin: string
  goroot: string
  /** The toolchain version, e.g. go1.19.8. */
  version: string
}

const GO_CANDIDATES = ['/usr/bin/go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']

/**
 * The local Go toolchain, found from its resolved binary (GOROOT is the binary's
 * grandparent) and GOROOT/VERSION. Refuses (SANDBOX_UNAVAILABLE) when there is none.
 */
export function goInstall (): GoInstall {
  for (const c of GO_CANDIDATES) {
    let real: string
    try { real = realpathSync(c) } catch { continue }
    const goroot = dirname(dirname(real))
    let version = ''
    try { version = (readFileSync(join(goroot, 'VERSION'), 'utf8').split('\n')[0] ?? '').trim() } catch {}
    if (!/^go\d+\.\d+(\.\d+)?/.test(version)) continue
    try { if (!statSync(join(goroot, 'src')).isDirectory()) continue } catch { continue }
    return { goBin: join(goroot, 'bin', 'go'), goroot, version }
  }
  throw toolError('SANDBOX_UNAVAILABLE', `no Go toolchain: looked for ${GO_CANDIDATES.join(', ')} with GOROOT/VERSION`, { hint: 'install golang-go' })
}

/** The effective uid of this process (0 when the platform has none). */
export function euid (): number {
  return process.geteuid?.() ?? 0
}
