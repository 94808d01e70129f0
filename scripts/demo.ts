// demo — the whole chain end to end on an embedded example, with no network and no
// configuration:
//
//   npm run demo
//
// It builds a small git repository with a real bug and a failing test (a node package whose
// slugify joins words with underscores), starts the local HTTPS Responses-compatible server
// from test/helpers with a throwaway CA, writes a token helper, a routing policy, an
// execution config and a suite report, runs the driver (admit → extract-tree → reproduce →
// ask-provider → gate-patch → verify → receipt seal) to scoped_test_verified, reads the
// receipt back, and prints where everything is and what the receipt proves.
//
// The provider is local and scripted: it answers with the fix a model would propose. Every
// other step is the real one — real git plumbing, the real bubblewrap sandbox, real test runs.

import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { caseInputSha256, parseRecordLine, sha256File } from '@repairline/core'
import { createRepo } from '../test/helpers/git.ts'
import { makeTls } from '../test/helpers/tls.ts'
import { ResponsesServer } from '../test/helpers/responses-server.ts'

const ROOT = join(import.meta.dirname, '..')
const say = (s: string): void => { process.stderr.write(`demo: ${s}\n`) }

const FILES = {
  'package.json': '{\n  "name": "slugs",\n  "private": true,\n  "type": "module"\n}\n',
  'src/slug.js': "// slugify lowercases a title and joins its words with single dashes.\nexport function slugify (title) {\n  return title.trim().toLowerCase().split(/\\s+/).join('_')\n}\n",
  'test/slug.test.js': "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { slugify } from '../src/slug.js'\n\ntest('joins words with dashes', () => {\n  assert.equal(slugify('Hello Big World'), 'hello-big-world')\n})\n\ntest('lowercases one word', () => {\n  assert.equal(slugify('  Repair  '), 'repair')\n})\n",
  '.repairline/registers.json': JSON.stringify({ version: 1, tasks: { repair: { register: 'internal', max_output_tokens: 2000 } }, surfaces: { agent: { register: 'internal' }, prompts: { register: 'internal' } } }, null, 2) + '\n',
}

/** What the scripted provider answers: the fix, as a model would propose it. */
const PROPOSAL = {
  summary: {
    cause: 'slugify joins the words of a title with underscores, so the dash test fails.',
    change: 'Join the words with a dash instead of an underscore.',
    risk: 'Callers that expected underscores in slugs now get dashes.',
  },
  edits: [{ path: 'src/slug.js', search: ".join('_')", replace: ".join('-')" }],
}

function writeJson (path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n')
}

