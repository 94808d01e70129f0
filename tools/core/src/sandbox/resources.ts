// Resource samples (DESIGN §11): available memory (MemAvailable from /proc/meminfo) and
// free disk (statfs, blocks available to unprivileged users) on each sampled filesystem.
// Taken before spawn and at most every 30 s while the sandbox runs; below a floor the run
// is refused before it starts or stopped while it runs.

import { readFileSync, statSync, statfsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { ResourceSample } from '@repairline/schemas'

export type { ResourceSample }

/** MemAvailable in bytes, read from /proc/meminfo. */
export function memAvailableBytes (): number {
  const text = readFileSync('/proc/meminfo', 'utf8')
  const m = /^MemAvailable:\s+(\d+) kB$/m.exec(text)
  if (m === null) throw new Error('/proc/meminfo has no MemAvailable line')
  return Number(m[1]) * 1024
}

/**
 * `path` itself when it exists, else its nearest ancestor that does: the filesystem a
 * directory not created yet will be made on. sampleDisks skips a path that is not there (a run
 * samples what it writes to; one that is gone holds nothing), so a caller that checks room
 * before it creates a directory (admit, for a state_dir it has not made yet) samples this.
 */
export function existingAncestor (path: string): string {
  let p = resolve(path)
  for (;;) {
    try { statSync(p); return p } catch {}
    const up = dirname(p)
    if (up === p) return p
    p = up
  }
}

/** Free disk on the filesystem of each of `paths`, one entry per filesystem (device id); a path that is gone is skipped. */
export function sampleDisks (paths: readonly string[]): ResourceSample['disks'] {
  const seen = new Set<number>()
  const disks: ResourceSample['disks'] = []
  for (const p of paths) {
    let dev: number
    try { dev = statSync(p).dev } catch { continue }
    if (seen.has(dev)) continue
    seen.add(dev)
    const s = statfsSync(p)
    disks.push({ path: p, free_bytes: Number(s.bavail) * Number(s.bsize) })
  }
  return disks
}

/** Takes one sample; `paths` are deduplicated by filesystem (device id). */
export function sampleResources (paths: readonly string[], now: Date = new Date()): ResourceSample {
  return { at: now.toISOString(), mem_available_bytes: memAvailableBytes(), disks: sampleDisks(paths) }
}

const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(2)} GiB`

/** Why free disk on one of `disks` is below the floor, or undefined when none is. */
export function diskBelowFloor (disks: ResourceSample['disks'], minDisk: number): string | undefined {
  for (const d of disks) {
    if (d.free_bytes < minDisk) return `free disk on ${d.path} ${gib(d.free_bytes)} is below the floor ${gib(minDisk)}`
  }
  return undefined
}

/** Why a sample is below the floors, or undefined when it is fine. */
export function belowFloor (s: ResourceSample, minMemory: number, minDisk: number): string | undefined {
  if (s.mem_available_bytes < minMemory) return `available memory ${gib(s.mem_available_bytes)} is below the floor ${gib(minMemory)}`
  return diskBelowFloor(s.disks, minDisk)
}
