/**
 * FNV-1a (32 bits) of a string: the one stable, cheap hash of the code base (shard of a slice
 * key, fingerprints of filters, the sandbox's ids and dialect keys). Not for security.
 */
export const fnv1a = (text: string): number => fnv1aStep(FNV1A_OFFSET, text) >>> 0

/** FNV-1a's starting value. */
export const FNV1A_OFFSET = 0x811c9dc5

/** Feeds `text` to the FNV-1a hash `h` (a signed 32-bit value; `>>> 0` for the unsigned one). */
export const fnv1aStep = (h: number, text: string): number => {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h
}

/** `fnv1a` as 8 hex digits. */
export const fnv1aHex = (text: string): string => fnv1a(text).toString(16).padStart(8, "0")
