import { describe, expect, it } from "vitest"
import { CommercialUseLevel, DEFAULT_COMMERCIAL_USE } from "../../../src/service/schema/Enums.js"
import { makeWorld, type PlotCriteria, type PlotResult } from "../../../src/sandbox/world/World.js"

/** The spec's table of commercial-use levels. */
const MEANINGS: Record<string, string> = {
  zoned_commercial: "text states class GE, GI, MK or MU",
  zoned_mixed_or_special: "text states MI, SO or MD; the plan must be checked",
  commercial_use_stated: "commercial use stated as allowed or suitable, no class; the quote must be read",
  building_land_use_not_stated: "building land, use not stated",
  residential_only_stated: "residential use only",
  zoned_leisure_special: "SO for recreation",
  not_building_land_stated: "not building land",
  not_stated: "nothing stated"
}
const LANDER = [
  "Baden-Württemberg",
  "Bayern",
  "Berlin",
  "Brandenburg",
  "Bremen",
  "Hamburg",
  "Hessen",
  "Mecklenburg-Vorpommern",
  "Niedersachsen",
  "Nordrhein-Westfalen",
  "Rheinland-Pfalz",
  "Saarland",
  "Sachsen",
  "Sachsen-Anhalt",
  "Schleswig-Holstein",
  "Thüringen"
]

const w = makeWorld({ seed: 8 })
/** Every plot as it is once all are published (the last publication day is in 2026-06). */
const LATER = Date.UTC(2026, 11, 31)
const plots: Array<PlotResult> = Array.from({ length: 3000 }, (_, i) => w.plot(i, LATER)!)

