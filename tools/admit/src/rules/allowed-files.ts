// allowed_files: explicit, non-test source paths that exist as regular blobs at source_sha,
// under a package root, with the runner's source extension (DESIGN §5, §10).

import type { ExecutionConfig } from '@repairline/schemas'
import { classifyPath, SOURCE_EXTENSIONS, toolError, type TreeEntry } from '@repairline/core'
import { packageRoots } from './runner-options.ts'

/** Checks that need no repository: extension, class, package root. */
export function checkAllowedFileShapes (config: ExecutionConfig): void {
  const roots = packageRoots(config)
  const exts = SOURCE_EXTENSIONS[config.runner.kind]
  config.allowed_files.forEach((f, i) => {
    const path = `/allowed_files/${i}`
    const cls = classifyPath(f)
    if (cls !== 'source') throw toolError('ALLOWED_FILE_INVALID', `allowed file ${f} is a ${cls} file; only source files may be edited`, { path })
    if (!exts.some(e => f.endsWith(e))) throw toolError('ALLOWED_FILE_INVALID', `allowed file ${f} does not end in ${exts.join(' or ')} (${config.runner.kind} runner)`, { path })
    if (!roots.some(r => r === '.' || f.startsWith(`${r}/`))) {
      throw toolError('ALLOWED_FILE_INVALID', `allowed file ${f} is outside the package roots (${roots.join(', ')})`, { path, hint: 'set runner.package_roots; "." allows the repository root' })
    }
  })
}

/** Each allowed file must be a regular blob in the tree at source_sha. */
export function checkAllowedFilesInTree (config: ExecutionConfig, byPath: ReadonlyMap<string, TreeEntry>): void {
  config.allowed_files.forEach((f, i) => {
    const e = byPath.get(f)
    if (e === undefined) throw toolError('ALLOWED_FILE_INVALID', `allowed file ${f} does not exist at source_sha ${config.source_sha.slice(0, 12)}`, { path: `/allowed_files/${i}` })
    if (e.type !== 'blob' || (e.mode !== '100644' && e.mode !== '100755')) throw toolError('ALLOWED_FILE_INVALID', `allowed file ${f} is not a regular blob (mode ${e.mode})`, { path: `/allowed_files/${i}` })
  })
}
