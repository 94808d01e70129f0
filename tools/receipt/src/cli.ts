// receipt — seals an attempt, reads retained attempts back, and renders one as a page.
//
//   receipt seal     [--attempt DIR]                      (else the attempt record on stdin)
//   receipt readback (--attempt DIR | --state-dir DIR) [--allow-test-hooks] [--source DIR]
//   receipt view     [--attempt DIR] --html FILE [--allow-test-hooks]   (else the attempt record on stdin)
//
// seal prints start, attempt, result (with the outcome) and exits with the outcome's status;
// readback prints one readback record per attempt and exits 1 if any is invalid; view writes
// the attempt's page and exits 1 if the attempt reads back invalid.

import { resolve } from 'node:path'
import { ATTEMPT_OPTION, parseCli, resolveAttemptPath, runCli, stringOption, toolError, type CliSpec, type ToolIo, type ToolResult } from '@repairline/core'

const CLI: CliSpec = {
  tool: 'receipt',
  usage: ['receipt seal [--attempt DIR]', 'receipt readback (--attempt DIR | --state-dir DIR) [--allow-test-hooks] [--source DIR]', 'receipt view [--attempt DIR] --html FILE [--allow-test-hooks]'],
  commands: {
    seal: {
      describe: 'write outcome.json if missing (timed_out, interrupted) and receipt.json; release the lock',
      options: { attempt: ATTEMPT_OPTION },
    },
    readback: {
      describe: 'revalidate one attempt or every attempt of a state root',
      options: {
        attempt: { type: 'string', value: 'DIR', describe: 'one attempt directory (else the attempt record on stdin)' },
        'state-dir': { type: 'string', value: 'DIR', describe: 'every attempt under this state root' },
        'allow-test-hooks': { type: 'boolean', describe: 'report test hooks as a notice, not an error' },
        source: { type: 'string', value: 'DIR', describe: "the source repository: also run git bundle verify on each candidate.bundle there (reads only)" },
      },
    },
    view: {
      describe: 'write one self-contained HTML page of an attempt: outcome, tests, patch, steps, limits, readback',
      options: {
        attempt: { type: 'string', value: 'DIR', describe: 'the attempt directory (else the attempt record on stdin)' },
        html: { type: 'string', value: 'FILE', describe: 'the page to write: outside the checkout and the state directory' },
        'allow-test-hooks': { type: 'boolean', describe: 'report test hooks as a notice, not an error' },
      },
    },
  },
}

async function main (argv: string[], io: ToolIo): Promise<ToolResult> {
  // The tool's logic loads only now: --help never compiles it.
  const { readback, seal, stateDirAttempts, view } = await import('./index.ts')
  const { command, values } = parseCli(CLI, argv)
  const attempt = stringOption(values.attempt)
  if (command === 'seal') return await seal(await resolveAttemptPath(attempt, io), io)
  if (command === 'view') {
    const html = stringOption(values.html)
    if (html === undefined || html === '') throw toolError('USAGE', '--html needs the file to write')
    return await view(await resolveAttemptPath(attempt, io), { html: resolve(io.cwd, html), allowTestHooks: values['allow-test-hooks'] === true }, io)
  }
  const stateDir = stringOption(values['state-dir'])
  if (stateDir === '') throw toolError('USAGE', '--state-dir needs a directory')
  if (attempt !== undefined && stateDir !== undefined) throw toolError('USAGE', 'give --attempt or --state-dir, not both')
  const dirs = stateDir !== undefined ? stateDirAttempts(resolve(io.cwd, stateDir)) : [await resolveAttemptPath(attempt, io)]
  const source = stringOption(values.source)
  if (source === '') throw toolError('USAGE', '--source needs the source repository')
  return await readback(dirs, { ...(stateDir === undefined ? {} : { stateDir }), ...(source === undefined ? {} : { source: resolve(io.cwd, source) }), allowTestHooks: values['allow-test-hooks'] === true }, io)
}

void runCli(CLI, main)
