/**
 * Properties inside an area (location ids, polygon, circle), found through the per-district
 * index: only districts near the area are scanned.
 */
import type { Coordinates } from "./Records.js"
import { type Geography, haversineKm, inPolygon } from "./Geography.js"
import type { Core } from "./PropertyCore.js"
import type { PropertyIndex } from "./PropertyIndex.js"

/** How far a property may lie from its district's centre (km, with margin). */
const SPREAD_KM = 3

export interface Area {
  readonly location_ids?: ReadonlyArray<number> | undefined
  readonly polygon?: ReadonlyArray<Coordinates> | undefined
  readonly circle?: { readonly radiusKm: number; readonly center: Coordinates } | undefined
}

export interface Hit {
  readonly p: number
  /** km from the circle's centre, null for other areas. */
  readonly distance: number | null
}

export const makeSpatial = (core: Core, geo: Geography, index: PropertyIndex) => {
  const leaves = geo.nodes.flatMap((n, i) => (n.administrative_level === "district" ? [i] : []))
  const centre = (i: number): Coordinates => ({ latitude: geo.lat[i]!, longitude: geo.lon[i]! })
  const pos = (p: number): Coordinates => ({ latitude: core.latOf(p), longitude: core.lonOf(p) })

  /** The district leaves of a set of location ids (each once, ascending). */
  const leavesOf = (ids: ReadonlyArray<number>): Array<number> => {
    const mask = geo.maskOf(ids)
    return leaves.filter((leaf) => mask[leaf] === 1)
  }

  /** Properties in the area, ascending by index (or by distance for circles when `byDistance`). */
  const within = (area: Area, countries?: ReadonlySet<number>): Array<Hit> => {
    const out: Array<Hit> = []
    const okCountry = (leaf: number) => !countries || countries.has(geo.countryOf[leaf]!)
    if (area.location_ids && area.location_ids.length > 0) {
      const mask = geo.maskOf(area.location_ids)
      for (const leaf of leaves) if (mask[leaf] && okCountry(leaf)) for (const p of index.ofLeaf(leaf)) out.push({ p, distance: null })
    } else if (area.polygon && area.polygon.length >= 3) {
      const poly = area.polygon
      const lats = poly.map((c) => c.latitude),
        lons = poly.map((c) => c.longitude)
      const m = 0.05
      const [minLat, maxLat, minLon, maxLon] = [Math.min(...lats) - m, Math.max(...lats) + m, Math.min(...lons) - m, Math.max(...lons) + m]
      for (const leaf of leaves) {
        if (!okCountry(leaf) || geo.lat[leaf]! < minLat || geo.lat[leaf]! > maxLat || geo.lon[leaf]! < minLon || geo.lon[leaf]! > maxLon)
          continue
        for (const p of index.ofLeaf(leaf)) if (inPolygon(pos(p), poly)) out.push({ p, distance: null })
      }
    } else if (area.circle) {
      const { center, radiusKm } = area.circle
      for (const leaf of leaves) {
        if (!okCountry(leaf) || haversineKm(center, centre(leaf)) > radiusKm + SPREAD_KM) continue
        for (const p of index.ofLeaf(leaf)) {
          const d = haversineKm(center, pos(p))
          if (d <= radiusKm) out.push({ p, distance: d })
        }
      }
      return out.sort((a, b) => a.distance! - b.distance! || a.p - b.p)
    }
    return out.sort((a, b) => a.p - b.p)
  }
  return { within, pos, leavesOf, ofLeaf: index.ofLeaf }
}
export type Spatial = ReturnType<typeof makeSpatial>
