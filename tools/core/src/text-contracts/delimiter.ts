// The untrusted-payload delimiter: a fixed stem plus 16 hex digits derived from the payload
// itself, so the same retained inputs always give the same delimiter (readback re-renders
// it) and a payload can only contain its own delimiter by containing a prefix of its own
// digest. The derivation still checks, and moves to the next counter if it ever does.

export const PAYLOAD_DELIMITER_STEM = 'RL-PAYLOAD-'
