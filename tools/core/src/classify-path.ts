// The one path classifier (DESIGN §10), shared by admit (allowed files) and gate-patch
// (changed paths). Only `source` paths may be allowed or edited. The rules of both runners
// apply to every repository: a go repository's tests/ directory is still tests. Every file
// `node --test` runs by default is a test (its patterns: `test/**`, `*.test.*`, `*-test.*`,
// `*_test.*`, `test-*`, and `test.{js,mjs,cjs}`), beyond DESIGN §10's list: a file node runs
// as a test is never source that a proposal may edit.

export type PathClass = 'test' | 'config' | 'instructions' | 'source'

const INSTRUCTION_NAMES = new Set(['agents.md', 'claude.md', 'codeowners', '.cursorrules'])
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'yarn.lock', 'bun.lockb', 'bun.lock', 'deno.lock'])
const CONFIG_NAMES = new Set(['go.mod', 'go.sum', 'package.json', 'makefile', 'gnumakefile'])
const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'testdata'])

/** Classifies a repository-relative path as test, config, instructions or source. */
export function classifyPath (path: string): PathClass {
  const parts = path.split('/')
  const base = parts.at(-1) ?? ''
  const lower = base.toLowerCase()
  if (INSTRUCTION_NAMES.has(lower) || lower.endsWith('.md')) return 'instructions'
  if (parts.slice(0, -1).some(d => TEST_DIRS.has(d))) return 'test'
  if (/_test\.go$/.test(base) || /\.(test|spec)\./.test(base) || /^test-/.test(base) || /^test\./.test(base) || /_test\./.test(base) || /-test\./.test(base)) return 'test'
  if (CONFIG_NAMES.has(lower) || LOCKFILES.has(lower) || /^go\.work/.test(lower) || /\.config\./.test(lower)) return 'config'
  if (parts.some(p => p.startsWith('.'))) return 'config'
  return 'source'
}

/** The file extensions an allowed file may have for each runner. */
export const SOURCE_EXTENSIONS: Readonly<Record<'go' | 'node', readonly string[]>> = {
  go: ['.go'],
  node: ['.js', '.mjs', '.cjs'],
}
