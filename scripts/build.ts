// build bundles each tool (tools/<tool>/src/cli.ts) with esbuild into tools/<tool>/dist/:
// <tool>.mjs is the entry (argument parsing and record printing), and the modules it loads
// later (the tool's logic, execa, the gate's tree-sitter runtime) are split into chunks/ so a
// process compiles only what it runs. Validators are precompiled (ajv standalone); nothing
// compiles a schema or TypeScript at run time. Minified: start-up is mostly compile time.

import { build } from 'esbuild'
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WASM_PACKAGES } from '../tools/core/src/gate/syntax/wasm-files.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tools = readdirSync(join(root, 'tools')).filter(t => t !== 'core' && existsSync(join(root, 'tools', t, 'src', 'cli.ts'))).sort()

// The driver is bundled too: `pnpm attempt` must not pay for TypeScript at start.
const entries = [
  ...tools.map(tool => ({ entry: join(root, 'tools', tool, 'src', 'cli.ts'), name: tool, outdir: join(root, 'tools', tool, 'dist') })),
  { entry: join(root, 'scripts', 'attempt.ts'), name: 'attempt', outdir: join(root, 'dist') },
]

// A bundle that contains the tree-sitter runtime (the gate) loads its .wasm files from its own
// directory (tools/core/src/gate/syntax/parse.ts): copy them next to it.
const fromCore = createRequire(join(root, 'tools', 'core', 'package.json'))

await Promise.all(entries.map(async ({ entry, name, outdir }) => {
  rmSync(outdir, { recursive: true, force: true })
  const result = await build({
    entryPoints: [{ in: entry, out: name }],
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    minify: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // Bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    metafile: true,
  })
  if (Object.keys(result.metafile.inputs).some(p => p.includes('/web-tree-sitter/'))) {
    // Next to the chunk that holds the runtime, and next to the entry: both are "beside the module".
    for (const dir of [outdir, join(outdir, 'chunks')]) {
      for (const [file, spec] of Object.entries(WASM_PACKAGES)) copyFileSync(fromCore.resolve(spec), join(dir, file))
    }
  }
}))
process.stderr.write(`build: bundled ${tools.join(', ')} and the driver\n`)
