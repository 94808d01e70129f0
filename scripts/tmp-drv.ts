import { mkdirSync, chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run as spawnRun } from '@repairline/core'
import { makeFixture, makeCase, writeJson } from '../test/helpers/fixture.ts'
import { makeTls } from '../test/helpers/tls.ts'
import { ResponsesServer, NODE_FIX_PROPOSAL } from '../test/helpers/responses-server.ts'
const ROOT = join(import.meta.dirname, '..')
const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' }
const dir = mkdtempSync(join(tmpdir(), 'rl-drv-'))
chmodSync(dir, 0o711)
const tls = await makeTls(join(dir, 'tls'))
const server = await ResponsesServer.start({ tls })
server.proposal = NODE_FIX_PROPOSAL
mkdirSync(join(dir, 'f'))
const f = await makeFixture(join(dir, 'f'), { runner: 'node', baseUrl: server.baseUrl('ok'), caFile: tls.caFile })
writeJson(f.reportPath, { ...f.report, cases: Array.from({ length: 6 }, (_, i) => makeCase(`case-${i}`, 'test', 'test/calc.test.js::add adds')) })
for (let i = 0; i < 4; i++) {
  const t = performance.now()
  const prof = i === 3 ? ['--cpu-prof', '--cpu-prof-dir', '/tmp/prof/drv', '--cpu-prof-interval', '200'] : []
  const r = await spawnRun(process.execPath, [...prof, join(ROOT, 'dist', 'attempt.mjs'), '--config', f.configPath, '--report', f.reportPath], { env: ENV })
  console.log(i, r.exitCode, (performance.now() - t).toFixed(0))
}
await server.close()
