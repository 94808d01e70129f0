// Runs inside `unshare --mount --propagation private`: puts directory spec.dir on a tmpfs of
// its own (its contents and modes copied over) that has only spec.freeBytes left, runs
// argv[3..] with spec.env, writes the directory's listing after the run to spec.listing, and
// exits with the command's status. A write past the space left fails with ENOSPC, as on a
// full disk; the host, and spec.dir outside this namespace, are untouched.
import { execFileSync, spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test helper, argv arrays
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const spec = JSON.parse(process.argv[2])
const side = mkdtempSync(join(tmpdir(), 'rl-full-'))
try {
  cpSync(spec.dir, side, { recursive: true })
  const mode = (statSync(spec.dir).mode & 0o7777).toString(8)
  execFileSync('/usr/bin/mount', ['-t', 'tmpfs', '-o', `mode=${mode},size=64m`, 'none', spec.dir])
  cpSync(side, spec.dir, { recursive: true })
} finally {
  rmSync(side, { recursive: true, force: true })
}
const fs = statfsSync(spec.dir)
const used = (fs.blocks - fs.bfree) * fs.bsize
execFileSync('/usr/bin/mount', ['-o', `remount,size=${used + spec.freeBytes}`, spec.dir])
const [file, ...args] = process.argv.slice(3)
const r = spawnSync(file, args, { stdio: 'inherit', env: spec.env, cwd: spec.cwd })
writeFileSync(spec.listing, JSON.stringify({ names: readdirSync(spec.dir).sort(), free: statfsSync(spec.dir).bavail * fs.bsize }))
process.exitCode = r.status ?? 128
