// The tools' command line (cli-args.ts): every accepted form yields exactly the declared
// values, every malformed one is USAGE (exit 2) with a one-line message naming the problem,
// and the help text lists every command and option of the spec. runTool answers --help
// without a record and turns a parse failure into the start, error and result records.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { EXIT, helpText, isToolError, parseCli, RecordWriter, runTool, stringListOption, toolError, type CliSpec, type ToolIo } from '@repairline/core'

const FLAT: CliSpec = {
  tool: 'reproduce',
  usage: ['reproduce [--attempt DIR]', 'reproduce --preflight [--runner go|node]'],
  about: 'A paragraph long enough to be wrapped: '.repeat(4).trim(),
  options: {
    attempt: { type: 'string', value: 'DIR', describe: 'attempt directory' },
    preflight: { type: 'boolean', describe: 'check the sandbox' },
    runner: { type: 'string', value: 'NAME', choices: ['go', 'node'], describe: 'the toolchain' },
  },
}

const COMMANDS: CliSpec = {
  tool: 'admit',
  usage: ['admit <run|status> [options]'],
  commands: {
    run: { describe: 'admit a case', options: { config: { type: 'string', value: 'ABS', required: true, describe: 'the config' } } },
    status: { describe: 'show cases', options: { config: { type: 'string', value: 'ABS', describe: 'the config' }, verbose: { type: 'boolean', describe: 'more' } } },
  },
}

function usageError (spec: CliSpec, argv: string[]): string {
  try {
    parseCli(spec, argv)
  } catch (e) {
    assert.ok(isToolError(e), `not a tool error: ${String(e)}`)
    assert.equal(e.code, 'USAGE')
    assert.equal(e.exit, EXIT.USAGE)
    assert.doesNotMatch(e.message, /\n/)
    return e.message
  }
  assert.fail(`accepted: ${JSON.stringify(argv)}`)
}

test('accepted forms give exactly the declared values; booleans default to false', () => {
  assert.deepEqual(parseCli(FLAT, []).values, { attempt: undefined, preflight: false, runner: undefined })
  assert.deepEqual(parseCli(FLAT, ['--attempt', '/a/b', '--preflight']).values, { attempt: '/a/b', preflight: true, runner: undefined })
  assert.deepEqual(parseCli(FLAT, ['--attempt=/a/b', '--runner=go']).values, { attempt: '/a/b', preflight: false, runner: 'go' })
  // An inline value may start with a dash; `--` ends the options and nothing may follow.
  assert.equal(parseCli(FLAT, ['--attempt=-odd']).values.attempt, '-odd')
  assert.deepEqual(parseCli(FLAT, ['--preflight', '--']).values.preflight, true)
  const run = parseCli(COMMANDS, ['run', '--config', '/c'])
  assert.equal(run.command, 'run')
  assert.deepEqual(run.values, { config: '/c' })
  assert.deepEqual(parseCli(COMMANDS, ['status', '--verbose']), { command: 'status', values: { config: undefined, verbose: true } })
})

test('every malformed command line is USAGE with a message naming the problem', () => {
  const cases: Array<[CliSpec, string[], RegExp]> = [
    [FLAT, ['--frobnicate'], /^unknown option --frobnicate$/],
    [FLAT, ['-a'], /^unknown option -a$/],
    [FLAT, ['--Attempt', '/x'], /^unknown option --Attempt$/],
    [FLAT, ['stray'], /^unexpected argument "stray"$/],
    [FLAT, ['--preflight', '--', 'stray'], /^unexpected argument "stray"$/],
    [FLAT, ['--attempt'], /^--attempt needs a value$/],
    [FLAT, ['--attempt', '--preflight'], /^--attempt needs a value$/],
    [FLAT, ['--attempt', '/a', '--attempt', '/b'], /^--attempt is given twice$/],
    [FLAT, ['--preflight', '--preflight'], /^--preflight is given twice$/],
    [FLAT, ['--preflight=yes'], /^--preflight takes no value$/],
    [FLAT, ['--runner', 'rust'], /^--runner must be go or node, got "rust"$/],
    [FLAT, ['--constructor'], /^unknown option --constructor$/],
    [COMMANDS, [], /^name a command: run or status$/],
    [COMMANDS, ['--config', '/c'], /^name a command: run or status$/],
    [COMMANDS, ['seal'], /^unknown command "seal": expected run or status$/],
    [COMMANDS, ['toString'], /^unknown command "toString": expected run or status$/],
    [COMMANDS, ['run'], /^--config is required for run$/],
    [COMMANDS, ['run', '--config', '/c', '--verbose'], /^unknown option --verbose for run$/],
    [COMMANDS, ['status', 'run'], /^unexpected argument "run" for status$/],
  ]
  for (const [spec, argv, expected] of cases) assert.match(usageError(spec, argv), expected, JSON.stringify(argv))
})

