/**
 * Time-independent details of a property (size, features, flags, address, listings' static
 * parts), computed on demand from (seed, index).
 */
import { Characteristic, Condition, Direction, EnergyRating, FloorType, View } from "../../service/schema/Enums.js"
import type { Features, LocationNode } from "./Records.js"
import type { AgencyCatalog } from "./Catalog.js"
import { COUNTRY_DATA, type CountryData, STREETS } from "./GeoData.js"
import type { Geography } from "./Geography.js"
import type { Core } from "./PropertyCore.js"
import { below, between, hash3, makePicker, unit } from "./Hash.js"

/** Property ids are the index plus this; listing ids are LISTING_BASE + index * 8 + j. */
export const PROPERTY_BASE = 1_000_000
export const LISTING_BASE = 10_000_000
export const MAX_LISTINGS = 8

export interface ListingStatic {
  readonly listingId: number
  readonly j: number
  readonly agencyIndex: number
  readonly agency: string
  readonly portal: string
  readonly uid: string
  /** Listing ended before the property did (an old advert still indexed). */
  readonly stale: boolean
}

export interface Details {
  readonly p: number
  readonly propertyId: number
  readonly cd: CountryData
  readonly leaf: number
  readonly location: LocationNode
  readonly structure: ReadonlyArray<LocationNode>
  readonly municipality: string
  readonly type: string
  readonly typeGroup: string
  readonly rent: boolean
  readonly currency: string
  readonly totalArea: number
  readonly livingArea: number
  readonly plotArea: number
  readonly terraceArea: number
  readonly bedrooms: number
  readonly bathrooms: number
  readonly rooms: number
  readonly constructionYear: number
  readonly parkings: number | null
  readonly floorNumber: number
  readonly condition: string
  readonly features: Features
  readonly isPrivate: boolean
  readonly isAuction: boolean
  readonly isBank: boolean
  readonly isNewDevelopment: boolean
  readonly energyRating: string
  readonly heating: string | null
  readonly address: string
  readonly zip: string
  readonly latitude: number
  readonly longitude: number
  readonly title: string
  readonly description: string
  readonly cadastral: string | null
  readonly listings: ReadonlyArray<ListingStatic>
}

const D = {
  cond: 40,
  year: 41,
  bath: 42,
  park: 43,
  floor: 44,
  orient: 45,
  views: 46,
  dirs: 47,
  chars: 48,
  flags: 49,
  energy: 50,
  heat: 51,
  street: 52,
  num: 53,
  terrace: 54,
  plot: 55,
  agency: 56,
  portal: 57,
  stale: 58
} as const
const pickCondition = makePicker([55, 3, 20, 10, 12])
const pickEnergy = makePicker([15, 2, 5, 10, 18, 20, 14, 8, 5, 3])
const HEATING = ["gas", "electric", "heat_pump", "oil", "district", "none"] as const

/** Listing uid on the source site: invertible ("S" + base-36 of the id xor a mask). */
export const uidOf = (listingId: number) => `S${((listingId ^ 0x5a5a5a) >>> 0).toString(36).toUpperCase()}`
export const listingIdOfUid = (uid: string): number | undefined => {
  const m = /^S([0-9A-Z]+)$/.exec(uid)
  if (!m) return undefined
  const x = parseInt(m[1]!, 36)
  return Number.isSafeInteger(x) && x < 2 ** 31 ? (x ^ 0x5a5a5a) >>> 0 : undefined
}

const pickSome = <A>(seed: number, idx: number, salt: number, values: ReadonlyArray<A>, max: number): Array<A> => {
  const h = hash3(seed, idx, salt)
  const count = h % (max + 1)
  const out: Array<A> = []
  for (let i = 0; i < values.length && out.length < count; i++) if ((h >>> (4 + i)) & 1) out.push(values[i]!)
  return out
}

/** Position, in its country's agency list, of the agency of a property's first listing. */
export const agencyStart = (core: Core, cat: AgencyCatalog, p: number) =>
  below(core.seed, p, D.agency, cat.ofCountry[core.countryOf(p)]!.length)

/** Agency names of a property's listings, without building its details. */
export const listingAgencies = (core: Core, cat: AgencyCatalog, p: number): Array<string> => {
  const agencies = cat.ofCountry[core.countryOf(p)]!
  const nl = Math.min(core.listingsCountOf(p), agencies.length)
  const start = agencyStart(core, cat, p)
  const out: Array<string> = []
  for (let j = 0; j < nl; j++) out.push(cat.agencies[agencies[(start + j) % agencies.length]!]!.name)
  return out
}

const label = (type: string) => type.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())

