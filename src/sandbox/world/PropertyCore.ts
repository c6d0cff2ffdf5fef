/**
 * The cheap, per-property attributes every search filters on, and the event model that turns
 * the global event sequence into each property's lifecycle. Everything is O(1) (or O(cycle
 * length) for prices) from (seed, index); nothing per property is stored.
 *
 * Lifecycle: the k-th event of a property falls in cycle c = floor(k / L) at step j = k mod L
 * (L = 4..9 per property). Step 0 lists it (`new`), the last step ends it (`sold`, or
 * `delisted`), the one before may reserve it (`reserved`, only before a sale), the others change
 * its price (`price_up` / `price_down`, cuts being more frequent). The next cycle relists it.
 */
import { PROPERTY_TYPES, resultGroupOf as slowResultGroupOf } from "../../service/schema/Enums.js"
import { COUNTRY_DATA, EUR_RATE } from "./GeoData.js"
import type { Geography } from "./Geography.js"
import { TYPE_TABLES } from "./Catalog.js"
import { between, hash3, makePicker, mulMod, unit } from "./Hash.js"
import { DAY_MS } from "./Dates.js"

/** Alert subtypes in spec order; an event's kind is its index here. */
export const SUBTYPES = ["new", "price_up", "price_down", "reserved", "delisted", "sold"] as const
export const K_NEW = 0,
  K_UP = 1,
  K_DOWN = 2,
  K_RESERVED = 3,
  K_DELISTED = 4,
  K_SOLD = 5

/** Photo processing delay: `created_at_with_photos` = `created_at` + this. */
export const PHOTO_DELAY_MS = 5 * 60_000

const S = {
  country: 1,
  leaf: 2,
  type: 3,
  op: 4,
  area: 5,
  beds: 6,
  price: 7,
  lat: 8,
  lon: 9,
  len: 10,
  end: 11,
  dir: 12,
  step: 13,
  reserve: 14,
  mult: 15,
  nlist: 16
} as const

/** `resultGroupOf` memoised (it is on every hot path). */
const RESULT_GROUP = new Map<string, string>(PROPERTY_TYPES.map((t) => [t, slowResultGroupOf(t)]))
const resultGroupOf = (type: string): string => RESULT_GROUP.get(type) ?? "other"

/** Share of rent among the operations of a result group. */
const RENT_SHARE: Record<string, number> = { apartment: 0.35, house: 0.2, investment: 0.4, plot: 0.05, other: 0.4 }

export interface Core {
  readonly seed: number
  readonly n: number
  readonly eventsPerDay: number
  readonly startMs: number
  readonly countryOf: (p: number) => number
  readonly leafOf: (p: number) => number
  readonly typeOf: (p: number) => string
  readonly groupOf: (p: number) => string
  readonly isRent: (p: number) => boolean
  readonly currencyOf: (p: number) => string
  /** EUR per unit of the property's listing currency. */
  readonly rateOf: (p: number) => number
  readonly areaOf: (p: number) => number
  readonly bedroomsOf: (p: number) => number
  readonly latOf: (p: number) => number
  readonly lonOf: (p: number) => number
  readonly listingsCountOf: (p: number) => number
  // --- events ---
  readonly propertyOfEvent: (e: number) => number
  readonly firstEventOf: (p: number) => number
  readonly timeOfEvent: (e: number) => number
  /** Number of events (global) whose time is at or before `ms` (events are 0..count-1). */
  readonly eventsUntil: (ms: number) => number
  /** Smallest event whose time is at or after `ms`. */
  readonly firstEventAtOrAfter: (ms: number) => number
  /** Events of p among the first `nEvents` global events. */
  readonly eventCountOf: (p: number, nEvents: number) => number
  readonly cycleLengthOf: (p: number) => number
  /** Kind (index into SUBTYPES) of the k-th event of p. */
  readonly kindOf: (p: number, k: number) => number
  /** Listing-currency price after step j of cycle c. */
  readonly priceAt: (p: number, c: number, j: number) => number
  /** Listing-currency price after the property's first `count` events (the initial price when 0). */
  readonly priceAfter: (p: number, count: number) => number
  /** Current status (sale_status or rent_status value) after the first `count` events. */
  readonly statusAfter: (p: number, count: number) => string
  /** Price in EUR (rounded) of a listing-currency price of p. */
  readonly eur: (p: number, price: number) => number
}

