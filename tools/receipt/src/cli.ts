// receipt — seals an attempt and reads retained attempts back.
//
//   receipt seal     [--attempt DIR]                      (else the attempt record on stdin)
//   receipt readback (--attempt DIR | --state-dir DIR) [--allow-test-hooks]
//
// seal prints start, attempt, result (with the outcome) and exits with the outcome's status;
// readback prints one readback record per attempt and exits 1 if any is invalid.

import { resolve } from 'node:path'
import { cliParser, parseArgs, resolveAttemptPath, runCli, toolError, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { _: Array<string | number>, attempt?: string, 'state-dir'?: string, 'allow-test-hooks'?: boolean }

function parser (argv: string[]) {
  return cliParser('receipt', argv)
    .usage('$0 <seal|readback> [options]')
    .command('seal', 'write outcome.json if missing (timed_out, interrupted) and receipt.json; release the lock', y => y
      .option('attempt', { type: 'string', describe: 'attempt directory (else the attempt record on stdin)' }))
    .command('readback', 'revalidate one attempt or every attempt of a state root', y => y
      .option('attempt', { type: 'string', describe: 'one attempt directory (else the attempt record on stdin)' })
      .option('state-dir', { type: 'string', describe: 'every attempt under this state root' })
      .option('allow-test-hooks', { type: 'boolean', default: false, describe: 'report test hooks as a notice, not an error' }))
    .demandCommand(1, 'name a command: seal or readback')
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { readback, seal, stateDirAttempts } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  const [command] = args._
  if (command === 'seal') return await seal(await resolveAttemptPath(args.attempt, io), io)
  if (command === 'readback') {
    if (args.attempt !== undefined && args['state-dir'] !== undefined) throw toolError('USAGE', 'give --attempt or --state-dir, not both')
    const dirs = args['state-dir'] !== undefined ? stateDirAttempts(resolve(io.cwd, args['state-dir'])) : [await resolveAttemptPath(args.attempt, io)]
    return await readback(dirs, { ...(args['state-dir'] === undefined ? {} : { stateDir: args['state-dir'] }), allowTestHooks: args['allow-test-hooks'] === true }, io)
  }
  throw toolError('USAGE', `unknown command ${String(command)}: expected seal or readback`)
}

await runCli('receipt', main, { commands: ['seal', 'readback'], help: async () => `${await parser([]).getHelp()}\n` })
