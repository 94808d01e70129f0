// build bundles each tool (tools/<tool>/src/cli.ts) with esbuild into tools/<tool>/dist/:
// <tool>.mjs is the entry (argument parsing and record printing), and the modules it loads
// later (the tool's logic, execa, the gate's tree-sitter runtime) are split into chunks/ so a
// process compiles only what it runs. Validators are precompiled (ajv standalone); nothing
// compiles a schema or TypeScript at run time. Minified: start-up is mostly compile time.
// A step does not run that ESM bundle: each tool is also bundled whole as CommonJS,
// <tool>.cjs, with a V8 code cache beside it (<tool>.cjs.v8cache), and its bin script starts
// it through dist/launch.mjs (tools/core/src/launch.ts says why); --help imports <tool>.mjs.

import { build, type BuildOptions, type Plugin } from 'esbuild'
import { execa } from 'execa'
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { createRequire, isBuiltin } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { WASM_PACKAGES } from '../tools/core/src/gate/syntax/wasm-files.ts'
import { SANDBOX_LAUNCHER } from '../tools/core/src/sandbox/launcher.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tools = readdirSync(join(root, 'tools')).filter(t => t !== 'core' && existsSync(join(root, 'tools', t, 'src', 'cli.ts'))).sort()

// The driver is bundled too: `pnpm attempt` must not pay for TypeScript at start.
const entries = [
  ...tools.map(tool => ({ entry: join(root, 'tools', tool, 'src', 'cli.ts'), name: tool, outdir: join(root, 'tools', tool, 'dist') })),
  { entry: join(root, 'scripts', 'attempt.ts'), name: 'attempt', outdir: join(root, 'dist') },
]

// Every bundle: minified (start-up is mostly compile time), for this Node.
const common: BuildOptions = { bundle: true, platform: 'node', target: 'node20', minify: true, sourcemap: false, legalComments: 'none', logLevel: 'warning' }

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
    ...common,
    format: 'esm',
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

// The step bundles. The same sources as the ESM entry, so the same options except: CommonJS
// has no import.meta (parse.ts finds the grammars beside the module by it) and no top-level
// await; 'use strict' keeps the semantics ES modules have; and no `import()` may remain,
// because V8 drops a script's dynamic-import hook when it is compiled from a code cache
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). A dynamic import of a Node built-in is bundled as
// a small module that re-exports it: esbuild's plain rewrite to require() would break
// web-tree-sitter, whose function declares its own `var require` after that import.
const builtinsBundled: Plugin = {
  name: 'dynamic-builtins-bundled',
  setup (b) {
    b.onResolve({ filter: /.*/ }, args => args.kind === 'dynamic-import' && isBuiltin(args.path) ? { path: args.path, namespace: 'builtin-reexport' } : undefined)
    b.onLoad({ filter: /.*/, namespace: 'builtin-reexport' }, args => ({ contents: `export * from ${JSON.stringify(args.path.startsWith('node:') ? args.path : `node:${args.path}`)}`, loader: 'js' }))
  },
}
await Promise.all(tools.map(async tool => {
  const outdir = join(root, 'tools', tool, 'dist')
  await build({
    ...common,
    entryPoints: [join(root, 'tools', tool, 'src', 'cli.ts')],
    outfile: join(outdir, `${tool}.cjs`),
    format: 'cjs',
    supported: { 'dynamic-import': false },
    plugins: [builtinsBundled],
    define: { 'import.meta.url': '__import_meta_url' },
    banner: { js: "'use strict';const __import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
  })
  await build({ ...common, entryPoints: [join(root, 'tools', 'core', 'src', 'launch.ts')], outfile: join(outdir, 'launch.mjs'), format: 'esm' })
}))
// The C sandbox launcher, in dist/ and beside every tool's launcher
// (tools/core/src/sandbox/launcher.ts; without it every sandbox is refused,
// SANDBOX_UNAVAILABLE: nothing else keeps a run's processes in its cgroups from the start).
for (const [name, without] of [[SANDBOX_LAUNCHER, 'every sandbox run is refused (SANDBOX_UNAVAILABLE)']] as const) {
  const helper = join(root, 'dist', name)
  const compiled = await (async () => {
    for (const cc of ['cc', 'gcc']) {
      const r = await execa(cc, ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', '-ffp-contract=off', '-o', helper, join(root, 'tools', 'core', 'native', `${name}.c`)], { reject: false, stdio: ['ignore', 'inherit', 'inherit'] })
      if (r.exitCode === 0) return true
    }
    return false
  })()
  for (const tool of tools) {
    const target = join(root, 'tools', tool, 'dist', name)
    if (compiled) copyFileSync(helper, target)
    else rmSync(target, { force: true })
  }
  if (!compiled) process.stderr.write(`build: no C compiler (cc, gcc): ${name} not built; ${without}\n`)
}
// Each cache is made in a fresh node, whose V8 flags are a step's (launch.ts).
for (const tool of tools) {
  const outdir = join(root, 'tools', tool, 'dist')
  const code = `import { writeCodeCache } from ${JSON.stringify(pathToFileURL(join(outdir, 'launch.mjs')).href)}; writeCodeCache(${JSON.stringify(join(outdir, `${tool}.cjs`))})`
  await execa(process.execPath, ['--input-type=module', '-e', code], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, extendEnv: false, stdio: 'inherit' })
}
process.stderr.write(`build: bundled ${tools.join(', ')} and the driver\n`)