export const makeCore = (seed: number, n: number, eventsPerDay: number, startMs: number, geo: Geography): Core => {
  const pickCountry = makePicker(COUNTRY_DATA.map((c) => c.weight))
  const a = coprime(seed, n)
  const aInv = modInverse(a, n)
  const b = hash3(seed, 0, 0xb0b) % n

  const countryOf = (p: number) => pickCountry(unit(seed, p, S.country))
  const leafOf = (p: number) => {
    const leaves = geo.leavesOfCountry[countryOf(p)]!
    return leaves[Math.floor(unit(seed, p, S.leaf) * leaves.length)]!
  }
  const infoIn = (p: number, c: number) => {
    const t = INFO_TABLES[c]!
    return t.infos[t.pick(unit(seed, p, S.type))]!
  }
  const infoOf = (p: number) => infoIn(p, countryOf(p))
  const typeOf = (p: number) => infoOf(p).type
  const groupOf = (p: number) => infoOf(p).group
  const rentFor = (p: number, info: TypeInfo) => unit(seed, p, S.op) < info.rentShare
  const isRent = (p: number) => rentFor(p, infoOf(p))
  const currencyOf = (p: number) => COUNTRY_DATA[countryOf(p)]!.currency
  const rateOf = (p: number) => EUR_RATE[currencyOf(p)]!
  const areaFor = (p: number, info: TypeInfo) => {
    const u = unit(seed, p, S.area)
    return Math.round(info.areaLo + (info.areaHi - info.areaLo) * u * u)
  }
  const areaOf = (p: number) => areaFor(p, infoOf(p))
  const bedroomsOf = (p: number) => {
    const info = infoOf(p)
    if (info.bedDiv === 0) return info.type === "room" ? 1 : 0
    return Math.max(1, Math.min(info.bedMax, Math.round(areaFor(p, info) / info.bedDiv + unit(seed, p, S.beds) - 0.5)))
  }
  const latOf = (p: number) => round5(geo.lat[leafOf(p)]! + between(seed, p, S.lat, -0.012, 0.012))
  const lonOf = (p: number) => round5(geo.lon[leafOf(p)]! + between(seed, p, S.lon, -0.016, 0.016))
  const listingsCountOf = (p: number) => 1 + Math.floor(unit(seed, p, S.nlist) ** 1.5 * 4)

  // --- events ---
  const propertyOfEvent = (e: number) => (mulMod(a, e % n, n) + b) % n
  const firstEventOf = (p: number) => mulMod((p - b + n) % n, aInv, n)
  const timeOfEvent = (e: number) => startMs + Math.floor((e * DAY_MS) / eventsPerDay)
  const firstEventAtOrAfter = (ms: number) => {
    if (ms <= startMs) return 0
    let e = Math.ceil(((ms - startMs) * eventsPerDay) / DAY_MS)
    while (e > 0 && timeOfEvent(e - 1) >= ms) e--
    while (timeOfEvent(e) < ms) e++
    return e
  }
  const eventsUntil = (ms: number) => firstEventAtOrAfter(ms + 1)
  const eventCountOf = (p: number, nEvents: number) => {
    const e0 = firstEventOf(p)
    return e0 >= nEvents ? 0 : Math.floor((nEvents - 1 - e0) / n) + 1
  }
  const cycleLengthOf = (p: number) => 4 + Math.floor(unit(seed, p, S.len) * 6)
  const key = (p: number, c: number, j: number) => (p * 4096 + (c % 4096)) * 16 + j
  const endsSold = (p: number, c: number) => unit(seed, key(p, c, 0), S.end) < 0.6
  const reservesBeforeEnd = (p: number, c: number) => endsSold(p, c) && unit(seed, key(p, c, 0), S.reserve) < 0.5
  const stepKind = (p: number, L: number, c: number, j: number) =>
    j === 0
      ? K_NEW
      : j === L - 1
        ? endsSold(p, c)
          ? K_SOLD
          : K_DELISTED
        : j === L - 2 && reservesBeforeEnd(p, c)
          ? K_RESERVED
          : unit(seed, key(p, c, j), S.dir) < 0.68
            ? K_DOWN
            : K_UP
  const kindOf = (p: number, k: number) => {
    const L = cycleLengthOf(p)
    return stepKind(p, L, Math.floor(k / L), k % L)
  }
  const priceAt = (p: number, c: number, j: number) => {
    const country = countryOf(p),
      cd = COUNTRY_DATA[country]!,
      info = infoIn(p, country)
    const rent = rentFor(p, info),
      L = cycleLengthOf(p)
    const psqm = (rent ? cd.rentPsqm : cd.salePsqm) * info.factor
    const eurPrice = areaFor(p, info) * psqm * between(seed, p, S.price, 0.7, 1.45)
    const basePrice = Math.max(rent ? 40 : 6000, eurPrice / EUR_RATE[cd.currency]!)
    const mult = c === 0 ? 1 : between(seed, key(p, c, 0), S.mult, 0.93, 1.12)
    let price = roundPrice(basePrice * mult, rent)
    for (let i = 1; i <= j && i < L - 1; i++) {
      const kind = stepKind(p, L, c, i)
      if (kind !== K_UP && kind !== K_DOWN) continue
      const u = unit(seed, key(p, c, i), S.step)
      const unitStep = priceUnit(price, rent)
      let next = roundPrice(price * (kind === K_DOWN ? 1 - (0.02 + 0.07 * u) : 1 + (0.02 + 0.05 * u)), rent)
      if (kind === K_DOWN && next >= price) next = price - unitStep
      if (kind === K_UP && next <= price) next = price + unitStep
      price = Math.max(unitStep, next)
    }
    return price
  }
  const priceAfter = (p: number, count: number) => {
    if (count <= 0) return priceAt(p, 0, 0)
    const L = cycleLengthOf(p),
      k = count - 1
    return priceAt(p, Math.floor(k / L), k % L)
  }
  const statusAfter = (p: number, count: number) => {
    if (count <= 0) return "none"
    const kind = kindOf(p, count - 1)
    return statusOfKind(kind, isRent(p))
  }
  const eur = (p: number, price: number) => Math.round(price * rateOf(p))
  return {
    seed,
    n,
    eventsPerDay,
    startMs,
    countryOf,
    leafOf,
    typeOf,
    groupOf,
    isRent,
    currencyOf,
    rateOf,
    areaOf,
    bedroomsOf,
    latOf,
    lonOf,
    listingsCountOf,
    propertyOfEvent,
    firstEventOf,
    timeOfEvent,
    eventsUntil,
    firstEventAtOrAfter,
    eventCountOf,
    cycleLengthOf,
    kindOf,
    priceAt,
    priceAfter,
    statusAfter,
    eur
  }
}

