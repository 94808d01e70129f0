// provider.base_url must be a canonical https URL (DESIGN §5); the rules live in core's url.ts.

import type { ExecutionConfig } from '@repairline/schemas'
import { checkBaseUrl, toolError } from '@repairline/core'

export function checkProviderBaseUrl (config: ExecutionConfig): void {
  const r = checkBaseUrl(config.provider.base_url)
  if (!r.ok) throw toolError('BASE_URL_INVALID', `provider.base_url: ${r.rule}`, { path: '/provider/base_url', hint: 'write it like https://api.example.com/v1 (lowercase, no trailing slash, no query, no credentials)' })
}
