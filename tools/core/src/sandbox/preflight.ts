// The sandbox preflight (DESIGN §11): proves every primitive on this host before anything is
// consumed (admit) or on demand (reproduce --preflight). It runs two tiny commands in the
// real sandbox with the real limits — `cat /proc/self/status` (who the sandbox runs as, its
// capabilities, no_new_privs, one seccomp filter more than this process has: an allowed call
// works under it), `unshare --user true` (which must fail: nested user namespaces are
// disabled) and `keyctl rdescribe @s` (which must fail with EPERM: the filter denies the
// keyring calls; without it the call would describe the new session keyring) — so every check that a run makes (programs present, resources
// above the floors, bind sources clean, cgroups created and every limit read back,
// namespaces really unshared, rlimits and tmpfs size read back) is made here too, and the
// readings are reported.

import { readFileSync } from 'node:fs'
import { toolError, isToolError, type ErrorCode } from '../errors.ts'
import type { LimitReading } from './cgroup.ts'
import { SANDBOX_GID, SANDBOX_UID, euid, goInstall, nodeInstall, missingPrograms, BWRAP, KEYCTL, SETPRIV, PRLIMIT } from './host.ts'
import { GO_ADDRESS_SPACE_BYTES, SANDBOX_LIMITS, type SandboxLimits } from './limits.ts'
import { runSandbox, type NamespaceReading } from './run.ts'
import type { ResourceSample } from './resources.ts'

export interface PreflightCheck {
  name: string
  ok: boolean
  detail: string
  /** The refusal code when the check failed. */
  code?: ErrorCode
}

export interface PreflightReport {
  ok: boolean
  checks: PreflightCheck[]
  limits: LimitReading[]
  namespaces: NamespaceReading[]
  samples: ResourceSample[]
}

export interface PreflightOptions {
  runner?: 'go' | 'node'
  limits?: SandboxLimits
  uid?: number
  gid?: number
  diskPaths?: readonly string[]
}

const STATUS_FIELDS = ['Uid', 'Gid', 'Groups', 'CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp', 'Seccomp_filters'] as const

const SECCOMP_HINT = 'the kernel must support seccomp filters (CONFIG_SECCOMP_FILTER) and let bwrap load one (--seccomp); a container runtime may need its own seccomp profile to allow it'

