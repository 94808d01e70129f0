// bootstrap makes a fresh clone runnable with only Node, npm and git, then runs one
// package script. It installs the pinned pnpm (from package.json's packageManager) into
// .tools/ with npm — corepack cannot fetch it here — installs the system packages the
// sandbox and the Go runner need when running as root (apt-get; bubblewrap, golang-go,
// openssl, gcc, keyutils; strace, libseccomp-dev and chromium for the tests), installs dependencies with the frozen lockfile, and runs `pnpm run <script>`.
//
//   node scripts/bootstrap.mjs check      (npm test)
//   node scripts/bootstrap.mjs demo:run   (npm run demo)
import { spawnSync } from 'node:child_process' // eslint-disable-line no-restricted-imports -- bootstrap runs before any dependency exists; argv arrays only
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const script = process.argv[2]
const say = (s) => process.stderr.write(`bootstrap: ${s}\n`)

function run (file, args, opts = {}) {
  const r = spawnSync(file, args, { stdio: 'inherit', cwd: root, ...opts })
  if (r.error !== undefined) throw new Error(`${file}: ${r.error.message}`)
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status ?? r.signal}`)
}
function has (file) {
  if (file.startsWith('/')) return existsSync(file)
  return ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin'].some(d => existsSync(join(d, file)))
}

function main () {
  if (script === undefined) throw new Error('usage: node scripts/bootstrap.mjs <package-script>')
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major < 20 || (major === 20 && minor < 19)) throw new Error(`Node ${process.versions.node} is too old: repairline needs Node >= 20.19`)

  const pm = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager
  const version = /^pnpm@(\d+\.\d+\.\d+)$/.exec(pm)?.[1]
  if (version === undefined) throw new Error(`package.json packageManager must pin pnpm exactly, got ${pm}`)
  const pnpmDir = join(root, '.tools', `pnpm-${version}`)
  const pnpm = join(pnpmDir, 'node_modules', '.bin', 'pnpm')
  if (!existsSync(pnpm)) {
    say(`installing pnpm ${version} into ${pnpmDir}`)
    run('npm', ['install', '--prefix', pnpmDir, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `pnpm@${version}`])
  }

  // A C compiler for every run: the build compiles the sandbox launcher, without which every
  // sandbox is refused. keyutils for every run: the launch chain
  // joins a new session keyring with keyctl. strace and libseccomp's headers only for the
  // tests: the durability test reads the tools' fsyncs from a trace, and one test
  // cross-checks the sandbox's seccomp filter against libseccomp's. chromium only for the
  // tests: receipt view's test opens the attempt page in a real headless browser.
  const wanted = [['bwrap', 'bubblewrap'], ['go', 'golang-go'], ['openssl', 'openssl'], ['setpriv', 'util-linux'], ['keyctl', 'keyutils'], ['cc', 'gcc'], ...(script === 'check' ? [['strace', 'strace'], ['/usr/include/seccomp.h', 'libseccomp-dev'], ['/usr/bin/chromium', 'chromium']] : [])]
  const needed = wanted.filter(([bin]) => !has(bin))
  if (needed.length > 0) {
    if (process.getuid?.() === 0) {
      const pkgs = needed.map(([, p]) => p)
      say(`installing system packages: ${pkgs.join(' ')}`)
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
      run('apt-get', ['update', '-qq'], { env })
      run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { env })
    } else {
      say(`missing ${needed.map(([b]) => b).join(', ')}; not root, so not installing them (the sandbox and Go tests need them)`)
    }
  }

  const env = { ...process.env, PATH: `${join(pnpmDir, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` }
  run(pnpm, ['install', '--frozen-lockfile', '--reporter=append-only', '--loglevel=warn'], { env })
  run(pnpm, ['run', script], { env })
}

try {
  main()
} catch (e) {
  say(e.message)
  process.exitCode = 1
}
