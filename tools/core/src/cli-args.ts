// The command line of every tool: one declarative spec per tool, parsed here with node:util's
// parseArgs and rendered here as the --help text. It replaces yargs (docs/decisions.md,
// "Packages wrapped or replaced"): importing yargs costs more than the whole start-up budget of a tool
// (scripts/bench.ts startup measures a yargs bundle with the same options in every run).
//
// Contract: parseCli returns the command (when the spec has commands) and one value per
// declared option — a string or undefined for string options, a boolean for boolean options —
// or throws USAGE naming the first problem: a missing or unknown command, an unknown option,
// a stray positional argument, an option given twice, a string option without a value (a
// following `-…` argument is not taken as one: use `--opt=-…`), a value on a boolean option, a
// value outside `choices`, a missing required option. Only long options are declared; -h and
// --help are answered by runTool before any parsing.

import { parseArgs as parseArgTokens } from 'node:util'
import { toolError } from './errors.ts'
import type { ToolName } from './run-cli.ts'

export interface OptionSpec {
  readonly type: 'string' | 'boolean'
  readonly describe: string
  /** The value's name in the help text (string options): DIR, ABS, … */
  readonly value?: string
  readonly required?: boolean
  readonly choices?: readonly string[]
  /** A string option that may be given more than once; its value is the list, in order. */
  readonly multiple?: boolean
}

export type OptionTable = Readonly<Record<string, OptionSpec>>

/** The --attempt option of every step after admit (core's resolveAttemptPath reads it). */
export const ATTEMPT_OPTION: OptionSpec = { type: 'string', value: 'DIR', describe: 'attempt directory (else read from the attempt record on stdin)' }

export interface CommandSpec {
  readonly describe: string
  readonly options: OptionTable
}

export interface CliSpec {
  readonly tool: ToolName
  /** Usage lines, each starting with the tool's name. */
  readonly usage: readonly string[]
  /** A paragraph printed under the usage lines. */
  readonly about?: string
  /** The options of a tool without commands. */
  readonly options?: OptionTable
  /** Subcommands, in the order the help lists them; argv[0] names one. */
  readonly commands?: Readonly<Record<string, CommandSpec>>
}

export interface ParsedCli {
  readonly command?: string
  readonly values: Readonly<Record<string, string | readonly string[] | boolean | undefined>>
}

export function parseCli (spec: CliSpec, argv: readonly string[]): ParsedCli {
  let command: string | undefined
  let options = spec.options ?? {}
  let args = argv
  if (spec.commands !== undefined) {
    const names = Object.keys(spec.commands)
    const first = argv[0]
    if (first === undefined || first.startsWith('-')) throw toolError('USAGE', `name a command: ${orList(names)}`)
    const chosen = spec.commands[first]
    if (chosen === undefined || !Object.hasOwn(spec.commands, first)) throw toolError('USAGE', `unknown command ${JSON.stringify(first)}: expected ${orList(names)}`)
    command = first
    options = chosen.options
    args = argv.slice(1)
  }
  const where = command === undefined ? '' : ` for ${command}`
  // strict: false so every problem gets this module's own one-line message; the tokens say
  // exactly what was given.
  const { tokens } = parseArgTokens({
    args: [...args],
    options: Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const values: Record<string, string | string[] | boolean | undefined> = {}
  for (const [name, o] of Object.entries(options)) values[name] = o.type === 'boolean' ? false : o.multiple === true ? [] : undefined
  const seen = new Set<string>()
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue
    if (token.kind === 'positional') throw toolError('USAGE', `unexpected argument ${JSON.stringify(token.value)}${where}`)
    const o = Object.hasOwn(options, token.name) ? options[token.name] : undefined
    if (o === undefined || token.rawName !== `--${token.name}`) throw toolError('USAGE', `unknown option ${token.rawName}${where}`)
    if (seen.has(token.name) && o.multiple !== true) throw toolError('USAGE', `${token.rawName} is given twice`)
    seen.add(token.name)
    if (o.type === 'boolean') {
      if (token.value !== undefined) throw toolError('USAGE', `${token.rawName} takes no value`)
      values[token.name] = true
      continue
    }
    const value = token.value
    if (value === undefined || (token.inlineValue !== true && value.startsWith('-'))) throw toolError('USAGE', `${token.rawName} needs a value`)
    if (o.choices !== undefined && !o.choices.includes(value)) throw toolError('USAGE', `${token.rawName} must be ${orList(o.choices)}, got ${JSON.stringify(value)}`)
    if (PATH_VALUES.has(o.value ?? '')) assertPathFits(token.rawName, value)
    const list = values[token.name]
    values[token.name] = Array.isArray(list) ? [...list, value] : value
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.required === true && (values[name] === undefined || (Array.isArray(values[name]) && values[name].length === 0))) throw toolError('USAGE', `--${name} is required${where}`)
  }
  return command === undefined ? { values } : { command, values }
}