describe("World plots", () => {
  it("every commercial-use level occurs, with the spec's meaning; classes carry a zoning source", () => {
    for (const level of CommercialUseLevel.values) {
      const some = plots.filter((p) => p.commercial_use.level === level)
      expect(some.length, level).toBeGreaterThan(10)
      for (const p of some) expect(p.commercial_use.meaning).toBe(MEANINGS[level])
    }
    for (const p of plots) {
      expect(p.commercial_use.zoning_source !== undefined).toBe(p.facts_from_text.zoning_class !== undefined)
      if (p.commercial_use.level === "zoned_commercial") expect(["GE", "GI", "MK", "MU"]).toContain(p.facts_from_text.zoning_class)
      if (p.commercial_use.level === "zoned_mixed_or_special") expect(["MI", "SO", "MD"]).toContain(p.facts_from_text.zoning_class)
      if (p.commercial_use.level !== "not_stated") expect(p.excerpt).toContain(p.commercial_use.evidence)
      expect(LANDER).toContain(p.region)
      expect(p.sale_eur_per_m2).toBeCloseTo(p.sale_eur / p.plot_area_m2, 1)
      expect(p.rent_eur_month === null).toBe(!p.for_rent)
    }
    expect(new Set(plots.map((p) => p.region)).size).toBe(16)
  })

  it("the default filter is the first three levels; `all` or a list replaces it", () => {
    const dflt = w.searchPlots({}, LATER)
    expect(dflt.length).toBe(plots.filter((p) => DEFAULT_COMMERCIAL_USE.includes(p.commercial_use.level as never)).length)
    expect(w.searchPlots({ commercial_use: "all" }, LATER).length).toBe(3000)
    expect(w.searchPlots({ commercial_use: ["not_stated"] }, LATER).every((p) => p.commercial_use.level === "not_stated")).toBe(true)
    expect(w.searchPlots({ commercial_use: "not_stated" }, LATER).length).toBe(
      plots.filter((p) => p.commercial_use.level === "not_stated").length
    )
  })

  const cases: ReadonlyArray<readonly [PlotCriteria, (p: PlotResult) => boolean]> = [
    [{ regions: ["Bayern"], commercial_use: "all" }, (p) => p.region === "Bayern"],
    [
      { municipalities: ["Köln", "Leipzig"] },
      (p) => ["Köln", "Leipzig"].includes(p.municipality) && DEFAULT_COMMERCIAL_USE.includes(p.commercial_use.level as never)
    ],
    [{ zipcodes: [plots[0]!.zipcode], commercial_use: "all" }, (p) => p.zipcode === plots[0]!.zipcode],
    [{ plot_types: ["rural_plot"], commercial_use: "all", operation: "rent" }, (p) => p.plot_type === "rural_plot" && p.for_rent],
    [
      { plot_area_min: 1000, plot_area_max: 5000, sale_price_max: 500_000, commercial_use: "all" },
      (p) => p.plot_area_m2 >= 1000 && p.plot_area_m2 <= 5000 && p.sale_eur <= 500_000
    ],
    [
      { sale_price_min: 100_000, sale_price_m2_max: 200, serviced: true, commercial_use: ["zoned_commercial", "commercial_use_stated"] },
      (p) =>
        p.sale_eur >= 100_000 &&
        p.sale_eur_per_m2 <= 200 &&
        p.facts_from_text.serviced === true &&
        ["zoned_commercial", "commercial_use_stated"].includes(p.commercial_use.level)
    ],
    [
      { keywords: ["logistik", "AUTOBAHN"], commercial_use: "all" },
      (p) => ["logistik", "autobahn"].some((k) => `${p.title} ${p.excerpt}`.toLowerCase().includes(k))
    ]
  ]
  it("filters equal a brute-force filter", () => {
    for (const [criteria, keep] of cases) {
      const got = w
        .searchPlots(criteria, LATER)
        .map((p) => p.id)
        .sort()
      const want = plots
        .filter(keep)
        .map((p) => p.id)
        .sort()
      expect(got.length, JSON.stringify(criteria)).toBeGreaterThan(0)
      expect(got, JSON.stringify(criteria)).toEqual(want)
    }
  })

  it("the five sorts order the results", () => {
    const sorted = (sort: string) => w.searchPlots({ commercial_use: "all", sort }, LATER)
    const nonIncreasing = (xs: ReadonlyArray<number | string>) => xs.every((x, i) => i === 0 || xs[i - 1]! >= x)
    const nonDecreasing = (xs: ReadonlyArray<number | string>) => xs.every((x, i) => i === 0 || xs[i - 1]! <= x)
    expect(nonDecreasing(sorted("price_asc").map((p) => p.sale_eur))).toBe(true)
    expect(nonIncreasing(sorted("area_desc").map((p) => p.plot_area_m2))).toBe(true)
    expect(nonDecreasing(sorted("price_m2_asc").map((p) => p.sale_eur_per_m2))).toBe(true)
    expect(nonIncreasing(sorted("newest").map((p) => p.published_at))).toBe(true)
    const levels = sorted("commercial_use").map((p) => CommercialUseLevel.values.indexOf(p.commercial_use.level as never))
    expect(nonDecreasing(levels)).toBe(true)
    expect(w.searchPlots({ commercial_use: "all" }, LATER).map((p) => p.id)).toEqual(sorted("commercial_use").map((p) => p.id))
  })

  it("moves in time: plots come on the market on their publication day, and about a third are cut in price every few weeks", () => {
    const day = 86_400_000
    const t0 = Date.UTC(2026, 3, 1)
    const at = (t: number) => new Map(w.searchPlots({ commercial_use: "all" }, t).map((p) => [p.id, p]))
    const before = at(t0)
    const after = at(t0 + 30 * day)
    // new plots: exactly those published in the 30 days, none withdrawn
    const published = plots.filter((p) => p.published_at > "2026-04-01" && p.published_at <= "2026-05-01").map((p) => p.id)
    expect(published.length).toBeGreaterThan(50)
    expect([...after.keys()].filter((id) => !before.has(id)).sort()).toEqual(published.sort())
    expect([...before.keys()].every((id) => after.has(id))).toBe(true)
    // price cuts, never rises, per m² kept in step
    const cut = [...before.values()].filter((p) => after.get(p.id)!.sale_eur < p.sale_eur)
    expect(cut.length).toBeGreaterThan(before.size * 0.05)
    for (const p of before.values()) {
      const q = after.get(p.id)!
      expect(q.sale_eur).toBeLessThanOrEqual(p.sale_eur)
      expect(q.sale_eur_per_m2).toBeCloseTo(q.sale_eur / q.plot_area_m2, 2)
    }
    // the same within a day, whatever the hour
    expect(w.plot(7, t0 + 1)).toEqual(w.plot(7, t0 + day - 1))
  })
})
