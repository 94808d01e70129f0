// extract-tree — the second step of the chain.
//
//   extract-tree [--attempt DIR]            extract source_sha into tree.tar + tree-manifest.json
//   extract-tree [--attempt DIR] --check    recompute both in memory; compare with the retained files
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries
// NDJSON records only (start, attempt, tree | check…, error, result).

import { cliParser, parseArgs, resolveAttemptPath, runCli, type ToolIo, type ToolResult } from '@repairline/core'

interface Args { attempt?: string, check: boolean }

function parser (argv: string[]) {
  return cliParser('extract-tree', argv)
    .usage('$0 [--attempt DIR] [--check]\n\nReads the admitted commit with git plumbing and writes tree.tar and tree-manifest.json into the attempt directory.')
    .option('attempt', { type: 'string', describe: 'attempt directory (else read from the attempt record on stdin)' })
    .option('check', { type: 'boolean', default: false, describe: 'recompute both files in memory and report whether the retained ones match; never writes' })
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { extractTree } = await import('./index.ts')
  const args = await parseArgs<Args>(parser(argv))
  const attempt = await resolveAttemptPath(args.attempt, io)
  return await extractTree({ attempt, check: args.check }, io)
}

await runCli('extract-tree', main, { help: async () => `${await parser([]).getHelp()}\n` })
