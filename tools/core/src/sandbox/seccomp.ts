// The seccomp filter every sandboxed command runs under (docs/security-seccomp.md): a
// deny-list modelled on Docker's default profile and Flatpak's, compiled here into the
// classic-BPF program bwrap loads with `--seccomp FD` right before it execs the command.
//
// The program, for the native architecture only (x86-64 or aarch64):
//   - a call made with any other audit architecture (the i386 `int 0x80` ABI on x86-64, AArch32
//     on aarch64) or an x32 number (bit 30 set) kills the process: its numbers mean other calls;
//   - each denied call returns its errno (EPERM; ENOSYS where a runtime probes and falls back:
//     io_uring for libuv, clone3 for glibc, the new mount API);
//   - socket and socketpair are allowed only for AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK,
//     others get EAFNOSUPPORT (AF_VSOCK reaches the hypervisor, not the sandbox's network
//     namespace);
//   - clone with a namespace flag, and ioctl TIOCSTI/TIOCLINUX, return EPERM;
//   - everything else is allowed.
// Arguments are compared on their low 32 bits, which is what the kernel reads for these `int`
// and `unsigned int` parameters (a value with high bits set is the same family or request).
// The bytes are a pure function of the architecture: their sha256 is recorded with every run
// and readback recomputes it.

import { toolError } from '../errors.ts'
import { sha256Hex } from '../digest.ts'

/** The fd bwrap reads the filter from (after STATUS_FD and BLOCK_FD). */
export const SECCOMP_FD = 5

export type SeccompArch = 'x86_64' | 'aarch64'

type Action = 'EPERM' | 'ENOSYS'

interface Denied {
  name: string
  action: Action
  /** Per architecture; absent where the call does not exist there. */
  nr: Partial<Record<SeccompArch, number>>
  why: string
}

const d = (name: string, x86_64: number | undefined, aarch64: number | undefined, why: string, action: Action = 'EPERM'): Denied =>
  ({ name, action, why, nr: { ...(x86_64 === undefined ? {} : { x86_64 }), ...(aarch64 === undefined ? {} : { aarch64 }) } })

/**
 * The denied calls with their numbers (include/uapi/asm-generic/unistd.h for aarch64,
 * arch/x86/entry/syscalls/syscall_64.tbl for x86-64; the test checks both against the host's
 * headers) and why each is denied.
 */
