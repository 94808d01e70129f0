// Runs inside `unshare --mount --propagation private`: puts directory spec.dir on a tmpfs of
// its own (its contents and modes copied over) that has only spec.freeBytes left, runs
// argv[3..] with spec.env, writes the directory's listing after the run to spec.listing, and
// exits with the command's status. A write past the space left fails with ENOSPC, as on a
// full disk; the host, and spec.dir outside this namespace, are untouched. With
// spec.readOnly it mounts spec.dir read-only instead (EROFS); with spec.emptyFull, an empty
// tmpfs with no space left at all (files can still be created, not written: /dev/shm full).
import { execFileSync, spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test helper, argv arrays
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const spec = JSON.parse(process.argv[2])
if (spec.readOnly === true) readOnly(spec.dir)
else if (spec.emptyFull === true) emptyFull(spec.dir)
else nearlyFull(spec.dir, spec.freeBytes)

/** spec.dir read-only (EROFS on every write), through a bind mount of itself. */
function readOnly (dir) {
  execFileSync('/usr/bin/mount', ['--bind', dir, dir])
  execFileSync('/usr/bin/mount', ['-o', 'remount,ro,bind', dir])
}

/** An empty tmpfs over spec.dir, world-writable like /dev/shm, filled: not a byte more fits. */
function emptyFull (dir) {
  // One page (size=0 would mean no limit at all), then a file that takes it.
  execFileSync('/usr/bin/mount', ['-t', 'tmpfs', '-o', 'mode=1777,size=4k', 'none', dir])
  try {
    writeFileSync(join(dir, 'fill'), Buffer.alloc(64 << 10))
  } catch (e) {
    if (e.code !== 'ENOSPC') throw e
  }
  if (statfsSync(dir).bavail !== 0) throw new Error(`${dir} still has room`)
}

/** spec.dir on a tmpfs of its own, its contents and modes copied over, with `freeBytes` left. */
function nearlyFull (dir, freeBytes) {
  const side = mkdtempSync(join(tmpdir(), 'rl-full-'))
  try {
    cpSync(dir, side, { recursive: true })
    const mode = (statSync(dir).mode & 0o7777).toString(8)
    execFileSync('/usr/bin/mount', ['-t', 'tmpfs', '-o', `mode=${mode},size=64m`, 'none', dir])
    cpSync(side, dir, { recursive: true })
  } finally {
    rmSync(side, { recursive: true, force: true })
  }
  const fs = statfsSync(dir)
  const used = (fs.blocks - fs.bfree) * fs.bsize
  execFileSync('/usr/bin/mount', ['-o', `remount,size=${used + freeBytes}`, dir])
}

const [file, ...args] = process.argv.slice(3)
const r = spawnSync(file, args, { stdio: 'inherit', env: spec.env, cwd: spec.cwd })
writeFileSync(spec.listing, JSON.stringify({ names: readdirSync(spec.dir).sort(), free: statfsSync(spec.dir).bavail * statfsSync(spec.dir).bsize }))
process.exitCode = r.status ?? 128
