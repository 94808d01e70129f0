// COMMAND_MISALIGNED: a recorded test command must be the fixed command of the attempt's
// runner over exactly its test_packages (DESIGN §9), with only the runner's environment
// variable names. The go binary's path and the -timeout value depend on the host and the
// deadline; everything else is fixed.

import type { ExecutionConfig } from '@repairline/schemas'
import { goEnv } from '../runners/go.ts'
import { nodeEnv, NODE_REPORTER_DEST } from '../runners/node.ts'

/** Why `argv` is not the fixed command, or undefined when it is. */
export function commandMisalignment (config: ExecutionConfig, argv: readonly string[], envNames: readonly string[]): string | undefined {
  const pkgs = config.test_packages
  const [bin = '', ...rest] = argv
  if (config.runner.kind === 'go') {
    if (!/^\/\S*\/go$/.test(bin)) return `the command runs ${bin}, not a go binary`
    const [test, json, count, timeout, ...targets] = rest
    if (test !== 'test' || json !== '-json' || count !== '-count=1' || !/^-timeout=[1-9][0-9]*s$/.test(timeout ?? '')) return `the command is not go test -json -count=1 -timeout=<n>s: ${argv.join(' ')}`
    if (targets.join('\0') !== pkgs.join('\0')) return `the command's targets ${JSON.stringify(targets)} are not test_packages ${JSON.stringify(pkgs)}`
  } else {
    if (!/^\/\S*\/node$/.test(bin)) return `the command runs ${bin}, not node`
    const fixed = ['--test', '--test-concurrency=1', `--test-reporter=${NODE_REPORTER_DEST}`]
    if (rest.slice(0, 3).join('\0') !== fixed.join('\0')) return `the command is not node ${fixed.join(' ')}: ${argv.join(' ')}`
    if (rest.slice(3).join('\0') !== pkgs.join('\0')) return `the command's targets ${JSON.stringify(rest.slice(3))} are not test_packages ${JSON.stringify(pkgs)}`
  }
  const allowed = new Set(Object.keys(config.runner.kind === 'go' ? goEnv('/usr/lib/go', '/gomod') : nodeEnv()))
  const extra = envNames.filter(n => !allowed.has(n))
  if (extra.length > 0) return `the command ran with environment variables outside the runner's set: ${extra.join(', ')}`
  return undefined
}
