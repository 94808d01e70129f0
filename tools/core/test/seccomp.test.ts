// The seccomp filter's program (src/sandbox/seccomp.ts), without a kernel: its syscall numbers
// against the host's kernel headers, and its verdicts for both architectures from a classic-BPF
// interpreter written here (each denied call, each argument rule with its allowed twin, the
// foreign and x32 ABIs), and, where libseccomp's headers are installed, its verdicts against
// those of the program libseccomp builds from the same rules; the digest readback recomputes;
// the refusal for an architecture without a filter. The kernel's own verdicts are
// test/adversarial/kernel-state.test.ts.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test: gcc and the libseccomp helper, argv arrays
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ALLOWED_SOCKET_FAMILIES, CLONE_NAMESPACE_FLAGS, DENIED_IOCTLS, knownSeccompReadingValues, nativeSeccompArch, SECCOMP_ARGUMENT_RULES, SECCOMP_DENIED, seccompFilter, seccompReadingValue, type SeccompArch } from '../src/index.ts'
import { isToolError } from '../src/errors.ts'

const AUDIT: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 }
const AUDIT_I386 = 0x40000003
const AUDIT_ARM = 0x40000028
const KILL = 'kill'
const ALLOW = 'allow'

/** Runs the classic-BPF program on one struct seccomp_data; the verdict as kill, allow or an errno. */
function evaluate (bytes: Buffer, arch: number, nr: number, args: readonly number[] = []): string {
  const data = Buffer.alloc(64)
  data.writeInt32LE(nr, 0)
  data.writeUInt32LE(arch, 4)
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i))
  let acc = 0
  for (let pc = 0; pc * 8 < bytes.length;) {
    const code = bytes.readUInt16LE(pc * 8)
    const jt = bytes.readUInt8(pc * 8 + 2)
    const jf = bytes.readUInt8(pc * 8 + 3)
    const k = bytes.readUInt32LE(pc * 8 + 4)
    if (code === 0x20) { acc = data.readUInt32LE(k); pc++; continue }
    // BPF_ALU|BPF_AND|BPF_K and BPF_JMP|BPF_JA (libseccomp's programs use them).
    if (code === 0x54) { acc = (acc & k) >>> 0; pc++; continue }
    if (code === 0x05) { pc += 1 + k; continue }
    if (code === 0x06) {
      if (k === 0x80000000) return KILL
      if (k === 0x7fff0000) return ALLOW
      assert.equal(k & 0xffff0000, 0x00050000, `unknown return ${k.toString(16)}`)
      return `errno ${k & 0xffff}`
    }
    const taken = code === 0x15 ? acc === k : code === 0x25 ? acc > k : code === 0x35 ? acc >= k : code === 0x45 ? (acc & k) !== 0 : assert.fail(`unknown opcode ${code.toString(16)}`)
    pc += 1 + (taken ? jt : jf)
  }
  return assert.fail('fell off the end of the program')
}

const ERRNO = { EPERM: 'errno 1', ENOSYS: 'errno 38', EAFNOSUPPORT: 'errno 97' }

