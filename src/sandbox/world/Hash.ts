/**
 * Integer hashing: every generated value is `hash(seed, index, salt)` mixed with a
 * murmur3-style finaliser, so any field of any record is computable on its own.
 */
import { fnv1a } from "../../shared/Fnv.js"

/** 32-bit avalanche mix (murmur3 fmix32). */
export const mix32 = (x: number): number => {
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  x ^= x >>> 16
  return x >>> 0
}

/** Hash of (seed, index, salt) as an unsigned 32-bit integer. Index may exceed 2^32 (split in halves). */
export const hash3 = (seed: number, index: number, salt: number): number => {
  const lo = index >>> 0
  const hi = Math.floor(index / 4294967296) >>> 0
  return mix32(mix32(seed ^ Math.imul(salt, 0x9e3779b1)) ^ lo ^ Math.imul(mix32(hi + salt), 0x27d4eb2f))
}

/** Uniform in [0, 1). */
export const unit = (seed: number, index: number, salt: number): number => hash3(seed, index, salt) / 4294967296

/** Uniform integer in [0, n). */
export const below = (seed: number, index: number, salt: number, n: number): number => Math.floor(unit(seed, index, salt) * n)

/** Uniform in [lo, hi). */
export const between = (seed: number, index: number, salt: number, lo: number, hi: number): number =>
  lo + unit(seed, index, salt) * (hi - lo)

/** Picks an index by cumulative weights (`cum` ascending, last = total). */
export const pickWeighted = (cum: ArrayLike<number>, u: number): number => {
  const x = u * cum[cum.length - 1]!
  let i = 0
  while (i < cum.length - 1 && x >= cum[i]!) i++
  return i
}

/**
 * A fast weighted picker: a 4096-slot table mapping u in [0, 1) to an index, each index holding a
 * share of slots proportional to its weight (rounded; every positive weight gets at least one slot).
 */
export const makePicker = (weights: ReadonlyArray<number>): ((u: number) => number) => {
  const size = 4096
  const total = weights.reduce((s, w) => s + w, 0)
  const table = new Uint16Array(size)
  let at = 0
  weights.forEach((w, i) => {
    const n = i === weights.length - 1 ? size - at : Math.max(w > 0 ? 1 : 0, Math.round((w / total) * size))
    table.fill(i, at, Math.min(size, at + n))
    at = Math.min(size, at + n)
  })
  return (u) => table[(u * size) | 0]!
}

export const cumulative = (weights: ReadonlyArray<number>): Float64Array => {
  const out = new Float64Array(weights.length)
  let s = 0
  weights.forEach((w, i) => {
    s += w
    out[i] = s
  })
  return out
}

/** String hash (FNV-1a) for ids that are strings. */
export const hashString = (s: string): number => fnv1a(s)

/** (a * b) mod n without losing precision for a, b < n < 2^26.5 (n up to ~94M). */
export const mulMod = (a: number, b: number, n: number): number => {
  const p = a * b
  if (p < 9007199254740991) return p % n
  const hi = Math.floor(b / 65536)
  const lo = b % 65536
  return (((a * hi) % n) * 65536 + a * lo) % n
}
