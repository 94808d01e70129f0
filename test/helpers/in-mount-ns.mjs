// Runs inside `unshare --mount --propagation private`: bind-mounts each [source, target] of
// argv[2] (JSON) in this private mount namespace, then runs argv[3..] with the environment of
// argv[2] and exits with its status. Tests use it to take a sandbox primitive away from one
// tool run (a fake bwrap over /usr/bin/bwrap, an empty tmpfs over /sys/fs/cgroup) without
// touching the host.
import { execFileSync, spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test helper, argv arrays
const spec = JSON.parse(process.argv[2])
for (const [source, target] of spec.binds ?? []) execFileSync('/usr/bin/mount', ['--bind', source, target])
for (const target of spec.tmpfs ?? []) execFileSync('/usr/bin/mount', ['-t', 'tmpfs', 'none', target])
const [file, ...args] = process.argv.slice(3)
const r = spawnSync(file, args, { stdio: 'inherit', env: spec.env, cwd: spec.cwd })
process.exitCode = r.status ?? 128
