// displayWidth replaces string-width in the bundled tools (scripts/build.ts). It must give the
// answers of the string-width versions yargs and cliui depend on, for the kinds of text the
// tools lay out, while building no Unicode tables for plain ASCII.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import displayWidth from '../src/display-width.ts'

type Width = (text: string) => number

async function upstreamWidths (): Promise<Map<string, Width>> {
  const fromCore = createRequire(import.meta.url)
  const yargsEntry = fromCore.resolve('yargs')
  const cliuiEntry = createRequire(yargsEntry).resolve('cliui')
  const paths = new Set([createRequire(yargsEntry).resolve('string-width'), createRequire(cliuiEntry).resolve('string-width')])
  const widths = new Map<string, Width>()
  for (const path of paths) {
    const mod = await import(pathToFileURL(path).href) as { default: Width }
    widths.set(path, mod.default)
  }
  return widths
}

const samples = [
  '', 'admit <run|status|report> [options]', '  --config  absolute path of the execution config  [string] [required]',
  '\u001B[31mred\u001B[39m', '\u001B]8;;https://example.test\u0007link\u001B]8;;\u0007',
  '日本語のテキスト', '한국어', 'ｆｕｌｌｗｉｄｔｈ', 'café', 'cafe\u0301', 'naïve résumé',
  '😀 ok', '👍🏽', 'tab\there', 'zero\u200Bwidth', 'Ωmega — dash', 'a\u0000b',
]

test('displayWidth agrees with every string-width version yargs uses', async () => {
  const upstream = await upstreamWidths()
  assert.ok(upstream.size >= 1)
  for (const [path, width] of upstream) {
    for (const sample of samples) assert.equal(displayWidth(sample), width(sample), `${JSON.stringify(sample)} against ${path}`)
  }
})

test('displayWidth keeps escape sequences when asked, as string-width does, and is 0 for non-strings', async () => {
  const styled = '\u001B[1mab\u001B[22m'
  for (const width of (await upstreamWidths()).values()) {
    assert.equal(displayWidth(styled, { countAnsiEscapeCodes: true }), (width as (t: string, o: object) => number)(styled, { countAnsiEscapeCodes: true }))
  }
  assert.equal(displayWidth(styled), 2)
  assert.equal(displayWidth(undefined), 0)
  assert.equal(displayWidth(42), 0)
})
