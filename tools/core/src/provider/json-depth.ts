// A response body nested deeper than MAX_JSON_DEPTH is refused before it is parsed: no
// real Responses body comes close, and deep nesting is how a hostile server makes a
// recursive reader (a validator, a canonicalizer) run out of stack (threat-matrix H9).
// The scan is iterative and skips string contents.

export const MAX_JSON_DEPTH = 64

/** The deepest bracket nesting in JSON text, stopping early once past `limit`. */
export function jsonDepth (bytes: Uint8Array, limit = MAX_JSON_DEPTH): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]
    if (inString) {
      if (b === 0x5c) i++
      else if (b === 0x22) inString = false
      continue
    }
    if (b === 0x22) inString = true
    else if (b === 0x7b || b === 0x5b) {
      depth++
      if (depth > max) max = depth
      if (max > limit) return max
    } else if (b === 0x7d || b === 0x5d) depth--
  }
  return max
}
