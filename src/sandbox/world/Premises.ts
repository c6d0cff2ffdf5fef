/**
 * Spanish commercial premises for premises search (docs/ASSUMPTIONS.md): records and a filter
 * over the body keys of `PremisesQuery`.
 */
import type { AgencyCatalog } from "./Catalog.js"
import { isoDate } from "./Dates.js"
import type { Geography } from "./Geography.js"
import { below, between, unit } from "./Hash.js"
import type { PremisesQuery, PremisesRecord } from "./Queries.js"

const KINDS: ReadonlyArray<readonly [string, string, number, number]> = [
  // type, Spanish title word, area range, sale EUR/m²
  ["retail", "Local comercial", 40, 2800],
  ["office", "Oficina", 60, 3000],
  ["warehouse", "Nave industrial", 300, 700],
  ["restaurant", "Local de restauración", 80, 2600],
  ["industrial", "Nave", 500, 500],
  ["hotel", "Edificio hotelero", 900, 2200]
]
const FEATURES = [
  "a pie de calle",
  "con escaparate",
  "con salida de humos",
  "esquinero",
  "con licencia de actividad",
  "con almacén",
  "reformado",
  "con vado"
]

export const makePremises = (seed: number, count: number, geo: Geography, cat: AgencyCatalog) => {
  const es = geo.countryIndex("ES")
  const munis = geo.nodes.flatMap((n, i) => (geo.countryOf[i] === es && n.administrative_level === "municipality" ? [i] : []))
  const agencies = cat.ofCountry[es]!
  const premises = (i: number): PremisesRecord => {
    const s = seed ^ 0x3e5
    const m = munis[below(s, i, 1, munis.length)]!
    const [type, word, minArea, psqm] = KINDS[below(s, i, 2, KINDS.length)]!
    const rent = unit(s, i, 3) < 0.6
    const area = Math.round(minArea * (1 + 9 * unit(s, i, 4) ** 2))
    const perM2 = psqm * between(s, i, 5, 0.6, 1.5) * (rent ? 0.0055 : 1)
    const price = rent ? Math.round((area * perM2) / 10) * 10 : Math.round((area * perM2) / 1000) * 1000
    const feature = FEATURES[below(s, i, 6, FEATURES.length)]!
    const muni = geo.nodes[m]!.name
    const agency = cat.agencies[agencies[below(s, i, 7, agencies.length)]!]!
    const id = `prem_${i + 1}`
    return {
      id,
      title: `${word} ${feature} en ${muni}`,
      operation: rent ? "rent" : "sale",
      municipality: muni,
      province: geo.provinceOf(m),
      price_eur: price,
      area_m2: area,
      latitude: Math.round((geo.lat[m]! + between(s, i, 8, -0.03, 0.03)) * 1e5) / 1e5,
      longitude: Math.round((geo.lon[m]! + between(s, i, 9, -0.04, 0.04)) * 1e5) / 1e5,
      premises_type: type,
      price_eur_m2: Math.round((price / area) * 100) / 100,
      description: `${word} de ${area} m² ${feature} en ${muni}, ${rent ? "en alquiler" : "en venta"}.`,
      agency: agency.name,
      listing_url: `https://www.idealista.com/inmueble/${900_000_000 + i}/`,
      published_at: isoDate(Date.UTC(2025, 0, 1) + below(s, i, 10, 520) * 86_400_000)
    }
  }
  let all: ReadonlyArray<PremisesRecord> | undefined
  const list = () => (all ??= Array.from({ length: count }, (_, i) => premises(i)))
  return { premises, search: (q: PremisesQuery) => searchPremises(list(), q) }
}

const fold = (s: string) =>
  s
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")

/**
 * Assumed: premises search filters on the keys of `PremisesQuery` (all optional, unknown keys
 * ignored): `query` words must all occur in title or description (case- and accent-insensitive),
 * municipality/province compare accent-insensitively, prices and areas inclusive. Newest first,
 * ties by id.
 */
export const searchPremises = (all: ReadonlyArray<PremisesRecord>, q: PremisesQuery): ReadonlyArray<PremisesRecord> => {
  const words = q.query
    ? fold(q.query)
        .split(/\s+/)
        .filter((w) => w.length > 0)
    : []
  const types = q.premises_types && q.premises_types.length > 0 ? new Set(q.premises_types) : undefined
  return all
    .filter((r) => {
      if (q.municipality !== undefined && fold(r.municipality) !== fold(q.municipality)) return false
      if (q.province !== undefined && fold(r.province) !== fold(q.province)) return false
      if (q.operation !== undefined && r.operation !== q.operation) return false
      if (types && !types.has(r.premises_type)) return false
      if ((q.min_price !== undefined && r.price_eur < q.min_price) || (q.max_price !== undefined && r.price_eur > q.max_price)) return false
      if ((q.min_area !== undefined && r.area_m2 < q.min_area) || (q.max_area !== undefined && r.area_m2 > q.max_area)) return false
      if (words.length > 0) {
        const text = fold(`${r.title} ${r.description}`)
        if (!words.every((w) => text.includes(w))) return false
      }
      return true
    })
    .sort((a, b) =>
      a.published_at < b.published_at ? 1 : a.published_at > b.published_at ? -1 : Number(a.id.slice(5)) - Number(b.id.slice(5))
    )
}
