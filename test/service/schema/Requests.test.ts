import { describe, expect, it } from "vitest"
import {
  AlertSearchRequest,
  ByCoordinatesQuery,
  DescribeRequest,
  isProblemCode,
  LocationsRequest,
  problemType,
  SourcesQuery,
  FeedAlertsQuery,
  FeedRequest,
  LoginRequest,
  MatchByListingsRequest,
  PlotSearchRequest,
  PremisesRequest,
  PropertyByIdQuery,
  PropertySearchV1Request,
  ResolveRequest,
  RotateSecretRequest,
  SellerLeadsQuery,
  SmartLinkRequest,
  SourcingSearchRequest,
  TypeaheadRequest,
  WebhookUrlRequest,
  ZipcodeBoundaryRequest
} from "../../../src/service/schema/index.js"
import { accepted, refusedLine } from "./helpers.js"

describe("Properties requests", () => {
  it("match-by-listings: at most 100 ids, each at least 1", () => {
    accepted(MatchByListingsRequest, { listing_ids: Array.from({ length: 100 }, (_, i) => i + 1) })
    expect(refusedLine(MatchByListingsRequest, { listing_ids: Array.from({ length: 101 }, (_, i) => i + 1) })).toBe(
      "listing_ids: at most 100 items allowed (got 101)"
    )
    expect(refusedLine(MatchByListingsRequest, { listing_ids: [0] })).toBe("listing_ids[0]: must be between 1 and 2147483647 (got 0)")
    expect(refusedLine(MatchByListingsRequest, {})).toBe("listing_ids: is required")
  })
  it("property by id: offset at most 50000", () => {
    accepted(PropertyByIdQuery, { limit: 50, offset: 50000 })
    expect(refusedLine(PropertyByIdQuery, { offset: 50001 })).toBe("offset: must be between 0 and 50000 (got 50001)")
  })
  it("properties search v1 (Assumed body)", () => {
    accepted(PropertySearchV1Request, { location_ids: [3], types: ["house", "villa"], operation: "sale", limit: 100 })
    expect(refusedLine(PropertySearchV1Request, { min_price: 10, max_price: 5 })).toBe(
      "max_price: must not be below min_price (got min_price 10, max_price 5)"
    )
  })
})

describe("Smart links", () => {
  const valid = {
    primary_listing_ids: [1, 2],
    settings: { language: "es", brand_color: "#ff0000", components_to_include: ["price", "history"] },
    user: { first_name: "Ana", last_name: "García", phone: "+34 600", email: "ana@example.com" },
    company: { name: "Acme", logo_url: "https://acme.example/logo.png" }
  }
  it("accepts a full body", () => {
    accepted(SmartLinkRequest, valid)
  })
  it("refuses 0 or 11 listing ids, bad language, long colour, bad e-mail", () => {
    expect(refusedLine(SmartLinkRequest, { ...valid, primary_listing_ids: [] })).toBe("primary_listing_ids: 1 to 10 items allowed (got 0)")
    expect(refusedLine(SmartLinkRequest, { ...valid, primary_listing_ids: Array.from({ length: 11 }, (_, i) => i + 1) })).toBe(
      "primary_listing_ids: 1 to 10 items allowed (got 11)"
    )
    expect(refusedLine(SmartLinkRequest, { ...valid, settings: { language: "nl" } })).toBe(
      'settings.language: must be one of en, fr, it, pt, es, de (got "nl")'
    )
    expect(refusedLine(SmartLinkRequest, { ...valid, settings: { language: "en", brand_color: "#ff0000ff0" } })).toBe(
      "settings.brand_color: at most 9 characters (got 10)"
    )
    expect(refusedLine(SmartLinkRequest, { ...valid, user: { ...valid.user, email: "ana" } })).toBe(
      'user.email: must be an e-mail address (got "ana")'
    )
    expect(refusedLine(SmartLinkRequest, { ...valid, company: {} })).toBe("company.name: is required")
    expect(refusedLine(SmartLinkRequest, { ...valid, settings: { language: "en", components_to_include: ["map"] } })).toMatch(
      /^settings\.components_to_include\[0\]: must be one of price, days_on_market, .*market_analytics \(got "map"\)$/
    )
  })
})

