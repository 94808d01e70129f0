// Types for the two undici modules ask-provider imports directly (src/undici-lean.ts): the
// package publishes types for its index only. Each module's export is the index's export of
// the same name.

declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici'
  export default Agent
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici'
  /** undici's request API; `this` is the dispatcher (index.js mixes it into Dispatcher.prototype). */
  export default function request (this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>
}
