// stub-provider — a Responses-compatible provider for trying repairline on your own
// repository before you point it at a real model: it answers every request with one proposal
// you wrote, over HTTPS on loopback, with a throwaway CA made for the run.
//
//   pnpm stub-provider --proposal FILE [--dir DIR] [--port N]
//
// FILE is a proposal (schemas/proposal.schema.json: a summary and exact search/replace edits),
// checked before the server starts. DIR (default: a new temporary directory) receives the CA
// and the server's certificate. stdout gets one JSON line, {base_url, ca_file}: the two
// `provider` fields of the execution config. The server serves until SIGINT or SIGTERM; it
// listens on 127.0.0.1 only and logs nothing of the requests it gets.

import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { parseDocument } from '@repairline/core'
import { makeTls } from '../test/helpers/tls.ts'
import { ResponsesServer } from '../test/helpers/responses-server.ts'

const USAGE = 'usage: pnpm stub-provider --proposal FILE [--dir DIR] [--port N]'

function option (argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`)
  if (i === -1) return undefined
  const v = argv[i + 1]
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value\n${USAGE}`)
  return v
}

async function main (argv: readonly string[]): Promise<void> {
  const known = new Set(['--proposal', '--dir', '--port'])
  for (let i = 0; i < argv.length; i += 2) {
    if (!known.has(argv[i] ?? '')) throw new Error(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`)
  }
  const file = option(argv, 'proposal')
  if (file === undefined) throw new Error(`--proposal is required\n${USAGE}`)
  const proposal = parseDocument('proposal', readFileSync(file), file)
  const dirArg = option(argv, 'dir')
  const dir = dirArg === undefined ? mkdtempSync(join(tmpdir(), 'repairline-stub-')) : isAbsolute(dirArg) ? dirArg : resolve(dirArg)
  const portArg = option(argv, 'port')
  const port = portArg === undefined ? 0 : Number(portArg)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0–65535, got ${String(portArg)}`)

  const tls = await makeTls(join(dir, 'tls'))
  const server = await ResponsesServer.start({ tls, port })
  server.proposal = proposal
  const baseUrl = server.baseUrl('ok')
  process.stdout.write(JSON.stringify({ base_url: baseUrl, ca_file: tls.caFile }) + '\n')
  process.stderr.write([
    `stub-provider: serving ${file} on ${baseUrl} (Ctrl-C stops it)`,
    'stub-provider: put these in your execution config\'s "provider":',
    `  "base_url": ${JSON.stringify(baseUrl)},`,
    `  "ca_file": ${JSON.stringify(tls.caFile)}`,
    'stub-provider: any token helper and model name work; the answer is always this proposal',
    '',
  ].join('\n'))
  await new Promise<void>(resolve => {
    const stop = (): void => { void server.close().then(resolve) }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`stub-provider: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 2
})
