// run-tests finds every *.test.ts under tools/*/test and test/ and runs them with the
// built-in node:test runner through tsx. Node 20's --test does not expand globs, hence this
// list. Pass file or directory arguments to run a subset.
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- test runner entry, argv array

const root = new URL('..', import.meta.url).pathname
function walk (dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, out)
    else if (name.endsWith('.test.ts')) out.push(p)
  }
  return out
}
const args = process.argv.slice(2)
const starts = args.length > 0 ? args.map(a => join(process.cwd(), a)) : [join(root, 'tools'), join(root, 'test')]
const files = []
for (const s of starts) {
  if (statSync(s, { throwIfNoEntry: false })?.isDirectory()) walk(s, files)
  else if (s.endsWith('.test.ts')) files.push(s)
}
files.sort()
if (files.length === 0) {
  process.stderr.write('run-tests: no test files found\n')
  process.exitCode = 1
} else {
  process.stderr.write(`run-tests: ${files.length} files\n`)
  const concurrency = process.env.TEST_CONCURRENCY ?? '2'
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=900000', ...files.map(f => relative(process.cwd(), f))], { stdio: 'inherit' })
  process.exitCode = r.status ?? 1
}
