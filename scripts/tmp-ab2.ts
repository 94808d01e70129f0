import { mkdirSync, chmodSync, readFileSync, readdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run as spawnRun } from '@repairline/core'
import { makeFixture, makeCase, writeJson } from '../test/helpers/fixture.ts'
import { makeTls } from '../test/helpers/tls.ts'
import { ResponsesServer, NODE_FIX_PROPOSAL } from '../test/helpers/responses-server.ts'
const ROOT = join(import.meta.dirname, '..')
const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' }
const N = Number(process.argv[2] ?? 8)
const dir = mkdtempSync(join(tmpdir(), 'rl-ab-'))
chmodSync(dir, 0o711)
const tls = await makeTls(join(dir, 'tls'))
const server = await ResponsesServer.start({ tls })
server.proposal = NODE_FIX_PROPOSAL
mkdirSync(join(dir, 'f'))
const f = await makeFixture(join(dir, 'f'), { runner: 'node', baseUrl: server.baseUrl('ok'), caFile: tls.caFile })
writeJson(f.reportPath, { ...f.report, cases: Array.from({ length: 2 * N }, (_, i) => makeCase(`case-${String(i).padStart(2, '0')}`, 'test', 'test/calc.test.js::add adds')) })
const runMs = (a: string, file: string): number => (JSON.parse(readFileSync(join(a, file), 'utf8')) as any).run?.timing?.run_ms ?? 0
const res: Record<string, number[]> = { on: [], off: [] }
const seen = new Set<string>()
for (let i = 0; i < 2 * N; i++) {
  const mode = i % 2 === 0 ? 'on' : 'off'
  const t = performance.now()
  const r = await spawnRun(process.execPath, [join(ROOT, 'dist', 'attempt.mjs'), '--config', f.configPath, '--report', f.reportPath], { env: mode === 'off' ? { ...ENV, RL_NO_STANDBY: '1' } : ENV })
  const wall = performance.now() - t
  if (r.exitCode !== 0) throw new Error(r.stderr.toString().slice(-600))
  const a = readdirSync(join(f.stateDir, 'attempts')).map(x => join(f.stateDir, 'attempts', x)).find(x => !seen.has(x)) as string
  for (const x of readdirSync(join(f.stateDir, 'attempts'))) seen.add(join(f.stateDir, 'attempts', x))
  const provider = Date.parse(JSON.parse(readFileSync(join(a, 'response.json'), 'utf8')).received_at) - Date.parse(JSON.parse(readFileSync(join(a, 'dispatch.json'), 'utf8')).dispatched_at)
  res[mode]!.push(wall - runMs(a, 'baseline.json') - runMs(a, 'verify.json') - provider)
}
const med = (x: number[]): number => { const s = [...x].sort((p, q) => p - q); return s[Math.floor(s.length / 2)]! }
console.log('on ', res.on!.map(x => x.toFixed(0)).join(' '), 'median', med(res.on!).toFixed(0))
console.log('off', res.off!.map(x => x.toFixed(0)).join(' '), 'median', med(res.off!).toFixed(0))
await server.close()
