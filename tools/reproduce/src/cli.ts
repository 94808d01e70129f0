// reproduce — the third step of the chain.
//
//   reproduce [--attempt DIR]                  run the baseline in the sandbox; baseline.json
//   reproduce --preflight [--runner go|node]   prove the sandbox on this host; writes nothing
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries NDJSON
// records only (start, attempt, baseline | preflight, error, result).

import { cliParser, parseArgs, resolveAttemptPath, runCli, toolError, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { attempt?: string, preflight: boolean, runner?: string }

function parser (argv: string[]) {
  return cliParser('reproduce', argv)
    .usage('$0 [--attempt DIR] | $0 --preflight [--runner go|node]\n\nRuns the fixed test command on the baseline tree in the sandbox and writes baseline.events.ndjson and baseline.json.')
    .option('attempt', { type: 'string', describe: 'attempt directory (else read from the attempt record on stdin)' })
    .option('preflight', { type: 'boolean', default: false, describe: 'only check every sandbox primitive and print what is in force; writes nothing' })
    .option('runner', { type: 'string', choices: ['go', 'node'], describe: '--preflight: the toolchain to check (default: the attempt\'s runner with --attempt, else node)' })
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { reproduce, reproducePreflight, runnerOfAttempt } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  if (args.preflight) {
    let runner = args.runner as 'go' | 'node' | undefined
    if (runner === undefined && args.attempt !== undefined) runner = runnerOfAttempt(await resolveAttemptPath(args.attempt, io))
    return await reproducePreflight({ runner: runner ?? 'node' }, io)
  }
  if (args.runner !== undefined) throw toolError('USAGE', '--runner only goes with --preflight')
  return await reproduce({ attempt: await resolveAttemptPath(args.attempt, io) }, io)
}

await runCli('reproduce', main, { help: async () => `${await parser([]).getHelp()}\n` })
