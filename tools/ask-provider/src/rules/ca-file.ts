// Rule: provider.ca_file is read before the token and before dispatch.json, and every PEM
// certificate in it must parse. Node's TLS ignores a CA entry it cannot parse, so a file
// that merely holds the PEM markers would be dispatched (the call counted as made) and then
// fail its handshake as PROVIDER_TLS; here it is PROVIDER_CA_INVALID, and nothing is sent.

import { X509Certificate } from 'node:crypto'
import { readFileNoFollow } from '@repairline/core'

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
