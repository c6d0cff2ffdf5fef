/**
 * The keys a slice has read in this run, so a page proves progress by what it brings: a page
 * whose records are all keys read before is a repeat (a service that ignores the offset asked
 * for, or pages by a link the client did not follow), and a slice's completeness is the number
 * of distinct keys it read, never its rows.
 *
 * Keys are kept as 53-bit hashes of their text (two 32-bit FNV-1a variants) in an open-addressed
 * table of doubles outside V8's heap: about 16 bytes a key, no string kept alive. Two keys with
 * one hash would count as one; at 10 million keys in a slice the chance of any such pair is
 * about 1 in 200.
 */
import { FNV1A_OFFSET, fnv1aStep } from "../shared/Fnv.js"

/** A 53-bit hash of a key's text, never 0 (0 marks an empty slot). */
export const keyHash = (text: string): number => {
  const a = fnv1aStep(FNV1A_OFFSET, text) >>> 0
  // a second FNV-1a from another offset, of the text and its length
  const b = fnv1aStep(0x01000193 ^ text.length, text) >>> 11 // 21 bits
  const h = a * 2097152 + b
  return h === 0 ? 1 : h
}

export class SeenKeys {
  private slots: Float64Array
  private count = 0

  constructor(capacity = 64) {
    let n = 16
    while (n < capacity * 2) n *= 2
    this.slots = new Float64Array(n)
  }

  /** Distinct keys held. */
  get size(): number {
    return this.count
  }

  /** Adds a key's hash; false when it was there already. */
  add(h: number): boolean {
    if ((this.count + 1) * 2 > this.slots.length) this.grow()
    const slots = this.slots
    const mask = slots.length - 1
    for (let i = ((h % 4294967296) >>> 0) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!
      if (s === h) return false
      if (s === 0) {
        slots[i] = h
        this.count++
        return true
      }
    }
  }

  has(h: number): boolean {
    const slots = this.slots
    const mask = slots.length - 1
    for (let i = ((h % 4294967296) >>> 0) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!
      if (s === h) return true
      if (s === 0) return false
    }
  }

  private grow() {
    const old = this.slots
    this.slots = new Float64Array(old.length * 2)
    this.count = 0
    for (const h of old) if (h !== 0) this.add(h)
  }
}
