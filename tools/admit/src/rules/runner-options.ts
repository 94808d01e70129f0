// Runner-specific config fields: go_mod_cache and go_build_cache are go's, dependency_dir is node's.

import type { ExecutionConfig } from '@repairline/schemas'
import { toolError } from '@repairline/core'

export function checkRunnerOptions (config: ExecutionConfig): void {
  const r = config.runner
  if (r.kind !== 'go' && r.go_mod_cache !== undefined) throw toolError('CONFIG_INVALID', 'runner.go_mod_cache is only for the go runner', { path: '/runner/go_mod_cache' })
  if (r.kind !== 'go' && r.go_build_cache !== undefined) throw toolError('CONFIG_INVALID', 'runner.go_build_cache is only for the go runner', { path: '/runner/go_build_cache' })
  if (r.kind !== 'node' && r.dependency_dir !== undefined) throw toolError('CONFIG_INVALID', 'runner.dependency_dir is only for the node runner', { path: '/runner/dependency_dir' })
}

/** The package roots in force: configured, or the runner's default. */
export function packageRoots (config: ExecutionConfig): readonly string[] {
  return config.runner.package_roots ?? (config.runner.kind === 'go' ? ['internal', 'cmd'] : ['src', 'lib'])
}
