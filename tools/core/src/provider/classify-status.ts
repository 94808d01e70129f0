// What an HTTP status means for the one call (DESIGN §3, §5): 2xx is an answer to parse;
// a 3xx is a refused redirect (never followed); 429 and 5xx are provider_error with
// retryable: true (exit 69); every other status is provider_error with retryable: false.
// Nothing is retried either way. A 429 for insufficient_quota stays retryable (a new attempt
// can succeed once the account is funded); x-should-retry is recorded in response.json but
// does not change the class. A status outside 100–599 (undici accepts any three digits) is
// no HTTP answer: PROVIDER_RESPONSE_INVALID, not retryable.

/** The codes only a status line in 100–599 gives: an answer arrived, so response.json is kept. */
export const HTTP_STATUS_CODES = ['PROVIDER_REDIRECT', 'PROVIDER_RATE_LIMITED', 'PROVIDER_SERVER_ERROR', 'PROVIDER_HTTP_ERROR'] as const

export type StatusErrorCode = typeof HTTP_STATUS_CODES[number] | 'PROVIDER_RESPONSE_INVALID'

export type StatusClass =
  | { kind: 'answer' }
  | { kind: 'error', code: StatusErrorCode, retryable: boolean }

export function classifyStatus (status: number): StatusClass {
  if (!Number.isInteger(status) || status < 100 || status > 599) return { kind: 'error', code: 'PROVIDER_RESPONSE_INVALID', retryable: false }
  if (status >= 200 && status <= 299) return { kind: 'answer' }
  if (status >= 300 && status <= 399) return { kind: 'error', code: 'PROVIDER_REDIRECT', retryable: false }
  if (status === 429) return { kind: 'error', code: 'PROVIDER_RATE_LIMITED', retryable: true }
  if (status >= 500) return { kind: 'error', code: 'PROVIDER_SERVER_ERROR', retryable: true }
  return { kind: 'error', code: 'PROVIDER_HTTP_ERROR', retryable: false }
}