export const makeDetails =
  (core: Core, geo: Geography, cat: AgencyCatalog) =>
  (p: number): Details => {
    const seed = core.seed
    const c = core.countryOf(p),
      cd = COUNTRY_DATA[c]!,
      leaf = core.leafOf(p)
    const type = core.typeOf(p),
      typeGroup = core.groupOf(p),
      rent = core.isRent(p)
    const residential = typeGroup === "apartment" || typeGroup === "house"
    const totalArea = core.areaOf(p),
      bedrooms = core.bedroomsOf(p)
    const condition = Condition.values[pickCondition(unit(seed, p, D.cond))]!
    const constructionYear = condition === "new" ? 2020 + below(seed, p, D.year, 6) : 1900 + Math.floor(unit(seed, p, D.year) ** 0.6 * 124)
    const floorNumber = type === "garage" || type === "parking" ? -1 : typeGroup === "apartment" ? below(seed, p, D.floor, 9) : 0
    const floor = typeGroup === "apartment" ? (floorNumber === 0 ? "ground" : floorNumber >= 6 ? "top" : "middle") : "no_floor"
    const views = pickSome(seed, p, D.views, View.values, 2)
    const directions = pickSome(seed, p, D.dirs, Direction.values, 2)
    const characteristics = residential
      ? pickSome(seed, p, D.chars, Characteristic.values, 5).filter((x) => !(x === "no_elevator" && floorNumber === 0))
      : []
    const features: Features = {
      floor: FloorType.values.includes(floor as never) ? floor : null,
      orientation: residential ? (unit(seed, p, D.orient) < 0.8 ? "exterior" : "interior") : null,
      view: views[0] ?? null,
      views,
      direction: directions[0] ?? null,
      directions,
      characteristics
    }
    const flags = hash3(seed, p, D.flags)
    const municipalityIdx = geo.parent[leaf]!
    const location = geo.nodes[leaf]!
    const zip = location.zip_codes[0]!
    const streets = STREETS[cd.lang]
    const address = `${streets[below(seed, p, D.street, streets.length)]} ${1 + below(seed, p, D.num, 180)}, ${zip} ${geo.nodes[municipalityIdx]!.name}`
    const agencies = cat.ofCountry[c]!
    const nl = Math.min(core.listingsCountOf(p), agencies.length)
    const start = agencyStart(core, cat, p)
    const listings: Array<ListingStatic> = []
    for (let j = 0; j < nl; j++) {
      const agencyIndex = agencies[(start + j) % agencies.length]!
      const listingId = LISTING_BASE + p * MAX_LISTINGS + j
      listings.push({
        listingId,
        j,
        agencyIndex,
        agency: cat.agencies[agencyIndex]!.name,
        portal: cd.portals[below(seed, listingId, D.portal, cd.portals.length)]!,
        uid: uidOf(listingId),
        stale: j > 0 && unit(seed, listingId, D.stale) < 0.2
      })
    }
    const rooms = residential ? bedrooms + 1 + below(seed, p, D.bath, 2) : Math.max(1, Math.round(totalArea / 30))
    const opWord = rent ? "rent" : "sale"
    return {
      p,
      propertyId: PROPERTY_BASE + p,
      cd,
      leaf,
      location,
      structure: geo.structure(leaf),
      municipality: geo.nodes[municipalityIdx]!.name,
      type,
      typeGroup,
      rent,
      currency: cd.currency,
      totalArea,
      livingArea: residential ? Math.round(totalArea * 0.88) : typeGroup === "plot" ? 0 : totalArea,
      plotArea: typeGroup === "plot" ? totalArea : typeGroup === "house" ? Math.round(totalArea * between(seed, p, D.plot, 1.2, 6)) : 0,
      terraceArea: residential && characteristics.includes("terrace") ? 4 + below(seed, p, D.terrace, 40) : 0,
      bedrooms,
      bathrooms: residential ? Math.max(1, Math.ceil(bedrooms / 2) + below(seed, p, D.bath, 2)) : typeGroup === "plot" ? 0 : 1,
      rooms,
      constructionYear,
      floorNumber,
      condition,
      features,
      parkings: unit(seed, p, D.park) < 0.3 ? null : below(seed, p, D.park, 3),
      isPrivate: (flags & 0xff) < 20,
      isAuction: ((flags >>> 8) & 0xff) < 5,
      isBank: ((flags >>> 16) & 0xff) < 10,
      isNewDevelopment: condition === "new" && ((flags >>> 24) & 0xff) < 128,
      energyRating: EnergyRating.values[pickEnergy(unit(seed, p, D.energy))]!,
      heating: residential ? HEATING[below(seed, p, D.heat, HEATING.length)]! : null,
      address,
      zip,
      latitude: core.latOf(p),
      longitude: core.lonOf(p),
      title: `${label(type)} for ${opWord} in ${location.name}`,
      description: `${label(type)} for ${opWord} in ${location.name}: ${totalArea} m²${bedrooms > 0 ? `, ${bedrooms} bedrooms` : ""}, condition ${condition}, built ${constructionYear}.`,
      cadastral:
        cd.code === "ES"
          ? `${String(p).padStart(7, "0")}VK${String(hash3(seed, p, 60) % 10000).padStart(4, "0")}S0001${String.fromCharCode(65 + (p % 26))}${String.fromCharCode(65 + (hash3(seed, p, 61) % 26))}`
          : null,
      listings
    }
  }

/** Property index of a Spanish cadastral reference built above. */
export const indexOfCadastral = (ref: string): number | undefined => {
  const m = /^(\d{7,})VK\d{4}S0001[A-Z]{2}$/.exec(ref.trim().toUpperCase())
  return m ? Number(m[1]) : undefined
}
