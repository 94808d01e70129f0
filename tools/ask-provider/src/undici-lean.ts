// The one place ask-provider loads undici. `import { Agent, request } from 'undici'` runs the
// package's index.js, which builds every dispatcher, the mock agents, the cache stores, fetch,
// cookies and WebSocket before the first line of ours: ~130 ms of every ask-provider start on
// this machine, against ~55 ms for the two modules the call uses (docs/decisions.md, "Packages
// wrapped or replaced"; test/undici-lean.test.ts holds the wrapper to the package's own
// request()). The dispatcher and the request API are undici's own code, unchanged: this
// module only skips the index and does the URL split index.js's request() does.
//
// Contract: `requestOn(agent, url, options)` is undici's `request(url, { ...options,
// dispatcher: agent })` for an absolute http(s) URL.

import type { Dispatcher } from 'undici'
import Agent from 'undici/lib/dispatcher/agent.js'
import requestApi from 'undici/lib/api/api-request.js'

export { Agent }

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'>

export async function requestOn (agent: Agent, url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = new URL(url)
  return await requestApi.call(agent, { ...options, origin: u.origin, path: `${u.pathname}${u.search}` })
}
