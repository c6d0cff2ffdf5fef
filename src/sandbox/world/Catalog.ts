/**
 * Reference data: agencies (with country), agents, property types with their countries,
 * feature groups, conditions, and the per-country type tables properties are drawn from.
 */
import {
  Characteristic,
  Condition,
  Direction,
  FloorType,
  GERMAN_ONLY_TYPES,
  Orientation,
  PLOT_TYPE_COUNTRIES,
  PROPERTY_TYPES,
  TYPE_GROUPS,
  View,
  groupOf
} from "../../service/schema/Enums.js"
import type { Agency, Agent, FeatureGroup, TypeReference } from "./Records.js"
import { COUNTRY_DATA, type CountryData } from "./GeoData.js"
import { below, cumulative, hash3, makePicker, pickWeighted } from "./Hash.js"

const COUNTRY_CODES = COUNTRY_DATA.map((c) => c.code)

/** Countries where a type exists (spec "Country-specific types"). */
export const countriesOfType = (type: string): ReadonlyArray<string> =>
  (GERMAN_ONLY_TYPES as ReadonlyArray<string>).includes(type)
    ? ["DE"]
    : type === "urban_plot" || type === "rural_plot"
      ? PLOT_TYPE_COUNTRIES
      : COUNTRY_CODES

export const TYPE_REFERENCES: ReadonlyArray<TypeReference> = PROPERTY_TYPES.map((name) => ({
  name,
  group: groupOf(name) ?? "other",
  countries: countriesOfType(name)
}))

export const FEATURE_GROUPS: ReadonlyArray<FeatureGroup> = [
  { group: "floor", names: FloorType.values },
  { group: "orientation", names: Orientation.values },
  { group: "views", names: View.values },
  { group: "directions", names: Direction.values },
  { group: "characteristics", names: Characteristic.values }
]

export const CONDITIONS: ReadonlyArray<{ readonly name: string }> = Condition.values.map((name) => ({ name }))

/** Share of each type group among generated properties. */
const GROUP_WEIGHTS: Record<keyof typeof TYPE_GROUPS, number> = {
  apartment: 46,
  house: 28,
  investment: 10,
  plot: 5,
  other: 5,
  building: 3,
  room: 3
}
/** Deprecated types are never generated. */
const NOT_GENERATED = new Set(["plot", "family_house"])

export interface TypeTable {
  readonly types: ReadonlyArray<string>
  /** Index into `types` of a uniform draw. */
  readonly pick: (u: number) => number
}

/** Per country: the generated types and their cumulative weights (a group's weight split over its types). */
export const TYPE_TABLES: ReadonlyArray<TypeTable> = COUNTRY_DATA.map((cd) => {
  const types: Array<string> = []
  const weights: Array<number> = []
  for (const [group, members] of Object.entries(TYPE_GROUPS) as Array<[keyof typeof TYPE_GROUPS, ReadonlyArray<string>]>) {
    const ok = members.filter((t) => !NOT_GENERATED.has(t) && countriesOfType(t).includes(cd.code))
    for (const t of ok) {
      types.push(t)
      weights.push(GROUP_WEIGHTS[group] / ok.length)
    }
  }
  return { types, pick: makePicker(weights) }
})

