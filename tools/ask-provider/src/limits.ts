// The bounds of the one provider call. Not configurable by the operator (DESIGN §5); tests
// pass smaller ones in-process. The total deadline is also bounded by the attempt's own
// deadline, whichever comes first.

export interface ProviderLimits {
  /** TCP + TLS handshake. */
  connectTimeoutMs: number
  /** From the request being sent to the response headers (a reasoning model may think long). */
  headersTimeoutMs: number
  /** Longest silence between two body chunks (an idle timer: a trickle defeats it alone). */
  bodyTimeoutMs: number
  /** The whole call, start to last byte: the only bound a 1-byte trickle cannot stretch. */
  totalMs: number
  /** Response body bytes kept; one more and the call is refused. */
  maxResponseBytes: number
  /** The token helper's run time. */
  tokenTimeoutMs: number
  /** The token helper's stdout. */
  tokenMaxBytes: number
  /** The token helper file itself (it is copied before it is hashed and run). */
  helperMaxBytes: number
}

export const DEFAULT_LIMITS: Readonly<ProviderLimits> = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 300_000,
  bodyTimeoutMs: 60_000,
  totalMs: 300_000,
  maxResponseBytes: 4 << 20,
  tokenTimeoutMs: 10_000,
  tokenMaxBytes: 64 << 10,
  helperMaxBytes: 16 << 20,
})
