import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/references.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

describe("references", () => {
  let h: Harness
  const refRequests = () =>
    Object.entries(h.sandbox.control.stats().requests)
      .filter(([k]) => k.includes("/api/v1/references/"))
      .reduce((s, [, n]) => s + n, 0)
  const count = async (table: string) => Number((await h.query(`SELECT count(*) AS n FROM ${table}`))[0]!.n)
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 1000 } } })
  })
  afterAll(() => h.close())

  it("lands every reference in its dimension table as the world has it; a rerun replaces, never duplicates", async () => {
    const w = h.sandbox.context.world
    const district = w.locations.find((l) => l.country === "ES" && l.administrative_level === "district" && l.zip_codes.length > 0)!
    const center = w.locationCenter(district.location_id)!
    const far = { latitude: -60, longitude: -150 }
    expect(w.locationByCoordinates(far)).toBeUndefined()
    const params = {
      location_countries: ["ES", "PT"],
      source_location_ids: [district.location_id],
      points: [center, far],
      typeahead: [{ country: "ES", query: district.name.slice(0, 3) }],
      zip_codes: [
        { country_code: "ES", zip_code: district.zip_codes[0]! },
        { country_code: "ES", zip_code: "no-such-zip" }
      ]
    }
    const before = refRequests()
    const summary = await h.run(pipeline, { params })
    expect(summary.status).toBe("done")
    // 5 lists + 2 location calls + 1 sources + 2 points + 1 typeahead + 2 zip codes
    expect(summary.plan).toMatchObject({ requests: 13, exact: true, slices: 13 })
    expect(refRequests() - before).toBe(13)

    const expected = async () => {
      expect(await count("reference_features")).toBe(new Set(w.featureGroups.flatMap((g) => g.names.map((n) => `${g.group}/${n}`))).size)
      expect(await count("reference_agencies")).toBe(w.agencies.length)
      expect(await count("reference_agents")).toBe(w.agents.length)
      expect(await count("reference_conditions")).toBe(w.conditions.length)
      expect(await count("reference_types")).toBe(w.types.length)
      expect(await count("reference_type_countries")).toBe(w.types.reduce((s, t) => s + t.countries.length, 0))
      expect(await count("reference_locations")).toBe(w.locations.filter((l) => l.country === "ES" || l.country === "PT").length)
      expect(await count("reference_sources")).toBe(new Set(w.sources(district.location_id)).size)
      expect(await count("reference_typeahead")).toBe(w.typeahead("ES", district.name.slice(0, 3), 10).length)
    }
    await expected()
    const [loc] = await h.query(`SELECT * FROM reference_locations WHERE location_id = ${district.location_id}`)
    expect(loc).toMatchObject({ name: district.name, parent_id: district.parent_id, country: "ES", administrative_level: "district" })
    const points = await h.query(`SELECT found, location_id FROM reference_locations_by_coordinates ORDER BY latitude`)
    expect(points).toEqual([
      { found: false, location_id: null },
      { found: true, location_id: w.locationByCoordinates(center)!.location_id }
    ])
    const zips = await h.query(`SELECT zip_code, found, polygon FROM reference_zipcode_boundaries ORDER BY found`)
    expect(zips.map((z) => z.found)).toEqual([false, true])
    expect(zips[1]!.polygon).toEqual(w.zipcodeBoundary("ES", district.zip_codes[0]!))
    const [agency] = await h.query(`SELECT * FROM reference_agencies WHERE agency_id = ${w.agencies[3]!.agency_id}`)
    expect(agency).toMatchObject({ name: w.agencies[3]!.name, country: w.agencies[3]!.country })

    // second run: tables swapped in, same counts
    const again = await h.run(pipeline, { params })
    expect(again.status).toBe("done")
    await expected()
  })

  it("refuses bad parameters before any request", async () => {
    const before = refRequests()
    await expect(h.run(pipeline, { params: { typeahead: [{ country: "FR", query: "Pa" }] } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(pipeline, { params: { points: [{ latitude: 91, longitude: 0 }] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { location_countries: ["es"] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(refRequests()).toBe(before)
  })
})
