// Run under script(1), which gives this process a pseudo-terminal as its controlling
// terminal: runs a TIOCSTI probe (perl: open /dev/tty, ioctl TIOCSTI per byte) in the real
// sandbox ("sandbox"), or in the same sandbox without --new-session ("control"), then reads
// what arrived on the terminal for a moment and prints one JSON line. Used by the TIOCSTI test.

import { runSandbox } from '@repairline/core'
import { TEST_LIMITS, makeTree, rawArgv, runArgv } from './sandbox.ts'
import { mkdtempSync, chmodSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'

const PERL = `open(my $t, '+<', '/dev/tty') or do { print qq({"open":"$!"}\\n); exit 0 };
for my $c (split //, "rl-injected\\n") { ioctl($t, 0x5412, $c) or do { print qq({"ioctl":"$!"}\\n); exit 0 } }
print qq({"injected":true}\\n);`

const mode = process.argv[2]
const dir = mkdtempSync(`${tmpdir()}/rl-tty-`)
chmodSync(dir, 0o755)
const tree = makeTree(dir, 'tree', {})
let probe: unknown
try {
  const command = ['/usr/bin/perl', '-e', PERL]
  if (mode === 'sandbox') {
    const r = await runSandbox({ command, cwd: '/src', env: {}, mounts: [{ source: tree, dest: '/src' }], limits: TEST_LIMITS, timeoutMs: 20_000 })
    probe = JSON.parse(r.stdout.toString().trim() || '{}')
  } else {
    const r = await runArgv(rawArgv(tree, command, { drop: ['--new-session'] }))
    probe = JSON.parse(r.stdout.trim() || '{}')
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
// What reached the terminal's input queue.
const arrived = await new Promise<string>(resolve => {
  let got = ''
  process.stdin.setRawMode?.(true)
  process.stdin.on('data', (b: Buffer) => { got += b.toString() })
  setTimeout(() => { process.stdin.pause(); resolve(got) }, 500)
})
process.stdout.write(`${JSON.stringify({ mode, probe, arrived })}\n`)
process.exitCode = 0
setTimeout(() => process.exit(0), 100).unref() // eslint-disable-line no-restricted-properties -- test harness: stdin held open by the tty
