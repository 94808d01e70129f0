// CODEOWNERS with GitHub's semantics, held to the example file in GitHub's documentation
// ("About code owners") and to the syntax it says does not carry over from gitignore; the
// instruction files of a path; and the candidate commit's git object ids against real git.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { effectiveRule, gitObjectId, instructionCandidates, parseCodeowners, patternRegex, run, treeIdOf } from '../src/index.ts'

/** GitHub's example CODEOWNERS file, as its documentation gives it (comments shortened). */
const GITHUB_EXAMPLE = [
  '# This is a comment.',
  '*       @global-owner1 @global-owner2',
  '*.js    @js-owner #This is an inline comment.',
  '*.go docs@example.com',
  '*.txt @octo-org/octocats',
  '/build/logs/ @doctocat',
  'docs/* docs@example.com',
  'apps/ @octocat',
  '/docs/ @doctocat',
  '/scripts/ @doctocat @octocat',
  '**/logs @octocat',
  '/apps/ @octocat',
  '/apps/github',
  '',
].join('\n')

const ownersOf = (text: string, path: string): { line: number, owners: string[] } | undefined => {
  const r = effectiveRule(parseCodeowners(text), path)
  return r === undefined ? undefined : { line: r.line, owners: r.owners }
}

test("GitHub's example file: the last matching line wins, an inline comment ends the owners, a line without owners un-owns", () => {
  const cases: Array<[string, number, string[]]> = [
    // Nothing later matches: the default owners.
    ['README.md', 2, ['@global-owner1', '@global-owner2']],
    ['src/index.js', 3, ['@js-owner']],
    ['main.go', 4, ['docs@example.com']],
    ['notes/todo.txt', 5, ['@octo-org/octocats']],
    // /build/logs/ owns everything under build/logs at any depth, but **/logs (later) wins.
    ['build/logs/today/run.txt', 11, ['@octocat']],
    // docs/* is the files directly in docs/; /docs/ (later) owns the whole tree at the root.
    ['docs/getting-started.md', 9, ['@doctocat']],
    ['docs/build-app/troubleshooting.md', 9, ['@doctocat']],
    // /scripts/ needs either owner.
    ['scripts/deploy.sh', 10, ['@doctocat', '@octocat']],
    // **/logs: a logs directory anywhere.
    ['deeply/nested/logs/x.log', 11, ['@octocat']],
    ['scripts/logs/y.log', 11, ['@octocat']],
    // /apps/ @octocat, then /apps/github with no owners: unowned.
    ['apps/web/page.js', 12, ['@octocat']],
    ['apps/github/action.yml', 13, []],
    // apps/ (unanchored) owns an apps directory anywhere; nothing later matches there.
    ['lib/apps/tool.py', 8, ['@octocat']],
  ]
  for (const [path, line, owners] of cases) assert.deepEqual(ownersOf(GITHUB_EXAMPLE, path), { line, owners }, path)
})

test("docs/* matches the files directly in docs/, not deeper ones (GitHub's own example)", () => {
  const text = '* @all\ndocs/* docs@example.com\n'
  assert.deepEqual(ownersOf(text, 'docs/getting-started.md'), { line: 2, owners: ['docs@example.com'] })
  assert.deepEqual(ownersOf(text, 'docs/build-app/troubleshooting.md'), { line: 1, owners: ['@all'] })
  // Anchored by its slash: another directory named docs is not it.
  assert.deepEqual(ownersOf(text, 'web/docs/index.md'), { line: 1, owners: ['@all'] })
})

test('what GitHub does not take from gitignore: paths are case sensitive; !, [ ] and \\# lines own nothing', () => {
  assert.equal(ownersOf('*.JS @upper\n', 'a.js'), undefined)
  assert.deepEqual(ownersOf('*.JS @upper\n', 'a.JS'), { line: 1, owners: ['@upper'] })
  for (const line of ['!src/a.js @neg', 'src/[ab].go @range', '\\#notes @hash']) {
    const [rule] = parseCodeowners(`${line}\n`)
    assert.equal(rule?.regex, undefined, line)
  }
  // Positive control: the same paths under patterns GitHub accepts.
  assert.deepEqual(ownersOf('* @all\n!src/a.js @neg\nsrc/[ab].go @range\n', 'src/a.go'), { line: 1, owners: ['@all'] })
  assert.deepEqual(ownersOf('src/a.go @exact\n', 'src/a.go'), { line: 1, owners: ['@exact'] })
})

test('patterns: ? is one character but not a slash, ** spans directories, a trailing slash only directories', () => {
  assert.ok(patternRegex('file?.ts')?.test('a/file1.ts'))
  assert.ok(!(patternRegex('file?.ts')?.test('file/.ts') ?? false))
  assert.ok(patternRegex('src/**/test.js')?.test('src/test.js'))
  assert.ok(patternRegex('src/**/test.js')?.test('src/a/b/test.js'))
  assert.ok(!(patternRegex('src/**/test.js')?.test('lib/src/test.js') ?? false))
  assert.ok(patternRegex('vendor/**')?.test('vendor/a/b.go'))
  assert.ok(!(patternRegex('logs/')?.test('logs') ?? false), 'a trailing slash never matches a file named so')
  assert.ok(patternRegex('logs')?.test('logs'), 'without it, a file named so matches')
  assert.ok(patternRegex('/calc.go')?.test('calc.go'))
  assert.ok(!(patternRegex('/calc.go')?.test('internal/calc.go') ?? false))
})

test('instruction files of a path: every ancestor directory, root first, CONTRIBUTING.md at the root only', () => {
  assert.deepEqual(instructionCandidates('src/calc/add.js'), [
    'AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md', 'CONTRIBUTING.md',
    'src/AGENTS.md', 'src/CLAUDE.md', 'src/GEMINI.md', 'src/.github/copilot-instructions.md',
    'src/calc/AGENTS.md', 'src/calc/CLAUDE.md', 'src/calc/GEMINI.md', 'src/calc/.github/copilot-instructions.md',
  ])
  assert.deepEqual(instructionCandidates('calc.go').slice(-1), ['CONTRIBUTING.md'])
})

test('git object ids computed from bytes are the ids real git gives (blob, nested tree)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-objid-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const env = { PATH: '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  const git = async (args: string[], input?: string): Promise<string> => {
    const r = await run('/usr/bin/git', ['-C', dir, ...args], { env, ...(input === undefined ? {} : { input }) })
    assert.equal(r.exitCode, 0, r.stderr.toString())
    return r.stdout.toString().trim()
  }
  await git(['init', '-q'])
  const files = { 'a.txt': 'A\n', 'dir/b.go': 'package b\n', 'dir-x/c': 'c', 'dir.y': 'y' }
  const entries = []
  for (const [path, text] of Object.entries(files)) {
    const blob = await git(['hash-object', '-w', '--stdin'], text)
    assert.equal(gitObjectId('blob', Buffer.from(text)), blob)
    await git(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`])
    entries.push({ path, mode: '100644' as const, blob })
  }
  // 'dir' sorts as 'dir/' against 'dir-x' and 'dir.y': git's tree order, not plain name order.
  assert.equal(treeIdOf(entries), await git(['write-tree']))
})
