// provider.ca_file as ask-provider will use it: a regular file (never through a symlink) of
// at most 1 MiB in which every PEM certificate parses. Node's TLS ignores a CA entry it
// cannot parse, so a file that merely holds the PEM markers would be dispatched and then fail
// its handshake. admit checks the same before it consumes a key (CONFIG_INVALID), and
// ask-provider again before the token and before dispatch.json (PROVIDER_CA_INVALID).

import { X509Certificate } from 'node:crypto'
import { readFileNoFollow } from './read-file.ts'

const CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g

/** The PEM text of `path`, or why it cannot serve as the provider's CA. */
export function readCaFile (path: string): { ok: true, pem: string } | { ok: false, message: string } {
  let pem: string
  try {
    pem = readFileNoFollow(path, 1 << 20).toString('utf8')
  } catch (e) {
    return { ok: false, message: `provider.ca_file ${path} cannot be read: ${(e as Error).message}` }
  }
  const blocks = pem.match(CERTIFICATE) ?? []
  if (blocks.length === 0) return { ok: false, message: `provider.ca_file ${path} holds no PEM certificate` }
  for (const [i, block] of blocks.entries()) {
    try {
      void new X509Certificate(block)
    } catch (e) {
      return { ok: false, message: `provider.ca_file ${path} holds a certificate that does not parse (${i + 1} of ${blocks.length}): ${(e as Error).message}` }
    }
  }
  return { ok: true, pem }
}
