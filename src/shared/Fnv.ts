/**
 * FNV-1a (32 bits) of a string: the one stable, cheap hash of the code base (shard of a slice
 * key, fingerprints of filters, the sandbox's ids and dialect keys). Not for security.
 */
export const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** `fnv1a` as 8 hex digits. */
export const fnv1aHex = (text: string): string => fnv1a(text).toString(16).padStart(8, "0")
