/**
 * German plots for the commercial plot search: records in the spec's result shape and the
 * search (filters, the default commercial-use filter, the five sorts) as ground truth.
 *
 * Time: a plot is on the market from its `published_at` day, so advancing the sandbox clock
 * brings new plots; about a third of them are cut in price every few weeks (3 to 8% a cut, at
 * most four cuts), so a plot's `sale_eur` (and per m²) is read at "now". Assumed, like the rest
 * of the world: the spec shows no plot history.
 */
import { CommercialUseLevel, DEFAULT_COMMERCIAL_USE } from "../../service/schema/Enums.js"
import type { AgencyCatalog } from "./Catalog.js"
import { DAY_MS, isoDate } from "./Dates.js"
import { COUNTRY_DATA } from "./GeoData.js"
import type { Geography } from "./Geography.js"
import { below, between, cumulative, hash3, pickWeighted, unit } from "./Hash.js"
import type { PlotCriteria, PlotResult } from "./Queries.js"

/** Meanings of the commercial-use levels, exactly as the spec's table. */
export const LEVEL_MEANINGS: Record<string, string> = {
  zoned_commercial: "text states class GE, GI, MK or MU",
  zoned_mixed_or_special: "text states MI, SO or MD; the plan must be checked",
  commercial_use_stated: "commercial use stated as allowed or suitable, no class; the quote must be read",
  building_land_use_not_stated: "building land, use not stated",
  residential_only_stated: "residential use only",
  zoned_leisure_special: "SO for recreation",
  not_building_land_stated: "not building land",
  not_stated: "nothing stated"
}
const LEVELS = CommercialUseLevel.values
const BUILDING_CUM = cumulative([16, 11, 13, 22, 13, 3, 4, 18])
const RURAL_CUM = cumulative([2, 3, 5, 6, 3, 8, 45, 28])
const CLASSES: Record<string, ReadonlyArray<string>> = {
  zoned_commercial: ["GE", "GI", "MK", "MU"],
  zoned_mixed_or_special: ["MI", "SO", "MD"],
  zoned_leisure_special: ["SO"],
  residential_only_stated: ["WR", "WA"]
}
const CLASS_WORDS: Record<string, string> = {
  GE: "Gewerbegebiet (GE)",
  GI: "Industriegebiet (GI)",
  MK: "Kerngebiet (MK)",
  MU: "urbanes Gebiet (MU)",
  MI: "Mischgebiet (MI)",
  SO: "Sondergebiet (SO)",
  MD: "Dorfgebiet (MD)",
  WR: "reines Wohngebiet (WR)",
  WA: "allgemeines Wohngebiet (WA)"
}
const evidenceOf = (level: string, cls: string | undefined, source: string | undefined, v: number): string => {
  switch (level) {
    case "zoned_commercial":
    case "zoned_mixed_or_special":
    case "residential_only_stated":
      return cls ? `Das Grundstück liegt laut ${source} in einem ${CLASS_WORDS[cls]}.` : "Nur Wohnbebauung zulässig."
    case "zoned_leisure_special":
      return `Ausgewiesen als Sondergebiet (SO) für Erholung und Freizeit laut ${source}.`
    case "commercial_use_stated":
      return [
        "Geeignet für Gewerbe, Handwerk oder Lagerhalle.",
        "Gewerbliche Nutzung ist laut Bauamt möglich.",
        "Ideal für Logistik und Gewerbebetriebe."
      ][v % 3]!
    case "building_land_use_not_stated":
      return ["Sofort bebaubares Baugrundstück.", "Baugrundstück in gefragter Lage.", "Bauland, voll erschlossen."][v % 3]!
    case "not_building_land_stated":
      return ["Landwirtschaftliche Fläche, kein Bauland.", "Außenbereich nach §35 BauGB, keine Bebauung möglich."][v % 2]!
    default:
      return ""
  }
}
const EXTRAS = [
  "Autobahnnähe",
  "ruhige Lage",
  "Südhang",
  "Bahnanschluss",
  "Logistikstandort",
  "Einzelhandel in der Nähe",
  "Bauträger willkommen",
  "provisionsfrei"
]
const PORTALS = COUNTRY_DATA.find((c) => c.code === "DE")!.portals