/** This process's number of seccomp filters (/proc/self/status Seccomp_filters; 0 without the field). */
function ownSeccompFilters (): number {
  return Number(/^Seccomp_filters:\s*(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0)
}

/** Runs the preflight; never throws for a missing primitive (it is a failed check). */
export async function sandboxPreflight (o: PreflightOptions = {}): Promise<PreflightReport> {
  const checks: PreflightCheck[] = []
  const report: PreflightReport = { ok: false, checks, limits: [], namespaces: [], samples: [] }
  const fail = (name: string, e: unknown): PreflightReport => {
    const code: ErrorCode = isToolError(e) ? e.code : 'SANDBOX_UNAVAILABLE'
    // A check's record has no hint of its own: what to do follows what went wrong.
    const hint = isToolError(e) ? e.hint : undefined
    checks.push({ name, ok: false, detail: hint === undefined ? (e as Error).message : `${(e as Error).message}; ${hint}`, code })
    return report
  }
  const missing = missingPrograms()
  checks.push({ name: 'programs', ok: missing.length === 0, detail: missing.length === 0 ? `${PRLIMIT}, ${SETPRIV}, ${KEYCTL}, ${BWRAP} present` : `missing: ${missing.join(', ')}`, ...(missing.length === 0 ? {} : { code: 'SANDBOX_UNAVAILABLE' as const }) })
  if (missing.length > 0) return report
  const root = euid() === 0
  checks.push({ name: 'identity', ok: true, detail: root ? `running as root: the sandbox drops to uid ${o.uid ?? SANDBOX_UID} gid ${o.gid ?? SANDBOX_GID} with setpriv` : `running as uid ${euid()}: the sandbox runs as this user` })

  const systemDirs: string[] = []
  let limits: SandboxLimits = { ...(o.limits ?? SANDBOX_LIMITS) }
  try {
    const nodeDir = nodeInstall().prefix
    systemDirs.push(nodeDir)
    if (o.runner === 'go') {
      const go = goInstall()
      systemDirs.push(go.goroot)
      limits = { ...limits, addressSpaceBytes: limits.addressSpaceBytes ?? GO_ADDRESS_SPACE_BYTES }
      checks.push({ name: 'toolchain', ok: true, detail: `${go.version} at ${go.goroot}` })
    } else {
      checks.push({ name: 'toolchain', ok: true, detail: `node ${process.version} at ${nodeDir}` })
    }
  } catch (e) {
    return fail('toolchain', e)
  }

  const base = { cwd: '/', env: { PATH: '/usr/bin:/bin' }, mounts: [], systemDirs, limits, timeoutMs: 20_000, ...(o.uid === undefined ? {} : { uid: o.uid }), ...(o.gid === undefined ? {} : { gid: o.gid }), ...(o.diskPaths === undefined ? {} : { diskPaths: o.diskPaths }) }
  let status: string
  try {
    const r = await runSandbox({ ...base, command: ['/usr/bin/cat', '/proc/self/status'] })
    report.limits = r.report.limits
    report.namespaces = r.report.namespaces
    report.samples = r.report.samples
    if (r.report.exit.code !== 0) throw toolError('SANDBOX_UNAVAILABLE', `the probe exited ${String(r.report.exit.code ?? r.report.exit.signal)}: ${r.stderr.toString('utf8').trim()}`)
    status = r.stdout.toString('utf8')
  } catch (e) {
    if (isToolError(e) && e.code === 'SANDBOX_UNAVAILABLE' && /seccomp/i.test(e.message) && e.hint === undefined) return fail('seccomp', toolError('SANDBOX_UNAVAILABLE', e.message, { hint: SECCOMP_HINT }))
    return fail('sandbox', e)
  }
  checks.push({ name: 'resources', ok: true, detail: `available memory and free disk above the floors (${report.samples.length} sample)` })
  checks.push({ name: 'cgroup', ok: true, detail: `memory, memory+swap, tasks and cpu limits written beneath our own groups and read back equal (${report.limits.filter(x => x.mechanism === 'cgroup-v1').length} readings)` })
  checks.push({ name: 'namespaces', ok: true, detail: `${report.namespaces.map(n => n.name).join(', ')} differ from the host's (/proc/<pid>/ns and bwrap --json-status-fd)` })
  checks.push({ name: 'rlimits', ok: true, detail: `${report.limits.filter(x => x.mechanism === 'rlimit').length} rlimits read back from /proc/<pid>/limits` })

  const fields = new Map<string, string>()
  for (const line of status.split('\n')) {
    const m = /^(\w+):\s*(.*)$/.exec(line)
    if (m !== null && (STATUS_FIELDS as readonly string[]).includes(m[1] ?? '')) fields.set(m[1] ?? '', (m[2] ?? '').trim())
  }
  const capsZero = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'].every(k => /^0+$/.test(fields.get(k) ?? ''))
  const uidLine = fields.get('Uid') ?? ''
  const gidLine = fields.get('Gid') ?? ''
  const groups = (fields.get('Groups') ?? '').split(/\s+/).filter(g => g !== '')
  const unprivileged = [uidLine, gidLine].every(line => line !== '' && line.split(/\s+/).every(id => id !== '0')) && !groups.includes('0')
  const nnp = fields.get('NoNewPrivs') === '1'
  const privOk = capsZero && unprivileged && nnp
  checks.push({
    name: 'privileges',
    ok: privOk,
    detail: `inside: Uid ${uidLine}, Gid ${gidLine}, Groups ${groups.join(' ') || 'none'}, CapEff ${fields.get('CapEff') ?? '?'}, CapBnd ${fields.get('CapBnd') ?? '?'}, NoNewPrivs ${fields.get('NoNewPrivs') ?? '?'} (/proc/self/status)`,
    ...(privOk ? {} : { code: 'SANDBOX_UNAVAILABLE' as const }),
  })
  if (!privOk) return report

  // The filter: the sandbox has exactly one more than this process (a supervisor in a
  // container may have its own), bwrap's --seccomp. The probe ran under it: allowed calls work.
  const ownFilters = ownSeccompFilters()
  const inside = fields.get('Seccomp_filters')
  const filterOn = fields.get('Seccomp') === '2' && inside === String(ownFilters + 1)
  checks.push({
    name: 'seccomp',
    ok: filterOn,
    detail: `inside: Seccomp ${fields.get('Seccomp') ?? 'absent'}, Seccomp_filters ${inside ?? 'absent'} (this process: ${ownFilters}); the probe's calls ran under it${filterOn ? '' : `; ${SECCOMP_HINT}`}`,
    ...(filterOn ? {} : { code: 'SANDBOX_UNAVAILABLE' as const }),
  })
  if (!filterOn) return report
  const keyring = report.limits.find(x => x.mechanism === 'keyring')
  checks.push({ name: 'session keyring', ok: true, detail: `${keyring?.got ?? '?'}: ${keyring?.source ?? '?'}; /proc/keys and /proc/key-users covered` })

  try {
    const r = await runSandbox({ ...base, command: ['/usr/bin/unshare', '--user', '/usr/bin/true'] })
    const err = r.stderr.toString('utf8').trim()
    const blocked = r.report.exit.code !== 0 && /No space left on device|Operation not permitted/.test(err)
    checks.push({ name: 'nested user namespaces', ok: blocked, detail: blocked ? `disabled: unshare --user failed: ${err}` : `unshare --user exited ${String(r.report.exit.code)}: ${err === '' ? 'no message' : err}`, ...(blocked ? {} : { code: 'SANDBOX_UNAVAILABLE' as const }) })
    if (!blocked) return report
  } catch (e) {
    return fail('nested user namespaces', e)
  }

  try {
    const r = await runSandbox({ ...base, command: [KEYCTL, 'rdescribe', '@s'] })
    const err = r.stderr.toString('utf8').trim()
    const denied = r.report.exit.code !== 0 && /Operation not permitted/.test(err)
    checks.push({ name: 'denied call', ok: denied, detail: denied ? `keyctl(2) is refused inside: keyctl rdescribe @s failed: ${err}` : `keyctl rdescribe @s exited ${String(r.report.exit.code)}: ${err === '' ? r.stdout.toString('utf8').trim() : err}; ${SECCOMP_HINT}`, ...(denied ? {} : { code: 'SANDBOX_UNAVAILABLE' as const }) })
    if (!denied) return report
  } catch (e) {
    return fail('denied call', e)
  }
  report.ok = true
  return report
}

/** The preflight as a refusal: throws the first failed check's code (77 for a missing primitive). */
export async function assertSandboxReady (o: PreflightOptions = {}): Promise<PreflightReport> {
  const r = await sandboxPreflight(o)
  const bad = r.checks.find(c => !c.ok)
  if (bad !== undefined) {
    throw toolError(bad.code ?? 'SANDBOX_UNAVAILABLE', `sandbox preflight: ${bad.name}: ${bad.detail}`, { hint: 'run `reproduce --preflight` to see every check' })
  }
  return r
}
