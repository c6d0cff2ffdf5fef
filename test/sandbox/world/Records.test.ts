/**
 * Every field the spec (and docs/ASSUMPTIONS.md for platform records) lists is present on the
 * world's records. The field lists are copied from the spec's text.
 */
import { describe, expect, it } from "vitest"
import {
  PROPERTY_TYPES,
  TYPE_GROUPS,
  RESULT_GROUPS,
  GERMAN_ONLY_TYPES,
  PLOT_TYPE_COUNTRIES,
  resultGroupOf
} from "../../../src/service/schema/Enums.js"
import { makeWorld } from "../../../src/sandbox/world/World.js"

const words = (s: string) => s.split(/[\s,]+/).filter((x) => x.length > 0)

const PROPERTY_FIELDS = words(`property_id primary_listing_id type type_group operations property_url changed_at location
  locations_structure coordinates address zip_code distance total_area living_area plot_area terrace_area bathrooms bedrooms
  rooms construction_year number_of_parkings floor_number description condition features is_private_property
  is_auction_property is_bank_property sale_status sale_currency sale_price sale_price_base sale_price_per_sqm
  sale_price_per_sqm_base rent_status rent_currency rent_price rent_price_base rent_price_per_sqm rent_price_per_sqm_base
  rent_period sale_time_on_market rent_time_on_market sale_price_history rent_price_history sale_status_history
  rent_status_history history sale_price_last_change rent_price_last_change listings`)
const LISTING_FIELDS = words(`listing_id total_area plot_area terrace_area bedrooms bathrooms rooms sale_status sale_currency
  sale_price sale_price_base rent_status rent_currency rent_price rent_price_base agency_legal_id agency listing_url
  listing_old_url description listing_uid construction_year source_name contacts_info energy_certificate energy_rating
  heating_type ceiling_label commission min_rent_area companies created_at floor_number is_private casafari_connect
  thumbnails pictures ref_numbers is_private_property is_auction_property is_bank_property`)
const ALERT_FIELDS = words(`alert_id listing_id ref alert_type alert_subtype old_value new_value alert_date alert_date_and_time
  property_url listing_url listing_old_url listing_uid property_id title type type_group location locations_structure
  address zip_code cadastral_reference coordinates condition contacts_info total_area living_area plot_area terrace_area
  bedrooms rooms bathrooms construction_year features operations is_bank_property is_auction_property
  is_new_development_property is_private_property sale_status sale_currency sale_price_base sale_price sale_price_per_sqm
  sale_price_per_sqm_base rent_status rent_currency rent_price_base rent_price rent_price_per_sqm rent_price_per_sqm_base
  rent_period agency_legal_id agency agent source_name description thumbnails pictures created_at created_at_with_photos
  updated_at energy_certificate energy_rating heating_type available_from available_to`)
const COMPARABLE_FIELDS = words(`property_id property_url primary_listing_id type type_group coordinates location
  locations_structure address zip_code distance construction_year total_area living_area plot_area terrace_area bedrooms
  rooms bathrooms floor_number condition features operations sale_status sale_currency sale_price sale_price_base
  sale_price_per_sqm sale_price_per_sqm_base rent_status rent_currency rent_price rent_price_base`)
const FEATURES = words("floor orientation view views direction directions characteristics")
const LOCATION = words("location_id name administrative_level zip_codes")
const SOURCING = words(`id property_id country location_id location_name type type_group operation price_eur area_m2 bedrooms
  latitude longitude listings_count agencies updated_at`)
const DETAIL = [
  ...SOURCING,
  ...words(`bathrooms plot_area_m2 living_area_m2 construction_year energy_rating condition features
  address description status`)
]
const LEAD = words("id property_id home price_cuts price_cut_pct first_price current_price price_history status_history")
const PLOT = words(`id title plot_type country region municipality zipcode location_precision coordinates for_sale for_rent
  sale_eur rent_eur_month plot_area_m2 sale_eur_per_m2 commercial_use facts_from_text excerpt agency agency_links`)
const PREMISES = words("id title operation municipality province price_eur area_m2 latitude longitude")

const has = (o: object, fields: ReadonlyArray<string>) => expect(Object.keys(o)).toEqual(expect.arrayContaining([...fields]))

