import { test } from 'node:test'
import assert from 'node:assert/strict'
import { classifyPath, checkBaseUrl } from '../src/index.ts'

test('the path classifier (DESIGN §10)', () => {
  const table: Array<[string, string]> = [
    ['calc.go', 'source'], ['internal/x/y.go', 'source'], ['src/calc.js', 'source'], ['lib/a.mjs', 'source'],
    ['calc_test.go', 'test'], ['pkg/testdata/in.go', 'test'], ['test/a.js', 'test'], ['a/tests/b.js', 'test'],
    ['x/__tests__/y.js', 'test'], ['src/a.test.js', 'test'], ['src/a.spec.mjs', 'test'], ['src/test-helper.js', 'test'],
    ['src/a_test.js', 'test'], ['src/a-test.cjs', 'test'],
    // node --test's own `**/test.{cjs,mjs,js}`: node runs these as test files.
    ['lib/test.js', 'test'], ['test.mjs', 'test'], ['a/b/test.cjs', 'test'], ['lib/testing.js', 'source'], ['lib/latest.js', 'source'], ['lib/contest.js', 'source'],
    ['go.mod', 'config'], ['go.sum', 'config'], ['go.work', 'config'], ['go.work.sum', 'config'], ['package.json', 'config'],
    ['pnpm-lock.yaml', 'config'], ['yarn.lock', 'config'], ['vite.config.js', 'config'], ['.eslintrc.js', 'config'],
    ['.github/workflows/ci.yml', 'config'], ['.repairline/registers.json', 'config'], ['Makefile', 'config'], ['src/.hidden/a.js', 'config'],
    ['AGENTS.md', 'instructions'], ['CLAUDE.md', 'instructions'], ['CODEOWNERS', 'instructions'], ['.cursorrules', 'instructions'], ['docs/guide.md', 'instructions'], ['README.MD', 'instructions'],
  ]
  for (const [p, want] of table) assert.equal(classifyPath(p), want, p)
})

test('base_url: canonical https accepted; every rule refused', () => {
  for (const ok of ['https://api.example.com/v1', 'https://api.example.com', 'https://127.0.0.1:8443/v1', 'https://[::1]:8443/v1', 'https://xn--bcher-kva.example/v1']) {
    assert.equal(checkBaseUrl(ok).ok, true, ok)
  }
  const bad: Array<[string, RegExp]> = [
    ['http://api.example.com/v1', /scheme must be https/],
    ['HTTPS://api.example.com/v1', /scheme must be lowercase/],
    ['https://user:pw@api.example.com/v1', /userinfo/],
    ['https://api.example.com/v1?x=1', /query/],
    ['https://api.example.com/v1#f', /fragment/],
    ['https://api.example.com/v%31', /percent/],
    ['https://api.example.com/a/../v1', /dot segments/],
    ['https://api.example.com/./v1', /dot segments/],
    ['https://api.example.com/v1/', /trailing slash/],
    ['https://api.example.com:0/v1', /port/],
    ['https://api.example.com:65536/v1', /port/],
    ['https://api.example.com:443/v1', /default port/],
    ['https://API.example.com/v1', /lowercase/],
    [`https://api.example.com/${'a'.repeat(4100)}`, /4096/],
    ['https://bücher.example/v1', /ASCII/],
    ['https://api.example.com//v1', /empty path segment/],
  ]
  for (const [url, re] of bad) {
    const r = checkBaseUrl(url)
    assert.equal(r.ok, false, url)
    if (!r.ok) assert.match(r.rule, re, url)
  }
})
