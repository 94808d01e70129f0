// reproduce — the third step of the chain.
//
//   reproduce [--attempt DIR]                                 run the baseline in the sandbox; baseline.json
//   reproduce --preflight [--attempt DIR] [--runner go|node]  prove the sandbox on this host; writes nothing
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries NDJSON
// records only (start, attempt, baseline | preflight, error, result; with --preflight the
// attempt only names the runner to check, and no attempt record is printed).

import { ATTEMPT_OPTION, parseCli, resolveAttemptPath, runCli, stringOption, toolError, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'reproduce',
  usage: ['reproduce [--attempt DIR]', 'reproduce --preflight [--attempt DIR] [--runner go|node]'],
  about: 'Runs the fixed test command on the baseline tree in the sandbox and writes baseline.events.ndjson and baseline.json.',
  options: {
    attempt: ATTEMPT_OPTION,
    preflight: { type: 'boolean', describe: 'only check every sandbox primitive and print what is in force; writes nothing' },
    runner: { type: 'string', value: 'NAME', choices: ['go', 'node'], describe: '--preflight: the toolchain to check (default: the attempt\'s runner with --attempt, else node)' },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { reproduce, reproducePreflight, runnerOfAttempt } = await import('./index.ts')
  const { values } = parseCli(CLI, argv)
  const attempt = stringOption(values.attempt)
  if (values.preflight === true) {
    let runner = stringOption(values.runner) as 'go' | 'node' | undefined
    if (runner === undefined && attempt !== undefined) runner = runnerOfAttempt(await resolveAttemptPath(attempt, io))
    return await reproducePreflight({ runner: runner ?? 'node' }, io)
  }
  if (values.runner !== undefined) throw toolError('USAGE', '--runner only goes with --preflight')
  return await reproduce({ attempt: await resolveAttemptPath(attempt, io) }, io)
}

void runCli(CLI, main)
