// receipt view: the attempt page. On a real node attempt driven to scoped_test_verified and a
// real not_reproduced one: the page in-process (every section, each outcome's shape by
// leaving out what an earlier end never writes, text from the attempt escaped); where it may
// be written (OUTPUT_UNSAFE inside the checkout, the state root or over another file, each
// beside a positive control); and the page opened in a real headless Chromium, whose DOM shows
// the outcome, the identities and the diff, and whose screenshot is not blank.

import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { readbackAttempt } from '@repairline/core'
import { NODE_FIX_PROPOSAL } from '../../../test/helpers/responses-server.ts'
import { chainFixture, driveChain, startProvider, type Provider } from '../../../test/helpers/chain.ts'
import { runInProcess, type InProcessRun } from '../../../test/helpers/in-process.ts'
import { errorOf, runBin } from '../../../test/helpers/bin.ts'
import { tempDir } from '../../../test/helpers/tmp.ts'
import type { Fixture } from '../../../test/helpers/fixture.ts'
import { gatherAttemptPage, renderAttemptPage, renderDiff, type AttemptPage } from '../src/view.ts'
import { view } from '../src/index.ts'

const p: Provider = await startProvider({ after })
p.server.proposals.set('node-fix', NODE_FIX_PROPOSAL)

interface Driven { f: Fixture, dir: string }

// Driven once for the file: each test reads them and writes only outside them. Their temp
// dirs go when the file ends.
const fileCtx = { after } as unknown as Parameters<typeof chainFixture>[0]
async function drive (scenario: string, outcome: string, o: Parameters<typeof chainFixture>[3]): Promise<Driven> {
  const f = await chainFixture(fileCtx, p, scenario, o)
  const r = await driveChain(f)
  assert.equal(r.outcome?.outcome, outcome, r.stderr)
  return { f, dir: r.attemptDir ?? '' }
}
const verified = await drive('proposal/node-fix', 'scoped_test_verified', { runner: 'node' })
const notReproduced = await drive('proposal/never-not-reproduced', 'not_reproduced', { runner: 'node', cases: [{ package: 'test', name: 'test/calc.test.js::double doubles' }] })

async function pageOf (dir: string): Promise<AttemptPage> {
  const rb = await readbackAttempt(dir, {})
  return gatherAttemptPage(dir, { valid: rb.valid, findings: rb.findings })
}

/**
 * What no page may hold: a script, an event handler, a URL of any kind. Every tag of the page
 * is ours (text from the attempt has no `<` left), so its tags and its style are what is read.
 */
