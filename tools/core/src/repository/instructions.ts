// The instruction files that apply to a changed path (issue 37, seed 003): in each of its
// ancestor directories, root first, AGENTS.md, CLAUDE.md, GEMINI.md and
// .github/copilot-instructions.md, and CONTRIBUTING.md at the root, in that order.

/** The names looked for in every ancestor directory, in order. */
export const INSTRUCTION_NAMES = ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md'] as const
/** Looked for at the root only, after the root's INSTRUCTION_NAMES. */
export const ROOT_INSTRUCTION_NAMES = ['CONTRIBUTING.md'] as const

/** The candidate instruction paths of `path`, root first (whether they exist is the caller's). */
export function instructionCandidates (path: string): string[] {
  const parts = path.split('/').slice(0, -1)
  const out: string[] = [...INSTRUCTION_NAMES, ...ROOT_INSTRUCTION_NAMES]
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/')
    for (const n of INSTRUCTION_NAMES) out.push(`${dir}/${n}`)
  }
  return out
}
