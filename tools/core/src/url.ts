// provider.base_url (DESIGN §5): a canonical https URL. Checked by hand, rule by rule, so
// each refusal names its rule, then cross-checked against the WHATWG parser: a URL the
// parser would rewrite is not canonical. The client appends /responses.

export type BaseUrlCheck = { ok: true, url: string, host: string, port: number } | { ok: false, rule: string }

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/

/** Checks base_url; returns the first rule it breaks. */
export function checkBaseUrl (s: string): BaseUrlCheck {
  if (Buffer.byteLength(s) > 4096) return { ok: false, rule: 'longer than 4096 bytes' }
  if (!/^[\x21-\x7e]+$/.test(s)) return { ok: false, rule: 'must be printable ASCII without spaces' }
  if (!s.startsWith('https://')) return { ok: false, rule: s.toLowerCase().startsWith('https://') ? 'scheme must be lowercase https' : 'scheme must be https' }
  if (s.includes('%')) return { ok: false, rule: 'percent-escapes are not allowed' }
  if (s.includes('?')) return { ok: false, rule: 'a query is not allowed' }
  if (s.includes('#')) return { ok: false, rule: 'a fragment is not allowed' }
  const rest = s.slice('https://'.length)
  const slash = rest.indexOf('/')
  const authority = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? '' : rest.slice(slash)
  if (authority.includes('@')) return { ok: false, rule: 'userinfo is not allowed' }
  let host: string
  let portText: string | undefined
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']')
    if (close === -1) return { ok: false, rule: 'unterminated IPv6 literal' }
    host = authority.slice(0, close + 1)
    const after = authority.slice(close + 1)
    if (after !== '' && !after.startsWith(':')) return { ok: false, rule: 'junk after the IPv6 literal' }
    portText = after === '' ? undefined : after.slice(1)
  } else {
    const colon = authority.lastIndexOf(':')
    host = colon === -1 ? authority : authority.slice(0, colon)
    portText = colon === -1 ? undefined : authority.slice(colon + 1)
  }
  if (host === '') return { ok: false, rule: 'the host is empty' }
  if (host !== host.toLowerCase()) return { ok: false, rule: 'the host must be lowercase' }
  if (!host.startsWith('[') && !IPV4.test(host)) {
    if (/^[0-9.]+$/.test(host)) return { ok: false, rule: 'not a canonical IPv4 literal' }
    const labels = host.split('.')
    if (labels.some(l => !DNS_LABEL.test(l)) || host.length > 253) return { ok: false, rule: 'the host is not a DNS name or IP literal' }
  }
  let port = 443
  if (portText !== undefined) {
    if (!/^[1-9][0-9]{0,4}$/.test(portText)) return { ok: false, rule: 'the port must be 1–65535 without leading zeros' }
    port = Number(portText)
    if (port > 65535) return { ok: false, rule: 'the port must be 1–65535' }
    if (port === 443) return { ok: false, rule: 'the default port 443 must not be written out' }
  }
  if (path !== '') {
    if (path.endsWith('/')) return { ok: false, rule: 'a trailing slash is not allowed' }
    for (const seg of path.slice(1).split('/')) {
      if (seg === '') return { ok: false, rule: 'an empty path segment is not allowed' }
      if (seg === '.' || seg === '..') return { ok: false, rule: 'dot segments are not allowed' }
      if (!SEGMENT.test(seg)) return { ok: false, rule: 'the path holds a character that needs escaping' }
    }
  }
  let parsed: URL
  try {
    parsed = new URL(s)
  } catch {
    return { ok: false, rule: 'not a URL' }
  }
  const expected = path === '' ? `${s}/` : s
  if (parsed.href !== expected) return { ok: false, rule: `not canonical (the URL parser reads it as ${parsed.href})` }
  return { ok: true, url: s, host: host.startsWith('[') ? host.slice(1, -1) : host, port }
}

/** The endpoint the client calls. */
export function responsesUrl (baseUrl: string): string {
  return `${baseUrl}/responses`
}
