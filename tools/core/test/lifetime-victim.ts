// A supervisor to be killed at a random moment of its sandbox's start-up
// (sandbox-lifetime.test.ts). It prints `starting` just before it calls runSandbox and
// `placed` once the sandbox is placed, before its command is released; the command is
// `sleep 60 <marker>`, so every process of the run names the marker in its argv.
// argv: marker (a unique fraction of a second), tree (a directory the sandbox user can read),
// and the launcher when this file runs bundled (its default is found beside the sources).
import { runSandbox } from '../src/index.ts'
import { TEST_LIMITS } from '../../../test/helpers/sandbox.ts'

const [marker = '', tree = '', launcher] = process.argv.slice(2)
process.stdout.write('starting\n')
await runSandbox({
  command: ['/usr/bin/sleep', '60', marker],
  cwd: '/src',
  env: { PATH: '/usr/bin:/bin' },
  mounts: [{ source: tree, dest: '/src' }],
  limits: TEST_LIMITS,
  timeoutMs: 120_000,
  ...(launcher === undefined ? {} : { launcher }),
  onPlaced: () => { process.stdout.write('placed\n') },
})
