// build bundles each tool (tools/<tool>/src/cli.ts) with esbuild into
// tools/<tool>/dist/<tool>.mjs: one ESM file with the precompiled validators inside, so no
// tool compiles a schema or TypeScript when it starts.

import { build } from 'esbuild'
import { copyFileSync, existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WASM_PACKAGES } from '../tools/core/src/gate/syntax/wasm-files.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tools = readdirSync(join(root, 'tools')).filter(t => t !== 'core' && existsSync(join(root, 'tools', t, 'src', 'cli.ts'))).sort()

// The driver is bundled too: `pnpm attempt` must not pay for TypeScript at start.
const entries = [
  ...tools.map(tool => ({ entry: join(root, 'tools', tool, 'src', 'cli.ts'), out: join(root, 'tools', tool, 'dist', `${tool}.mjs`) })),
  { entry: join(root, 'scripts', 'attempt.ts'), out: join(root, 'dist', 'attempt.mjs') },
]

// A bundle that contains the tree-sitter runtime (the gate) loads its .wasm files from its own
// directory (tools/core/src/gate/syntax/parse.ts): copy them next to it.
const fromCore = createRequire(join(root, 'tools', 'core', 'package.json'))

await Promise.all(entries.map(async ({ entry, out }) => {
  const result = await build({
    entryPoints: [entry],
    outfile: out,
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
    for (const [file, spec] of Object.entries(WASM_PACKAGES)) copyFileSync(fromCore.resolve(spec), join(dirname(out), file))
  }
}))
process.stderr.write(`build: bundled ${tools.join(', ')} and the driver\n`)
