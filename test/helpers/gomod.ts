// A real Go module cache built offline for tests: a one-module file proxy (list, info, mod
// and a stored zip written here), filled into a GOMODCACHE with the host's `go mod download`,
// and a consumer module whose go.sum `go mod tidy` wrote. The sandbox then builds the
// consumer with GOPROXY=off against the cache mounted read-only.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { run } from '@repairline/core'
import { writeFiles } from './git.ts'

/** A zip of stored (uncompressed) entries: the module zip format Go reads. */
export function storedZip (entries: Record<string, string>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, text] of Object.entries(entries)) {
    const data = Buffer.from(text)
    const nameBuf = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(0x0800, 6); local.writeUInt16LE(0, 8)
    local.writeUInt32LE(0, 10); local.writeUInt32LE(crc, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBuf.length, 26); local.writeUInt16LE(0, 28)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(0, 10); central.writeUInt32LE(0, 12); central.writeUInt32LE(crc, 16); central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24); central.writeUInt16LE(nameBuf.length, 28); central.writeUInt32LE(offset, 42)
    locals.push(local, nameBuf, data)
    centrals.push(central, nameBuf)
    offset += 30 + nameBuf.length + data.length
  }
  const cd = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(Object.keys(entries).length, 8); end.writeUInt16LE(Object.keys(entries).length, 10)
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, cd, end])
}

export interface GoModFixture {
  /** The filled module cache (mount it read-only as GOMODCACHE). */
  cache: string
  /** The consumer module's files: go.mod, go.sum, code and a failing test. */
  files: Record<string, string>
}

/** Builds a module cache holding example.com/dep v1.0.0 and a consumer that needs it. */
export async function makeGoModCache (dir: string): Promise<GoModFixture> {
  const proxy = join(dir, 'proxy', 'example.com', 'dep', '@v')
  mkdirSync(proxy, { recursive: true })
  const depMod = 'module example.com/dep\n\ngo 1.19\n'
  writeFileSync(join(proxy, 'list'), 'v1.0.0\n')
  writeFileSync(join(proxy, 'v1.0.0.info'), '{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}\n')
  writeFileSync(join(proxy, 'v1.0.0.mod'), depMod)
  writeFileSync(join(proxy, 'v1.0.0.zip'), storedZip({
    'example.com/dep@v1.0.0/go.mod': depMod,
    'example.com/dep@v1.0.0/dep.go': 'package dep\n\n// Three returns 3.\nfunc Three() int { return 3 }\n',
  }))
  const cache = join(dir, 'gomodcache')
  const app = join(dir, 'app')
  const files: Record<string, string> = {
    'go.mod': 'module example.com/app\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n',
    'app.go': 'package app\n\nimport "example.com/dep"\n\n// Nine returns dep.Three() squared.\nfunc Nine() int { return dep.Three() * 2 }\n',
    'app_test.go': 'package app\n\nimport "testing"\n\nfunc TestNine(t *testing.T) {\n\tif Nine() != 9 {\n\t\tt.Fatalf("Nine() = %d", Nine())\n\t}\n}\n',
  }
  writeFiles(app, files)
  const env = {
    PATH: '/usr/bin:/bin', HOME: join(dir, 'home'), GOCACHE: join(dir, 'gocache-host'), GOMODCACHE: cache, GOPATH: join(dir, 'gopath'),
    GOPROXY: `file://${join(dir, 'proxy')}`, GOSUMDB: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOWORK: 'off',
  }
  const r = await run('/usr/bin/go', ['mod', 'tidy'], { env, cwd: app })
  if (r.exitCode !== 0) throw new Error(`go mod tidy failed: ${r.stderr.toString()}`)
  files['go.sum'] = readFileSync(join(app, 'go.sum'), 'utf8')
  for (const p of [dir, cache]) chmodSync(p, 0o755)
  return { cache, files }
}
