// admit — the first step of the chain.
//
//   admit run    --config ABS --report ABS   admit the first eligible, unconsumed case
//   admit status --config ABS --report ABS [--next]   one case-status record per case (--next:
//                                            only the case admit run would admit); writes nothing
//   admit repair --config ABS --attempt DIR  admit the repair of a sealed rejected or failed attempt
//   admit report --config ABS --out FILE     test events on stdin → suite report
//   admit init   --source-root ABS --state-dir ABS --out ABS --test ID… --provider-url URL
//                --token-command ABS --model NAME   first execution.json, routing-policy.json, report.json
//
// stdout carries NDJSON records only (start, attempt, case-status, error, result); the
// exit status follows the table in the README.

import { parseCli, runCli, stringListOption, stringOption, toolError, type CliSpec, type OptionSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CONFIG: OptionSpec = { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the execution config' }
const CLI: CliSpec = {
  tool: 'admit',
  usage: ['admit <run|status|repair|report|init> [options]'],
  commands: {
    run: { describe: 'admit the first eligible, unconsumed case of the report', options: { config: CONFIG, report: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report' } } },
    status: {
      describe: 'print one case-status record per case (writes nothing)',
      options: { config: CONFIG, report: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report' }, next: { type: 'boolean', describe: 'print only the case admit run would admit now; exit 1 NOTHING_ELIGIBLE when there is none' } },
    },
    repair: {
      describe: 'admit the repair of a sealed attempt that ended rejected after a proposal or failed: case <case id>#r<n>, its unmet items in the prompt',
      options: { config: CONFIG, attempt: { type: 'string', value: 'DIR', required: true, describe: 'the attempt to repair (a directory of the config\'s state root)' } },
    },
    report: {
      describe: 'read test events on stdin and write a suite report',
      options: { config: CONFIG, out: { type: 'string', value: 'ABS', required: true, describe: 'absolute path of the suite report to write' }, suite: { type: 'string', value: 'NAME', describe: 'informational suite name' } },
    },
    init: {
      describe: 'write execution.json, routing-policy.json and report.json into --out from the checkout at HEAD and the failing tests',
      options: {
        'source-root': { type: 'string', value: 'ABS', required: true, describe: 'your clean git checkout (its HEAD is source_sha)' },
        'state-dir': { type: 'string', value: 'ABS', required: true, describe: 'where attempts will be kept (outside the checkout)' },
        out: { type: 'string', value: 'ABS', required: true, describe: 'an existing directory outside the checkout for the three files' },
        runner: { type: 'string', value: 'KIND', choices: ['go', 'node'], describe: 'the runner, when go.mod / package.json do not tell' },
        test: { type: 'string', value: 'ID', multiple: true, describe: 'a failing test identity: go <import path>::<TestName>, node <test file>::<test name>' },
        'allowed-file': { type: 'string', value: 'PATH', multiple: true, describe: 'a file the model may edit (replaces the proposed list)' },
        'provider-url': { type: 'string', value: 'URL', describe: 'provider.base_url (canonical https)' },
        'token-command': { type: 'string', value: 'ABS', describe: 'the token helper (its sha256 is computed)' },
        model: { type: 'string', value: 'NAME', describe: 'provider.model and the route\'s model' },
        'ca-file': { type: 'string', value: 'ABS', describe: 'provider.ca_file: a PEM CA to trust (the stub provider prints one)' },
        force: { type: 'boolean', describe: 'replace files that differ from what init writes (your edits are lost)' },
      },
    },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { admitInit, admitRepair, admitReport, admitRun, admitStatus } = await import('./index.ts')
  const { command, values } = parseCli(CLI, argv)
  const abs = (flag: 'config' | 'report' | 'out' | 'source-root' | 'state-dir' | 'token-command' | 'ca-file' | 'attempt'): string => {
    const v = stringOption(values[flag])
    if (v === undefined || !v.startsWith('/')) throw toolError('USAGE', `--${flag} must be an absolute path, got ${JSON.stringify(v)}`)
    return v
  }
  const suite = stringOption(values.suite)
  switch (command) {
    case 'run': return await admitRun({ config: abs('config'), report: abs('report') }, io)
    case 'repair': return await admitRepair({ config: abs('config'), attempt: abs('attempt') }, io)
    case 'status': return await admitStatus({ config: abs('config'), report: abs('report'), next: values.next === true }, io)
    case 'init': {
      const url = stringOption(values['provider-url'])
      const model = stringOption(values.model)
      const given = [url, values['token-command'], model].filter(v => v !== undefined).length
      if (given !== 0 && given !== 3) throw toolError('USAGE', '--provider-url, --token-command and --model go together')
      const runner = stringOption(values.runner)
      return await admitInit({
        sourceRoot: abs('source-root'),
        stateDir: abs('state-dir'),
        out: abs('out'),
        ...(runner === 'go' || runner === 'node' ? { runner } : {}),
        tests: stringListOption(values.test),
        allowedFiles: stringListOption(values['allowed-file']),
        ...(url === undefined || model === undefined ? {} : { provider: { baseUrl: url, tokenCommand: abs('token-command'), model, ...(values['ca-file'] === undefined ? {} : { caFile: abs('ca-file') }) } }),
        force: values.force === true,
      }, io)
    }
    default: return await admitReport({ config: abs('config'), out: abs('out'), ...(suite === undefined ? {} : { suite }) }, io)
  }
}

void runCli(CLI, main)
