// admit — the first step of the chain.
//
//   admit run    --config ABS --report ABS   admit the first eligible, unconsumed case
//   admit status --config ABS --report ABS   one case-status record per case; writes nothing
//   admit report --config ABS --out FILE     test events on stdin → suite report
//
// stdout carries NDJSON records only (start, attempt, case-status, error, result); the
// exit status follows the table in the README.

import { cliParser, parseArgs, runCli, toolError, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { _: Array<string | number>, config?: string, report?: string, out?: string, suite?: string }

function parser (argv: string[]) {
  return cliParser('admit', argv)
    .usage('$0 <run|status|report> [options]')
    .command('run', 'admit the first eligible, unconsumed case of the report', y => y
      .option('config', { type: 'string', demandOption: true, describe: 'absolute path of the execution config' })
      .option('report', { type: 'string', demandOption: true, describe: 'absolute path of the suite report' }))
    .command('status', 'print one case-status record per case (writes nothing)', y => y
      .option('config', { type: 'string', demandOption: true, describe: 'absolute path of the execution config' })
      .option('report', { type: 'string', demandOption: true, describe: 'absolute path of the suite report' }))
    .command('report', 'read test events on stdin and write a suite report', y => y
      .option('config', { type: 'string', demandOption: true, describe: 'absolute path of the execution config' })
      .option('out', { type: 'string', demandOption: true, describe: 'absolute path of the suite report to write' })
      .option('suite', { type: 'string', describe: 'informational suite name' }))
    .demandCommand(1, 'name a command: run, status or report')
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { admitReport, admitRun, admitStatus } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  const [command] = args._
  const abs = (flag: 'config' | 'report' | 'out'): string => {
    const v = args[flag]
    if (v === undefined || !v.startsWith('/')) throw toolError('USAGE', `--${flag} must be an absolute path, got ${JSON.stringify(v)}`)
    return v
  }
  switch (command) {
    case 'run': return await admitRun({ config: abs('config'), report: abs('report') }, io)
    case 'status': return await admitStatus({ config: abs('config'), report: abs('report') }, io)
    case 'report': return await admitReport({ config: abs('config'), out: abs('out'), ...(args.suite === undefined ? {} : { suite: args.suite }) }, io)
    default: throw toolError('USAGE', `unknown command ${String(command)}: expected run, status or report`)
  }
}

await runCli('admit', main, { commands: ['run', 'status', 'report'], help: async () => `${await parser([]).getHelp()}\n` })
