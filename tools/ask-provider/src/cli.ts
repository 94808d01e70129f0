// ask-provider — the one provider call of an attempt.
//
//   ask-provider [--attempt DIR]            render, validate, call once, validate the proposal
//   ask-provider [--attempt DIR] --check    re-render and compare byte for byte; no call, no write
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries
// NDJSON records only (start, attempt, check, error, result); the exit status follows the
// README's table (69: a retryable provider_error).

import { ATTEMPT_OPTION, parseCli, runCli, stringOption, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'ask-provider',
  usage: ['ask-provider [--attempt DIR] [--check]'],
  options: {
    attempt: ATTEMPT_OPTION,
    check: { type: 'boolean', describe: 're-render job.txt, prompt.txt, the owned-text records and request.json and compare byte for byte; never writes, never calls the provider' },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { askProvider } = await import('./index.ts')
  const { values } = parseCli(CLI, argv)
  const attempt = stringOption(values.attempt)
  return await askProvider({ ...(attempt === undefined ? {} : { attempt }), check: values.check === true }, io, { pid: process.pid })
}

void runCli(CLI, main)
