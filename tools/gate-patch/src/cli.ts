// gate-patch applies the proposal's edits exactly to the baseline, writes candidate.patch and
// gate.json, and runs every gate rule (DESIGN §10). A failed rule ends the attempt rejected.
//
//   gate-patch [--attempt DIR]           gate the proposal (else the attempt record on stdin)
//   gate-patch --check [--attempt DIR]   recompute candidate.patch and gate.json; compare; never write
//
// stdout carries NDJSON records only (start, attempt, rule… or check…, error, result).

import { ATTEMPT_OPTION, parseCli, resolveAttemptPath, runCli, stringOption, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'gate-patch',
  usage: ['gate-patch [--attempt DIR] [--check]'],
  options: {
    attempt: ATTEMPT_OPTION,
    check: { type: 'boolean', describe: 'recompute candidate.patch and gate.json and compare them byte for byte; never write' },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { gatePatch } = await import('./index.ts')
  const { values } = parseCli(CLI, argv)
  return await gatePatch({ attempt: await resolveAttemptPath(stringOption(values.attempt), io), check: values.check === true }, io)
}

void runCli(CLI, main)