export const SECCOMP_DENIED: readonly Denied[] = [
  d('add_key', 248, 217, 'kernel keyrings are not namespaced: keys would reach or outlive other runs'),
  d('keyctl', 250, 219, 'kernel keyrings are not namespaced: keys would reach or outlive other runs'),
  d('request_key', 249, 218, 'kernel keyrings are not namespaced; it can also start a host upcall'),
  d('io_uring_setup', 425, 425, 'io_uring bypasses the syscall filter and has a long record of kernel bugs', 'ENOSYS'),
  d('io_uring_enter', 426, 426, 'io_uring bypasses the syscall filter and has a long record of kernel bugs', 'ENOSYS'),
  d('io_uring_register', 427, 427, 'io_uring bypasses the syscall filter and has a long record of kernel bugs', 'ENOSYS'),
  d('ptrace', 101, 117, 'a test could trace the test runner and forge its events'),
  d('process_vm_readv', 310, 270, 'reads another process\'s memory, like ptrace'),
  d('process_vm_writev', 311, 271, 'writes another process\'s memory, like ptrace'),
  d('kcmp', 312, 272, 'inspects other processes\' kernel objects'),
  d('pidfd_getfd', 438, 438, 'steals a descriptor from another process'),
  d('bpf', 321, 280, 'kernel attack surface; no test needs it'),
  d('perf_event_open', 298, 241, 'kernel attack surface and a side channel; no test needs it'),
  d('userfaultfd', 323, 282, 'used to widen kernel race windows; no test needs it'),
  d('kexec_load', 246, 104, 'replaces the running kernel'),
  d('kexec_file_load', 320, 294, 'replaces the running kernel'),
  d('init_module', 175, 105, 'loads kernel code'),
  d('finit_module', 313, 273, 'loads kernel code'),
  d('delete_module', 176, 106, 'unloads kernel code'),
  d('create_module', 174, undefined, 'obsolete module call'),
  d('query_module', 178, undefined, 'obsolete module call'),
  d('get_kernel_syms', 177, undefined, 'obsolete module call'),
  d('syslog', 103, 116, 'reads the kernel log (addresses, other users\' messages)'),
  d('acct', 163, 89, 'host process accounting'),
  d('swapon', 167, 224, 'host swap'),
  d('swapoff', 168, 225, 'host swap'),
  d('reboot', 169, 142, 'host power state'),
  d('settimeofday', 164, 170, 'the host clock is not namespaced'),
  d('clock_settime', 227, 112, 'the host clock is not namespaced'),
  d('clock_adjtime', 305, 266, 'the host clock is not namespaced'),
  d('quotactl', 179, 60, 'host filesystem quotas'),
  d('quotactl_fd', 443, 443, 'host filesystem quotas'),
  d('lookup_dcookie', 212, 18, 'kernel profiling interface'),
  d('nfsservctl', 180, 42, 'obsolete NFS server control'),
  d('uselib', 134, undefined, 'obsolete loader call'),
  d('vhangup', 153, 58, 'hangs up terminals'),
  d('iopl', 172, undefined, 'raw port I/O'),
  d('ioperm', 173, undefined, 'raw port I/O'),
  d('modify_ldt', 154, undefined, '16-bit segments: kernel attack surface'),
  d('open_by_handle_at', 304, 265, 'opens files by handle past the mount namespace (the "shocker" escape)'),
  d('fanotify_init', 300, 262, 'filesystem-wide event monitoring'),
  d('move_pages', 279, 239, 'moves another process\'s pages'),
  d('migrate_pages', 256, 238, 'moves another process\'s pages'),
  d('mount', 165, 40, 'the sandbox\'s mounts are fixed'),
  d('umount2', 166, 39, 'the sandbox\'s mounts are fixed (unmounting would uncover what a mount hides)'),
  d('pivot_root', 155, 41, 'the sandbox\'s root is fixed'),
  d('chroot', 161, 51, 'the sandbox\'s root is fixed'),
  d('unshare', 272, 97, 'no new namespaces (nested user namespaces are also disabled by bwrap)'),
  d('setns', 308, 268, 'no joining other namespaces'),
  d('open_tree', 428, 428, 'new mount API', 'ENOSYS'),
  d('move_mount', 429, 429, 'new mount API', 'ENOSYS'),
  d('fsopen', 430, 430, 'new mount API', 'ENOSYS'),
  d('fsconfig', 431, 431, 'new mount API', 'ENOSYS'),
  d('fsmount', 432, 432, 'new mount API', 'ENOSYS'),
  d('fspick', 433, 433, 'new mount API', 'ENOSYS'),
  d('mount_setattr', 442, 442, 'new mount API', 'ENOSYS'),
  d('clone3', 435, 435, 'its flags are behind a pointer the filter cannot read; glibc falls back to clone, whose flags it checks', 'ENOSYS'),
]

/** Calls allowed only for some arguments (checked on the low 32 bits of one argument). */
export const SECCOMP_ARGUMENT_RULES = {
  socket: { x86_64: 41, aarch64: 198 },
  socketpair: { x86_64: 53, aarch64: 199 },
  ioctl: { x86_64: 16, aarch64: 29 },
  clone: { x86_64: 56, aarch64: 220 },
} as const

/** Address families socket and socketpair may create: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK. */
export const ALLOWED_SOCKET_FAMILIES = [1, 2, 10, 16] as const
/** ioctl requests refused: TIOCSTI (types into a terminal), TIOCLINUX (the console's selection). */
export const DENIED_IOCTLS = [0x5412, 0x541c] as const
/** clone flags refused: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000

const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 }
const X32_SYSCALL_BIT = 0x40000000

const EPERM = 1
const ENOSYS = 38
const EAFNOSUPPORT = 97
const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const RET_ALLOW = 0x7fff0000

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JGE_K = 0x35
const JSET_K = 0x45
const RET_K = 0x06

// struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (low half first: both
// architectures are little-endian).
const OFF_NR = 0
const OFF_ARCH = 4
const argLow = (i: number): number => 16 + 8 * i

type Label = 'kill' | 'eperm' | 'enosys' | 'eafnosupport' | 'allow' | 'socket' | 'ioctl' | 'clone'
type Insn =
  | { op: 'ld', off: number }
  | { op: 'jeq' | 'jge' | 'jset', k: number, jt: Label | null, jf: Label | null }
  | { op: 'ret', k: number }
  | { op: 'label', name: Label }

/** The architecture this process's syscalls use, or a SANDBOX_UNAVAILABLE refusal. */
export function nativeSeccompArch (arch: string = process.arch): SeccompArch {
  if (arch === 'x64') return 'x86_64'
  if (arch === 'arm64') return 'aarch64'
  throw toolError('SANDBOX_UNAVAILABLE', `seccomp: no filter for the ${arch} architecture (x86-64 and aarch64 only)`, { hint: 'run repairline on an x86-64 or aarch64 Linux host' })
}

