// Refuses to start when the environment can weaken TLS, add trust, route through a proxy,
// or write secrets (threat-matrix §8, C6): NODE_OPTIONS (--require preloads, --tls-keylog,
// --use-openssl-ca), NODE_TLS_REJECT_UNAUTHORIZED, NODE_EXTRA_CA_CERTS, NODE_USE_ENV_PROXY,
// NODE_DEBUG, SSLKEYLOGFILE, SSL_CERT_FILE and SSL_CERT_DIR. Set at all — even empty — is
// refused: the operator removes the variable. Values are never printed.

import { toolError, type Env } from '@repairline/core'

export const HOSTILE_VARIABLES = ['NODE_OPTIONS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'NODE_EXTRA_CA_CERTS', 'NODE_USE_ENV_PROXY', 'NODE_DEBUG', 'SSLKEYLOGFILE', 'SSL_CERT_FILE', 'SSL_CERT_DIR'] as const

export function assertNoHostileEnvironment (env: Env): void {
  const set = HOSTILE_VARIABLES.filter(v => env[v] !== undefined)
  if (set.length > 0) {
    throw toolError('HOSTILE_ENVIRONMENT', `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set; each can weaken TLS, add trust, route through a proxy or write secrets`, { hint: `unset ${set.join(' ')} and run ask-provider again` })
  }
}