/** The status an event leaves (sale statuses; `sold` becomes `rented` for rent). Assumed: delisted -> `none`. */
export const statusOfKind = (kind: number, rent: boolean): string =>
  kind === K_RESERVED ? "reserved" : kind === K_SOLD ? (rent ? "rented" : "sold") : kind === K_DELISTED ? "none" : "active"

const AREA: Record<string, readonly [number, number]> = {
  apartment: [35, 180],
  house: [80, 450],
  investment: [40, 1800],
  plot: [300, 15000],
  other: [15, 120]
}
const GROUP_FACTOR: Record<string, number> = { apartment: 1, house: 0.95, investment: 0.8, plot: 0.06, other: 0.5 }
const TYPE_FACTOR: Record<string, number> = {
  villa: 1.5,
  palace: 1.7,
  penthouse: 1.3,
  garage: 0.55,
  parking: 0.45,
  room: 1.6,
  warehouse: 0.4,
  industrial: 0.35,
  apartment_building: 0.8,
  office_building: 0.85,
  mix_use_building: 0.8,
  country_estate: 0.6,
  landwirtschaftliche_betriebe: 0.3
}

const priceUnit = (price: number, rent: boolean) => (rent ? (price < 500 ? 1 : price < 5000 ? 5 : 10) : price < 100_000 ? 100 : 1000)
const roundPrice = (x: number, rent: boolean) => {
  const u = priceUnit(x, rent)
  return Math.max(u, Math.round(x / u) * u)
}
const round5 = (x: number) => Math.round(x * 1e5) / 1e5

const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y))
const coprime = (seed: number, n: number) => {
  if (n <= 2) return 1
  let a = 1 + Math.floor(n / 3) + (hash3(seed, 0, 0xa11) % Math.max(1, Math.floor(n / 3)))
  while (gcd(a, n) !== 1) a++
  return a % n === 0 ? 1 : a
}
const modInverse = (x: number, m: number) => {
  if (m === 1) return 0
  let [t, newT, r, newR] = [0, 1, m, x % m]
  while (newR !== 0) {
    const q = Math.floor(r / newR)
    ;[t, newT] = [newT, t - q * newT]
    ;[r, newR] = [newR, r - q * newR]
  }
  return ((t % m) + m) % m
}

/** Per-type constants of generation. */
interface TypeInfo {
  readonly type: string
  readonly group: string
  readonly rentShare: number
  readonly areaLo: number
  readonly areaHi: number
  /** Price factor against the country's price per m². */
  readonly factor: number
  /** m² per bedroom (0: no bedrooms) and the maximum. */
  readonly bedDiv: number
  readonly bedMax: number
}
const typeInfo = (type: string): TypeInfo => {
  const group = resultGroupOf(type)
  const [areaLo, areaHi] =
    type === "studio"
      ? [20, 45]
      : type === "room"
        ? [9, 25]
        : type === "garage" || type === "parking"
          ? [11, 40]
          : type.endsWith("_building")
            ? [300, 3000]
            : (AREA[group] ?? [40, 200])
  const residential = (group === "apartment" || group === "house") && type !== "studio" && type !== "room"
  return {
    type,
    group,
    rentShare: type === "room" ? 0.9 : (RENT_SHARE[group] ?? 0.3),
    areaLo,
    areaHi,
    factor: TYPE_FACTOR[type] ?? GROUP_FACTOR[group] ?? 1,
    bedDiv: residential ? (group === "house" ? 55 : 38) : 0,
    bedMax: group === "house" ? 7 : 5
  }
}
const INFO_TABLES = TYPE_TABLES.map((t) => ({ pick: t.pick, infos: t.types.map(typeInfo) }))
