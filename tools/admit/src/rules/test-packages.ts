// test_packages: 1–4 exact targets. go: "." or "./<path>" naming a directory with _test.go
// files, never "..." or a pattern. node: a test file, or a directory holding test files.
// None starts with "-": the entries are the last arguments of the fixed test command, where
// one would be read as an option (a directory named --test-name-pattern=x silently narrowed
// node's run; DESIGN §9: no free-form arguments). A case's package must be one of them.

import type { ExecutionConfig } from '@repairline/schemas'
import { classifyPath, unsafePathReason, toolError, type TreeEntry } from '@repairline/core'

const PATTERN = /[*?[\]{}]/

/** Checks that need no repository. */
export function checkTestPackageShapes (config: ExecutionConfig): void {
  config.test_packages.forEach((p, i) => {
    const path = `/test_packages/${i}`
    if (p.startsWith('-')) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: starts with "-", so the test command would read it as an option`, { path, hint: 'rename the test file or directory so that its name does not start with "-"' })
    if (p.includes('...')) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: "..." patterns are not allowed; name each package exactly`, { path })
    if (PATTERN.test(p)) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: wildcards are not allowed`, { path })
    if (config.runner.kind === 'go') {
      if (p === '.') return
      if (!p.startsWith('./')) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: go targets are "." or "./<dir>"`, { path })
      const reason = unsafePathReason(p.slice(2))
      if (reason !== undefined) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: ${reason}`, { path })
    } else {
      const reason = unsafePathReason(p)
      if (reason !== undefined) throw toolError('TEST_PACKAGE_INVALID', `test package ${p}: ${reason}`, { path, hint: 'node targets are repository-relative test files or directories, like test or test/parse.test.js' })
    }
  })
}

/** Each target must exist in the tree at source_sha and hold tests. */
export function checkTestPackagesInTree (config: ExecutionConfig, entries: readonly TreeEntry[]): void {
  config.test_packages.forEach((p, i) => {
    const path = `/test_packages/${i}`
    if (config.runner.kind === 'go') {
      const dir = p === '.' ? '' : `${p.slice(2)}/`
      const hasTest = entries.some(e => e.path.startsWith(dir) && !e.path.slice(dir.length).includes('/') && e.path.endsWith('_test.go'))
      if (!hasTest) throw toolError('TEST_PACKAGE_INVALID', `test package ${p} has no _test.go file at source_sha`, { path })
      return
    }
    const file = entries.find(e => e.path === p)
    if (file !== undefined) {
      if (classifyPath(p) !== 'test') throw toolError('TEST_PACKAGE_INVALID', `test package ${p} is not a test file`, { path })
      return
    }
    const hasTest = entries.some(e => e.path.startsWith(`${p}/`) && /\.(c|m)?js$/.test(e.path) && classifyPath(e.path) === 'test')
    if (!hasTest) throw toolError('TEST_PACKAGE_INVALID', `test package ${p} is neither a test file nor a directory of test files at source_sha`, { path })
  })
}
