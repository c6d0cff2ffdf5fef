/**
 * The sandbox's generated records decode with the client schemas (the two were written from
 * the spec and docs/ASSUMPTIONS.md by different people; this checks they agree).
 */
import { Either, Schema } from "effect"
import { makeRecordDecoder } from "../../../src/service/schema/FastDecode.js"
import { describe, expect, it } from "vitest"
import { makeWorld } from "../../../src/sandbox/world/World.js"
import {
  Agencies,
  Agents,
  Alert,
  Conditions,
  FeatureGroups,
  Lead,
  LocationReferences,
  PlotResult,
  Premises,
  Property,
  SourcingProperty,
  SourcingPropertyDetail,
  splitExtra,
  TypeReferences
} from "../../../src/service/schema/index.js"

const world = makeWorld({ seed: 7, properties: 400, plots: 60, premises: 30 })

/** Decodes every record; returns the failures (index and message) so a mismatch is readable. */
const failures = <A, I>(schema: Schema.Schema<A, I, never>, records: ReadonlyArray<unknown>) =>
  records.flatMap((r, i) => {
    const out = Schema.decodeUnknownEither(schema)(r)
    return Either.isLeft(out) ? [`#${i}: ${out.left.message}`] : []
  })

describe("sandbox world records decode with the client schemas", () => {
  it("properties (all nested parts), none dropped", () => {
    const props = Array.from({ length: world.size }, (_, i) => world.property(i))
    expect(failures(Property, props)).toEqual([])
    // nothing the sandbox sends is unknown to the schema
    const extras = props.flatMap((p) => Object.keys(splitExtra(Property.fields, p as never).extra))
    expect(new Set(extras)).toEqual(new Set())
  })

  it("alerts", () => {
    const page = world.alerts({ nowMs: world.now(), offset: 0, limit: 300 })
    expect(page.results.length).toBeGreaterThan(0)
    expect(failures(Alert, page.results)).toEqual([])
  })

  it("plots and premises", () => {
    const plots = Array.from({ length: world.plotCount }, (_, i) => world.plot(i))
    expect(failures(PlotResult, plots)).toEqual([])
    const premises = Array.from({ length: world.premisesCount }, (_, i) => world.premises(i))
    expect(failures(Premises, premises)).toEqual([])
  })

  it("property sourcing results, details and seller leads", () => {
    const idx = Array.from({ length: 100 }, (_, i) => i)
    expect(
      failures(
        SourcingProperty,
        idx.map((i) => world.sourcingProperty(i))
      )
    ).toEqual([])
    expect(
      failures(
        SourcingPropertyDetail,
        idx.map((i) => world.sourcingDetail(i))
      )
    ).toEqual([])
    const c = world.locationCenter(world.property(0).location.location_id)!
    const leads = world.sellerLeads({ ...c, radius_km: 50, min_price_cuts: 1, min_price_cut_pct: 0 })
    expect(failures(Lead, leads)).toEqual([])
  })

  it("references", () => {
    expect(failures(Agencies, [world.agencies])).toEqual([])
    expect(failures(Agents, [world.agents])).toEqual([])
    expect(failures(FeatureGroups, [world.featureGroups])).toEqual([])
    expect(failures(Conditions, [world.conditions])).toEqual([])
    expect(failures(TypeReferences, [world.types])).toEqual([])
    expect(failures(LocationReferences, [world.locations])).toEqual([])
  })

  it("every drifted record is caught: refused (wrong type) or flagged (renamed field lands in extra)", () => {
    const drifted = Array.from({ length: 200 }, (_, i) => world.drift(world.property(i), "property", 1))
    let refused = 0
    let flagged = 0
    for (const d of drifted) {
      const out = Schema.decodeUnknownEither(Property)(d)
      if (Either.isLeft(out)) refused++
      else if (Object.keys(splitExtra(Property.fields, out.right).extra).length > 0) flagged++
    }
    expect(refused).toBeGreaterThan(0)
    expect(flagged).toBeGreaterThan(0)
    expect(refused + flagged).toBe(drifted.length)
    // the bulk decoder refuses exactly the same records
    const fast = makeRecordDecoder(Property)
    expect(drifted.filter((d) => Either.isLeft(fast(d))).length).toBe(refused)
  })
})
