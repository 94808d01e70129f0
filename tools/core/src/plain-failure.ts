// The records and the stderr line every run prints, written without the record writer: for a
// failure of what a run needs before any record can go through it (its I/O, its bundle).

export interface PlainFailure {
  tool: string
  /** The start record's command, only when known to be one of the tool's commands. */
  command?: string
  code: string
  /** Already one printable line. */
  message: string
  hint?: string
  exit: number
}

/** Prints start, error and result records and the stderr line(s), and sets the exit status. */
export function writePlainFailure (f: PlainFailure): void {
  const start = f.command === undefined ? { v: 1, kind: 'start', tool: f.tool } : { v: 1, kind: 'start', tool: f.tool, command: f.command }
  const error = { v: 1, kind: 'error', code: f.code, message: f.message, ...(f.hint === undefined ? {} : { hint: f.hint }) }
  process.stdout.on('error', () => {})
  process.stdout.write([start, error, { v: 1, kind: 'result', tool: f.tool, exit: f.exit }].map(r => `${JSON.stringify(r)}\n`).join(''))
  process.stderr.write(`${f.tool}: ${f.code}: ${f.message}\n${f.hint === undefined ? '' : `${f.tool}: hint: ${f.hint}\n`}`)
  process.exitCode = f.exit
}
