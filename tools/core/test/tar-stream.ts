// tar-stream 3.2.2 as an independent implementation: its extractor reads tree.tar in the
// tests (a second reader besides the system tar), and its packer is what the hand-written
// writer was measured against (scripts/bench/extract-tree.ts). Not a test file itself.

import { Readable } from 'node:stream'
import { extract, pack } from 'tar-stream'

export interface TarStreamEntry { name: string, mode: number, size: number, mtime: number, uid: number, gid: number, uname: string, gname: string, type: string, content: Buffer }

/** Reads every entry of an archive with tar-stream's extractor. */
export async function readWithTarStream (tar: Buffer): Promise<TarStreamEntry[]> {
  const out: TarStreamEntry[] = []
  const ex = extract()
  ex.on('entry', (h, stream, next) => {
    const parts: Buffer[] = []
    stream.on('data', (b: unknown) => parts.push(b as Buffer))
    stream.on('end', () => {
      out.push({ name: h.name, mode: h.mode ?? -1, size: h.size ?? -1, mtime: h.mtime?.getTime() ?? -1, uid: h.uid ?? -1, gid: h.gid ?? -1, uname: h.uname ?? '', gname: h.gname ?? '', type: h.type ?? '', content: Buffer.concat(parts) })
      next()
    })
  })
  await new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve)
    ex.on('error', reject)
    Readable.from([tar]).pipe(ex)
  })
  return out
}

/** Packs files with tar-stream's packer (the same metadata as tree.tar) into one buffer. */
export async function packWithTarStream (files: ReadonlyArray<{ path: string, mode: number, content: Buffer }>): Promise<Buffer> {
  const p = pack()
  const chunks: Buffer[] = []
  p.on('data', (c: unknown) => chunks.push(c as Buffer))
  const done = new Promise<void>((resolve, reject) => { p.on('end', resolve); p.on('error', reject) })
  for (const f of files) p.entry({ name: f.path, size: f.content.length, mode: f.mode, mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, f.content)
  p.finalize()
  await done
  return Buffer.concat(chunks)
}
