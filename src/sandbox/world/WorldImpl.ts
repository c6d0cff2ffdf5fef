/**
 * Assembles a `World` from its parts. Everything heavy (indexes, plot and premises lists) is
 * built on first use.
 */
import type { World, WorldOptions } from "./World.js"
import { makeAlerts } from "./Alerts.js"
import { makeAnalytics } from "./Analytics.js"
import { CONDITIONS, FEATURE_GROUPS, TYPE_REFERENCES, buildAgencies } from "./Catalog.js"
import { makeComparables } from "./Comparables.js"
import { DEFAULT_NOW, DEFAULT_START_DATE, parseDate } from "./Dates.js"
import { LISTING_BASE, MAX_LISTINGS, PROPERTY_BASE, indexOfCadastral, listingIdOfUid, makeDetails } from "./Details.js"
import { makeDrift } from "./Drift.js"
import { COUNTRY_DATA } from "./GeoData.js"
import { buildGeography, haversineKm } from "./Geography.js"
import { makeLeads } from "./Leads.js"
import { makePlots } from "./Plots.js"
import { makePremises } from "./Premises.js"
import { makeCore } from "./PropertyCore.js"
import { lowerBound, makePropertyIndex } from "./PropertyIndex.js"
import { PROPERTY_URL, makeRecords, sourcingDetailOf, sourcingOf } from "./PropertyRecords.js"
import type { SourcingProperty } from "./Records.js"
import { makeSpatial } from "./Spatial.js"
import { timelineOf } from "./Timeline.js"

