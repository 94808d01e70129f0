// admit — the first step of the chain.
//
//   admit run    --config ABS --report ABS   admit the first eligible, unconsumed case
//   admit status --config ABS --report ABS   one case-status record per case; writes nothing
//   admit report --config ABS --out FILE     test events on stdin → suite report
//
// stdout carries NDJSON records only (start, attempt, case-status, error, result); the
// exit status follows the table in the README.

import { parseCli, runCli, stringOption, toolError, type CliSpec, type OptionSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CONFIG: OptionSpec = { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the execution config' }
const CLI: CliSpec = {
  tool: 'admit',
  usage: ['admit <run|status|report> [options]'],
  commands: {
    run: { describe: 'admit the first eligible, unconsumed case of the report', options: { config: CONFIG, report: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report' } } },
    status: { describe: 'print one case-status record per case (writes nothing)', options: { config: CONFIG, report: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report' } } },
    report: {
      describe: 'read test events on stdin and write a suite report',
      options: { config: CONFIG, out: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report to write' }, suite: { type: 'string', value: 'NAME', describe: 'informational suite name' } },
    },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { admitReport, admitRun, admitStatus } = await import('./index.ts')
  const { command, values } = parseCli(CLI, argv)
  const abs = (flag: 'config' | 'report' | 'out'): string => {
    const v = stringOption(values[flag])
    if (v === undefined || !v.startsWith('/')) throw toolError('USAGE', `--${flag} must be an absolute path, got ${JSON.stringify(v)}`)
    return v
  }
  const suite = stringOption(values.suite)
  switch (command) {
    case 'run': return await admitRun({ config: abs('config'), report: abs('report') }, io)
    case 'status': return await admitStatus({ config: abs('config'), report: abs('report') }, io)
    default: return await admitReport({ config: abs('config'), out: abs('out'), ...(suite === undefined ? {} : { suite }) }, io)
  }
}

void runCli(CLI, main)
