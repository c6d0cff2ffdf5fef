/**
 * Full records of a property: the token host's property record, its listings, the alert
 * record of one of its events, the comparable result and the Property Sourcing views.
 */
import type {
  AlertRecord,
  ComparableResult,
  LegacyHistoryItem,
  Listing,
  PropertyRecord,
  RentPriceHistoryItem,
  RentStatusHistoryItem,
  SalePriceHistoryItem,
  SaleStatusHistoryItem,
  SourcingDetail,
  SourcingProperty
} from "./Records.js"
import type { AgencyCatalog } from "./Catalog.js"
import { isoDate, isoDateTime, DAY_MS } from "./Dates.js"
import { type Details, type ListingStatic, PROPERTY_BASE, listingAgencies } from "./Details.js"
import type { Geography } from "./Geography.js"
import { between, hash3, unit } from "./Hash.js"
import { type Core, K_DOWN, K_UP, PHOTO_DELAY_MS, SUBTYPES } from "./PropertyCore.js"
import { type Timeline, type TimelineEvent, timeOnMarket } from "./Timeline.js"

export const PROPERTY_URL = "https://www.sandbox-estates.example/properties/"
const IMG = "https://img.sandbox-estates.example"

const PHONE_PREFIX: Record<string, string> = {
  ES: "+34",
  PT: "+351",
  FR: "+33",
  IT: "+39",
  DE: "+49",
  GR: "+30",
  AD: "+376",
  GB: "+44",
  NL: "+31",
  BE: "+32",
  AT: "+43",
  CH: "+41",
  IE: "+353",
  PL: "+48",
  HR: "+385",
  CY: "+357"
}

export const listingUrlOf = (l: ListingStatic) => `https://www.${l.portal}/listing/${l.uid}`
export const refOf = (l: ListingStatic) => `REF-${l.listingId}`

