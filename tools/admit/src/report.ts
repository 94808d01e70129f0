// admit report: test events on stdin (raw `go test -json`, or repairline's normalized
// events) become a suite report with one case per failing identity. The case id is the
// identity; a go package is mapped to ./<dir> with the module path from go.mod at
// source_sha; a node test file to the test_packages entry that holds it.


import type { Case, SuiteReport, TestEvent } from '@repairline/schemas'
import {
  AmbiguousEventError, caseInputSha256, EXIT, goModDirective, identityOf, isUnicodeText, LineTooLongError, normalizeEventLine, schemaErrors, splitLines, summarizeEvents, toolError, writePlainFileAtomic,
  jsonFileBytes, listTree, type ToolIo, type ToolResult,
} from '@repairline/core'
import { readBlob } from './inputs.ts'
import { loadReportConfig, type ReportConfig } from './report-config.ts'
import { checkReportOut } from './rules/report-out.ts'

export interface ReportOptions { config: string, out: string, suite?: string }

/** The module path declared by go.mod at source_sha. */
async function goModulePath (config: ReportConfig): Promise<string> {
  const listing = await listTree(config.source_root, config.source_sha)
  const gomod = listing.entries.find(e => e.path === 'go.mod')
  if (gomod === undefined) throw toolError('CONFIG_INVALID', `no go.mod at source_sha ${config.source_sha.slice(0, 12)}`, { path: '/source_sha' })
  const text = (await readBlob(config.source_root, gomod)).toString('utf8')
  const modulePath = goModDirective(text, 'module')
  if (modulePath === undefined) throw toolError('CONFIG_INVALID', 'go.mod at source_sha declares no module path')
  return modulePath
}

/** The test package a failing identity belongs to. */
function packageFor (config: ReportConfig, pkg: string, modulePath: string | undefined): string {
  if (config.runner.kind === 'go') {
    if (pkg === modulePath) return '.'
    if (modulePath !== undefined && pkg.startsWith(`${modulePath}/`)) return `./${pkg.slice(modulePath.length + 1)}`
    return pkg
  }
  const holder = config.test_packages.find(t => pkg === t || pkg.startsWith(`${t}/`))
  return holder ?? pkg
}

/**
 * Each identity's package as its events name it, keyed as the summary keys identities
 * (`<Package>::<Test>`, a build failure's package from its ImportPath). The identity alone
 * cannot be split back: a node test file may be named `a::b.test.js`, a go subtest `x::y`.
 */
function packagesOf (events: readonly TestEvent[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const ev of events) {
    if (ev.Action === 'output') continue
    const pkg = ev.Action === 'build-fail' ? ev.ImportPath?.split(' ')[0] ?? ev.Package ?? '' : ev.Package ?? ''
    const id = identityOf(pkg, ev.Action === 'build-fail' ? '' : ev.Test ?? '')
    if (!out.has(id)) out.set(id, pkg)
  }
  return out
}

export async function admitReport (o: ReportOptions, io: ToolIo): Promise<ToolResult> {
  const config = loadReportConfig(o.config)
  checkReportOut(o.out, config)
  const modulePath = config.runner.kind === 'go' ? await goModulePath(config) : undefined
  const events: TestEvent[] = []
  try {
    for await (const { line, text } of splitLines(io.stdin)) {
      let ev: TestEvent | undefined
      try {
        ev = normalizeEventLine(text)
      } catch (e) {
        if (e instanceof AmbiguousEventError) throw toolError('EVENTS_INVALID', `stdin:${line}: ${e.message}`, { hint: 'pipe the events as go test -json or repairline wrote them' })
        throw e
      }
      if (ev !== undefined) events.push(ev)
    }
  } catch (e) {
    if (e instanceof LineTooLongError) throw toolError('EVENTS_INVALID', `stdin:${e.line}: line longer than ${e.max} bytes`)
    throw e
  }
  const summary = summarizeEvents(events)
  if (summary.ran === 0 && summary.failing.length === 0) throw toolError('EVENTS_INVALID', 'stdin holds no test events', { hint: 'pipe `go test -json` output or repairline test events into admit report' })
  // An identity that is no Unicode text (a lone surrogate from an escaped event line) has no
  // canonical form to hash into a case.
  const notText = summary.failing.find(id => !isUnicodeText(id))
  if (notText !== undefined) throw toolError('EVENTS_INVALID', `a failing identity is not Unicode text (a lone surrogate): ${JSON.stringify(notText).slice(0, 200)}`)
  const packages = packagesOf(events)
  const cases: Case[] = summary.failing.map(identity => {
    const pkg = packages.get(identity) ?? identity.slice(0, identity.indexOf('::'))
    const base = { kind: 'test_failure' as const, id: identity, test: { package: packageFor(config, pkg, modulePath), name: identity } }
    return { ...base, input_sha256: caseInputSha256(base) }
  })
  if (cases.length === 0) throw toolError('NOTHING_ELIGIBLE', `no failing test among ${Object.keys(summary.identities).length} identities`)
  const report: SuiteReport = { version: 1, ...(o.suite === undefined ? {} : { suite: o.suite }), generated_at: io.now().toISOString(), cases }
  // A report the contract refuses is the operator's --suite, or events no suite report can
  // hold (an identity it cannot name, more failing identities than a report lists): never ours.
  const errors = schemaErrors('suite-report', report)
  const suiteError = errors.find(e => e.startsWith('/suite'))
  if (suiteError !== undefined) throw toolError('USAGE', `--suite: ${suiteError}`)
  if (errors.length > 0) throw toolError('EVENTS_INVALID', `the failing identities on stdin make no valid suite report: ${errors.slice(0, 3).join('; ')}`)
  writePlainFileAtomic(o.out, jsonFileBytes(report))
  io.stderr.write(`admit report: ${cases.length} failing identit${cases.length === 1 ? 'y' : 'ies'} written to ${o.out}${summary.anomalies.length > 0 ? ` (${summary.anomalies.length} anomalies: ${summary.anomalies[0] ?? ''})` : ''}\n`)
  return { exit: EXIT.OK }
}