export const makePlots = (seed: number, count: number, geo: Geography, cat: AgencyCatalog) => {
  const de = geo.countryIndex("DE")
  const munis = geo.nodes.flatMap((n, i) => (geo.countryOf[i] === de && n.administrative_level === "municipality" ? [i] : []))
  const deAgencies = cat.ofCountry[de]!
  const plot = (i: number): PlotResult => {
    const s = seed ^ 0x9107
    const m = munis[below(s, i, 1, munis.length)]!
    const muni = geo.nodes[m]!
    const region = geo.nodes[geo.parent[m]!]!.name
    const building = unit(s, i, 2) < 0.65
    const level = LEVELS[pickWeighted(building ? BUILDING_CUM : RURAL_CUM, unit(s, i, 3))]!
    const classes = CLASSES[level]
    const stated = classes !== undefined && (level !== "residential_only_stated" || unit(s, i, 4) < 0.6)
    const cls = stated ? classes[below(s, i, 5, classes.length)] : undefined
    const source = stated ? (unit(s, i, 6) < 0.75 ? "Bebauungsplan" : "Flächennutzungsplan") : undefined
    const area = Math.round(building ? 300 + 19_700 * unit(s, i, 7) ** 3 : 2000 + 98_000 * unit(s, i, 7) ** 2)
    const psqm = building ? between(s, i, 8, 40, 650) : between(s, i, 8, 2, 15)
    const sale = Math.max(1000, Math.round((area * psqm) / 100) * 100)
    const forRent = unit(s, i, 9) < 0.12
    const servicedKnown = unit(s, i, 10) < 0.8
    const serviced = servicedKnown ? unit(s, i, 11) < (building ? 0.75 : 0.1) : undefined
    const v = hash3(s, i, 12)
    const evidence = evidenceOf(level, cls, source === "Flächennutzungsplan" ? "Flächennutzungsplan (nicht bindend)" : source, v)
    const nLinks = below(s, i, 13, 3)
    const a0 = below(s, i, 14, deAgencies.length)
    const agencyAt = (j: number) => {
      const a = cat.agencies[deAgencies[(a0 + j) % deAgencies.length]!]!
      return { name: a.name, listing_url: `https://www.${PORTALS[(v + j) % PORTALS.length]}/expose/${100_000_000 + i * 10 + j}` }
    }
    const id = `plot_de_${String(i + 1).padStart(6, "0")}`
    const extra = EXTRAS[v % EXTRAS.length]!
    const title = `${building ? (level === "zoned_commercial" || level === "commercial_use_stated" ? "Gewerbegrundstück" : "Baugrundstück") : "Grundstück (Außenbereich)"} ${thousands(area)} m² in ${muni.name}`
    const excerpt = [
      evidence,
      serviced === undefined ? "" : serviced ? "Das Grundstück ist voll erschlossen." : "Das Grundstück ist nicht erschlossen.",
      `${extra}.`
    ]
      .filter((x) => x !== "")
      .join(" ")
    const grzKnown = building && unit(s, i, 15) < 0.4
    return {
      id,
      title,
      plot_type: building ? "building_plot" : "rural_plot",
      country: "de",
      region,
      municipality: muni.name,
      zipcode: muni.zip_codes[below(s, i, 16, muni.zip_codes.length)]!,
      location_precision: "approximate",
      coordinates: {
        lat: round4(geo.lat[m]! + between(s, i, 17, -0.05, 0.05)),
        lon: round4(geo.lon[m]! + between(s, i, 18, -0.07, 0.07)),
        precision: "approximate"
      },
      for_sale: true,
      for_rent: forRent,
      sale_eur: sale,
      rent_eur_month: forRent ? Math.max(50, Math.round((area * psqm * 0.004) / 10) * 10) : null,
      plot_area_m2: area,
      sale_eur_per_m2: Math.round((sale / area) * 100) / 100,
      commercial_use: {
        level,
        meaning: LEVEL_MEANINGS[level]!,
        evidence,
        facts_read: level !== "not_stated",
        ...(source ? { zoning_source: source === "Flächennutzungsplan" ? "Flächennutzungsplan (not binding)" : "Bebauungsplan" } : {})
      },
      facts_from_text: {
        ...(cls ? { zoning_class: cls } : {}),
        ...(serviced === undefined ? {} : { serviced }),
        ...(source === "Bebauungsplan" ? { b_plan: true } : {}),
        ...(level === "not_building_land_stated" && v % 2 === 1
          ? { planning_section: "35" as const }
          : building && v % 5 === 0
            ? { planning_section: "34" as const }
            : {}),
        ...(building && v % 7 === 0 ? { building_permit: true } : {}),
        ...(grzKnown
          ? { grz: Math.round(between(s, i, 19, 0.2, 0.8) * 10) / 10, gfz: Math.round(between(s, i, 20, 0.4, 2.4) * 10) / 10 }
          : {})
      },
      excerpt,
      agency: agencyAt(0),
      agency_links: Array.from({ length: nLinks }, (_, j) => agencyAt(j + 1)),
      published_at: isoDate(Date.UTC(2025, 0, 1) + below(s, i, 21, 520) * 86_400_000)
    }
  }
  let all: ReadonlyArray<PlotResult> | undefined
  const plots = () => (all ??= Array.from({ length: count }, (_, i) => plot(i)))

  /** Plot `i` as it is at `nowMs`: undefined before its publication day, its price after the cuts so far. */
  const plotAt = (i: number, nowMs: number): PlotResult | undefined => {
    const base = plots()[i]!
    const published = Date.parse(base.published_at)
    if (published > nowMs) return undefined
    const s = seed ^ 0x9107
    if (unit(s, i, 22) >= 0.35) return base
    const every = 20 + below(s, i, 23, 60)
    const cuts = Math.min(4, Math.floor((nowMs - published) / (every * DAY_MS)))
    if (cuts === 0) return base
    let sale = base.sale_eur
    for (let k = 0; k < cuts; k++) sale = Math.max(1000, Math.round((sale * (1 - between(s, i * 8 + k, 24, 0.03, 0.08))) / 100) * 100)
    return { ...base, sale_eur: sale, sale_eur_per_m2: Math.round((sale / base.plot_area_m2) * 100) / 100 }
  }
  // one day's market, kept while the clock stays on that day
  let day: { readonly at: number; readonly plots: ReadonlyArray<PlotResult> } | undefined
  const market = (nowMs: number) => {
    const at = Math.floor(nowMs / DAY_MS)
    if (day?.at !== at) {
      const end = (at + 1) * DAY_MS - 1
      day = { at, plots: plots().flatMap((_, i) => plotAt(i, end) ?? []) }
    }
    return day.plots
  }
  return {
    /** Plot `i` at `nowMs` (undefined before it is published). */
    plot: plotAt,
    search: (criteria: PlotCriteria, nowMs: number) => searchPlots(market(nowMs), criteria)
  }
}

