// run-ts runs one TypeScript script (the driver, the demo, the benchmarks) through tsx in
// this process's Node, passing the remaining arguments through.
import { spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- script launcher, argv array
const [script, ...rest] = process.argv.slice(2)
const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...rest], { stdio: 'inherit' })
process.exitCode = r.status ?? 1
