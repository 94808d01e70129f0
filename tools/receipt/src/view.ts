// The attempt page (`receipt view --html`): one self-contained HTML file that shows a person
// what an attempt did. gatherAttemptPage reads what the attempt directory holds, leniently (a
// file that is missing or breaks its schema is left out: the page shows what exists, and
// readback's findings say what is wrong); renderAttemptPage turns that into HTML.
//
// The page's contract: no script element, no event handler, no URL of any kind (no fonts,
// images, links or stylesheets from anywhere), inline CSS only, and a Content-Security-Policy
// meta that forbids everything but that CSS. Every piece of text from the attempt is
// HTML-escaped where it is written, and every class name is one of ours, chosen from a fixed
// table: what a proposal or a test name says stays text.

import { join } from 'node:path'
import type { Admission, Baseline, GateReport, OutcomeFile, Proposal, ProviderDispatch, ProviderResponse, ProviderUsage, Receipt, ReadbackFinding, SandboxRun, SchemaName, SchemaTypes, Started, VerifyReport } from '@repairline/schemas'
import { isValid, parseJsonBytes, readFileNoFollow } from '@repairline/core'

/** The first bytes of every page this tool writes: `--html` replaces only a file that starts so. */
export const PAGE_HEAD = '<!DOCTYPE html>\n<!-- repairline attempt page (receipt view) -->\n'

/** The patch shown is cut here; the page says so. */
const PATCH_SHOWN_MAX = 1 << 20

export interface AttemptPage {
  dir: string
  admission?: Admission
  started?: Started
  baseline?: Baseline
  dispatch?: ProviderDispatch
  response?: Pick<ProviderResponse, 'received_at' | 'http_status'>
  usage?: ProviderUsage
  proposal?: Proposal
  gate?: GateReport
  verify?: VerifyReport
  outcome?: OutcomeFile
  receipt?: Receipt
  /** candidate.patch as text (invalid UTF-8 replaced), at most PATCH_SHOWN_MAX bytes of it. */
  patch?: { text: string, bytes: number, cut: boolean }
  readback: { valid: boolean, findings: readonly ReadbackFinding[] }
}

/** A JSON file of the attempt, parsed strictly and valid under its schema; else undefined. */
function readDoc<N extends SchemaName> (dir: string, rel: string, schema: N): SchemaTypes[N] | undefined {
  try {
    const parsed = parseJsonBytes(readFileNoFollow(join(dir, rel)))
    return parsed.ok && isValid(schema, parsed.value) ? parsed.value : undefined
  } catch {
    return undefined
  }
}

/** What the page shows of attempt `dir`, with readback's verdict on it. */
export function gatherAttemptPage (dir: string, readback: AttemptPage['readback']): AttemptPage {
  const page: AttemptPage = { dir, readback }
  const set = <K extends keyof AttemptPage>(k: K, v: AttemptPage[K] | undefined): void => { if (v !== undefined) page[k] = v }
  set('admission', readDoc(dir, 'admission.json', 'admission'))
  set('started', readDoc(dir, 'started.json', 'started'))
  set('baseline', readDoc(dir, 'baseline.json', 'baseline'))
  set('dispatch', readDoc(dir, 'dispatch.json', 'dispatch'))
  const response = readDoc(dir, 'response.json', 'response')
  if (response !== undefined) page.response = { received_at: response.received_at, http_status: response.http_status }
  set('usage', readDoc(dir, 'usage.json', 'usage'))
  set('proposal', readDoc(dir, 'proposal.json', 'proposal'))
  set('gate', readDoc(dir, 'gate.json', 'gate'))
  set('verify', readDoc(dir, 'verify.json', 'verify'))
  set('outcome', readDoc(dir, 'outcome.json', 'outcome'))
  set('receipt', readDoc(dir, 'receipt.json', 'receipt'))
  try {
    const bytes = readFileNoFollow(join(dir, 'candidate.patch'), 1 << 30)
    const shown = bytes.subarray(0, PATCH_SHOWN_MAX)
    page.patch = { text: new TextDecoder('utf-8').decode(shown), bytes: bytes.length, cut: shown.length < bytes.length }
  } catch {}
  return page
}

