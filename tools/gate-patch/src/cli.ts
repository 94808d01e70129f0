// gate-patch applies the proposal's edits exactly to the baseline, writes candidate.patch and
// gate.json, and runs every gate rule (DESIGN §10). A failed rule ends the attempt rejected.
//
//   gate-patch [--attempt DIR]           gate the proposal (else the attempt record on stdin)
//   gate-patch --check [--attempt DIR]   recompute candidate.patch and gate.json; compare; never write
//
// stdout carries NDJSON records only (start, attempt, rule… or check…, error, result).

import { cliParser, parseArgs, resolveAttemptPath, runCli, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { attempt?: string, check?: boolean }

function parser (argv: string[]) {
  return cliParser('gate-patch', argv)
    .usage('$0 [--attempt DIR] [--check]')
    .option('attempt', { type: 'string', describe: 'attempt directory (else read from the attempt record on stdin)' })
    .option('check', { type: 'boolean', default: false, describe: 'recompute candidate.patch and gate.json and compare them byte for byte; never write' })
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { gatePatch } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  return await gatePatch({ attempt: await resolveAttemptPath(args.attempt, io), check: args.check === true }, io)
}

await runCli('gate-patch', main, { help: async () => `${await parser([]).getHelp()}\n` })
