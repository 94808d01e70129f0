// /proc/<pid>/mountinfo (proc(5)): one line per mount, fields separated by single spaces, the
// optional fields ended by a lone "-". The kernel writes a space, tab, newline or backslash
// inside a path field as a three-digit octal escape (\040, \011, \012, \134), so a path is
// compared only after decoding: a mount point read raw never equals a path with a space.

export interface MountinfoRow {
  /** The mount's root within its filesystem (field 4), decoded. */
  root: string
  /** The mount point (field 5), decoded. */
  mountPoint: string
  /** Per-mount options (field 6). */
  options: string[]
  /** Filesystem type (first field after the "-"). */
  fstype: string
  /** Superblock options (third field after the "-"). */
  superOptions: string[]
}

/**
 * Decodes the octal escapes of one mountinfo field. Escapes stand for bytes and the rest of
 * the field is UTF-8 as the kernel wrote it, so the field is decoded as bytes and read back
 * as UTF-8.
 */
export function decodeMountinfoField (field: string): string {
  if (!field.includes('\\')) return field
  const bytes: number[] = []
  const raw = Buffer.from(field, 'utf8')
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i] as number
    if (b === 0x5c && isOctal(raw[i + 1]) && isOctal(raw[i + 2]) && isOctal(raw[i + 3])) {
      const v = ((raw[i + 1] as number) - 0x30) * 64 + ((raw[i + 2] as number) - 0x30) * 8 + ((raw[i + 3] as number) - 0x30)
      if (v <= 0xff) {
        bytes.push(v)
        i += 3
        continue
      }
    }
    bytes.push(b)
  }
  return Buffer.from(bytes).toString('utf8')
}

function isOctal (b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x37
}

/** Parses mountinfo text into rows, path fields decoded; a line without the "-" separator is skipped. */
export function parseMountinfo (text: string): MountinfoRow[] {
  const rows: MountinfoRow[] = []
  for (const line of text.split('\n')) {
    // Escaping leaves no space inside a field, so " - " occurs only as the separator.
    const sep = line.indexOf(' - ')
    if (sep === -1) continue
    const left = line.slice(0, sep).split(' ')
    const right = line.slice(sep + 3).split(' ')
    rows.push({
      root: decodeMountinfoField(left[3] ?? ''),
      mountPoint: decodeMountinfoField(left[4] ?? ''),
      options: (left[5] ?? '').split(','),
      fstype: right[0] ?? '',
      superOptions: (right[2] ?? '').split(','),
    })
  }
  return rows
}
