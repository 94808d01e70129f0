// Start-up cost of each tool: `<tool> --help` (the bundled bin with precompiled validators)
// vs `node -e 0`, interleaved. Issue goal: ≤ 1.8× for every tool.
//
// The same run measures the parser the tools replaced: a bundle of yargs 18 alone, declaring
// extract-tree's two options and printing its help, built here the way scripts/build.ts builds
// the tools (esbuild, minified ESM). It is the reason the tools parse with node:util
// (tools/core/src/cli-args.ts; docs/decisions.md, "Packages wrapped or replaced").

import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { build } from 'esbuild'
import { interleave, median, proc, fmt, type BenchRow } from './lib.ts'
import { TOOL_NAMES as TOOLS } from '@repairline/core'

const ROOT = join(import.meta.dirname, '..', '..')
const YARGS_HELP = `
import yargs from 'yargs'
const y = yargs(process.argv.slice(2)).scriptName('extract-tree').strict().exitProcess(false).fail(false).help(false).version(false).wrap(100)
  .usage('$0 [--attempt DIR] [--check]')
  .option('attempt', { type: 'string', describe: 'attempt directory (else read from the attempt record on stdin)' })
  .option('check', { type: 'boolean', default: false, describe: 'recompute both files in memory; never writes' })
process.stdout.write(await y.getHelp() + '\\n')
`

async function yargsBundle (dir: string): Promise<string> {
  const out = join(dir, 'yargs-help.mjs')
  await build({
    stdin: { contents: YARGS_HELP, resolveDir: dirname(createRequire(join(ROOT, 'tools', 'core', 'package.json')).resolve('yargs')), loader: 'js' },
    outfile: out,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  })
  return out
}

export async function run (): Promise<BenchRow[]> {
  const present = TOOLS.filter(t => existsSync(join(ROOT, 'tools', t, 'dist', `${t}.mjs`)))
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'))
  try {
    const yargsHelp = await yargsBundle(dir)
    const candidates = [
      proc('node -e 0', process.execPath, ['-e', '0']),
      proc('yargs', process.execPath, [yargsHelp]),
      ...present.map(t => proc(t, process.execPath, [join(ROOT, 'tools', t, 'dist', `${t}.mjs`), '--help'])),
    ]
    const s = await interleave(candidates, 15, 2)
    const base = median(s.get('node -e 0') ?? [])
    const ratioRow = (key: string, name: string): BenchRow => {
      const m = median(s.get(key) ?? [])
      return { name, baseline: 'node -e 0', ratio: m / base, detail: `${fmt(m)} vs ${fmt(base)}`, goal: '≤ 1.8×' }
    }
    return [
      ...present.map(t => ratioRow(t, `${t} --help`)),
      { ...ratioRow('yargs', 'yargs 18 alone, same options, --help'), goal: '(replaced)' },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
