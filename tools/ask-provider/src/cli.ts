// ask-provider — the one provider call of an attempt.
//
//   ask-provider [--attempt DIR]            render, validate, call once, validate the proposal
//   ask-provider [--attempt DIR] --check    re-render and compare byte for byte; no call, no write
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries
// NDJSON records only (start, attempt, check, error, result); the exit status follows the
// README's table (69: a retryable provider_error).

import { cliParser, parseArgs, runCli, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { attempt?: string, check: boolean }

function parser (argv: string[]) {
  return cliParser('ask-provider', argv)
    .usage('$0 [--attempt DIR] [--check]')
    .option('attempt', { type: 'string', describe: 'attempt directory (else read from the attempt record on stdin)' })
    .option('check', { type: 'boolean', default: false, describe: 're-render job.txt, prompt.txt, the owned-text records and request.json and compare byte for byte; never writes, never calls the provider' })
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { askProvider } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  return await askProvider({ ...(args.attempt === undefined ? {} : { attempt: args.attempt }), check: args.check }, io, { pid: process.pid })
}

await runCli('ask-provider', main, { help: async () => `${await parser([]).getHelp()}\n` })