const lower = (xs: ReadonlyArray<string> | undefined) => (xs && xs.length > 0 ? new Set(xs.map((x) => x.toLowerCase())) : undefined)

/**
 * The plot search. Assumed: string filters compare case-insensitively; `keywords` match when any
 * keyword occurs (case-insensitive) in the title or excerpt; operation `rent` keeps plots for rent,
 * `sale` plots for sale, `either` both; ties of every sort break by id.
 */
export const searchPlots = (all: ReadonlyArray<PlotResult>, c: PlotCriteria): ReadonlyArray<PlotResult> => {
  const regions = lower(c.regions),
    munis = lower(c.municipalities),
    zips = lower(c.zipcodes),
    types = lower(c.plot_types)
  const cu = c.commercial_use
  const levels =
    cu === undefined
      ? new Set<string>(DEFAULT_COMMERCIAL_USE)
      : cu === "all" || (Array.isArray(cu) && cu.includes("all"))
        ? undefined
        : new Set(typeof cu === "string" ? [cu] : cu)
  const keywords = c.keywords && c.keywords.length > 0 ? c.keywords.map((k) => k.toLowerCase()) : undefined
  const out = all.filter(
    (p) =>
      (!regions || regions.has(p.region.toLowerCase())) &&
      (!munis || munis.has(p.municipality.toLowerCase())) &&
      (!zips || zips.has(p.zipcode.toLowerCase())) &&
      (!types || types.has(p.plot_type)) &&
      (c.operation === undefined || c.operation === "either" || (c.operation === "sale" ? p.for_sale : p.for_rent)) &&
      (c.plot_area_min === undefined || p.plot_area_m2 >= c.plot_area_min) &&
      (c.plot_area_max === undefined || p.plot_area_m2 <= c.plot_area_max) &&
      (c.sale_price_min === undefined || p.sale_eur >= c.sale_price_min) &&
      (c.sale_price_max === undefined || p.sale_eur <= c.sale_price_max) &&
      (c.sale_price_m2_max === undefined || p.sale_eur_per_m2 <= c.sale_price_m2_max) &&
      (!levels || levels.has(p.commercial_use.level)) &&
      (c.serviced === undefined || p.facts_from_text.serviced === c.serviced) &&
      (!keywords || keywords.some((k) => p.title.toLowerCase().includes(k) || p.excerpt.toLowerCase().includes(k)))
  )
  const byId = (a: PlotResult, b: PlotResult) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  const newest = (a: PlotResult, b: PlotResult) => (a.published_at < b.published_at ? 1 : a.published_at > b.published_at ? -1 : byId(a, b))
  const cmp: Record<string, (a: PlotResult, b: PlotResult) => number> = {
    commercial_use: (a, b) =>
      LEVELS.indexOf(a.commercial_use.level as never) - LEVELS.indexOf(b.commercial_use.level as never) || newest(a, b),
    newest,
    price_asc: (a, b) => a.sale_eur - b.sale_eur || byId(a, b),
    area_desc: (a, b) => b.plot_area_m2 - a.plot_area_m2 || byId(a, b),
    price_m2_asc: (a, b) => a.sale_eur_per_m2 - b.sale_eur_per_m2 || byId(a, b)
  }
  return out.sort(cmp[c.sort ?? "commercial_use"] ?? cmp.commercial_use!)
}

/** German thousands separator (toLocaleString is slow). */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ".")
const round4 = (x: number) => Math.round(x * 1e4) / 1e4
