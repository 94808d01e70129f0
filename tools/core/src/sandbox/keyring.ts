// The launch chain's keyring step, read back (argv.ts: `keyctl session - bwrap …`). keyctl
// writes "Joined session keyring: <id>" to stderr once it has joined a new anonymous session
// keyring, and only then execs bwrap; nothing of the sandbox runs before that line is written,
// so it is the chain's own report, first on stderr. The supervisor takes it off the run's
// stderr (the command's output starts after it) and records the join as a limit reading.

import { toolError } from '../errors.ts'
import type { LimitReading } from './cgroup.ts'

const LINE = /^Joined session keyring: (\d+)\n/
/** Longer than the line can be: more bytes without it means it is not there. */
const MAX_LINE = 64

/** The limit reading's values: what the chain asks for and what the line shows. */
export const SESSION_KEYRING_WANT = 'new anonymous'

/** Splits keyctl's line off the head of a stderr stream; every other byte passes through. */
export class SessionKeyringLine {
  private head: Buffer = Buffer.alloc(0)
  private decided = false
  /** The joined keyring's serial, once the line was seen. */
  serial: number | undefined
  private readonly waiters: Array<() => void> = []

  /** The bytes of `chunk` that are the command's stderr. */
  take (chunk: Buffer): Buffer {
    if (this.decided) return chunk
    this.head = Buffer.concat([this.head, chunk])
    const text = this.head.toString('latin1')
    const m = LINE.exec(text)
    if (m !== null) {
      this.serial = Number(m[1])
      return this.decide(this.head.subarray(m[0].length))
    }
    if (text.includes('\n') || this.head.length > MAX_LINE) return this.decide(this.head)
    return Buffer.alloc(0)
  }

  /** The stream ended: whatever is held is the command's. */
  end (): Buffer {
    return this.decided ? Buffer.alloc(0) : this.decide(this.head)
  }

  private decide (rest: Buffer): Buffer {
    this.decided = true
    this.head = Buffer.alloc(0)
    for (const w of this.waiters.splice(0)) w()
    return rest
  }

  /** Resolves once the head of the stream is decided (the line seen, or not there). */
  async settled (): Promise<void> {
    if (this.decided) return
    await new Promise<void>(resolve => this.waiters.push(resolve))
  }

  /** The reading for the join, or SANDBOX_UNAVAILABLE when the chain did not report one. */
  reading (): LimitReading {
    if (this.serial === undefined) throw toolError('SANDBOX_UNAVAILABLE', 'keyctl did not report joining a new session keyring before bwrap started', { hint: 'install keyutils (keyctl), which the launch chain runs' })
    return { name: 'session keyring', want: SESSION_KEYRING_WANT, got: SESSION_KEYRING_WANT, mechanism: 'keyring', source: `keyctl session - (joined keyring ${this.serial})` }
  }
}