async function main (): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'repairline-demo-'))
  // The sandbox user (uid 65534) must be able to traverse to the work trees under state/.
  chmodSync(dir, 0o711)
  say(`working in ${dir}`)
  const repo = join(dir, 'repo')
  const sha = await createRepo(repo, FILES)
  say(`built the example repository at ${repo} (commit ${sha.slice(0, 12)}): slugify has a bug and 'joins words with dashes' fails`)

  const tls = await makeTls(join(dir, 'tls'))
  const server = await ResponsesServer.start({ tls, log: join(dir, 'provider-requests.ndjson') })
  server.proposal = PROPOSAL
  say(`started the local HTTPS Responses server on 127.0.0.1:${server.port} (throwaway CA ${tls.caFile})`)
  try {
    const token = `demo-${randomBytes(16).toString('hex')}`
    const tokenHelper = join(dir, 'token-helper')
    writeFileSync(tokenHelper, `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(token)} + '\\n')\n`)
    chmodSync(tokenHelper, 0o755)
    const policyPath = join(dir, 'routing-policy.json')
    writeJson(policyPath, {
      version: 1,
      cost_ceiling_usd: 0.5,
      routes: [{ case_kind: 'test_failure', task_label: 'repair', model: 'demo-model', estimated_input_tokens: 4000, estimated_output_tokens: 1000, usd_per_million_input_tokens: 0.25, usd_per_million_output_tokens: 2 }],
    })
    const configPath = join(dir, 'execution.json')
    writeJson(configPath, {
      version: 1,
      source_root: repo,
      source_sha: sha,
      state_dir: join(dir, 'state'),
      runner: { kind: 'node' },
      allowed_files: ['src/slug.js'],
      test_packages: ['test'],
      timeout_seconds: 180,
      max_patch_bytes: 4096,
      repair_policy: policyPath,
      provider: {
        base_url: server.baseUrl('ok'),
        token_command: tokenHelper,
        token_command_sha256: sha256File(tokenHelper).sha256,
        model: 'demo-model',
        max_output_tokens: 2000,
        max_input_bytes: 100000,
        ca_file: tls.caFile,
      },
    })
    const c = { kind: 'test_failure' as const, id: 'slug-dashes', test: { package: 'test', name: 'test/slug.test.js::joins words with dashes' } }
    const reportPath = join(dir, 'report.json')
    writeJson(reportPath, { version: 1, suite: 'demo', cases: [{ ...c, input_sha256: caseInputSha256(c) }] })
    say(`wrote ${configPath}, ${policyPath} and ${reportPath}`)

    say('running the driver: pnpm attempt --config … --report …')
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' }
    const drive = await execa(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', configPath, '--report', reportPath], { env, extendEnv: false, reject: false, stdio: ['ignore', 'inherit', 'inherit'] })
    say(`the provider received ${server.requests.length} request${server.requests.length === 1 ? '' : 's'}`)
    if (drive.exitCode !== 0) {
      say(`the chain did not verify (exit ${String(drive.exitCode)}); everything is kept in ${dir}`)
      return drive.exitCode ?? 1
    }
    const attempts = join(dir, 'state', 'attempts')
    const attemptDir = join(attempts, readdirOne(attempts))

    const rb = await execa(join(ROOT, 'node_modules', '.bin', 'receipt'), ['readback', '--attempt', attemptDir], { env, extendEnv: false, reject: false })
    const record = String(rb.stdout).split('\n').filter(Boolean).map(l => parseRecordLine(l, 'receipt readback')).find(r => r.kind === 'readback')
    const receipt = JSON.parse(readFileSync(join(attemptDir, 'receipt.json'), 'utf8')) as { files: unknown[], stated_limits: string[], commands: Array<{ step: string, argv: string[] }> }
    process.stdout.write([
      '',
      'repairline demo: scoped_test_verified',
      '',
      `  attempt     ${attemptDir}`,
      `  receipt     ${join(attemptDir, 'receipt.json')} (${receipt.files.length} sealed files)`,
      `  patch       ${join(attemptDir, 'candidate.patch')}`,
      `  readback    ${record?.kind === 'readback' && record.valid ? 'valid: every digest, the key, the route, the register tuples, the re-rendered texts, the gate and both test verdicts (re-derived from their events) check out' : `INVALID (exit ${String(rb.exitCode)})`}`,
      '',
      'The candidate patch:',
      '',
      readFileSync(join(attemptDir, 'candidate.patch'), 'utf8').replace(/^/gm, '    '),
      'What the receipt proves: the failing test was red on the baseline and green on the candidate,',
      'under the same fixed command in the same sandbox:',
      ...receipt.commands.map(cmd => `    ${cmd.step}: ${cmd.argv.join(' ')}`),
      '',
      'What it does not prove (its stated limits):',
      ...receipt.stated_limits.map(l => `  - ${l}`),
      '',
      `Try: node_modules/.bin/receipt readback --attempt ${attemptDir}`,
      '',
    ].join('\n'))
    return record?.kind === 'readback' && record.valid ? 0 : 1
  } finally {
    await server.close()
  }
}

/** The one attempt directory the demo's state root holds. */
function readdirOne (dir: string): string {
  const names = existsSync(dir) ? readdirSync(dir) : []
  if (names.length !== 1) throw new Error(`expected one attempt in ${dir}, found ${names.length}`)
  return names[0] ?? ''
}

process.exitCode = await main()