export const buildWorld = (options: WorldOptions): World => {
  const seed = options.seed >>> 0
  const n = Math.max(1, Math.floor(options.properties ?? 20_000))
  const eventsPerDay = Math.max(1, Math.floor(options.alertsPerDay ?? Math.ceil(n / 30)))
  const startMs = parseDate(options.startDate ?? DEFAULT_START_DATE) ?? parseDate(DEFAULT_START_DATE)!
  const now = options.now ?? (() => DEFAULT_NOW)
  const geo = buildGeography()
  const cat = buildAgencies(seed, options.agencies ?? 200)
  const core = makeCore(seed, n, eventsPerDay, startMs, geo)
  const details = makeDetails(core, geo, cat)
  const records = makeRecords(core, cat)
  const index = makePropertyIndex(core, geo)
  const spatial = makeSpatial(core, geo, index)
  const alertsApi = makeAlerts(core, geo, details, records.alert)
  const plots = makePlots(seed, Math.max(0, options.plots ?? 3000), geo, cat)
  const premises = makePremises(seed, Math.max(0, options.premises ?? 2000), geo, cat)
  const drift = makeDrift(seed)

  const valid = (p: number) => Number.isInteger(p) && p >= 0 && p < n
  const sourcingAt = (p: number, nEvents: number): SourcingProperty => {
    const count = core.eventCountOf(p, nEvents)
    const last = count > 0 ? core.timeOfEvent(core.firstEventOf(p) + (count - 1) * n) : undefined
    return sourcingOf(core, geo, cat, p, core.priceAfter(p, count), last)
  }
  const sourcingProperty = (p: number, nowMs = now()) => sourcingAt(p, core.eventsUntil(nowMs))
  const sourcingDetail = (p: number, nowMs = now()) => {
    const nEvents = core.eventsUntil(nowMs),
      d = details(p)
    return sourcingDetailOf(sourcingAt(p, nEvents), d, core.statusAfter(p, core.eventCountOf(p, nEvents)))
  }
  const property = (p: number, nowMs = now()) => records.property(details(p), timelineOf(core, p, core.eventsUntil(nowMs)), nowMs)
  const indexOfPropertyId = (id: number) => (valid(id - PROPERTY_BASE) ? id - PROPERTY_BASE : undefined)
  const indexOfListingId = (id: number) => {
    if (!Number.isInteger(id) || id < LISTING_BASE) return undefined
    const p = Math.floor((id - LISTING_BASE) / MAX_LISTINGS),
      j = (id - LISTING_BASE) % MAX_LISTINGS
    return valid(p) && j < Math.min(core.listingsCountOf(p), cat.ofCountry[core.countryOf(p)]!.length) ? p : undefined
  }
  const leaves = geo.nodes.flatMap((node, i) => (node.administrative_level === "district" ? [i] : []))
  const leadsApi = makeLeads(core, geo, spatial, details, (p, nowMs) => sourcingProperty(p, nowMs))
  const comps = makeComparables(core, geo, spatial, details, records.comparable, (ref) => {
    const p = indexOfCadastral(ref)
    return p !== undefined && valid(p) && details(p).cadastral === ref.trim().toUpperCase() ? p : undefined
  })
  const analytics = makeAnalytics(core, spatial, details)

  return {
    seed,
    size: n,
    plotCount: options.plots ?? 3000,
    premisesCount: options.premises ?? 2000,
    startMs,
    eventsPerDay,
    now,
    countries: COUNTRY_DATA.map((c) => c.code),
    locations: geo.nodes,
    location: (id) => geo.nodes[geo.indexOf(id)],
    childrenOf: (id) => (geo.indexOf(id) < 0 ? [] : geo.children[geo.indexOf(id)]!.map((i) => geo.nodes[i]!)),
    locationsStructure: (id) => (geo.indexOf(id) < 0 ? [] : geo.structure(geo.indexOf(id))),
    locationCenter: (id) => {
      const i = geo.indexOf(id)
      return i < 0 ? undefined : { latitude: geo.lat[i]!, longitude: geo.lon[i]! }
    },
    locationByCoordinates: (c) => {
      let best = -1,
        bestD = 50
      for (const i of leaves) {
        const d = haversineKm(c, { latitude: geo.lat[i]!, longitude: geo.lon[i]! })
        if (d < bestD) [best, bestD] = [i, d]
      }
      return best < 0 ? undefined : geo.nodes[best]
    },
    typeahead: (country, query, limit) => {
      const fold = (s: string) =>
        s
          .toLowerCase()
          .normalize("NFD")
          .replace(/[\u0300-\u036f]/g, "")
      const q = fold(query.trim())
      const own = geo.nodes.filter((x) => x.country === country.toUpperCase() && x.administrative_level !== "country")
      const starts = own.filter((x) => fold(x.name).startsWith(q))
      const contains = own.filter((x) => !fold(x.name).startsWith(q) && fold(x.name).includes(q))
      return [...starts, ...contains].slice(0, Math.max(0, limit))
    },
    zipcodeBoundary: (cc, zip) => {
      const i = geo.nodes.findIndex(
        (x) => x.country === cc.toUpperCase() && x.administrative_level === "district" && x.zip_codes.includes(zip)
      )
      if (i < 0) return undefined
      const [la, lo, dLa, dLo] = [geo.lat[i]!, geo.lon[i]!, 0.012, 0.016]
      const r = (x: number) => Math.round(x * 1e5) / 1e5
      return [
        [la - dLa, lo - dLo],
        [la - dLa, lo + dLo],
        [la + dLa, lo + dLo],
        [la + dLa, lo - dLo],
        [la - dLa, lo - dLo]
      ].map(([a, b]) => ({ latitude: r(a!), longitude: r(b!) }))
    },
    agencies: cat.agencies,
    agents: cat.agents,
    featureGroups: FEATURE_GROUPS,
    conditions: CONDITIONS,
    types: TYPE_REFERENCES,
    sources: (id) => {
      const i = geo.indexOf(id)
      if (i < 0) return undefined
      const c = geo.countryOf[i]!
      return [...COUNTRY_DATA[c]!.portals, ...Array.from(cat.ofCountry[c]!.slice(0, 3), (a) => cat.domainOf(a))]
    },

    indexOfPropertyId,
    propertyIdOf: (p) => PROPERTY_BASE + p,
    property,
    propertyById: (id, nowMs) => {
      const p = indexOfPropertyId(id)
      return p === undefined ? undefined : property(p, nowMs)
    },
    listingIdsOf: (p) => {
      const count = Math.min(core.listingsCountOf(p), cat.ofCountry[core.countryOf(p)]!.length)
      return Array.from({ length: count }, (_, j) => LISTING_BASE + p * MAX_LISTINGS + j)
    },
    indexOfListingId,
    matchListings: (ids) => {
      const groups = new Map<number, Array<number>>()
      for (const id of ids) {
        const p = indexOfListingId(id)
        if (p === undefined) continue
        const g = groups.get(p) ?? []
        if (!g.includes(id)) g.push(id)
        groups.set(p, g)
      }
      return [...groups].map(([p, listing_ids]) => ({ property_id: PROPERTY_BASE + p, listing_ids }))
    },
    resolveUrl: (url) => {
      const listing = /\/listing\/(S[0-9A-Z]+)/.exec(url)
      if (listing) {
        const id = listingIdOfUid(listing[1]!)
        return id === undefined ? undefined : indexOfListingId(id)
      }
      const prop = new RegExp(`^${PROPERTY_URL.replace(/[.]/g, "\\.")}(\\d+)`).exec(url)
      return prop ? indexOfPropertyId(Number(prop[1])) : undefined
    },
    resolveReference: (ref) => {
      const m = /^REF-(\d+)$/.exec(ref.trim())
      if (m) return indexOfListingId(Number(m[1]))
      const id = listingIdOfUid(ref.trim())
      return id === undefined ? undefined : indexOfListingId(id)
    },
    resolveCadastral: (ref) => {
      const p = indexOfCadastral(ref)
      return p !== undefined && valid(p) && details(p).cadastral === ref.trim().toUpperCase() ? p : undefined
    },
    tokenSearch: (filter, nowMs = now()) => index.tokenMatches(filter, core.eventsUntil(nowMs)),

    sourcingProperty,
    sourcingDetail,
    indexOfSourcingId: (id) => {
      const m = /^prop_(\d+)$/.exec(id)
      return m ? indexOfPropertyId(Number(m[1])) : undefined
    },
    searchProperties: (filter, fromIndex, limit, nowMs = now()) => {
      const nEvents = core.eventsUntil(nowMs)
      const matches = index.sourcingMatches(filter, nEvents)
      const start = lowerBound(matches, Math.max(0, Math.floor(fromIndex)))
      const end = Math.min(matches.length, start + Math.max(0, Math.floor(limit)))
      const results: Array<SourcingProperty> = []
      for (let i = start; i < end; i++) results.push(sourcingAt(matches[i]!, nEvents))
      return { results, nextFrom: end < matches.length && end > start ? matches[end - 1]! + 1 : null }
    },
    countProperties: (filter, nowMs = now()) => index.sourcingMatches(filter, core.eventsUntil(nowMs)).length,

    alerts: (q) => alertsApi.alerts(q),
    alert: (id, nowMs = now()) => alertsApi.alert(id, nowMs),
    alertIdsOfProperty: (p, nowMs = now()) => {
      const count = core.eventCountOf(p, core.eventsUntil(nowMs)),
        e0 = core.firstEventOf(p)
      return Array.from({ length: count }, (_, k) => e0 + k * n + 1)
    },

    plot: (i, nowMs = now()) => plots.plot(i, nowMs),
    searchPlots: (criteria, nowMs = now()) => plots.search(criteria, nowMs),
    premises: premises.premises,
    searchPremises: premises.search,

    sellerLeads: (q) => leadsApi.sellerLeads(q, q.nowMs ?? now()),
    lead: (id, nowMs = now()) => leadsApi.lead(id, nowMs),

    comparables: (r, nowMs = now()) => comps.comparables(r, nowMs),
    valuation: (r, nowMs = now()) => comps.valuation(r, nowMs),
    timeSeries: (r, nowMs = now()) => analytics.timeSeries(r, nowMs),
    bedroomsDistribution: (f, nowMs = now()) => analytics.bedroomsDistribution(f, nowMs),
    pricesDistribution: (f, nowMs = now()) => analytics.pricesDistribution(f, nowMs),
    propertiesDistribution: (f, nowMs = now()) => analytics.propertiesDistribution(f, nowMs),
    timeOnMarketDistribution: (f, nowMs = now()) => analytics.timeOnMarketDistribution(f, nowMs),
    analysis: (f, nowMs = now()) => analytics.analysis(f, nowMs),

    isDrifted: drift.isDrifted,
    drift: drift.drift
  }
}
