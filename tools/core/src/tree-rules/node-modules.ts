// Rule: the tree may not track anything under a node_modules component. The work tree's
// root node_modules/ is the dependency mount point (DESIGN §9); a tracked one would shadow
// or merge with the operator's dependency_dir, and nested ones change module resolution.

/** True when a path has a node_modules component. */
export function isInNodeModules (path: string): boolean {
  return path === 'node_modules' || path.startsWith('node_modules/') || path.endsWith('/node_modules') || path.includes('/node_modules/')
}