test('every denied call\'s number is the host kernel headers\' for x86-64 and for aarch64 (asm-generic)', t => {
  const headers: Record<SeccompArch, string> = { x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h', aarch64: '/usr/include/asm-generic/unistd.h' }
  for (const arch of ['x86_64', 'aarch64'] as const) {
    if (!existsSync(headers[arch])) { t.diagnostic(`no ${headers[arch]} (linux-libc-dev): ${arch} numbers not cross-checked`); continue }
    const text = readFileSync(headers[arch], 'utf8')
    const nr = (name: string): number | undefined => {
      const m = new RegExp(`^#define __NR_${name}\\s+(\\d+)\\s*$`, 'm').exec(text)
      return m === null ? undefined : Number(m[1])
    }
    for (const s of SECCOMP_DENIED) assert.equal(s.nr[arch], nr(s.name), `${arch} ${s.name}`)
    for (const [name, nrs] of Object.entries(SECCOMP_ARGUMENT_RULES)) assert.equal(nrs[arch], nr(name), `${arch} ${name}`)
  }
})

test('the program denies each listed call with its errno, on both architectures; unlisted calls are allowed', () => {
  for (const arch of ['x86_64', 'aarch64'] as const) {
    const { bytes } = seccompFilter(arch)
    for (const s of SECCOMP_DENIED) {
      const nr = s.nr[arch]
      if (nr === undefined) continue
      assert.equal(evaluate(bytes, AUDIT[arch], nr), ERRNO[s.action], `${arch} ${s.name}`)
    }
    // Controls: read, write, openat, getpid are allowed.
    const allowed = arch === 'x86_64' ? [0, 1, 257, 39] : [63, 64, 56, 172]
    for (const nr of allowed) assert.equal(evaluate(bytes, AUDIT[arch], nr), ALLOW, `${arch} nr ${nr}`)
  }
  for (const name of ['keyctl', 'add_key', 'request_key', 'io_uring_setup', 'io_uring_enter', 'io_uring_register', 'ptrace', 'process_vm_readv', 'process_vm_writev', 'bpf', 'perf_event_open', 'userfaultfd', 'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module', 'mount', 'umount2', 'pivot_root', 'unshare', 'setns', 'open_by_handle_at']) {
    assert.ok(SECCOMP_DENIED.some(s => s.name === name), `${name} is on the deny-list`)
  }
})

test('socket and socketpair: AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK only (high bits of the family ignored, as the kernel ignores them); AF_VSOCK and AF_PACKET get EAFNOSUPPORT', () => {
  for (const arch of ['x86_64', 'aarch64'] as const) {
    const { bytes } = seccompFilter(arch)
    for (const call of [SECCOMP_ARGUMENT_RULES.socket[arch], SECCOMP_ARGUMENT_RULES.socketpair[arch]]) {
      for (const family of ALLOWED_SOCKET_FAMILIES) assert.equal(evaluate(bytes, AUDIT[arch], call, [family, 1, 0]), ALLOW, `${arch} family ${family}`)
      for (const family of [40, 17, 0x1_0000_0028]) assert.equal(evaluate(bytes, AUDIT[arch], call, [family, 1, 0]), ERRNO.EAFNOSUPPORT, `${arch} family ${family}`)
      assert.equal(evaluate(bytes, AUDIT[arch], call, [0x1_0000_0002, 1, 0]), ALLOW, 'AF_INET with high bits is AF_INET to the kernel')
    }
  }
})

test('clone with a namespace flag and ioctl TIOCSTI/TIOCLINUX (also with high bits) are EPERM; a thread\'s clone and other ioctls are allowed', () => {
  for (const arch of ['x86_64', 'aarch64'] as const) {
    const { bytes } = seccompFilter(arch)
    const clone = SECCOMP_ARGUMENT_RULES.clone[arch]
    const ioctl = SECCOMP_ARGUMENT_RULES.ioctl[arch]
    const thread = 0x3d0f00 // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
    assert.equal(evaluate(bytes, AUDIT[arch], clone, [thread]), ALLOW)
    assert.equal(evaluate(bytes, AUDIT[arch], clone, [17]), ALLOW, 'fork-like clone (SIGCHLD)')
    for (const flag of [0x10000000, 0x20000, 0x40000000, 0x20000000]) assert.equal(evaluate(bytes, AUDIT[arch], clone, [17 | flag]), ERRNO.EPERM, `clone flag ${flag.toString(16)}`)
    for (const req of [0x5412, 0x541c, 0x1_0000_5412]) assert.equal(evaluate(bytes, AUDIT[arch], ioctl, [0, req]), ERRNO.EPERM, `ioctl ${req.toString(16)}`)
    assert.equal(evaluate(bytes, AUDIT[arch], ioctl, [0, 0x5422]), ALLOW, 'TIOCNOTTY')
    assert.equal(evaluate(bytes, AUDIT[arch], ioctl, [0, 0x5413]), ALLOW, 'TIOCGWINSZ')
  }
})

test('a call made with another ABI (i386 on x86-64, AArch32 on aarch64, x86-64 numbers under the other) or an x32 number kills the process', () => {
  const x = seccompFilter('x86_64').bytes
  const a = seccompFilter('aarch64').bytes
  assert.equal(evaluate(x, AUDIT_I386, 20), KILL, 'i386 getpid')
  assert.equal(evaluate(x, AUDIT.aarch64, 172), KILL)
  assert.equal(evaluate(x, AUDIT.x86_64, 0x40000000 + 250), KILL, 'x32 keyctl')
  assert.equal(evaluate(x, AUDIT.x86_64, 0x40000000 + 39), KILL, 'x32 getpid')
  assert.equal(evaluate(a, AUDIT_ARM, 20), KILL, 'AArch32 getpid')
  assert.equal(evaluate(a, AUDIT.x86_64, 39), KILL)
  assert.equal(evaluate(x, AUDIT.x86_64, 39), ALLOW, 'control: native getpid')
  assert.equal(evaluate(a, AUDIT.aarch64, 172), ALLOW, 'control: native getpid')
})

test('the filter is a pure function of the architecture: its digest is stable, differs per architecture, and is among the values readback accepts', () => {
  const x = seccompFilter('x86_64')
  const a = seccompFilter('aarch64')
  assert.notEqual(x.sha256, a.sha256)
  assert.equal(x.bytes.length % 8, 0)
  assert.ok(x.bytes.length / 8 <= 4096, 'BPF_MAXINSNS')
  assert.deepEqual(knownSeccompReadingValues(), [seccompReadingValue(x), seccompReadingValue(a)])
  assert.match(seccompReadingValue(x), /^x86_64 sha256:[0-9a-f]{64}$/)
})

test('an architecture without a filter is refused SANDBOX_UNAVAILABLE with a hint; x64 and arm64 have one', () => {
  for (const arch of ['ia32', 'riscv64', 's390x']) {
    assert.throws(() => nativeSeccompArch(arch), (e: unknown) => isToolError(e) && e.code === 'SANDBOX_UNAVAILABLE' && e.hint !== undefined && e.message.includes(arch))
  }
  assert.equal(nativeSeccompArch('x64'), 'x86_64')
  assert.equal(nativeSeccompArch('arm64'), 'aarch64')
})

// libseccomp 2.5's 32-bit argument comparisons (SCMP_A0_32) still require the high half to be
// zero, so an argument with high bits set differs from ours, which reads the low 32 bits as the
// kernel does: AF_INET with high bits is AF_INET (libseccomp: EAFNOSUPPORT, harmless) and
// TIOCSTI with high bits is TIOCSTI (libseccomp: allowed — CVE-2019-10063's bypass; ours: EPERM).
test('cross-check: the program libseccomp builds from the same rules gives the same verdict for every call number of both architectures, the foreign ABIs, and the argument rules with their twins; it differs only where libseccomp compares high argument bits the kernel ignores', t => {
  if (!existsSync('/usr/include/seccomp.h')) { t.skip('libseccomp-dev is not installed: nothing to cross-check against'); return }
  const dir = mkdtempSync(join(tmpdir(), 'rl-libseccomp-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const helper = join(dir, 'libseccomp-filter')
  execFileSync('gcc', ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', '-o', helper, join(import.meta.dirname, '..', '..', '..', 'test', 'helpers', 'libseccomp-filter.c'), '-lseccomp'])
  const flags = Array.from({ length: 32 }, (_, b) => 2 ** b).filter(f => (CLONE_NAMESPACE_FLAGS & f) !== 0)
  const errno = { EPERM: 1, ENOSYS: 38 }
  for (const arch of ['x86_64', 'aarch64'] as const) {
    const rules = SECCOMP_DENIED.filter(s => s.nr[arch] !== undefined).map(s => `${s.name}=${errno[s.action]}`)
    const theirs = execFileSync(helper, [arch, ...rules, '--', ...ALLOWED_SOCKET_FAMILIES.map(String), '--', ...DENIED_IOCTLS.map(String), '--', ...flags.map(String)])
    const ours = seccompFilter(arch).bytes
    const other = arch === 'x86_64' ? AUDIT.aarch64 : AUDIT.x86_64
    const inputs: Array<[number, number, number[]]> = []
    for (let nr = 0; nr < 512; nr++) inputs.push([AUDIT[arch], nr, []], [other, nr, []])
    for (const nr of [0x40000000, 0x40000000 + 250, 0x40000000 + 511]) inputs.push([AUDIT[arch], nr, []])
    inputs.push([AUDIT_I386, 20, []], [AUDIT_ARM, 20, []])
    const r = SECCOMP_ARGUMENT_RULES
    for (let family = 0; family < 48; family++) for (const high of [0, 0x1_0000_0000]) inputs.push([AUDIT[arch], r.socket[arch], [family + high, 1]], [AUDIT[arch], r.socketpair[arch], [family + high, 1]])
    for (const req of [0x5411, 0x5412, 0x5413, 0x541c, 0x5422, 0x1_0000_5412, 0x1_0000_541c]) inputs.push([AUDIT[arch], r.ioctl[arch], [0, req]])
    for (const f of [0, 17, 0x3d0f00, ...flags, ...flags.map(f => f | 17), 0x1_0000_0011]) inputs.push([AUDIT[arch], r.clone[arch], [f]])
    const highBits = ([, nr, args]: [number, number, number[]]): boolean => {
      const low = (i: number): number => Number(BigInt.asUintN(32, BigInt(args[i] ?? 0)))
      if (!args.some(a => a >= 2 ** 32)) return false
      if (nr === r.socket[arch] || nr === r.socketpair[arch]) return (ALLOWED_SOCKET_FAMILIES as readonly number[]).includes(low(0))
      return nr === r.ioctl[arch] && (DENIED_IOCTLS as readonly number[]).includes(low(1))
    }
    const show = ([a, nr, args]: [number, number, number[]]): string => `${a.toString(16)} ${nr} ${args.join(',')}: ours ${evaluate(ours, a, nr, args)}, libseccomp's ${evaluate(theirs, a, nr, args)}`
    const differ = inputs.filter(([a, nr, args]) => evaluate(ours, a, nr, args) !== evaluate(theirs, a, nr, args))
    assert.deepEqual(differ.map(show), inputs.filter(highBits).map(show), arch)
    for (const i of inputs.filter(highBits)) assert.equal(evaluate(ours, ...i), i[1] === r.ioctl[arch] ? ERRNO.EPERM : ALLOW, `ours reads the low 32 bits: ${show(i)}`)
    assert.ok(inputs.length > 1100)
  }
})
