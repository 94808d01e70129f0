// One file of a repository, a proposal's edits to it, and what the gate must make of it
// (the fourth gate audit's cases, kept as it wrote them).

export interface Case {
  name: string
  runner: 'go' | 'node'
  path: string
  before: string
  edits: Array<[string, string]>
  expect?: 'pass' | 'rej'
}