function assertSelfContained (html: string): void {
  const tags = html.match(/<[a-zA-Z/!][^>]*>/g) ?? []
  for (const tag of tags) {
    assert.doesNotMatch(tag, /^<\/?(?:script|img|link|iframe|object|embed|svg|base|form|a)\b/i, tag)
    assert.doesNotMatch(tag, /\son[a-z]+\s*=|\b(?:src|href|action|srcset|poster|background)\s*=|url\(|https?:/i, tag)
  }
  const styles = html.match(/<style>([^]*?)<\/style>/g) ?? []
  assert.equal(styles.length, 1, 'one style element')
  assert.doesNotMatch(styles[0] ?? '', /url\(|@import|https?:|@font-face/i)
  assert.equal(html.match(/<\/style>/g)?.length, 1, 'closed once')
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">/)
}

test('a verified attempt: outcome, red-then-green identities, the coloured diff, steps, limits, stated limits and readback valid', async () => {
  const page = await pageOf(verified.dir)
  assert.equal(page.readback.valid, true, JSON.stringify(page.readback.findings))
  const html = renderAttemptPage(page)
  assertSelfContained(html)
  assert.match(html, /<h1 id="outcome">scoped_test_verified<\/h1>/)
  assert.match(html, /<section class="banner good">/)
  assert.match(html, /<code>SCOPED_TEST_VERIFIED<\/code>/)
  const caseId = page.baseline?.case_identity ?? ''
  assert.ok(html.includes(`<tr class="case"><td class="mono">${caseId.replace(/'/g, '&#39;')}</td><td class="r-fail">fail</td><td class="r-pass">pass</td><td>fixed</td></tr>`), 'the case: red, then green, fixed')
  assert.match(html, /Shape: <strong>red_then_green<\/strong>/)
  assert.match(html, /<span class="l del">- {2}<span class="kw">return<\/span> a - b<\/span>/)
  assert.match(html, /<span class="l add">\+ {2}<span class="kw">return<\/span> a \+ b<\/span>/)
  assert.match(html, /<span class="l hunk">@@ /)
  for (const step of ['admitted', 'started', 'baseline run (reproduce)', 'provider call', 'gate', 'candidate run (verify)', 'outcome (verify)', 'sealed']) assert.ok(html.includes(`<td>${step}</td>`), step)
  assert.match(html, /<h2>candidate run<\/h2>/)
  assert.match(html, /memory available/)
  for (const limit of page.receipt?.stated_limits ?? []) assert.ok(html.includes(`<li>${limit.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</li>`), limit)
  assert.match(html, /<span class="badge valid">valid<\/span>/)
})

test('text from the attempt stays text: a summary and an identity holding <script> and </style>', async () => {
  const page = await pageOf(verified.dir)
  const hostile = '</style><script>alert(1)</script><img src=x onerror=alert(2)>'
  assert.ok(page.proposal !== undefined && page.baseline !== undefined)
  page.proposal.summary.cause = hostile
  page.baseline.identities[`t::${hostile}`] = { result: 'fail' }
  page.readback = { valid: false, findings: [{ code: 'DIGEST_MISMATCH', severity: 'error', message: hostile, path: hostile }] }
  page.patch = { text: `--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-'${hostile}'\n+// ${hostile}\n`, bytes: 0, cut: false }
  const html = renderAttemptPage(page)
  assertSelfContained(html)
  const escaped = '&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;'
  // In the summary, the identity, the finding's message and path, and both diff lines.
  assert.ok(html.split(escaped).length - 1 >= 5, html)
  assert.match(html, /<span class="badge invalid">invalid<\/span>/)
  assert.match(html, /<td class="mono">DIGEST_MISMATCH<\/td>/)
  // Positive control: the same text unescaped would have been caught.
  assert.throws(() => { assertSelfContained(html.replace(escaped, hostile)) })
})

test('each outcome shows what exists: not_reproduced (baseline only), rejected (gate, no candidate run), provider_error (no gate), unsealed', async () => {
  const nr = await pageOf(notReproduced.dir)
  assert.equal(nr.readback.valid, true, JSON.stringify(nr.readback.findings))
  assert.equal(nr.verify, undefined)
  assert.equal(nr.patch, undefined)
  const a = renderAttemptPage(nr)
  assertSelfContained(a)
  assert.match(a, /<section class="banner warn"><h1 id="outcome">not_reproduced<\/h1>/)
  assert.match(a, /The case was not reproduced on the baseline/)
  assert.match(a, /<td class="r-pass">pass<\/td><td class="r-none">—<\/td>/)
  assert.match(a, /No candidate\.patch: the attempt ended before the gate\./)
  assert.doesNotMatch(a, /<td>provider call<\/td>|<h2>candidate run<\/h2>/)

  // The shapes the verified attempt had before its later steps, each with its outcome.
  const full = await pageOf(verified.dir)
  assert.ok(full.outcome !== undefined && full.gate !== undefined)
  const rejected: AttemptPage = { ...full, outcome: { ...full.outcome, outcome: 'rejected', step: 'gate-patch', reason: { code: 'GATE_REJECTED', message: 'calls-preserved failed' } }, gate: { ...full.gate, passed: false, failed_rules: ['calls-preserved'] } }
  delete rejected.verify
  const b = renderAttemptPage(rejected)
  assertSelfContained(b)
  assert.match(b, /<section class="banner bad"><h1 id="outcome">rejected<\/h1>/)
  assert.match(b, /No candidate run: the attempt ended before verify\./)
  assert.match(b, /Gate \(checker v\d+\): rejected/)
  assert.match(b, /<span class="l add">/)

  const providerError: AttemptPage = { ...rejected, outcome: { ...full.outcome, outcome: 'provider_error', step: 'ask-provider', retryable: true, reason: { code: 'PROVIDER_HTTP_STATUS', message: 'HTTP 429' } } }
  delete providerError.gate
  delete providerError.patch
  delete providerError.proposal
  const c = renderAttemptPage(providerError)
  assertSelfContained(c)
  assert.match(c, /provider_error<\/h1><p><code>PROVIDER_HTTP_STATUS<\/code> HTTP 429<\/p><p>decided by ask-provider at [^<]+ · retryable/)
  assert.doesNotMatch(c, /Gate \(/)

  const unsealed: AttemptPage = { dir: nr.dir, readback: { valid: false, findings: [{ code: 'NOT_SEALED', severity: 'error', message: 'no outcome' }] } }
  const d = renderAttemptPage(unsealed)
  assertSelfContained(d)
  assert.match(d, /<section class="banner none"><h1 id="outcome">no outcome<\/h1>/)
  assert.match(d, /baseline\.json is missing/)
  assert.match(d, /No receipt\.json: the attempt is not sealed\./)
})

test('renderDiff classes each line and colours go and js code, and nothing else', () => {
  const html = renderDiff('diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n func f() string {\n-\treturn "x" // old\n+\treturn `y`\n--- a/n.txt\n+++ b/n.txt\n+return "z"\n')
  assert.match(html, /<span class="l ctx"> <span class="kw">func<\/span> f\(\) string \{<\/span>/)
  assert.match(html, /<span class="l del">-\t<span class="kw">return<\/span> <span class="str">&quot;x&quot;<\/span> <span class="com">\/\/ old<\/span><\/span>/)
  assert.match(html, /<span class="l add">\+\t<span class="kw">return<\/span> <span class="str">`y`<\/span><\/span>/)
  // A file of another language is not coloured.
  assert.match(html, /<span class="l add">\+return &quot;z&quot;<\/span>/)
})

const viewRun = async (dir: string, html: string): Promise<InProcessRun> => await runInProcess('receipt', async io => await view(dir, { html, allowTestHooks: false }, io))
const errorCode = (r: InProcessRun): string | undefined => r.records.flatMap(x => x.kind === 'error' ? [x.code] : [])[0]

test('view writes the page atomically outside the checkout and state root, and replaces only an attempt page; elsewhere OUTPUT_UNSAFE (73), untouched', async t => {
  const out = join(tempDir(t), 'attempt.html')
  const ok = await viewRun(verified.dir, out)
  assert.equal(ok.exit, 0, ok.stderr)
  assert.deepEqual(ok.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.ok(readFileSync(out, 'utf8').includes('scoped_test_verified'))
  assert.match(ok.stderr, /wrote .*attempt\.html \(scoped_test_verified; reads back valid\)/)
  assert.deepEqual(readdirSync(join(out, '..')), ['attempt.html'], 'no temp file left')
  // An attempt page is replaced in place.
  assert.equal((await viewRun(notReproduced.dir, out)).exit, 0)
  assert.ok(readFileSync(out, 'utf8').includes('not_reproduced'))

  const other = join(tempDir(t), 'notes.html')
  writeFileSync(other, '<!DOCTYPE html>\n<p>mine</p>\n')
  const inState = join(verified.f.stateDir, 'attempt.html')
  const inAttempt = join(verified.dir, 'work', 'attempt.html')
  const inRepo = join(verified.f.repo, 'attempt.html')
  mkdirSync(join(verified.dir, 'work'), { recursive: true })
  // Through a symlink to the checkout's directory: the path is judged resolved.
  const link = join(tempDir(t), 'link')
  symlinkSync(verified.f.repo, link)
  // A symlink where the page goes, even to an attempt page, is not written through.
  const planted = join(tempDir(t), 'planted.html')
  symlinkSync(out, planted)
  for (const [what, path] of [['the checkout', inRepo], ['the state root', inState], ['the attempt', inAttempt], ['another file', other], ['the checkout through a symlink', join(link, 'x.html')], ['a symlink', planted]] as const) {
    const r = await viewRun(verified.dir, path)
    assert.equal(r.exit, 73, `${what}: ${r.stderr}`)
    assert.equal(errorCode(r), 'OUTPUT_UNSAFE', what)
  }
  assert.equal(readFileSync(other, 'utf8'), '<!DOCTYPE html>\n<p>mine</p>\n')
  assert.ok(readFileSync(out, 'utf8').includes('not_reproduced'), 'the page a symlink named is untouched')
  for (const path of [inRepo, inState, inAttempt, join(verified.f.repo, 'x.html')]) assert.equal(existsSync(path), false, path)
  const noDir = await viewRun(verified.dir, join(tempDir(t), 'no', 'such', 'dir.html'))
  assert.deepEqual([noDir.exit, errorCode(noDir)], [73, 'WRITE_FAILED'])
  const notAttempt = await viewRun(tempDir(t), join(tempDir(t), 'x.html'))
  assert.deepEqual([notAttempt.exit, errorCode(notAttempt)], [66, 'INPUT_MISSING'])
})

test('an attempt that does not read back is still shown, with the findings, and view exits 1', async t => {
  const copy = join(tempDir(t), 'attempts', basename(notReproduced.dir))
  cpSync(notReproduced.dir, copy, { recursive: true })
  writeFileSync(join(copy, 'baseline.events.ndjson'), '')
  const out = join(tempDir(t), 'attempt.html')
  const r = await viewRun(copy, out)
  assert.equal(r.exit, 1, r.stderr)
  assert.match(r.stderr, /invalid: DIGEST_MISMATCH/)
  const html = readFileSync(out, 'utf8')
  assert.match(html, /reads back INVALID/)
  assert.match(html, /<td class="mono">DIGEST_MISMATCH<\/td><td>error<\/td><td class="mono">baseline\.events\.ndjson<\/td>/)
})

test('the bin: the attempt record on stdin names the attempt; a --html longer than the system allows is USAGE (2); no --html is USAGE', async t => {
  const out = join(tempDir(t), 'attempt.html')
  const record = JSON.stringify({ v: 1, kind: 'attempt', path: verified.dir, key: JSON.parse(readFileSync(join(verified.dir, 'admission.json'), 'utf8')).attempt_key as string })
  const ok = await runBin('receipt', ['view', '--html', out], { input: `${record}\n` })
  assert.equal(ok.exitCode, 0, ok.stderr)
  assert.deepEqual(ok.records.map(x => x.kind), ['start', 'attempt', 'result'])
  assert.match(readFileSync(out, 'utf8'), /<h1 id="outcome">scoped_test_verified<\/h1>/)
  for (const html of [join(tempDir(t), 'n'.repeat(256)), `/tmp${'/a'.repeat(2100)}`]) {
    const long = await runBin('receipt', ['view', '--attempt', verified.dir, '--html', html])
    assert.deepEqual([long.exitCode, errorOf(long)?.code], [2, 'USAGE'], long.stderr)
  }
  const none = await runBin('receipt', ['view', '--attempt', verified.dir])
  assert.deepEqual([none.exitCode, errorOf(none)?.code], [2, 'USAGE'], none.stderr)
  const unsafe = await runBin('receipt', ['view', '--attempt', verified.dir, '--html', join(verified.f.repo, 'page.html')])
  assert.deepEqual([unsafe.exitCode, errorOf(unsafe)?.code], [73, 'OUTPUT_UNSAFE'], unsafe.stderr)
})

/** The distinct pixel values of an 8-bit RGB or RGBA PNG, counted up to `max`. */
function distinctPixels (png: Buffer, max: number): { width: number, height: number, distinct: number } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature')
  let off = 8
  let width = 0
  let height = 0
  let channels = 0
  const idat: Buffer[] = []
  while (off < png.length) {
    const len = png.readUInt32BE(off)
    const type = png.toString('latin1', off + 4, off + 8)
    const data = png.subarray(off + 8, off + 8 + len)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      assert.equal(data[8], 8, 'bit depth 8')
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0
      assert.ok(channels > 0, `colour type ${String(data[9])}`)
      assert.equal(data[12], 0, 'not interlaced')
    } else if (type === 'IDAT') idat.push(data)
    off += 12 + len
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const prev = Buffer.alloc(stride)
  const row = Buffer.alloc(stride)
  const seen = new Set<string>()
  for (let y = 0; y < height && seen.size < max; y++) {
    const base = y * (stride + 1)
    const filter = raw[base] ?? 0
    for (let i = 0; i < stride; i++) {
      const x = raw[base + 1 + i] ?? 0
      const a = i >= channels ? row[i - channels] ?? 0 : 0
      const b = prev[i] ?? 0
      const c = i >= channels ? prev[i - channels] ?? 0 : 0
      let v = x
      if (filter === 1) v = x + a
      else if (filter === 2) v = x + b
      else if (filter === 3) v = x + ((a + b) >> 1)
      else if (filter === 4) {
        const pa = Math.abs(b - c)
        const pb = Math.abs(a - c)
        const pc = Math.abs(a + b - 2 * c)
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
      }
      row[i] = v & 0xff
    }
    for (let i = 0; i < stride; i += channels) seen.add(row.subarray(i, i + channels).toString('hex'))
    row.copy(prev)
  }
  return { width, height, distinct: seen.size }
}

const CHROMIUM = '/usr/bin/chromium'

/**
 * Pids of live processes that belong to one chromium run: in process group `pgid`, or naming
 * `profile` in their argv (its crashpad handlers start sessions of their own, and their
 * database is under the profile, which is also XDG_CONFIG_HOME).
 */
function browserProcesses (pgid: number, profile: string): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] === 'Z') continue
      if ((pgid > 0 && Number(fields[2]) === pgid) || readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(profile)) pids.push(Number(name))
    } catch {}
  }
  return pids
}