/** Makes the record builders of a world. */
export const makeRecords = (core: Core, cat: AgencyCatalog) => {
  const seed = core.seed
  const money = (d: Details, price: number) => ({
    price,
    base: core.eur(d.p, price),
    psqm: d.totalArea > 0 ? round2(price / d.totalArea) : null,
    psqmBase: d.totalArea > 0 ? round2(core.eur(d.p, price) / d.totalArea) : null
  })

  /** Sale and rent values of a property at a price and status. */
  const values = (d: Details, price: number, status: string) => {
    const m = money(d, price)
    return d.rent
      ? {
          sale_status: "none",
          sale_currency: null,
          sale_price: null,
          sale_price_base: null,
          sale_price_per_sqm: null,
          sale_price_per_sqm_base: null,
          rent_status: status,
          rent_currency: d.currency,
          rent_price: m.price,
          rent_price_base: m.base,
          rent_price_per_sqm: m.psqm,
          rent_price_per_sqm_base: m.psqmBase,
          rent_period: "month"
        }
      : {
          sale_status: status,
          sale_currency: d.currency,
          sale_price: m.price,
          sale_price_base: m.base,
          sale_price_per_sqm: m.psqm,
          sale_price_per_sqm_base: m.psqmBase,
          rent_status: "none",
          rent_currency: null,
          rent_price: null,
          rent_price_base: null,
          rent_price_per_sqm: null,
          rent_price_per_sqm_base: null,
          rent_period: "none"
        }
  }

  const contacts = (d: Details, l: ListingStatic) => ({
    name: d.isPrivate ? `Owner ${d.propertyId}` : null,
    email: d.isPrivate ? null : `info@${cat.domainOf(l.agencyIndex)}`,
    phone: `${PHONE_PREFIX[d.cd.code]} ${String(hash3(seed, l.listingId, 70) % 1_000_000_000).padStart(9, "0")}`
  })
  const pictures = (d: Details, l: ListingStatic, thumb: boolean) =>
    Array.from({ length: hash3(seed, l.listingId, 71) % 4 }, (_, i) => `${IMG}/${d.propertyId}/${l.j}/${i}${thumb ? "_t" : ""}.jpg`)

  const listing = (d: Details, l: ListingStatic, tl: Timeline, nowMs: number): Listing => {
    const active = !l.stale && (tl.status === "active" || tl.status === "reserved")
    const v = values(d, tl.price, active ? tl.status : l.stale ? "none" : tl.status)
    const jitter = l.j === 0 ? 0 : Math.round(between(seed, l.listingId, 72, -3, 3))
    const created = Math.min(nowMs, (tl.cycleStart ?? core.startMs) + l.j * DAY_MS)
    const de = d.cd.code === "DE"
    return {
      listing_id: l.listingId,
      total_area: Math.max(1, d.totalArea + jitter),
      plot_area: d.plotArea,
      terrace_area: d.terraceArea,
      bedrooms: d.bedrooms,
      bathrooms: d.bathrooms,
      rooms: d.rooms,
      sale_status: v.sale_status,
      sale_currency: v.sale_currency,
      sale_price: v.sale_price,
      sale_price_base: v.sale_price_base,
      rent_status: v.rent_status,
      rent_currency: v.rent_currency,
      rent_price: v.rent_price,
      rent_price_base: v.rent_price_base,
      agency_legal_id: d.cd.code === "FR" ? String(300_000_000 + (hash3(seed, l.agencyIndex, 73) % 600_000_000)) : null,
      agency: l.agency,
      listing_url: active ? listingUrlOf(l) : null,
      listing_old_url: active ? null : listingUrlOf(l),
      description: `${d.description} Advertised by ${l.agency}.`,
      listing_uid: l.uid,
      construction_year: d.constructionYear,
      source_name: l.portal,
      contacts_info: contacts(d, l),
      energy_certificate: d.energyRating,
      energy_rating: d.energyRating,
      heating_type: d.heating,
      ceiling_label: de ? round2(2.4 + unit(seed, d.p, 74) * 0.8) : null,
      commission: de ? (d.rent ? 2.38 : 3.57) : null,
      min_rent_area: de && d.rent ? Math.round(d.totalArea * 0.5) : null,
      companies: [{ name: l.agency, casafari_connect_on: unit(seed, l.agencyIndex, 75) < 0.1 }],
      created_at: isoDate(created),
      floor_number: d.floorNumber,
      is_private: d.isPrivate,
      casafari_connect: unit(seed, l.agencyIndex, 75) < 0.1,
      thumbnails: pictures(d, l, true),
      pictures: pictures(d, l, false),
      ref_numbers: [refOf(l)],
      is_private_property: d.isPrivate,
      is_auction_property: d.isAuction,
      is_bank_property: d.isBank
    }
  }

  const property = (d: Details, tl: Timeline, nowMs: number): PropertyRecord => {
    const nowDate = isoDate(nowMs)
    const salePH: Array<SalePriceHistoryItem> = [],
      rentPH: Array<RentPriceHistoryItem> = []
    const saleSH: Array<SaleStatusHistoryItem> = [],
      rentSH: Array<RentStatusHistoryItem> = []
    const legacy: Array<LegacyHistoryItem> = []
    const priceEvents = tl.events.filter((ev) => ev.kind === K_UP || ev.kind === K_DOWN)
    const statusEvents = tl.events.filter((ev) => ev.kind !== K_UP && ev.kind !== K_DOWN)
    priceEvents.forEach((ev, i) => {
      const end = i + 1 < priceEvents.length ? isoDate(priceEvents[i + 1]!.t) : nowDate
      if (d.rent) rentPH.push({ date_start: isoDate(ev.t), date_end: end, rent_price_old: ev.priceBefore, rent_price_new: ev.price })
      else salePH.push({ date_start: isoDate(ev.t), date_end: end, sale_price_old: ev.priceBefore, sale_price_new: ev.price })
    })
    statusEvents.forEach((ev, i) => {
      const end = i + 1 < statusEvents.length ? isoDate(statusEvents[i + 1]!.t) : nowDate
      if (d.rent) rentSH.push({ date_start: isoDate(ev.t), date_end: end, rent_status_old: ev.statusBefore, rent_status_new: ev.status })
      else saleSH.push({ date_start: isoDate(ev.t), date_end: end, sale_status_old: ev.statusBefore, sale_status_new: ev.status })
    })
    for (const ev of tl.events) {
      if (ev.kind !== 0 && ev.kind !== K_UP && ev.kind !== K_DOWN) continue
      legacy.push({
        sale_price: d.rent ? null : ev.price,
        sale_currency: d.rent ? null : d.currency,
        rent_price: d.rent ? ev.price : null,
        rent_currency: d.rent ? d.currency : null,
        changed_at: isoDate(ev.t)
      })
    }
    const last = priceEvents[priceEvents.length - 1]
    const lastChange = last ? { change_date: isoDate(last.t), old_value: last.priceBefore, new_value: last.price } : null
    // Assumed: one property in seven was already on the market when tracking began (its first cycle only).
    const firstCycle = tl.events.length <= core.cycleLengthOf(d.p)
    const tom = timeOnMarket(tl, nowMs, d.p % 7 === 0 && firstCycle)
    const lastEvent = tl.events[tl.events.length - 1]
    return {
      property_id: d.propertyId,
      primary_listing_id: d.listings[0]!.listingId,
      type: d.type,
      type_group: d.typeGroup,
      operations: [d.rent ? "rent" : "sale"],
      property_url: `${PROPERTY_URL}${d.propertyId}`,
      changed_at: isoDate(lastEvent?.t ?? core.startMs),
      location: d.location,
      locations_structure: d.structure,
      coordinates: { latitude: d.latitude, longitude: d.longitude },
      address: d.address,
      zip_code: d.zip,
      distance: null,
      total_area: d.totalArea,
      living_area: d.livingArea,
      plot_area: d.plotArea,
      terrace_area: d.terraceArea,
      bathrooms: d.bathrooms,
      bedrooms: d.bedrooms,
      rooms: d.rooms,
      construction_year: d.constructionYear,
      number_of_parkings: d.parkings,
      floor_number: d.floorNumber,
      description: d.description,
      condition: d.condition,
      features: d.features,
      is_private_property: d.isPrivate,
      is_auction_property: d.isAuction,
      is_bank_property: d.isBank,
      ...values(d, tl.price, tl.status),
      sale_time_on_market: d.rent ? null : tom,
      rent_time_on_market: d.rent ? tom : null,
      sale_price_history: salePH,
      rent_price_history: rentPH,
      sale_status_history: saleSH,
      rent_status_history: rentSH,
      history: legacy,
      sale_price_last_change: d.rent ? null : lastChange,
      rent_price_last_change: d.rent ? lastChange : null,
      listings: d.listings.map((l) => listing(d, l, tl, nowMs))
    }
  }

  /**
   * The alert of one event. Values (`old_value`/`new_value`): prices for price events, statuses for
   * status events. Assumed: a `new` alert has old_value "" and new_value the listing price.
   */
  const alert = (d: Details, ev: TimelineEvent, nowMs: number): AlertRecord => {
    const subtype = SUBTYPES[ev.kind]!
    const op = d.rent ? "rent" : "sale"
    const alertType = ev.kind === 0 ? "new" : ev.kind === K_UP || ev.kind === K_DOWN ? `${op}_price` : `${op}_status`
    const [oldValue, newValue] =
      ev.kind === 0
        ? ["", String(ev.price)]
        : ev.kind === K_UP || ev.kind === K_DOWN
          ? [String(ev.priceBefore), String(ev.price)]
          : [ev.statusBefore, ev.status]
    const l = ev.kind === 0 ? d.listings[0]! : d.listings[hash3(seed, ev.e, 76) % d.listings.length]!
    const active = ev.status === "active" || ev.status === "reserved"
    const withPhotos = ev.t + PHOTO_DELAY_MS <= nowMs ? ev.t + PHOTO_DELAY_MS : null
    const v = values(d, ev.price, ev.status)
    return {
      alert_id: ev.e + 1,
      listing_id: l.listingId,
      ref: refOf(l),
      alert_type: alertType,
      alert_subtype: subtype,
      old_value: oldValue,
      new_value: newValue,
      alert_date: isoDate(ev.t),
      alert_date_and_time: isoDateTime(ev.t),
      property_url: `${PROPERTY_URL}${d.propertyId}`,
      listing_url: active ? listingUrlOf(l) : null,
      listing_old_url: active ? null : listingUrlOf(l),
      listing_uid: l.uid,
      property_id: d.propertyId,
      title: d.title,
      type: d.type,
      type_group: d.typeGroup,
      location: d.location,
      locations_structure: d.structure,
      address: d.address,
      zip_code: d.zip,
      cadastral_reference: d.cadastral,
      coordinates: { latitude: d.latitude, longitude: d.longitude },
      condition: d.condition,
      contacts_info: contacts(d, l),
      ...areasAndRooms(d),
      construction_year: d.constructionYear,
      features: d.features,
      operations: [op],
      is_bank_property: d.isBank,
      is_auction_property: d.isAuction,
      is_new_development_property: d.isNewDevelopment,
      is_private_property: d.isPrivate,
      sale_status: v.sale_status,
      sale_currency: v.sale_currency,
      sale_price_base: v.sale_price_base,
      sale_price: v.sale_price,
      sale_price_per_sqm: v.sale_price_per_sqm,
      sale_price_per_sqm_base: v.sale_price_per_sqm_base,
      rent_status: v.rent_status,
      rent_currency: v.rent_currency,
      rent_price_base: v.rent_price_base,
      rent_price: v.rent_price,
      rent_price_per_sqm: v.rent_price_per_sqm,
      rent_price_per_sqm_base: v.rent_price_per_sqm_base,
      rent_period: v.rent_period,
      agency_legal_id: d.cd.code === "FR" ? String(300_000_000 + (hash3(seed, l.agencyIndex, 73) % 600_000_000)) : null,
      agency: l.agency,
      agent: cat.agents[l.agencyIndex * 3 + (hash3(seed, l.listingId, 77) % 3)]?.name ?? null,
      source_name: l.portal,
      description: d.description,
      thumbnails: pictures(d, l, true),
      pictures: pictures(d, l, false),
      created_at: isoDateTime(ev.t),
      created_at_with_photos: withPhotos === null ? null : isoDateTime(withPhotos),
      updated_at: isoDateTime(withPhotos ?? ev.t),
      energy_certificate: d.energyRating,
      energy_rating: d.energyRating,
      heating_type: d.heating,
      available_from: d.rent ? isoDate(ev.t + 14 * DAY_MS) : null,
      available_to: null
    }
  }

  const comparable = (d: Details, tl: Timeline, distanceKm: number | null): ComparableResult => {
    const v = values(d, tl.price, tl.status)
    return {
      property_id: d.propertyId,
      property_url: `${PROPERTY_URL}${d.propertyId}`,
      primary_listing_id: d.listings[0]!.listingId,
      type: d.type,
      type_group: d.typeGroup,
      coordinates: { latitude: d.latitude, longitude: d.longitude },
      location: d.location,
      locations_structure: d.structure,
      address: d.address,
      zip_code: d.zip,
      distance: distanceKm === null ? null : round3(distanceKm),
      construction_year: d.constructionYear,
      ...areasAndRooms(d),
      floor_number: d.floorNumber,
      condition: d.condition,
      features: d.features,
      operations: [d.rent ? "rent" : "sale"],
      sale_status: v.sale_status,
      sale_currency: v.sale_currency,
      sale_price: v.sale_price,
      sale_price_base: v.sale_price_base,
      sale_price_per_sqm: v.sale_price_per_sqm,
      sale_price_per_sqm_base: v.sale_price_per_sqm_base,
      rent_status: v.rent_status,
      rent_currency: v.rent_currency,
      rent_price: v.rent_price,
      rent_price_base: v.rent_price_base
    }
  }

  return { property, alert, comparable, values }
}

