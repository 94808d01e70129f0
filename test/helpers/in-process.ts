// A tool's index.ts run in process the way runCli runs the bin (start record, the tool's
// records, error record on a thrown error, result record, exit status), over fakeIo: fast,
// and every record is validated by the real RecordWriter and parsed back strictly.

import { runTool, type AnyRecord, type Env, type ToolIo, type ToolName, type ToolResult } from '@repairline/core'
import { fakeIo } from './io.ts'

export interface InProcessRun {
  exit: number
  records: AnyRecord[]
  stderr: string
}

export async function runInProcess (tool: ToolName, main: (io: ToolIo) => Promise<ToolResult>, o: { env?: Env, stdin?: string, now?: Date, cwd?: string } = {}): Promise<InProcessRun> {
  const f = fakeIo(o)
  const exit = await runTool(tool, [], f.io, async (_argv, io) => await main(io))
  await new Promise(resolve => setImmediate(resolve))
  return { exit, records: f.records(), stderr: f.stderr() }
}
