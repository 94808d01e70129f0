// verify — runs the fixed test command on the gated candidate in the identical sandbox and
// compares it with the baseline (DESIGN §11).
//
//   verify [--attempt DIR]
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries
// NDJSON records only (start, attempt, verify, error, result).

import { ATTEMPT_OPTION, parseCli, resolveAttemptPath, runCli, stringOption, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'verify',
  usage: ['verify [--attempt DIR]'],
  about: 'Runs the fixed test command on the gated candidate (read-only, in the identical sandbox) and writes candidate.events.ndjson and verify.json; ends the attempt scoped_test_verified (0), failed, fault or timed_out (1).',
  options: { attempt: ATTEMPT_OPTION },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { verify } = await import('./index.ts')
  const { values } = parseCli(CLI, argv)
  return await verify({ attempt: await resolveAttemptPath(stringOption(values.attempt), io) }, io)
}

void runCli(CLI, main)