/**
 * Runs chromium headless in a process group of its own with a fresh profile, and returns its
 * stdout once it and every process of its group are gone (the group is killed on timeout).
 */
async function chromium (t: Parameters<typeof tempDir>[0], args: string[]): Promise<string> {
  const profile = tempDir(t, 'rl-chromium-')
  const child = execa(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`,
    '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-pings', '--disable-dev-shm-usage', ...args,
  ], { env: { PATH: '/usr/bin:/bin', HOME: profile, XDG_CONFIG_HOME: profile, XDG_CACHE_HOME: profile, LC_ALL: 'C' }, extendEnv: false, reject: false, detached: true, stdin: 'ignore' })
  const pgid = child.pid ?? 0
  // No pid means no process was started: there is no group to kill (and -0 is our own).
  const killGroup = (): void => { if (pgid > 0) try { process.kill(-pgid, 'SIGKILL') } catch {} }
  const timer = setTimeout(killGroup, 120_000)
  try {
    const r = await child
    assert.equal(r.exitCode, 0, `chromium ${args.join(' ')}: ${String(r.stderr)}`)
    return String(r.stdout)
  } finally {
    clearTimeout(timer)
    // What the browser left behind (a zygote, a crashpad handler) goes with it, and the test
    // goes on only once none of its processes is left.
    for (let left = browserProcesses(pgid, profile); left.length > 0; left = browserProcesses(pgid, profile)) {
      killGroup()
      for (const pid of left) { try { process.kill(pid, 'SIGKILL') } catch {} }
      await new Promise(resolve => setTimeout(resolve, 20))
    }
  }
}

test('a real headless Chromium renders the page: the DOM holds the outcome, the identities and diff lines, and the screenshot is not blank', async t => {
  if (!existsSync(CHROMIUM)) {
    // CI runs as root with the bootstrap, which installs chromium: there it must run.
    assert.notEqual(process.getuid?.(), 0, `${CHROMIUM} is missing though this runs as root: scripts/bootstrap.mjs installs chromium for check`)
    t.skip(`${CHROMIUM} is not installed and this is not root`)
    return
  }
  const dir = tempDir(t)
  const page = join(dir, 'attempt.html')
  assert.equal((await viewRun(verified.dir, page)).exit, 0)
  const url = pathToFileURL(page).href

  const dom = await chromium(t, ['--dump-dom', url])
  assert.match(dom, /<h1 id="outcome">scoped_test_verified<\/h1>/)
  const baseline = JSON.parse(readFileSync(join(verified.dir, 'baseline.json'), 'utf8')) as { identities: Record<string, unknown> }
  const ids = Object.keys(baseline.identities)
  assert.ok(ids.length >= 2)
  for (const id of ids) assert.ok(dom.includes(`<td class="mono">${id}</td>`), id)
  assert.match(dom, /<span class="l del">- {2}<span class="kw">return<\/span> a - b<\/span>/)
  assert.match(dom, /<span class="l add">\+ {2}<span class="kw">return<\/span> a \+ b<\/span>/)
  assert.doesNotMatch(dom, /<script/i)

  const png = join(dir, 'attempt.png')
  await chromium(t, [`--screenshot=${png}`, '--window-size=1200,900', '--hide-scrollbars', url])
  const shot = distinctPixels(readFileSync(png), 64)
  assert.deepEqual([shot.width, shot.height], [1200, 900])
  assert.ok(shot.distinct >= 2, `the screenshot has ${shot.distinct} colour(s): blank`)
  // To look at it: RL_KEEP_PAGE=DIR keeps the page and its screenshot there.
  const keep = process.env.RL_KEEP_PAGE
  if (keep !== undefined) for (const f of [page, png]) cpSync(f, join(keep, basename(f)))
})
