// Git's object ids, computed from their bytes (git's object format, SHA-1 repositories only):
// sha1 of "<type> <size>\0<body>". Readback recomputes the candidate commit with these,
// without any repository; gate-patch makes the same commit with git plumbing and requires
// that both agree, so the two can never drift apart unnoticed.

import { createHash } from 'node:crypto'

/** The id of an object of `type` whose body is `body`. */
export function gitObjectId (type: 'blob' | 'tree' | 'commit', body: Uint8Array): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex')
}

export interface TreeFile {
  /** Repository-relative, `/`-separated. */
  path: string
  mode: '100644' | '100755'
  /** The blob id. */
  blob: string
}

interface Dir { files: Map<string, TreeFile>, dirs: Map<string, Dir> }

/**
 * The id of the root tree holding exactly `files` (regular files only, as extract-tree keeps
 * them). Entries sort as git sorts them: by name bytes, a directory's name compared as if it
 * ended in `/`.
 */
export function treeIdOf (files: readonly TreeFile[]): string {
  const root: Dir = { files: new Map(), dirs: new Map() }
  for (const f of files) {
    const parts = f.path.split('/')
    let d = root
    for (const p of parts.slice(0, -1)) {
      let next = d.dirs.get(p)
      if (next === undefined) { next = { files: new Map(), dirs: new Map() }; d.dirs.set(p, next) }
      d = next
    }
    d.files.set(parts[parts.length - 1] ?? '', f)
  }
  return dirId(root)
}

function dirId (d: Dir): string {
  const entries: Array<{ key: Buffer, mode: string, name: Buffer, id: string }> = []
  for (const [name, f] of d.files) entries.push({ key: Buffer.from(name), mode: f.mode, name: Buffer.from(name), id: f.blob })
  for (const [name, sub] of d.dirs) entries.push({ key: Buffer.from(`${name}/`), mode: '40000', name: Buffer.from(name), id: dirId(sub) })
  entries.sort((a, b) => Buffer.compare(a.key, b.key))
  const body = Buffer.concat(entries.flatMap(e => [Buffer.from(`${e.mode} `), e.name, Buffer.from([0]), Buffer.from(e.id, 'hex')]))
  return gitObjectId('tree', body)
}

export interface CommitFields {
  tree: string
  parent: string
  /** `name <email>` of author and committer alike. */
  identity: string
  /** Whole seconds since the epoch, UTC (`+0000`). */
  seconds: number
  message: string
}

/** The body of the commit object these fields make (no signature, no encoding header). */
export function commitBody (c: CommitFields): Buffer {
  const who = `${c.identity} ${c.seconds} +0000`
  return Buffer.from(`tree ${c.tree}\nparent ${c.parent}\nauthor ${who}\ncommitter ${who}\n\n${c.message}`, 'utf8')
}
