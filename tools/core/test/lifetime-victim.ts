// A supervisor to be killed at a random moment of its sandbox's start-up
// (sandbox-lifetime.test.ts). It first moves itself into a cgroup of its own beneath the
// test's, rl-test-life-<pid>, so that groups its sandbox might leave sit where no other
// supervisor sweeps them (a new supervisor removes dead ones' groups beside its own): what is
// removed is removed by this run's own mechanism. It prints `starting` just before it calls
// runSandbox, `spawned` once the launcher runs (whileStarting) and `placed` once the sandbox is
// placed, before its command is released; the command is `sleep 60 <marker>`, so every process
// of the run names the marker in its argv.
// argv: marker (a unique fraction of a second), tree (a directory the sandbox user can read),
// and the launcher when this file runs bundled (its default is found beside the sources).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findHierarchies, runSandbox } from '../src/index.ts'
import { TEST_LIMITS } from '../../../test/helpers/sandbox.ts'

const [marker = '', tree = '', launcher] = process.argv.slice(2)
const found = findHierarchies()
if (!found.ok) throw new Error(found.why)
for (const h of found.hierarchies) {
  const nest = join(h.ownDir, `rl-test-life-${process.pid}`)
  mkdirSync(nest)
  writeFileSync(join(nest, 'cgroup.procs'), String(process.pid))
}
process.stdout.write('starting\n')
await runSandbox({
  command: ['/usr/bin/sleep', '60', marker],
  cwd: '/src',
  env: { PATH: '/usr/bin:/bin' },
  mounts: [{ source: tree, dest: '/src' }],
  limits: TEST_LIMITS,
  timeoutMs: 120_000,
  ...(launcher === undefined ? {} : { launcher }),
  whileStarting: () => { process.stdout.write('spawned\n') },
  onPlaced: () => { process.stdout.write('placed\n') },
})
