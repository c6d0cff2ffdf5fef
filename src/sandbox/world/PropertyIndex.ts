/**
 * Lazily built indexes over the properties (typed arrays only: per country and per district)
 * and the cached match lists of searches, so a full paging costs one O(N_country) scan.
 */
import type { Geography } from "./Geography.js"
import type { Core } from "./PropertyCore.js"
import type { SourcingFilter, TokenPropertyFilter } from "./Queries.js"

export interface PropertyIndex {
  /** Property indexes of a country, ascending. */
  readonly ofCountry: (country: number) => Int32Array
  /** Property indexes of a district node (leaf), ascending. */
  readonly ofLeaf: (leaf: number) => Int32Array
  /** Matching property indexes, ascending (cached per filter and event count). */
  readonly sourcingMatches: (filter: SourcingFilter, nEvents: number) => Int32Array
  readonly tokenMatches: (filter: TokenPropertyFilter, nEvents: number) => Int32Array
}

/** A tiny LRU cache. */
export const lru = <V>(size: number) => {
  const m = new Map<string, V>()
  return (key: string, make: () => V): V => {
    const hit = m.get(key)
    if (hit !== undefined) {
      m.delete(key)
      m.set(key, hit)
      return hit
    }
    const v = make()
    m.set(key, v)
    if (m.size > size) m.delete(m.keys().next().value!)
    return v
  }
}

export const makePropertyIndex = (core: Core, geo: Geography): PropertyIndex => {
  let byCountry: ReadonlyArray<Int32Array> | undefined
  let leafStart: Int32Array | undefined
  let byLeaf: Int32Array | undefined
  const ofCountry = (c: number) => {
    if (!byCountry) {
      const country = new Uint8Array(core.n)
      const counts = new Int32Array(geo.leavesOfCountry.length)
      for (let p = 0; p < core.n; p++) counts[(country[p] = core.countryOf(p))]++
      const arrays = Array.from(counts, (k) => new Int32Array(k))
      const fill = new Int32Array(counts.length)
      for (let p = 0; p < core.n; p++) arrays[country[p]!]![fill[country[p]!]++] = p
      byCountry = arrays
    }
    return byCountry[c] ?? new Int32Array(0)
  }
  const ofLeaf = (leaf: number) => {
    if (!leafStart || !byLeaf) {
      const leafOf = new Int32Array(core.n)
      const start = new Int32Array(geo.nodes.length + 1)
      for (let p = 0; p < core.n; p++) start[(leafOf[p] = core.leafOf(p)) + 1]++
      for (let i = 0; i < geo.nodes.length; i++) start[i + 1] += start[i]!
      const fill = start.slice(0, geo.nodes.length)
      const arr = new Int32Array(core.n)
      for (let p = 0; p < core.n; p++) arr[fill[leafOf[p]!]++] = p
      leafStart = start
      byLeaf = arr
    }
    return byLeaf.subarray(leafStart[leaf]!, leafStart[leaf + 1]!)
  }
  const cache = lru<Int32Array>(12)

  /** Scans candidates (ascending) keeping those that pass `keep`. */
  const collect = (candidates: Int32Array, keep: (p: number) => boolean) => {
    const out = new Int32Array(candidates.length)
    let n = 0
    for (let i = 0; i < candidates.length; i++) {
      const p = candidates[i]!
      if (keep(p)) out[n++] = p
    }
    return out.slice(0, n)
  }
  /** Candidates for a set of location ids: the properties of their leaves, ascending. */
  const ofLocations = (ids: ReadonlyArray<number>, country?: number) => {
    const mask = geo.maskOf(ids)
    const parts: Array<Int32Array> = []
    let total = 0
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i] || geo.nodes[i]!.administrative_level !== "district") continue
      if (country !== undefined && geo.countryOf[i] !== country) continue
      const part = ofLeaf(i)
      parts.push(part)
      total += part.length
    }
    const all = new Int32Array(total)
    let o = 0
    for (const part of parts) {
      all.set(part, o)
      o += part.length
    }
    return all.sort()
  }
  const priceIn = (p: number, nEvents: number, min: number | undefined, max: number | undefined) => {
    if (min === undefined && max === undefined) return true
    const eur = core.eur(p, core.priceAfter(p, core.eventCountOf(p, nEvents)))
    return (min === undefined || eur >= min) && (max === undefined || eur <= max)
  }

  /** Assumed: sourcing search matches properties whatever their status (sold and delisted ones too). */
  const sourcingMatches = (f: SourcingFilter, nEvents: number) => {
    const priced = f.price_min !== undefined || f.price_max !== undefined
    const key = JSON.stringify([
      "s",
      f.country.toUpperCase(),
      f.location_ids ?? null,
      f.operation,
      f.types ?? null,
      f.price_min ?? null,
      f.price_max ?? null,
      f.area_min ?? null,
      f.area_max ?? null,
      f.bedrooms_min ?? null,
      priced ? nEvents : 0
    ])
    return cache(key, () => {
      const c = geo.countryIndex(f.country)
      if (c < 0) return new Int32Array(0)
      const candidates = f.location_ids && f.location_ids.length > 0 ? ofLocations(f.location_ids, c) : ofCountry(c)
      const types = f.types && f.types.length > 0 ? new Set(f.types) : undefined
      const rent = f.operation === "rent"
      return collect(candidates, (p) => {
        if (core.isRent(p) !== rent) return false
        if (types && !types.has(core.typeOf(p))) return false
        if (f.area_min !== undefined || f.area_max !== undefined) {
          const a = core.areaOf(p)
          if ((f.area_min !== undefined && a < f.area_min) || (f.area_max !== undefined && a > f.area_max)) return false
        }
        if (f.bedrooms_min !== undefined && core.bedroomsOf(p) < f.bedrooms_min) return false
        return priceIn(p, nEvents, f.price_min, f.price_max)
      })
    })
  }

  const tokenMatches = (f: TokenPropertyFilter, nEvents: number) => {
    const priced = f.min_price !== undefined || f.max_price !== undefined
    const key = JSON.stringify([
      "t",
      f.location_ids ?? null,
      f.types ?? null,
      f.operation ?? null,
      f.min_price ?? null,
      f.max_price ?? null,
      priced ? nEvents : 0
    ])
    return cache(key, () => {
      const candidates = f.location_ids && f.location_ids.length > 0 ? ofLocations(f.location_ids) : undefined
      const types = f.types && f.types.length > 0 ? new Set(f.types) : undefined
      const keep = (p: number) =>
        (f.operation === undefined || core.isRent(p) === (f.operation === "rent")) &&
        (!types || types.has(core.typeOf(p))) &&
        priceIn(p, nEvents, f.min_price, f.max_price)
      if (candidates) return collect(candidates, keep)
      if (!types && f.operation === undefined && !priced) return Int32Array.from({ length: core.n }, (_, i) => i)
      const out = new Int32Array(core.n)
      let n = 0
      for (let p = 0; p < core.n; p++) if (keep(p)) out[n++] = p
      return out.slice(0, n)
    })
  }
  return { ofCountry, ofLeaf, sourcingMatches, tokenMatches }
}

/** First position in an ascending array whose value is >= x. */
export const lowerBound = (arr: Int32Array, x: number): number => {
  let lo = 0,
    hi = arr.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (arr[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}
