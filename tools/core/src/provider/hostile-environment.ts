// The environment variables that can weaken TLS, add trust, route through a proxy or write
// secrets in the process that calls the provider (threat-matrix §8, C6): NODE_OPTIONS
// (--require preloads, --tls-keylog, --use-openssl-ca), NODE_TLS_REJECT_UNAUTHORIZED,
// NODE_EXTRA_CA_CERTS, NODE_USE_ENV_PROXY, NODE_DEBUG, SSLKEYLOGFILE, SSL_CERT_FILE and
// SSL_CERT_DIR. Set at all — even empty — is refused: the operator removes the variable.
// ask-provider refuses to start with one set; admit run refuses too, before anything is
// consumed, since the pipe it starts would reach ask-provider with the same environment.
// Values are never printed.

import { toolError } from '../errors.ts'

export const HOSTILE_VARIABLES = ['NODE_OPTIONS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'NODE_EXTRA_CA_CERTS', 'NODE_USE_ENV_PROXY', 'NODE_DEBUG', 'SSLKEYLOGFILE', 'SSL_CERT_FILE', 'SSL_CERT_DIR'] as const

/**
 * Throws HOSTILE_ENVIRONMENT (78) naming every such variable that is set; `rerun` is the
 * hint's second half: what to run once they are unset.
 */
export function assertNoHostileEnvironment (env: Readonly<Record<string, string | undefined>>, rerun: string): void {
  const set = HOSTILE_VARIABLES.filter(v => env[v] !== undefined)
  if (set.length > 0) {
    throw toolError('HOSTILE_ENVIRONMENT', `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set; each can weaken TLS, add trust, route through a proxy or write secrets`, { hint: `unset ${set.join(' ')}, then ${rerun}` })
  }
}