test('the help text names every command and option, wrapped to 100 columns', () => {
  const flat = helpText(FLAT)
  assert.match(flat, /^Usage: reproduce \[--attempt DIR\]\n {7}reproduce --preflight \[--runner go\|node\]\n/)
  for (const text of ['--attempt DIR', '--preflight', '--runner NAME', '[go|node]', '-h, --help']) assert.ok(flat.includes(text), text)
  const commands = helpText(COMMANDS)
  for (const text of ['admit run', 'admit status', 'Options of admit run:', 'Options of admit status:', '--config ABS', '[required]', '--verbose']) assert.ok(commands.includes(text), text)
  for (const line of `${flat}${commands}`.split('\n')) assert.ok(line.length <= 100, line)
  assert.ok(flat.endsWith('\n'))
})

test('runTool: --help prints the help and no record; a parse failure is start, error, result and exit 2', async () => {
  const harness = (): { io: ToolIo, stdout: () => string, records: () => string, stderr: () => string } => {
    const bufs = { out: new PassThrough(), err: new PassThrough(), raw: new PassThrough() }
    const read = (s: PassThrough) => () => (s.read() as Buffer | null)?.toString() ?? ''
    return {
      io: { stdin: new PassThrough(), out: new RecordWriter(bufs.out), stderr: bufs.err, stdout: bufs.raw, env: {}, now: () => new Date(), cwd: '/' },
      stdout: read(bufs.raw),
      records: read(bufs.out),
      stderr: read(bufs.err),
    }
  }
  const h = harness()
  let ran = false
  const main = async (argv: string[]) => { ran = true; parseCli(COMMANDS, argv); return { exit: EXIT.OK } }
  assert.equal(await runTool('admit', ['run', '-h'], h.io, main, { spec: COMMANDS }), EXIT.OK)
  assert.equal(ran, false)
  assert.equal(h.stdout(), helpText(COMMANDS))
  assert.equal(h.records(), '')

  const bad = harness()
  assert.equal(await runTool('admit', ['run', '--bogus'], bad.io, main, { spec: COMMANDS }), EXIT.USAGE)
  const records = bad.records().trim().split('\n').map(l => JSON.parse(l) as Record<string, unknown>)
  assert.deepEqual(records.map(r => r.kind), ['start', 'error', 'result'])
  assert.equal(records[0]?.command, 'run')
  assert.equal(records[1]?.code, 'USAGE')
  assert.equal(bad.stderr(), 'admit: USAGE: unknown option --bogus for run\n')
})

test('runTool: an error message holding text from outside stays one printable line on stderr and in its record', async () => {
  const out = new PassThrough()
  const err = new PassThrough()
  const io: ToolIo = { stdin: new PassThrough(), out: new RecordWriter(out), stderr: err, stdout: new PassThrough(), env: {}, now: () => new Date(), cwd: '/' }
  // A path from a repository or a line from a server: a line break that would forge a
  // second `tool: …` line, a terminal escape, a lone surrogate (no UTF-8 form).
  const main = async (): Promise<never> => { throw toolError('TREE_PATH_UNSAFE', 'bad path a\nextract-tree: result: ok\x1b[2J\ud800 end') }
  assert.equal(await runTool('extract-tree', [], io, main, { spec: FLAT }), EXIT.DATA)
  const text = (err.read() as Buffer).toString()
  assert.equal(text, 'extract-tree: TREE_PATH_UNSAFE: bad path a extract-tree: result: ok\\x1b[2J\ufffd end\n')
  const records = (out.read() as Buffer).toString().trim().split('\n').map(l => JSON.parse(l) as Record<string, unknown>)
  assert.equal(records.find(r => r.kind === 'error')?.message, 'bad path a extract-tree: result: ok\\x1b[2J\ufffd end')
})

test('a multiple option collects every value in order (none: empty); given twice, any other option is still USAGE', () => {
  const spec: CliSpec = {
    tool: 'admit',
    usage: ['admit init [options]'],
    commands: { init: { describe: 'init', options: { test: { type: 'string', value: 'ID', multiple: true, describe: 'a test' }, out: { type: 'string', value: 'ABS', describe: 'out' } } } },
  }
  assert.deepEqual(parseCli(spec, ['init', '--test', 'a::b', '--test=c::d', '--out', '/o']).values, { test: ['a::b', 'c::d'], out: '/o' })
  assert.deepEqual(stringListOption(parseCli(spec, ['init']).values.test), [])
  assert.match(usageError(spec, ['init', '--out', '/a', '--out', '/b']), /--out is given twice/)
  assert.match(helpText(spec), /--test ID\s+a test \[repeatable\]/)
})