/** Property Sourcing search result from cheap core values only (no details or full record built). */
export const sourcingOf = (
  core: Core,
  geo: Geography,
  cat: AgencyCatalog,
  p: number,
  price: number,
  lastEventT: number | undefined
): SourcingProperty => {
  const leaf = geo.nodes[core.leafOf(p)]!
  const agencies = listingAgencies(core, cat, p)
  return {
    id: `prop_${PROPERTY_BASE + p}`,
    property_id: PROPERTY_BASE + p,
    country: leaf.country,
    location_id: leaf.location_id,
    location_name: leaf.name,
    type: core.typeOf(p),
    type_group: core.groupOf(p),
    operation: core.isRent(p) ? "rent" : "sale",
    price_eur: core.eur(p, price),
    area_m2: core.areaOf(p),
    bedrooms: core.bedroomsOf(p),
    latitude: core.latOf(p),
    longitude: core.lonOf(p),
    listings_count: agencies.length,
    agencies,
    updated_at: isoDateTime(lastEventT ?? core.startMs)
  }
}

export const sourcingDetailOf = (s: SourcingProperty, d: Details, status: string): SourcingDetail => ({
  ...s,
  bathrooms: d.bathrooms,
  plot_area_m2: d.plotArea,
  living_area_m2: d.livingArea,
  construction_year: d.constructionYear,
  energy_rating: d.energyRating,
  condition: d.condition,
  features: {
    floor: d.features.floor,
    orientation: d.features.orientation,
    views: d.features.views,
    directions: d.features.directions,
    characteristics: d.features.characteristics
  },
  address: d.address,
  description: d.description,
  status
})

/** Areas and room counts in the order alerts and comparables carry them. */
const areasAndRooms = (d: Details) => ({
  total_area: d.totalArea,
  living_area: d.livingArea,
  plot_area: d.plotArea,
  terrace_area: d.terraceArea,
  bedrooms: d.bedrooms,
  rooms: d.rooms,
  bathrooms: d.bathrooms
})

const round2 = (x: number) => Math.round(x * 100) / 100
const round3 = (x: number) => Math.round(x * 1000) / 1000