describe("World record shapes", () => {
  const w = makeWorld({ seed: 21, properties: 4000 })

  it("property records carry every spec field, with listings, histories and locations", () => {
    for (let p = 0; p < 300; p++) {
      const r = w.property(p)
      has(r, PROPERTY_FIELDS)
      has(r.features, FEATURES)
      has(r.coordinates, ["latitude", "longitude"])
      for (const l of [r.location, ...r.locations_structure]) has(l, LOCATION)
      expect(r.locations_structure[0]).toEqual(r.location)
      expect(r.location.administrative_level).toBe("district")
      expect(r.locations_structure.at(-1)!.administrative_level).toBe("country")
      expect(r.listings.length).toBeGreaterThanOrEqual(1)
      expect(r.listings[0]!.listing_id).toBe(r.primary_listing_id)
      for (const l of r.listings) {
        has(l, LISTING_FIELDS)
        has(l.contacts_info, ["name", "email", "phone"])
        expect((l.listing_url === null) !== (l.listing_old_url === null)).toBe(true)
      }
      expect(new Set(r.listings.map((l) => l.agency)).size).toBe(r.listings.length)
      expect(r.type_group).toBe(resultGroupOf(r.type))
      expect(RESULT_GROUPS).toContain(r.type_group)
      const country = r.location.country
      if ((GERMAN_ONLY_TYPES as ReadonlyArray<string>).includes(r.type)) expect(country).toBe("DE")
      if (r.type === "urban_plot" || r.type === "rural_plot") expect(PLOT_TYPE_COUNTRIES).toContain(country)
      for (const h of r.sale_price_history) has(h, ["date_start", "date_end", "sale_price_old", "sale_price_new"])
      for (const h of r.rent_price_history) has(h, ["date_start", "date_end", "rent_price_old", "rent_price_new"])
      for (const h of r.sale_status_history) has(h, ["date_start", "date_end", "sale_status_old", "sale_status_new"])
      for (const h of r.history) has(h, ["sale_price", "sale_currency", "rent_price", "rent_currency", "changed_at"])
      const tom = r.sale_time_on_market ?? r.rent_time_on_market
      if (tom) has(tom, ["date_start", "date_end", "days_on_market", "has_untracked_period"])
    }
  })

  it("every country and many types occur; types belong to their country", () => {
    const countries = new Set<string>(),
      types = new Set<string>()
    for (let p = 0; p < 4000; p++) {
      countries.add(w.sourcingProperty(p).country)
      types.add(w.sourcingProperty(p).type)
    }
    expect([...countries].sort()).toEqual([...w.countries].sort())
    expect(types.size).toBeGreaterThan(25)
    for (const t of types) expect(PROPERTY_TYPES).toContain(t)
    expect(types.has("plot")).toBe(false) // deprecated, never generated
    expect(Object.keys(TYPE_GROUPS)).toContain("building")
  })

  it("alert records carry every spec field and a matching alert_type", () => {
    const now = w.now()
    const { results } = w.alerts({ nowMs: now, createdFrom: now - 86_400_000 * 10, offset: 0, limit: 300, orderBy: "alert_id" })
    expect(results.length).toBe(300)
    const expected: Record<string, ReadonlyArray<string>> = {
      new: ["new"],
      price_up: ["sale_price", "rent_price"],
      price_down: ["sale_price", "rent_price"],
      reserved: ["sale_status", "rent_status"],
      delisted: ["sale_status", "rent_status"],
      sold: ["sale_status", "rent_status"]
    }
    for (const a of results) {
      has(a, ALERT_FIELDS)
      expect(expected[a.alert_subtype]).toContain(a.alert_type)
      expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      expect(a.alert_date).toBe(a.created_at.slice(0, 10))
    }
    expect(new Set(results.map((a) => a.alert_subtype)).size).toBe(6)
  })

  it("comparables, sourcing views, leads, plots and premises carry their fields", () => {
    const out = w.comparables({
      comparables_count: 10,
      operation: "sale",
      comparables_types: [...TYPE_GROUPS.apartment],
      location_boundary: { circle: { distance: 10, target_point: { coordinates: { latitude: 40.42, longitude: -3.7 } } } }
    })
    expect(out._tag).toBe("ok")
    if (out._tag === "ok") {
      expect(out.results.length).toBeGreaterThan(0)
      for (const c of out.results) {
        has(c, COMPARABLE_FIELDS)
        has(c.features, FEATURES)
        expect(c.distance).not.toBeNull()
        expect(c.distance!).toBeLessThanOrEqual(10)
      }
    }
    has(w.sourcingProperty(1), SOURCING)
    has(w.sourcingDetail(1), DETAIL)
    expect(w.sourcingDetail(1).id).toBe(`prop_${w.propertyIdOf(1)}`)
    const leads = w.sellerLeads({ latitude: 40.42, longitude: -3.7, radius_km: 30, min_price_cuts: 1, min_price_cut_pct: 1 })
    expect(leads.length).toBeGreaterThan(0)
    for (const l of leads) {
      has(l, LEAD)
      has(l.home, SOURCING)
      expect(w.lead(l.id)?.id).toBe(l.id)
    }
    for (let i = 0; i < 50; i++) {
      const p = w.plot(i, Date.UTC(2026, 11, 31))!
      has(p, PLOT)
      has(p.coordinates, ["lat", "lon", "precision"])
      has(p.commercial_use, ["level", "meaning", "evidence", "facts_read"])
      has(p.agency, ["name", "listing_url"])
      expect(p.country).toBe("de")
      has(w.premises(i), PREMISES)
      expect(w.premises(i).id).toMatch(/^prem_\d+$/)
    }
  })

  it("references: locations tree, Länder, types with countries, agencies with countries", () => {
    const de = w.locations.find((l) => l.administrative_level === "country" && l.country === "DE")!
    expect(w.childrenOf(de.location_id)).toHaveLength(16)
    expect(w.locations.length).toBeGreaterThan(300)
    expect(w.locations.length).toBeLessThan(2500)
    expect(w.agencies.length).toBe(200)
    for (const c of w.countries) expect(w.agencies.some((a) => a.country === c)).toBe(true)
    expect(w.types.find((t) => t.name === "werkstatt")!.countries).toEqual(["DE"])
    expect([...w.types.find((t) => t.name === "rural_plot")!.countries].sort()).toEqual([...PLOT_TYPE_COUNTRIES].sort())
    expect(w.sources(de.location_id)!.length).toBeGreaterThan(0)
    const leaf = w.locations.find((l) => l.administrative_level === "district" && l.country === "ES")!
    expect(w.locationByCoordinates(w.locationCenter(leaf.location_id)!)?.location_id).toBe(leaf.location_id)
    expect(w.zipcodeBoundary("ES", leaf.zip_codes[0]!)).toHaveLength(5)
    expect(w.typeahead("ES", "mad", 5)[0]!.name).toMatch(/^Madrid/)
  })
})
