// The node runner's reporter (DESIGN §9): a file of ours, written into the attempt's scratch
// directory, checked against the pinned digest below right before every run, and mounted
// read-only in the sandbox as --test-reporter. It prints one JSON object per line with only
// the fields the normalizer reads. Changing the source means changing the pin (a test
// recomputes it), so a receipt's reporter digest names exactly one reporter.

export const NODE_REPORTER_SOURCE = String.raw`// repairline's node:test reporter: one JSON object per line on stdout, with only the fields
// the normalizer reads. Pinned by sha256 and mounted read-only in the sandbox.
const KEEP = new Set(['test:start', 'test:pass', 'test:fail', 'test:stdout', 'test:stderr', 'test:diagnostic'])
function errorText (e) {
  if (e === undefined || e === null) return undefined
  const inner = e.cause ?? e
  const text = typeof inner === 'object' && typeof inner.message === 'string' ? inner.message : String(inner)
  return text.slice(0, 4096)
}
export default async function * repairlineNdjson (source) {
  for await (const ev of source) {
    if (!KEEP.has(ev.type)) continue
    const d = ev.data ?? {}
    const o = { type: ev.type }
    if (typeof d.file === 'string') o.file = d.file
    if (typeof d.name === 'string') o.name = d.name
    if (typeof d.nesting === 'number') o.nesting = d.nesting
    if (d.skip !== undefined && d.skip !== false) o.skip = true
    if (d.todo !== undefined && d.todo !== false) o.todo = true
    if (typeof d.message === 'string') o.message = d.message
    const det = d.details
    if (det !== undefined && det !== null) {
      if (typeof det.duration_ms === 'number') o.duration_ms = det.duration_ms
      if (det.type === 'suite') o.suite = true
      const err = errorText(det.error)
      if (err !== undefined) o.error = err
    }
    yield JSON.stringify(o) + '\n'
  }
}
`

/** sha256 of NODE_REPORTER_SOURCE (UTF-8). */
export const NODE_REPORTER_SHA256 = '3aea10cc3527b00a4cf8dbf9b92e81f88669bb6242ec9ad3b3d36c28e62d6666'
