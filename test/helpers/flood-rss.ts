// Run as `node --import tsx flood-rss.ts <spec JSON>`: a fresh process whose only work is one
// flood of output, so the growth of its peak resident size is what holding that output cost
// the supervisor. Prints one JSON line: { grewBytes, kept, seen, stop }.
//   spec.mode 'sandbox': the probe floods inside the sandbox under spec.capBytes (the
//     supervisor's output cap);
//   spec.mode 'buffered': the control, a supervisor that keeps everything it is sent (core's
//     `run` with a buffer as large as the flood).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { nodeInstall, run } from '@repairline/core'
import { runNodeProbe } from './sandbox.ts'

interface Spec { mode: 'sandbox' | 'buffered', tree: string, probe: string, args: string[], capBytes: number }
const spec = JSON.parse(process.argv[2] ?? '') as Spec
const before = process.memoryUsage().rss
let kept: number
let seen: number
let stop: string | undefined
if (spec.mode === 'sandbox') {
  const r = await runNodeProbe(spec.tree, spec.probe, { args: spec.args, limits: { stdoutBytes: spec.capBytes }, timeoutMs: 60_000 })
  kept = r.stdout.length
  seen = r.report.output.stdout_bytes
  stop = r.report.stop?.reason
} else {
  writeFileSync(join(spec.tree, 'probe.mjs'), spec.probe)
  const r = await run(nodeInstall().execPath, [join(spec.tree, 'probe.mjs'), ...spec.args], { env: {}, timeoutMs: 60_000, maxBuffer: spec.capBytes })
  kept = r.stdout.length
  seen = kept
}
process.stdout.write(JSON.stringify({ grewBytes: process.resourceUsage().maxRSS * 1024 - before, kept, seen, stop }) + '\n')