const SURNAMES: Record<CountryData["lang"], ReadonlyArray<string>> = {
  de: ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann", "Wagner"],
  es: ["García", "Martínez", "López", "Sánchez", "Pérez", "Gómez", "Ruiz", "Navarro"],
  ca: ["Pujol", "Vidal", "Font", "Serra"],
  pt: ["Silva", "Santos", "Ferreira", "Pereira", "Costa", "Oliveira"],
  fr: ["Martin", "Bernard", "Dubois", "Laurent", "Moreau", "Lefebvre"],
  it: ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano"],
  el: ["Papadopoulos", "Georgiou", "Nikolaidis", "Dimitriou"],
  en: ["Smith", "Jones", "Taylor", "Brown", "Walsh", "Murphy"],
  nl: ["de Jong", "Jansen", "de Vries", "Bakker", "Visser"],
  pl: ["Nowak", "Kowalski", "Wiśniewski", "Wójcik"],
  hr: ["Horvat", "Kovačević", "Babić", "Marić"]
}
const AGENCY_PATTERN: Record<CountryData["lang"], (s: string, city: string) => string> = {
  de: (s, c) => `${s} Immobilien ${c}`,
  es: (s, c) => `Inmobiliaria ${s} ${c}`,
  ca: (s, c) => `Immobiliària ${s} ${c}`,
  pt: (s, c) => `${s} Imobiliária ${c}`,
  fr: (s, c) => `Agence ${s} Immobilier ${c}`,
  it: (s, c) => `Immobiliare ${s} ${c}`,
  el: (s, c) => `${s} Real Estate ${c}`,
  en: (s, c) => `${s} & Co Estate Agents ${c}`,
  nl: (s, c) => `${s} Makelaars ${c}`,
  pl: (s, c) => `${s} Nieruchomości ${c}`,
  hr: (s, c) => `${s} Nekretnine ${c}`
}
const FIRST_NAMES = ["Anna", "Luis", "Marie", "Paolo", "Jens", "Sofia", "João", "Eleni", "Tom", "Eva", "Marek", "Ivana"]

export interface AgencyCatalog {
  readonly agencies: ReadonlyArray<Agency>
  readonly agents: ReadonlyArray<Agent>
  /** Agency indexes of each country (at least 3 per country). */
  readonly ofCountry: ReadonlyArray<Int32Array>
  /** Domain of an agency's own website. */
  readonly domainOf: (agencyIndex: number) => string
}

/** Agencies: three per country first, the rest by country weight. Agents: three per agency. */
export const buildAgencies = (seed: number, count: number): AgencyCatalog => {
  const cum = cumulative(COUNTRY_DATA.map((c) => c.weight))
  const used = new Set<string>()
  const agencies: Array<Agency> = []
  const ofCountry: Array<Array<number>> = COUNTRY_DATA.map(() => [])
  const n = Math.max(count, COUNTRY_DATA.length * 3)
  for (let i = 0; i < n; i++) {
    const c = i < COUNTRY_DATA.length * 3 ? i % COUNTRY_DATA.length : pickWeighted(cum, hash3(seed, i, 0xa6) / 4294967296)
    const cd = COUNTRY_DATA[c]!
    const surnames = SURNAMES[cd.lang]
    const cities = cd.regions.flatMap(([, ms]) => ms.map((m) => m.split("|")[0]!))
    let name = AGENCY_PATTERN[cd.lang](surnames[below(seed, i, 0xa7, surnames.length)]!, cities[below(seed, i, 0xa8, cities.length)]!)
    for (let k = 2; used.has(name); k++) name = `${name.replace(/ \d+$/, "")} ${k}`
    used.add(name)
    agencies.push({ agency_id: i + 1, name, country: cd.code })
    ofCountry[c]!.push(i)
  }
  const agents: Array<Agent> = agencies.flatMap((a, i) =>
    [0, 1, 2].map((j) => ({
      agent_id: i * 3 + j + 1,
      name: `${FIRST_NAMES[below(seed, i * 3 + j, 0xa9, FIRST_NAMES.length)]} ${a.name.split(" ").find((w) => /^[A-ZÀ-Ž]/.test(w) && w !== "Inmobiliaria" && w !== "Agence" && w !== "Immobiliare" && w !== "Immobiliària") ?? "Agent"}`,
      agency_id: a.agency_id
    }))
  )
  const domains = agencies.map((a) => {
    const slug = a.name
      .toLowerCase()
      .normalize("NFD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
    return `${slug}.${a.country === "GB" ? "co.uk" : a.country.toLowerCase()}`
  })
  const domainOf = (i: number) => domains[i]!
  return { agencies, agents, ofCountry: ofCountry.map((xs) => Int32Array.from(xs)), domainOf }
}
