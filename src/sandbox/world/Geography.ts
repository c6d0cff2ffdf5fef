/**
 * The location tree: country -> region -> municipality -> district (leaf). Ids are fixed by the
 * order of GeoData (countries 1..16, then depth-first), independent of the seed.
 */
import type { Coordinates, LocationNode } from "./Records.js"
import { COUNTRY_DATA, type CountryData, DISTRICT_PARTS } from "./GeoData.js"

export interface Geography {
  readonly nodes: ReadonlyArray<LocationNode>
  /** Node index (id - 1) of an id, or -1. */
  readonly indexOf: (id: number) => number
  readonly lat: Float64Array
  readonly lon: Float64Array
  /** Country index (into COUNTRY_DATA) of every node. */
  readonly countryOf: Uint8Array
  /** Node index of the parent, -1 for countries. */
  readonly parent: Int32Array
  readonly children: ReadonlyArray<ReadonlyArray<number>>
  /** Leaf (district) node indexes of each country. */
  readonly leavesOfCountry: ReadonlyArray<Int32Array>
  /** Province of a municipality node (Spain), else its region's name. */
  readonly provinceOf: (nodeIndex: number) => string
  /** From the node up to its country (cached). */
  readonly structure: (nodeIndex: number) => ReadonlyArray<LocationNode>
  /** Marks every node at or below any of the given ids (unknown ids ignored). */
  readonly maskOf: (ids: ReadonlyArray<number>) => Uint8Array
  readonly countryIndex: (code: string) => number
}

/** Next zip of a base: increments its trailing digits (keeping width), else appends a counter. */
const zipAt = (base: string, i: number): string => {
  const m = /^(.*?)(\d+)$/.exec(base)
  if (!m) return `${base}${i + 1}`
  const n = String(Number(m[2]) + i).padStart(m[2]!.length, "0")
  return `${m[1]}${n}`
}

const OFFSETS: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [0.025, 0],
  [-0.025, 0],
  [0, 0.035],
  [0, -0.035],
  [0.008, 0.008]
]

export const buildGeography = (): Geography => {
  const nodes: Array<LocationNode> = []
  const lat: Array<number> = []
  const lon: Array<number> = []
  const countryOf: Array<number> = []
  const parent: Array<number> = []
  const province = new Map<number, string>()
  const add = (n: Omit<LocationNode, "location_id">, c: number, p: number, la: number, lo: number) => {
    const idx = nodes.length
    nodes.push({ location_id: idx + 1, ...n })
    lat.push(la)
    lon.push(lo)
    countryOf.push(c)
    parent.push(p)
    return idx
  }
  COUNTRY_DATA.forEach((cd, c) =>
    add({ name: cd.name, administrative_level: "country", zip_codes: [], parent_id: null, country: cd.code }, c, -1, 0, 0)
  )
  COUNTRY_DATA.forEach((cd: CountryData, c) => {
    const [sep, parts] = DISTRICT_PARTS[cd.lang]
    let cLat = 0,
      cLon = 0
    for (const [regionName, munis] of cd.regions) {
      const r = add({ name: regionName, administrative_level: "region", zip_codes: [], parent_id: c + 1, country: cd.code }, c, c, 0, 0)
      let rLat = 0,
        rLon = 0
      for (const spec of munis) {
        const [name, zip, la, lo, prov] = spec.split("|") as [string, string, string, string, string | undefined]
        const mLat = Number(la),
          mLon = Number(lo)
        const nd = munis.length === 1 ? 5 : 3
        const zips = Array.from({ length: nd }, (_, i) => zipAt(zip, i))
        const m = add({ name, administrative_level: "municipality", zip_codes: zips, parent_id: r + 1, country: cd.code }, c, r, mLat, mLon)
        province.set(m, prov ?? regionName)
        for (let i = 0; i < nd; i++) {
          const [dLa, dLo] = OFFSETS[i]!
          add(
            {
              name: `${name}${sep}${parts[i]}`,
              administrative_level: "district",
              zip_codes: [zips[i]!],
              parent_id: m + 1,
              country: cd.code
            },
            c,
            m,
            round4(mLat + dLa),
            round4(mLon + dLo)
          )
        }
        rLat += mLat
        rLon += mLon
      }
      lat[r] = round4(rLat / munis.length)
      lon[r] = round4(rLon / munis.length)
      cLat += lat[r]!
      cLon += lon[r]!
    }
    lat[c] = round4(cLat / cd.regions.length)
    lon[c] = round4(cLon / cd.regions.length)
  })
  const children: Array<Array<number>> = nodes.map(() => [])
  parent.forEach((p, i) => {
    if (p >= 0) children[p]!.push(i)
  })
  const leavesOfCountry = COUNTRY_DATA.map((_, c) =>
    Int32Array.from(nodes.flatMap((n, i) => (countryOf[i] === c && n.administrative_level === "district" ? [i] : [])))
  )
  const structures = new Map<number, ReadonlyArray<LocationNode>>()
  const structure = (i: number) => {
    let s = structures.get(i)
    if (!s) {
      const out: Array<LocationNode> = []
      for (let j = i; j >= 0; j = parent[j]!) out.push(nodes[j]!)
      s = out
      structures.set(i, s)
    }
    return s
  }
  const indexOf = (id: number) => (Number.isInteger(id) && id >= 1 && id <= nodes.length ? id - 1 : -1)
  const maskOf = (ids: ReadonlyArray<number>) => {
    const mask = new Uint8Array(nodes.length)
    const mark = (i: number): void => {
      mask[i] = 1
      for (const ch of children[i]!) mark(ch)
    }
    for (const id of ids) {
      const i = indexOf(id)
      if (i >= 0) mark(i)
    }
    return mask
  }
  return {
    nodes,
    indexOf,
    children,
    leavesOfCountry,
    structure,
    maskOf,
    lat: Float64Array.from(lat),
    lon: Float64Array.from(lon),
    countryOf: Uint8Array.from(countryOf),
    parent: Int32Array.from(parent),
    provinceOf: (i) => province.get(i) ?? nodes[i]!.name,
    countryIndex: (code) => COUNTRY_DATA.findIndex((c) => c.code === code.toUpperCase())
  }
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4

/** Great-circle distance in kilometres. */
export const haversineKm = (a: Coordinates, b: Coordinates): number => {
  const R = 6371.0088
  const dLat = ((b.latitude - a.latitude) * Math.PI) / 180
  const dLon = ((b.longitude - a.longitude) * Math.PI) / 180
  const s =
    Math.sin(dLat / 2) ** 2 + Math.cos((a.latitude * Math.PI) / 180) * Math.cos((b.latitude * Math.PI) / 180) * Math.sin(dLon / 2) ** 2
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(s)))
}

/** Point in polygon (ray casting; the polygon is closed or not). */
export const inPolygon = (p: Coordinates, poly: ReadonlyArray<Coordinates>): boolean => {
  let inside = false
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const a = poly[i]!,
      b = poly[j]!
    if (
      a.latitude > p.latitude !== b.latitude > p.latitude &&
      p.longitude < ((b.longitude - a.longitude) * (p.latitude - a.latitude)) / (b.latitude - a.latitude) + a.longitude
    )
      inside = !inside
  }
  return inside
}
