// The costs ask-provider adds around its one call, against the obvious minimal alternative
// measured in the same run:
//   - redaction of a response at the 4 MiB cap (every encoded form of the token, ~30 forms)
//     vs searching it for the raw token only;
//   - rendering and checking everything the request is made of (brief, scaffold,
//     instructions, payload with its delimiter, three internal-text checks, the body bytes)
//     vs serializing the same body with JSON.stringify alone.

import { randomBytes } from 'node:crypto'
import { redactBytes, renderAttempt, resolvePromptRegister, resolveRoute, resolveTaskRegister, type RenderInputs } from '@repairline/core'
import type { ExecutionConfig, RegisterManifest, RoutingPolicy } from '@repairline/schemas'
import { interleave, median, fmt, type BenchRow } from './lib.ts'

function responseBody (bytes: number, token: string): Buffer {
  const filler = JSON.stringify({ summary: { cause: 'Add subtracts.', change: 'Add adds.', risk: 'Low.' }, edits: [{ path: 'calc.go', search: 'return a - b', replace: 'return a + b' }] })
  const parts: string[] = ['{"output":[{"type":"message","content":[{"type":"output_text","text":']
  while (parts.join('').length < bytes - 200) parts.push(JSON.stringify(filler).slice(1, -1))
  parts.push(`"}]}],"echo":"${token}"}`)
  return Buffer.from(parts.join(''))
}

function inputs (): RenderInputs {
  const manifest: RegisterManifest = { version: 1, tasks: { repair: { register: 'internal', max_output_tokens: 4000 } }, surfaces: { agent: { register: 'internal' }, prompts: { register: 'internal' } } }
  const policy: RoutingPolicy = { version: 1, cost_ceiling_usd: 0.5, routes: [{ case_kind: 'test_failure', task_label: 'repair', model: 'gpt-5-mini', estimated_input_tokens: 30000, estimated_output_tokens: 4000, usd_per_million_input_tokens: 0.25, usd_per_million_output_tokens: 2 }] }
  const routed = resolveRoute(policy, 'test_failure')
  if (!routed.ok) throw new Error(routed.message)
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `internal/pkg/file${i}.go`, bytes: Buffer.from(`package pkg\n\n${'// a line of source code that is about sixty characters long\n'.repeat(400)}`) }))
  const config = { allowed_files: files.map(f => f.path), provider: { model: 'gpt-5-mini', max_output_tokens: 4000, max_input_bytes: 4 << 20 } } as unknown as ExecutionConfig
  const c = { kind: 'test_failure' as const, id: 'nil-equal', test: { package: './internal/pkg', name: 'example.com/m/internal/pkg::TestEqual' }, input_sha256: '0'.repeat(64) }
  return { config, case: c, route: routed.route, task: resolveTaskRegister(manifest, 'repair'), prompt: resolvePromptRegister(manifest), files, failing: [c.test.name] }
}

export async function run (): Promise<BenchRow[]> {
  const token = `sk-${randomBytes(24).toString('base64url')}`
  const body = responseBody(4 << 20, token)
  const raw = Buffer.from(token)
  const r = inputs()
  const rendered = renderAttempt(r)
  if (rendered.request === undefined) throw new Error(`render refused: ${rendered.refusal?.message ?? ''}`)
  const plainBody = rendered.request.body
  const s = await interleave([
    { name: 'redactBytes (all encodings)', run: () => { if (redactBytes(body, token).count !== 1) throw new Error('redaction missed the token') } },
    { name: 'indexOf raw token', run: () => { if (body.indexOf(raw) === -1) throw new Error('no token') } },
    { name: 'renderAttempt', run: () => { renderAttempt(r) } },
    { name: 'JSON.stringify body', run: () => { JSON.stringify(plainBody, null, 2) } },
  ], 15, 2)
  const m = (n: string): number => median(s.get(n) ?? [])
  return [
    { name: 'redaction of a 4 MiB response (≈30 encoded forms)', baseline: 'Buffer.indexOf of the raw token', ratio: m('redactBytes (all encodings)') / m('indexOf raw token'), detail: `${fmt(m('redactBytes (all encodings)'))} vs ${fmt(m('indexOf raw token'))} per response` },
    { name: 'render + check the request (8 files, 200 KB prompt)', baseline: 'JSON.stringify of the same body', ratio: m('renderAttempt') / m('JSON.stringify body'), detail: `${fmt(m('renderAttempt'))} vs ${fmt(m('JSON.stringify body'))}; prompt ${rendered.promptBytes ?? 0} bytes` },
  ]
}
