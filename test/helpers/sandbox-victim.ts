// A supervisor to be killed: runs one sandbox whose command is `sleep 60 <marker>` (marker: a
// unique fraction of a second, so the command line names it) and prints `placed` once the
// sandbox is placed in its cgroups, `released` once its command runs. argv: marker, tree (a
// directory the sandbox user can read), mode: `unprotected` removes the supervisor's signal
// listeners once placed (the positive control: what a supervisor without them leaves).
import { runSandbox } from '@repairline/core'
import { TEST_LIMITS } from './sandbox.ts'

const [marker = '', tree = '', mode = ''] = process.argv.slice(2)
await runSandbox({
  command: ['/usr/bin/sleep', '60', marker],
  cwd: '/src',
  env: { PATH: '/usr/bin:/bin' },
  mounts: [{ source: tree, dest: '/src' }],
  limits: TEST_LIMITS,
  timeoutMs: 120_000,
  onPlaced: () => {
    if (mode === 'unprotected') for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(s)
    process.stdout.write('placed\n')
    setTimeout(() => process.stdout.write('released\n'), 300)
  },
})
