// The launch chain, as one argv (DESIGN §11):
//
//   prlimit <rlimits> -- setpriv <drop to uid/gid> -- keyctl session - bwrap <namespaces, mounts, env> -- <command>
//
// prlimit sets the per-process limits; setpriv (only when we are root) becomes the
// unprivileged sandbox user with no groups, no capabilities (bounding and inheritable sets
// empty) and no_new_privs; keyctl (keyutils) joins a new, empty, anonymous session keyring of
// that user, so the caller's session keyring (and the user keyring a login session links into
// it) is not the sandbox's (kernel keyrings are not namespaced); bwrap unshares every namespace (user included, so that
// --disable-userns can forbid nested ones), starts a new session (no controlling terminal:
// TIOCSTI), drops every capability and the whole environment, and shows only /usr with the
// loader paths, the system directories asked for, /proc, a minimal /dev, a size-capped
// private tmpfs on /tmp and the given mounts, read-only unless marked writable. / and /dev
// are then remounted read-only, so /tmp (and a writable mount) are the only places to write.
// /proc/keys and /proc/key-users are covered (they list keys of the sandbox's host uid, and
// key counts of every user), and bwrap applies the seccomp filter read from SECCOMP_FD
// (seccomp.ts: no keyring calls, io_uring, ptrace, …) right before it execs the command.
// bwrap reports its child's pid and namespace ids on fd 3 and holds the child on fd 4 until
// the supervisor has placed and checked it.

import { BWRAP, KEYCTL, PRLIMIT, SETPRIV, loaderPaths, underUsr, type LoaderPath } from './host.ts'
import { prlimitArgs } from './rlimits.ts'
import type { SandboxLimits } from './limits.ts'
import { SECCOMP_FD } from './seccomp.ts'

/** The fds bwrap gets for its status stream and its start gate. */
export const STATUS_FD = 3
export const BLOCK_FD = 4

export interface SandboxMount {
  /** Host path (file or directory). */
  source: string
  /** Absolute path inside the sandbox. */
  dest: string
  /** Bound read-write; everything else is read-only. */
  writable?: boolean
}

export interface LaunchSpec {
  command: readonly string[]
  cwd: string
  env: Readonly<Record<string, string>>
  mounts: readonly SandboxMount[]
  /** Host directories shown read-only at the same path (Node's prefix, GOROOT) when outside /usr. */
  systemDirs: readonly string[]
  limits: SandboxLimits
  uid: number
  gid: number
  /** True when this process is root and must drop to uid/gid with setpriv. */
  dropPrivileges: boolean
  loader?: readonly LoaderPath[]
  /**
   * False builds the chain without the kernel-state steps (the session keyring, the covered
   * key files, the seccomp filter): the chain of runs sealed before them, which readback
   * still accepts. Runs always use the default.
   */
  kernelState?: boolean
}

/** The files under /proc that list kernel keys; the sandbox sees /dev/null (unopenable: nodev) there. */
export const HIDDEN_KEY_FILES = ['/proc/keys', '/proc/key-users'] as const

/** The bwrap options alone (no program, no command): namespaces, filesystem, environment. */
export function bwrapOptions (s: LaunchSpec): string[] {
  const a = ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv', '--cap-drop', 'ALL']
  a.push('--ro-bind', '/usr', '/usr')
  for (const l of s.loader ?? loaderPaths()) {
    if (l.kind === 'symlink') a.push('--symlink', l.target, l.path)
    else a.push('--ro-bind', l.path, l.path)
  }
  for (const d of s.systemDirs) if (!underUsr(d)) a.push('--ro-bind', d, d)
  a.push('--proc', '/proc', '--dev', '/dev')
  if (s.kernelState !== false) for (const f of HIDDEN_KEY_FILES) a.push('--ro-bind', '/dev/null', f)
  a.push('--size', String(s.limits.tmpfsBytes), '--tmpfs', '/tmp')
  for (const m of s.mounts) a.push(m.writable === true ? '--bind' : '--ro-bind', m.source, m.dest)
  a.push('--remount-ro', '/', '--remount-ro', '/dev')
  a.push('--chdir', s.cwd)
  for (const k of Object.keys(s.env).sort()) a.push('--setenv', k, s.env[k] ?? '')
  a.push('--json-status-fd', String(STATUS_FD), '--block-fd', String(BLOCK_FD))
  if (s.kernelState !== false) a.push('--seccomp', String(SECCOMP_FD))
  return a
}

/** The full argv, program first. */
export function launchArgv (s: LaunchSpec): string[] {
  const a = [PRLIMIT, ...prlimitArgs(s.limits), '--']
  if (s.dropPrivileges) {
    a.push(SETPRIV, `--reuid=${s.uid}`, `--regid=${s.gid}`, '--clear-groups', '--no-new-privs', '--bounding-set=-all', '--inh-caps=-all', '--')
  }
  if (s.kernelState !== false) a.push(KEYCTL, 'session', '-')
  a.push(BWRAP, ...bwrapOptions(s), '--', ...s.command)
  return a
}
