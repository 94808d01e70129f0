// The sandbox's limits (DESIGN §11). The CLI always uses SANDBOX_LIMITS; the library takes
// them as a parameter so tests can prove each limit with a small value. Every limit is
// applied by one mechanism and read back from the kernel after setup: a limit whose reading
// differs from what was asked is a refusal, never a warning.

import { toolError } from '../errors.ts'

const GiB = 1024 ** 3
const MiB = 1024 ** 2

export interface SandboxLimits {
  /** Process-tree memory (cgroup memory.limit_in_bytes); swap is 0 (memsw set equal). Page multiple. */
  memoryBytes: number
  /** Process-tree tasks, threads included (cgroup pids.max). */
  tasks: number
  /** CPU bandwidth in percent of one CPU (cgroup cpu.cfs_quota_us over a 100 ms period). */
  cpuPercent: number
  /** Per-process CPU seconds (RLIMIT_CPU; SIGXCPU at the limit). A backstop: the deadline is primary. */
  cpuSeconds: number
  /** Per-process file size (RLIMIT_FSIZE). Pipes ignore it: output is capped by the supervisor. */
  fileSizeBytes: number
  /** Per-process open files (RLIMIT_NOFILE). */
  openFiles: number
  /** Per-process address space (RLIMIT_AS). Set for Go only: Node reserves large virtual ranges. */
  addressSpaceBytes?: number
  /** Size of the private tmpfs on /tmp (bwrap --size). Its pages are charged to the memory cgroup. */
  tmpfsBytes: number
  /** Bytes of stdout the supervisor keeps; more stops the run (output_limit). */
  stdoutBytes: number
  /** Bytes of stderr the supervisor keeps; more stops the run (output_limit). */
  stderrBytes: number
  /** Below this much available memory (MemAvailable) the run is refused or stopped. */
  minAvailableMemoryBytes: number
  /** Below this much free disk on a sampled filesystem the run is refused or stopped. */
  minFreeDiskBytes: number
  /** Resource samples are taken before spawn and then at this interval (at most 30 s). */
  sampleIntervalMs: number
}

/** The fixed limits every CLI run uses. */
export const SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 4 * GiB,
  tasks: 128,
  cpuPercent: 200,
  cpuSeconds: 600,
  fileSizeBytes: 256 * MiB,
  openFiles: 1024,
  tmpfsBytes: 1 * GiB,
  stdoutBytes: 64 * MiB,
  stderrBytes: 4 * MiB,
  minAvailableMemoryBytes: 2 * GiB,
  minFreeDiskBytes: 2 * GiB,
  sampleIntervalMs: 30_000,
})

/** RLIMIT_AS for the Go runner (go test, -race included, runs at 4 GiB). */
export const GO_ADDRESS_SPACE_BYTES = 4 * GiB

/** Refuses limits that cannot be applied as asked (a bug in the caller, so INTERNAL). */
export function assertLimits (l: SandboxLimits): void {
  const bad = (what: string): never => { throw toolError('INTERNAL', `sandbox limits: ${what}`) }
  const positiveInt = (name: keyof SandboxLimits, v: number | undefined): void => {
    if (v === undefined || !Number.isSafeInteger(v) || v <= 0) bad(`${name} must be a positive integer, got ${String(v)}`)
  }
  for (const k of ['memoryBytes', 'tasks', 'cpuPercent', 'cpuSeconds', 'fileSizeBytes', 'openFiles', 'tmpfsBytes', 'stdoutBytes', 'stderrBytes', 'sampleIntervalMs'] as const) positiveInt(k, l[k])
  if (l.addressSpaceBytes !== undefined) positiveInt('addressSpaceBytes', l.addressSpaceBytes)
  for (const k of ['minAvailableMemoryBytes', 'minFreeDiskBytes'] as const) {
    if (!Number.isSafeInteger(l[k]) || l[k] < 0) bad(`${k} must be a non-negative integer`)
  }
  if (l.sampleIntervalMs > 30_000) bad('sampleIntervalMs must be at most 30000')
  if (l.cpuPercent < 1) bad('cpuPercent must be at least 1')
}
