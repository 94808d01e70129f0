// Rule: the execution config's checks (seed 004) can run as written, refused before anything
// is consumed. contains and matches name one of allowed_files (CHECK_INVALID: the candidate
// may change nothing else, so a check on another file says nothing about it); every regular
// expression is RE2-safe (CHECK_REGEX_UNSAFE: core's checks/regex.ts says what that means);
// every command's exec resolves to a program the sandbox shows (CHECK_EXEC_UNRESOLVED), as
// reproduce and verify resolve it again before each run.

import type { ExecutionConfig } from '@repairline/schemas'
import { regexRefusal, resolveCheckExec, toolError } from '@repairline/core'

export function checkChecks (config: ExecutionConfig): void {
  const checks = config.checks
  if (checks === undefined) return
  const allowed = new Set(config.allowed_files)
  const safe = (pattern: string, path: string): void => {
    const why = regexRefusal(pattern)
    if (why !== undefined) {
      throw toolError('CHECK_REGEX_UNSAFE', `${path}: the regular expression ${JSON.stringify(pattern.slice(0, 80))} is not RE2-safe: ${why}`, {
        path, hint: 'use RE2 syntax: no backreferences (\\1), no lookahead or lookbehind ((?=, (?!, (?<=), at most 512 bytes; or a literal pattern',
      })
    }
  }
  checks.source_absent?.forEach((c, i) => { if (c.regex === true) safe(c.pattern, `/checks/source_absent/${i}/pattern`) })
  for (const [clause, list] of [['contains', checks.contains ?? []], ['matches', checks.matches ?? []]] as const) {
    list.forEach((c, i) => {
      if (!allowed.has(c.path)) throw toolError('CHECK_INVALID', `/checks/${clause}/${i}/path: ${c.path} is not one of allowed_files`, { path: `/checks/${clause}/${i}/path`, hint: `name one of ${config.allowed_files.join(', ')}` })
    })
  }
  checks.matches?.forEach((c, i) => safe(c.regex, `/checks/matches/${i}/regex`))
  checks.commands?.forEach((c, i) => {
    if (c.stdout_matches !== undefined) safe(c.stdout_matches, `/checks/commands/${i}/stdout_matches`)
    const r = resolveCheckExec(c.exec, config.runner.kind)
    if ('why' in r) throw toolError('CHECK_EXEC_UNRESOLVED', `/checks/commands/${i}/exec: ${r.why}`, { path: `/checks/commands/${i}/exec`, hint: 'name a program of the runner\'s toolchain or /usr/bin (e.g. "go", "node"), or an absolute path under /usr' })
  })
}