function program (arch: SeccompArch): Insn[] {
  const p: Insn[] = [
    { op: 'ld', off: OFF_ARCH },
    { op: 'jeq', k: AUDIT_ARCH[arch], jt: null, jf: 'kill' },
    { op: 'ld', off: OFF_NR },
  ]
  if (arch === 'x86_64') p.push({ op: 'jge', k: X32_SYSCALL_BIT, jt: 'kill', jf: null })
  for (const s of SECCOMP_DENIED) {
    const nr = s.nr[arch]
    if (nr !== undefined) p.push({ op: 'jeq', k: nr, jt: s.action === 'EPERM' ? 'eperm' : 'enosys', jf: null })
  }
  const r = SECCOMP_ARGUMENT_RULES
  p.push(
    { op: 'jeq', k: r.socket[arch], jt: 'socket', jf: null },
    { op: 'jeq', k: r.socketpair[arch], jt: 'socket', jf: null },
    { op: 'jeq', k: r.ioctl[arch], jt: 'ioctl', jf: null },
    { op: 'jeq', k: r.clone[arch], jt: 'clone', jf: 'allow' },
    { op: 'label', name: 'socket' },
    { op: 'ld', off: argLow(0) },
  )
  for (const f of ALLOWED_SOCKET_FAMILIES) p.push({ op: 'jeq', k: f, jt: 'allow', jf: null })
  p.push({ op: 'ret', k: RET_ERRNO | EAFNOSUPPORT }, { op: 'label', name: 'ioctl' }, { op: 'ld', off: argLow(1) })
  for (const c of DENIED_IOCTLS) p.push({ op: 'jeq', k: c, jt: 'eperm', jf: null })
  p.push(
    { op: 'ret', k: RET_ALLOW },
    { op: 'label', name: 'clone' },
    { op: 'ld', off: argLow(0) },
    { op: 'jset', k: CLONE_NAMESPACE_FLAGS, jt: 'eperm', jf: 'allow' },
    { op: 'label', name: 'kill' }, { op: 'ret', k: RET_KILL_PROCESS },
    { op: 'label', name: 'eperm' }, { op: 'ret', k: RET_ERRNO | EPERM },
    { op: 'label', name: 'enosys' }, { op: 'ret', k: RET_ERRNO | ENOSYS },
    { op: 'label', name: 'allow' }, { op: 'ret', k: RET_ALLOW },
  )
  return p
}

/** Assembles `insns` into struct sock_filter entries (8 bytes each, little-endian). */
function assemble (insns: readonly Insn[]): Buffer {
  const at = new Map<Label, number>()
  let n = 0
  for (const i of insns) {
    if (i.op === 'label') at.set(i.name, n)
    else n++
  }
  const out = Buffer.alloc(n * 8)
  let pc = 0
  const offset = (l: Label | null): number => {
    if (l === null) return 0
    const target = at.get(l)
    // A jump goes forward only, by at most 255 instructions (the 8-bit jt/jf fields).
    if (target === undefined || target <= pc || target - pc - 1 > 255) throw new Error(`seccomp: jump to ${l} from ${pc} does not assemble`)
    return target - pc - 1
  }
  for (const i of insns) {
    if (i.op === 'label') continue
    const o = pc * 8
    if (i.op === 'ld') { out.writeUInt16LE(LD_W_ABS, o); out.writeUInt32LE(i.off, o + 4) } else if (i.op === 'ret') { out.writeUInt16LE(RET_K, o); out.writeUInt32LE(i.k >>> 0, o + 4) } else {
      out.writeUInt16LE(i.op === 'jeq' ? JEQ_K : i.op === 'jge' ? JGE_K : JSET_K, o)
      out.writeUInt8(offset(i.jt), o + 2)
      out.writeUInt8(offset(i.jf), o + 3)
      out.writeUInt32LE(i.k >>> 0, o + 4)
    }
    pc++
  }
  return out
}

export interface SeccompFilter {
  arch: SeccompArch
  /** The sock_fprog body bwrap reads: the instructions, 8 bytes each. */
  bytes: Buffer
  sha256: string
}

const built = new Map<SeccompArch, SeccompFilter>()

/** The filter for `arch` (default: this process's), built once. */
export function seccompFilter (arch: SeccompArch = nativeSeccompArch()): SeccompFilter {
  let f = built.get(arch)
  if (f === undefined) {
    const bytes = assemble(program(arch))
    f = { arch, bytes, sha256: sha256Hex(bytes) }
    built.set(arch, f)
  }
  return f
}

/** The limit reading a run records for its filter: `<arch> sha256:<hex>` (readback recomputes it). */
export function seccompReadingValue (f: SeccompFilter): string {
  return `${f.arch} sha256:${f.sha256}`
}

/** Every value a run's filter reading may hold: one per supported architecture. */
export function knownSeccompReadingValues (): string[] {
  return (['x86_64', 'aarch64'] as const).map(a => seccompReadingValue(seccompFilter(a)))
}
