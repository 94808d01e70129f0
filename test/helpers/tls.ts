// Throwaway TLS material, generated with openssl at test time (no key is ever committed):
// a test CA and a server certificate it signs for 127.0.0.1 and localhost, plus the three
// certificates a client must refuse — self-signed, signed by another CA, and valid but for
// another name.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { run } from '@repairline/core'

export interface CertPair { cert: string, key: string }

export interface TlsMaterial {
  dir: string
  /** The test CA's certificate (PEM file): what provider.ca_file names. */
  caFile: string
  caPem: string
  /** Signed by the test CA for IP:127.0.0.1 and DNS:localhost. */
  good: CertPair
  /** Self-signed for IP:127.0.0.1. */
  selfSigned: CertPair
  /** Signed by another CA for IP:127.0.0.1. */
  otherCa: CertPair
  /** Signed by the test CA, but only for DNS:wrong.example. */
  wrongName: CertPair
}

const OPENSSL = '/usr/bin/openssl'
const ENV = { PATH: '/usr/bin:/bin', OPENSSL_CONF: '/dev/null' }

async function openssl (cwd: string, args: string[]): Promise<void> {
  const r = await run(OPENSSL, args, { env: ENV, cwd })
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.spawnError ?? r.stderr.toString()}`)
}

async function makeCa (dir: string, name: string): Promise<void> {
  await openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`,
    '-days', '2', '-subj', `/CN=${name}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'])
}

async function makeLeaf (dir: string, name: string, ca: string, san: string): Promise<CertPair> {
  await openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`])
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`)
  await openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-set_serial', `0x${Date.now().toString(16)}`, '-days', '2', '-out', `${name}.pem`, '-extfile', `${name}.ext`])
  return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') }
}

/** Generates all material under `dir` (created if missing). */
export async function makeTls (dir: string): Promise<TlsMaterial> {
  mkdirSync(dir, { recursive: true })
  await makeCa(dir, 'test-ca')
  await makeCa(dir, 'other-ca')
  const good = await makeLeaf(dir, 'server', 'test-ca', 'IP:127.0.0.1,DNS:localhost')
  const wrongName = await makeLeaf(dir, 'wrong-name', 'test-ca', 'DNS:wrong.example')
  const otherCa = await makeLeaf(dir, 'other-server', 'other-ca', 'IP:127.0.0.1,DNS:localhost')
  await openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'self.key', '-out', 'self.pem',
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'])
  const selfSigned = { cert: readFileSync(join(dir, 'self.pem'), 'utf8'), key: readFileSync(join(dir, 'self.key'), 'utf8') }
  const caFile = join(dir, 'test-ca.pem')
  return { dir, caFile, caPem: readFileSync(caFile, 'utf8'), good, selfSigned, otherCa, wrongName }
}