describe("Platform requests", () => {
  it("premises: any keys, limit at most 200", () => {
    const out = accepted(PremisesRequest, { query: "local comercial Madrid", limit: 200 }) as Record<string, unknown>
    expect(out["query"]).toBe("local comercial Madrid")
    expect(refusedLine(PremisesRequest, { limit: 201 })).toBe("limit: must be between 1 and 200 (got 201)")
  })
  it("plot search criteria", () => {
    accepted(PlotSearchRequest, { criteria: {} })
    accepted(PlotSearchRequest, { criteria: { commercial_use: "all", plot_types: ["building_plot"], sort: "newest", limit: 100 } })
    accepted(PlotSearchRequest, { criteria: { commercial_use: ["zoned_commercial", "not_stated"], operation: "either" } })
    accepted(PlotSearchRequest, { criteria: { commercial_use: "zoned_commercial" } })
    expect(refusedLine(PlotSearchRequest, { criteria: { plot_types: ["urban_plot"] } })).toBe(
      'criteria.plot_types[0]: must be one of building_plot, rural_plot (got "urban_plot")'
    )
    expect(refusedLine(PlotSearchRequest, { criteria: { sort: "price_desc" } })).toBe(
      'criteria.sort: must be one of commercial_use, newest, price_asc, area_desc, price_m2_asc (got "price_desc")'
    )
    expect(refusedLine(PlotSearchRequest, { criteria: { plot_area_min: 500, plot_area_max: 100 } })).toBe(
      "criteria.plot_area_max: must not be below plot_area_min (got 100 < 500)"
    )
    expect(refusedLine(PlotSearchRequest, { criteria: { limit: 101 } })).toBe("criteria.limit: must be between 1 and 100 (got 101)")
    expect(refusedLine(PlotSearchRequest, {})).toBe("criteria: is required")
  })
  it("plot commercial_use: all, a level or a list of levels", () => {
    const line = refusedLine(PlotSearchRequest, { criteria: { commercial_use: "industrial" } })
    expect(line).toMatch(/^criteria\.commercial_use: /)
    expect(line).toContain("zoned_commercial")
  })
  it("sourcing search (Assumed body)", () => {
    accepted(SourcingSearchRequest, { country: "ES", operation: "sale", types: ["apartment"], limit: 200 })
    expect(refusedLine(SourcingSearchRequest, { country: "US", operation: "sale" })).toMatch(
      /^country: must be one of ES, PT, .* \(got "US"\)$/
    )
    expect(refusedLine(SourcingSearchRequest, { country: "ES", operation: "sale", limit: 500 })).toBe(
      "limit: must be between 1 and 200 (got 500)"
    )
  })
  it("describe: tags xor description, at most 20 tags", () => {
    accepted(DescribeRequest, { country: "ES", tags: ["terrace", "sea view"] })
    accepted(DescribeRequest, { country: "ES", description: "terrace, sea view and garage" })
    expect(refusedLine(DescribeRequest, { country: "ES", tags: ["a"], description: "b" })).toBe(
      "exactly one of tags, description is allowed (got tags and description)"
    )
    expect(refusedLine(DescribeRequest, { country: "ES" })).toBe("exactly one of tags, description is required (got none)")
    expect(refusedLine(DescribeRequest, { country: "ES", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).toBe(
      "tags: 1 to 20 items allowed (got 21)"
    )
  })
  it("resolve: exactly one of url, reference, listing_id", () => {
    accepted(ResolveRequest, { url: "https://portal.example/listing/1" })
    accepted(ResolveRequest, { listing_id: 5 })
    expect(refusedLine(ResolveRequest, { url: "https://x.example/1", listing_id: 5 })).toBe(
      "exactly one of url, reference, listing_id is allowed (got url and listing_id)"
    )
    expect(refusedLine(ResolveRequest, {})).toBe("exactly one of url, reference, listing_id is required (got none)")
  })
  it("seller leads (Assumed query)", () => {
    accepted(SellerLeadsQuery, { latitude: 40.4, longitude: -3.7, radius_km: 2, min_price_cuts: 2, since: "2025-01-01" })
    expect(refusedLine(SellerLeadsQuery, { latitude: 40.4, longitude: -3.7, radius_km: 60 })).toBe(
      "radius_km: must be between 0.1 and 50 (got 60)"
    )
  })
})

describe("Alerts and feeds requests", () => {
  it("feed alert reads: offset at most 50000, order_by, dates", () => {
    accepted(FeedAlertsQuery, { offset: 0, order_by: "-created_at", created_at_from: "2025-01-01T00:00:00" })
    expect(refusedLine(FeedAlertsQuery, { offset: 50001 })).toBe("offset: must be between 0 and 50000 (got 50001)")
    expect(refusedLine(FeedAlertsQuery, { order_by: "date" })).toMatch(/^order_by: must be one of alert_date, -alert_date,/)
    expect(refusedLine(FeedAlertsQuery, { created_at_from: "2025-01-01 00:00" })).toBe(
      'created_at_from: must be a date-time YYYY-MM-DDTHH:mm:ss in UTC, without zone or fraction (got "2025-01-01 00:00")'
    )
    // the spec says other forms are ignored by the host: the client never sends one
    expect(refusedLine(FeedAlertsQuery, { created_at_to: "2025-01-01T00:00:00.000Z" })).toMatch(
      /^created_at_to: must be a date-time YYYY-MM-DDTHH:mm:ss/
    )
    expect(refusedLine(FeedAlertsQuery, { created_at_to: "2025-01-01T00:00:00Z" })).toMatch(
      /^created_at_to: must be a date-time YYYY-MM-DDTHH:mm:ss/
    )
  })
  it("alerts search and feed bodies (Assumed)", () => {
    accepted(AlertSearchRequest, { alert_subtypes: ["sold"], offset: 100 })
    expect(refusedLine(AlertSearchRequest, { alert_subtypes: ["gone"] })).toBe(
      'alert_subtypes[0]: must be one of new, price_up, price_down, reserved, delisted, sold (got "gone")'
    )
    accepted(FeedRequest, { name: "Madrid cuts", filter: { location_ids: [3], alert_subtypes: ["price_down"] } })
    expect(refusedLine(FeedRequest, { name: "", filter: {} })).toBe("name: must not be empty")
  })
  it("webhooks", () => {
    accepted(RotateSecretRequest, {})
    accepted(RotateSecretRequest, { immediate: true })
    expect(refusedLine(RotateSecretRequest, { immediate: "yes" })).toBe('immediate: must be true or false (got "yes")')
    expect(refusedLine(WebhookUrlRequest, { url: "ftp://x" })).toBe('url: must be an http(s) URL (got "ftp://x")')
  })
})

describe("Auth and references requests", () => {
  it("login", () => {
    accepted(LoginRequest, { email: "a@example.com", password: "pw" })
    expect(refusedLine(LoginRequest, { email: "a@example.com" })).toBe("password: is required")
  })
  it("locations, sources, by-coordinates", () => {
    accepted(LocationsRequest, { country: "PT", parent_id: 1 })
    expect(refusedLine(LocationsRequest, { country: "pt" })).toBe('country: must be an ISO 3166-1 alpha-2 code, upper case (got "pt")')
    expect(refusedLine(SourcesQuery, {})).toBe("locationId: is required")
    expect(refusedLine(ByCoordinatesQuery, { latitude: -91, longitude: 0 })).toBe("latitude: must be between -90 and 90 (got -91)")
  })
  it("problem type URIs use hyphens", () => {
    expect(problemType("https://platform.example/", "payment_required")).toBe("https://platform.example/errors/payment-required")
    expect(isProblemCode("key_in_query")).toBe(true)
    expect(isProblemCode("teapot")).toBe(false)
  })
  it("typeahead in ES or PT; zipcode boundary", () => {
    accepted(TypeaheadRequest, { country: "PT", query: "Lis" })
    expect(refusedLine(TypeaheadRequest, { country: "FR", query: "Par" })).toBe('country: must be one of ES, PT (got "FR")')
    expect(refusedLine(ZipcodeBoundaryRequest, { country_code: "es", zip_code: "28001" })).toBe(
      'country_code: must be an ISO 3166-1 alpha-2 code, upper case (got "es")'
    )
  })
})