/** The value names of options that hold a path. */
const PATH_VALUES: ReadonlySet<string> = new Set(['ABS', 'DIR', 'FILE'])
/** Linux's PATH_MAX and NAME_MAX, in bytes. */
const PATH_MAX = 4096
const NAME_MAX = 255

/**
 * A path no system call can take is a usage error (2) before anything reads it: otherwise
 * each tool met ENAMETOOLONG at a different place and called it a missing input (66) or a
 * failed write (73).
 */
function assertPathFits (flag: string, path: string): void {
  const bytes = Buffer.byteLength(path)
  if (bytes >= PATH_MAX) throw toolError('USAGE', `${flag} is longer than the system allows (${bytes} bytes; the limit is ${PATH_MAX - 1})`)
  const long = path.split('/').find(c => Buffer.byteLength(c) > NAME_MAX)
  if (long !== undefined) throw toolError('USAGE', `${flag} has a component longer than the system allows (${Buffer.byteLength(long)} bytes; the limit is ${NAME_MAX})`)
}

/** A string option's value (parseCli gives strings only to string options). */
export function stringOption (value: string | readonly string[] | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** A multiple string option's values (empty when it was not given). */
export function stringListOption (value: string | readonly string[] | boolean | undefined): readonly string[] {
  return Array.isArray(value) ? value as readonly string[] : typeof value === 'string' ? [value] : []
}

const WIDTH = 100

/** The --help text: usage, about, then each command's options (or the tool's options). */
export function helpText (spec: CliSpec): string {
  const out: string[] = [`Usage: ${spec.usage[0] ?? spec.tool}`, ...spec.usage.slice(1).map(u => `       ${u}`)]
  if (spec.about !== undefined) out.push('', ...wrap(spec.about, WIDTH))
  if (spec.commands !== undefined) {
    const commands = Object.entries(spec.commands)
    out.push('', 'Commands:', ...table(commands.map(([name, c]) => [`${spec.tool} ${name}`, c.describe])))
    for (const [name, c] of commands) out.push('', `Options of ${spec.tool} ${name}:`, ...optionRows(c.options))
  } else {
    out.push('', 'Options:', ...optionRows(spec.options ?? {}))
  }
  out.push('', `  -h, --help  print this text; no records, exit 0`)
  return `${out.join('\n')}\n`
}

function optionRows (options: OptionTable): string[] {
  return table(Object.entries(options).map(([name, o]) => {
    const flag = o.type === 'string' ? `--${name} ${o.value ?? 'VALUE'}` : `--${name}`
    const notes = [o.choices === undefined ? '' : ` [${o.choices.join('|')}]`, o.multiple === true ? ' [repeatable]' : '', o.required === true ? ' [required]' : ''].join('')
    return [flag, `${o.describe}${notes}`]
  }))
}

/** Two columns: the left padded to its widest entry, the right word-wrapped beneath itself. */
function table (rows: ReadonlyArray<readonly [string, string]>): string[] {
  const left = Math.max(0, ...rows.map(([l]) => l.length)) + 4
  return rows.flatMap(([l, r]) => wrap(r, Math.max(40, WIDTH - left)).map((line, i) => `${i === 0 ? `  ${l}`.padEnd(left) : ' '.repeat(left)}${line}`))
}

function wrap (text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(w => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  lines.push(line)
  return lines
}

function orList (items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1] ?? ''}`
}