/** Text as HTML: the five characters that could end a text node or an attribute, escaped; controls shown as U+FFFD. */
export function esc (s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[&<>"']/g, c => ENTITIES[c] ?? c).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd')
}
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Each outcome's tone: the class of its banner (a fixed set, never text from the attempt). */
const OUTCOME_TONE: Record<string, 'good' | 'bad' | 'warn'> = {
  scoped_test_verified: 'good',
  not_reproduced: 'warn',
  rejected: 'bad',
  failed: 'bad',
  fault: 'warn',
  timed_out: 'warn',
  interrupted: 'warn',
  provider_error: 'warn',
}

/** A result's class: pass, fail, skip, missing or none (anything else). */
function resultClass (r: string | undefined): string {
  return r === 'pass' || r === 'fail' || r === 'skip' || r === 'missing' ? `r-${r}` : 'r-none'
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f4f5f7;color:#1d2330;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:17px;margin:0 0 10px;color:#2c3445}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px 18px;margin:0 0 16px}
.banner{color:#fff;border:none}
.banner.good{background:#1f8a4c}.banner.bad{background:#c0392b}.banner.warn{background:#b9770e}.banner.none{background:#5d6778}
.banner p{margin:4px 0}
.banner code{background:rgba(255,255,255,.18);color:#fff}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:13px}
.valid{background:#d7f2e1;color:#14603a}.invalid{background:#fbdcd8;color:#8e2318}
code,pre,td.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
code{background:#eef0f4;padding:1px 4px;border-radius:3px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eceef2;vertical-align:top}
td.mono{overflow-wrap:anywhere}
td.time{white-space:nowrap}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#5d6778}
td.r-pass{background:#d7f2e1;color:#14603a;font-weight:600}
td.r-fail{background:#fbdcd8;color:#8e2318;font-weight:600}
td.r-skip{background:#fdf0cf;color:#7a5a06}
td.r-missing,td.r-none{color:#8a93a3}
tr.case td:first-child{font-weight:700}
.muted{color:#6b7485}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
dt{color:#5d6778}dd{margin:0}
pre.diff{margin:0;background:#fbfcfd;border:1px solid #e3e6eb;border-radius:6px;padding:8px 0;overflow-x:auto;line-height:1.35}
pre.diff span.l{display:block;padding:0 12px;white-space:pre}
.l.add{background:#e6f7ec}.l.del{background:#fdeceb}.l.hunk{background:#eef2fb;color:#3d5a98}.l.meta{color:#5d6778;font-weight:600}
.kw{color:#8b2bb9;font-weight:600}.str{color:#1a7f37}.com{color:#7b8494;font-style:italic}.num{color:#b35900}
ul{margin:4px 0;padding-left:22px}
.bar{display:inline-block;height:10px;background:#5b8def;border-radius:2px;vertical-align:middle}
`

const KEYWORDS: Record<'go' | 'js', ReadonlySet<string>> = {
  go: new Set('break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false'.split(' ')),
  js: new Set('async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield'.split(' ')),
}

/** The language whose keywords a path's lines are coloured with, by its extension. */
function languageOf (path: string): 'go' | 'js' | undefined {
  if (path.endsWith('.go')) return 'go'
  if (/\.(?:[cm]?js|jsx|[cm]?ts|tsx)$/.test(path)) return 'js'
  return undefined
}

// One token at a time: a line comment, a string (", ', `), a number, a word, or one other character.
const TOKEN = /\/\/.*|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`[^`]*`?|\b\d[\d_.xXa-fA-F]*\b|[A-Za-z_$][\w$]*|[^]/g

/** One line of source, escaped, with keywords, strings, numbers and comments in spans. */
export function colourCode (text: string, lang: 'go' | 'js' | undefined): string {
  if (lang === undefined) return esc(text)
  let out = ''
  let plain = ''
  const flush = (): void => { out += esc(plain); plain = '' }
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0]
    const cls = t.startsWith('//') ? 'com' : /^["'`]/.test(t) ? 'str' : /^\d/.test(t) ? 'num' : KEYWORDS[lang].has(t) ? 'kw' : undefined
    if (cls === undefined) { plain += t; continue }
    flush()
    out += `<span class="${cls}">${esc(t)}</span>`
  }
  flush()
  return out
}

/** A unified diff as lines classed meta, hunk, add, del or ctx, the code in them coloured. */
export function renderDiff (patch: string): string {
  let lang: 'go' | 'js' | undefined
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n')
  const out = lines.map(line => {
    if (line.startsWith('diff --git ') || line.startsWith('index ') || line.startsWith('--- ') || line.startsWith('+++ ') || /^(?:new|deleted) file mode /.test(line)) {
      if (line.startsWith('+++ ')) lang = languageOf(line.slice(4))
      return `<span class="l meta">${esc(line)}</span>`
    }
    if (line.startsWith('@@')) return `<span class="l hunk">${esc(line)}</span>`
    const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx'
    return `<span class="l ${kind}">${esc(line.slice(0, 1))}${colourCode(line.slice(1), lang)}</span>`
  })
  return `<pre class="diff">${out.join('')}</pre>`
}

const section = (title: string, body: string): string => `<section><h2>${esc(title)}</h2>${body}</section>`
const muted = (s: string): string => `<p class="muted">${esc(s)}</p>`
const table = (head: readonly string[], rows: readonly string[]): string => `<table><thead><tr>${head.map(h => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`

function bytesText (n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`
  return `${n} B`
}

function msText (ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`
}

/** The page for one attempt, as one string of HTML. */
export function renderAttemptPage (p: AttemptPage): string {
  const title = `attempt ${p.admission?.attempt_key.slice(0, 16) ?? p.dir}`
  return [
    PAGE_HEAD,
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${CSS}</style></head><body><main>`,
    renderBanner(p),
    renderSummary(p),
    renderIdentities(p),
    renderPatch(p),
    renderGate(p),
    renderSteps(p),
    renderLimits(p),
    renderStatedLimits(p),
    renderReadback(p),
    '</main></body></html>\n',
  ].join('\n')
}

function renderBanner (p: AttemptPage): string {
  const o = p.outcome
  const tone = o === undefined ? 'none' : OUTCOME_TONE[o.outcome] ?? 'none'
  const verdict = p.readback.valid ? '<span class="badge valid">reads back valid</span>' : '<span class="badge invalid">reads back INVALID</span>'
  const head = o === undefined ? 'no outcome' : o.outcome
  const reason = o === undefined
    ? '<p>The attempt has no outcome.json: it is running, or it stopped and was not sealed.</p>'
    : `<p><code>${esc(o.reason.code)}</code> ${esc(o.reason.message)}</p><p>decided by ${esc(o.step)} at ${esc(o.decided_at)}${o.retryable === undefined ? '' : o.retryable ? ' · retryable' : ' · not retryable'}</p>`
  return `<section class="banner ${tone}"><h1 id="outcome">${esc(head)}</h1>${reason}<p>${verdict}</p></section>`
}

function renderSummary (p: AttemptPage): string {
  const a = p.admission
  const rows: Array<[string, string]> = []
  rows.push(['attempt', `<code>${esc(p.dir)}</code>`])
  if (a !== undefined) {
    rows.push(['case', `<code>${esc(a.case.test.name)}</code>`])
    rows.push(['checkout', `<code>${esc(a.source.sha.slice(0, 12))}</code> in <code>${esc(a.source.root)}</code>`])
    rows.push(['admitted', `${esc(a.admitted_at)} · deadline ${esc(a.deadline)}`])
    rows.push(['route', `${esc(a.route.model)}`])
    if (a.test_hooks) rows.push(['test hooks', 'enabled: evidence of a test, not of a repair'])
  }
  const s = p.proposal?.summary
  if (s !== undefined) {
    rows.push(['cause', esc(s.cause)], ['change', esc(s.change)], ['risk', esc(s.risk)])
  }
  if (p.usage !== undefined) {
    const u = p.usage
    rows.push(['provider', `${esc(u.server_model ?? u.requested_model)}${u.total_tokens === undefined ? '' : ` · ${u.total_tokens} tokens`}`])
  }
  return section('Attempt', `<dl>${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`)
}

function renderIdentities (p: AttemptPage): string {
  const b = p.baseline
  const v = p.verify
  if (b === undefined) return section('Tests: baseline, then candidate', muted('No baseline run was recorded (baseline.json is missing).'))
  const caseId = b.case_identity
  const rows: string[] = []
  const verdicts = new Map((v?.verdicts ?? []).map(x => [x.identity, x]))
  const ids = new Set([...Object.keys(b.identities), ...(v === undefined ? [] : Object.keys(v.identities))])
  // The case first, then the identities that failed on the baseline, then the rest, each sorted.
  const order = [...ids].sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0))
  function rank (id: string): number { return id === caseId ? 0 : b?.identities[id]?.result === 'fail' ? 1 : 2 }
  for (const id of order) {
    const base = b.identities[id]?.result ?? 'missing'
    const cand = v === undefined ? undefined : v.identities[id]?.result ?? 'missing'
    const verdict = verdicts.get(id)?.verdict
    rows.push(`<tr class="${id === caseId ? 'case' : 'other'}"><td class="mono">${esc(id)}</td><td class="${resultClass(base)}">${esc(base)}</td><td class="${resultClass(cand)}">${esc(cand ?? '—')}</td><td>${esc(verdict ?? '')}</td></tr>`)
  }
  const shape = v === undefined
    ? muted(b.reproduced ? 'No candidate run: the attempt ended before verify.' : b.fault !== undefined || b.timed_out ? 'The baseline run says nothing usable about the code (see its fault), so no candidate was asked for or run.' : 'The case was not reproduced on the baseline, so no candidate was asked for or run.')
    : `<p>Shape: <strong>${esc(v.red_then_green.shape)}</strong>${v.red_then_green.note === undefined ? '' : ` · ${esc(v.red_then_green.note)}`}</p>`
  const fault = [b.fault === undefined ? (b.timed_out ? '<p>baseline run: timed out</p>' : '') : `<p>baseline fault: <code>${esc(b.fault.code)}</code> ${esc(b.fault.message)}</p>`, v?.fault === undefined ? '' : `<p>candidate fault: <code>${esc(v.fault.code)}</code> ${esc(v.fault.message)}</p>`].join('')
  return section('Tests: baseline, then candidate', `${shape}${fault}${table(['identity', 'baseline', 'candidate', 'verdict'], rows)}`)
}

function renderPatch (p: AttemptPage): string {
  if (p.patch === undefined) {
    return section('Candidate patch', muted(p.gate === undefined ? 'No candidate.patch: the attempt ended before the gate.' : "No candidate.patch: the proposal's edits did not apply."))
  }
  const cut = p.patch.cut ? muted(`Shown: the first ${bytesText(PATCH_SHOWN_MAX)} of ${bytesText(p.patch.bytes)}.`) : ''
  return section('Candidate patch', `${cut}${renderDiff(p.patch.text)}`)
}

function renderGate (p: AttemptPage): string {
  const g = p.gate
  if (g === undefined) return ''
  const rows = g.rules.map(r => `<tr><td class="mono">${esc(r.rule)}</td><td class="${r.status === 'pass' ? 'r-pass' : r.status === 'fail' ? 'r-fail' : 'r-none'}">${esc(r.status)}</td><td>${esc(r.detail)}${(r.findings ?? []).length === 0 ? '' : `<ul>${(r.findings ?? []).map(x => `<li>${esc(x)}</li>`).join('')}</ul>`}</td></tr>`)
  return section(`Gate (checker v${g.checker.version}): ${g.passed ? 'passed' : 'rejected'}`, table(['rule', 'status', 'detail'], rows))
}

interface StepRow { step: string, at?: string, ms?: number, detail: string }

function runRow (step: string, run: SandboxRun | undefined, exit: number | null | undefined, timedOut: boolean): StepRow {
  const detail = `exit ${exit === null || exit === undefined ? 'none' : String(exit)}${timedOut ? ' · timed out' : ''}`
  if (run === undefined) return { step, detail: `${detail} · the sandbox did not start` }
  const t = run.timing
  return { step, at: t.started_at, ms: t.setup_ms + t.run_ms + t.teardown_ms, detail: `${detail} · setup ${msText(t.setup_ms)}, run ${msText(t.run_ms)}, teardown ${msText(t.teardown_ms)}` }
}

function renderSteps (p: AttemptPage): string {
  const rows: StepRow[] = []
  if (p.admission !== undefined) rows.push({ step: 'admitted', at: p.admission.admitted_at, detail: `timeout ${p.admission.timeout_seconds} s` })
  if (p.started !== undefined) rows.push({ step: 'started', at: p.started.started_at, detail: '' })
  if (p.baseline !== undefined) rows.push(runRow('baseline run (reproduce)', p.baseline.run, p.baseline.exit_code, p.baseline.timed_out))
  if (p.dispatch !== undefined) {
    const got = p.response === undefined ? undefined : Date.parse(p.response.received_at) - Date.parse(p.dispatch.dispatched_at)
    rows.push({ step: 'provider call', at: p.dispatch.dispatched_at, ...(got === undefined ? {} : { ms: got }), detail: `${p.dispatch.model}${p.response === undefined ? ' · no answer recorded' : ` · HTTP ${String(p.response.http_status ?? 'none')}`}` })
  }
  if (p.gate !== undefined) rows.push({ step: 'gate', detail: p.gate.passed ? 'passed' : `failed: ${p.gate.failed_rules.join(', ')}` })
  if (p.verify !== undefined) rows.push(runRow('candidate run (verify)', p.verify.run, p.verify.exit_code, p.verify.timed_out))
  if (p.outcome !== undefined) rows.push({ step: `outcome (${p.outcome.step})`, at: p.outcome.decided_at, detail: p.outcome.outcome })
  if (p.receipt !== undefined) rows.push({ step: 'sealed', at: p.receipt.sealed_at, detail: `${p.receipt.files.length} files` })
  const t0 = p.admission === undefined ? undefined : Date.parse(p.admission.admitted_at)
  const longest = Math.max(1, ...rows.map(r => r.ms ?? 0))
  const body = rows.map(r => {
    const offset = r.at === undefined || t0 === undefined ? '' : `+${msText(Math.max(0, Date.parse(r.at) - t0))}`
    const bar = r.ms === undefined ? '' : `<span class="bar" style="width:${Math.max(2, Math.round(160 * r.ms / longest))}px"></span> ${esc(msText(r.ms))}`
    // The time of day is shown (UTC, as recorded); the date is in the Attempt section.
    return `<tr><td>${esc(r.step)}</td><td class="mono time">${esc(r.at?.slice(11, 23) ?? '')}</td><td class="mono time">${esc(offset)}</td><td class="time">${bar}</td><td>${esc(r.detail)}</td></tr>`
  })
  const cmds = (p.receipt?.commands ?? []).map(c => `<tr><td>${esc(c.step)}</td><td class="mono">${esc(c.argv.join(' '))}</td><td>${esc(c.exit_code === undefined ? (c.signal ?? 'none') : String(c.exit_code))}${c.timed_out ? ' · timed out' : ''}</td><td>${esc(msText(c.duration_ms))}</td></tr>`)
  return section('Steps', `${table(['step', 'at (UTC)', 'since admitted', 'took', 'detail'], body)}${cmds.length === 0 ? '' : `<h2 style="margin-top:14px">Sealed test commands</h2>${table(['step', 'argv (inside the sandbox)', 'exit', 'took'], cmds)}`}`)
}

function renderLimits (p: AttemptPage): string {
  const runs: Array<[string, SandboxRun]> = []
  if (p.baseline?.run !== undefined) runs.push(['baseline', p.baseline.run])
  if (p.verify?.run !== undefined) runs.push(['candidate', p.verify.run])
  if (runs.length === 0) return section('Limits and resources', muted('No sandbox run was recorded.'))
  const parts = runs.map(([name, run]) => {
    const limits = table(['limit', 'asked', 'read back', 'how'], run.limits.map(l => `<tr><td>${esc(l.name)}</td><td class="mono">${esc(l.want)}</td><td class="mono">${esc(l.got)}</td><td class="muted">${esc(l.mechanism)}</td></tr>`))
    const samples = table(['sample at', 'memory available', 'free disk'], run.samples.map(s => `<tr><td class="mono">${esc(s.at)}</td><td>${esc(bytesText(s.mem_available_bytes))}</td><td>${s.disks.map(d => `<code>${esc(d.path)}</code> ${esc(bytesText(d.free_bytes))}`).join('<br>')}</td></tr>`))
    const u = run.usage
    const usage = u === undefined ? '' : `<p>used: memory peak ${esc(bytesText(u.memory_peak_bytes))} · OOM kills ${u.oom_kills} · fork refusals ${u.tasks_limit_hits} · CPU throttled ${u.cpu_throttled_periods} periods</p>`
    const stop = run.stop === undefined ? '' : `<p>stopped: <code>${esc(run.stop.reason)}</code> ${esc(run.stop.detail)}</p>`
    return `<h2>${esc(name)} run</h2>${stop}${usage}${limits}<div style="height:10px"></div>${samples}`
  })
  return section('Limits and resources', parts.join('<div style="height:16px"></div>'))
}

function renderStatedLimits (p: AttemptPage): string {
  const limits = p.receipt?.stated_limits
  if (limits === undefined) return section('What this receipt does not prove', muted('No receipt.json: the attempt is not sealed.'))
  return section('What this receipt does not prove', `<ul>${limits.map(l => `<li>${esc(l)}</li>`).join('')}</ul>`)
}

function renderReadback (p: AttemptPage): string {
  const r = p.readback
  const head = r.valid ? '<p><span class="badge valid">valid</span> Every check readback runs holds on these bytes.</p>' : '<p><span class="badge invalid">invalid</span> Readback found what follows.</p>'
  const rows = r.findings.map(f => `<tr><td class="mono">${esc(f.code)}</td><td>${esc(f.severity)}</td><td class="mono">${esc(f.path ?? '')}</td><td>${esc(f.message)}</td></tr>`)
  return section('Readback', `${head}${rows.length === 0 ? '' : table(['code', 'severity', 'path', 'message'], rows)}`)
}
