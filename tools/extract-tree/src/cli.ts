// extract-tree — the second step of the chain.
//
//   extract-tree [--attempt DIR]            extract source_sha into tree.tar + tree-manifest.json
//   extract-tree [--attempt DIR] --check    recompute both, never written; compare with the retained files
//
// The attempt comes from --attempt or from the attempt record on stdin. stdout carries
// NDJSON records only (start, attempt, tree | check…, error, result).

import { ATTEMPT_OPTION, parseCli, resolveAttemptPath, runCli, stringOption, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'extract-tree',
  usage: ['extract-tree [--attempt DIR] [--check]'],
  about: 'Reads the admitted commit with git plumbing and writes tree.tar and tree-manifest.json into the attempt directory.',
  options: {
    attempt: ATTEMPT_OPTION,
    check: { type: 'boolean', describe: 'recompute both files and report whether the retained ones match (size and sha256); never writes' },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { extractTree } = await import('./index.ts')
  const { values } = parseCli(CLI, argv)
  const attempt = await resolveAttemptPath(stringOption(values.attempt), io)
  return await extractTree({ attempt, check: values.check === true }, io)
}

void runCli(CLI, main)
