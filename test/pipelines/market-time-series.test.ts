import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/market-time-series.js"
import { snapDateRange } from "../../src/service/schema/TimeSeries.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

const ROUTE = "POST /market-analytics-api/time-series"
const types = ["apartment", "penthouse"]
const date_range = { min: "2026-01-07", max: "2026-05-20" }

describe("market-time-series", () => {
  let h: Harness
  const requestsMade = () => h.sandbox.control.stats().requests[ROUTE] ?? 0
  const truth = (ids: ReadonlyArray<number>, data_point: string) =>
    h.sandbox.context.world.timeSeries(
      {
        types,
        business_type: "sale",
        custom_location_boundary: { location_ids: ids },
        data_point,
        date_interval: "month",
        date_range: snapDateRange(date_range)
      } as never,
      h.sandbox.control.now()
    )

  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 3000 } } })
  })
  afterAll(() => h.close())

  it("lands one series per location and data point, records 204s, and the exact plan equals the requests", async () => {
    const w = h.sandbox.context.world
    const municipalities = w.locations.filter((l) => l.country === "ES" && l.administrative_level === "municipality")
    const withData = municipalities.filter((l) => truth([l.location_id], "avg_price").length > 0).slice(0, 3)
    const without = municipalities.find(
      (l) => truth([l.location_id], "avg_price").length === 0 && truth([l.location_id], "new").length === 0
    )
    expect(withData.length).toBe(3)
    expect(without).toBeDefined()
    const ids = [...withData.map((l) => l.location_id), without!.location_id]
    const params = {
      location_ids: ids,
      types,
      business_type: "sale",
      data_points: ["avg_price", "new"],
      date_interval: "month",
      date_range
    }

    const before = requestsMade()
    const summary = await h.run(pipeline, { params })
    expect(summary.status).toBe("done")
    expect(summary.plan.exact).toBe(true)
    expect(summary.plan.requests).toBe(ids.length * 2)
    expect(requestsMade() - before).toBe(summary.plan.requests)

    let expected = 0
    for (const id of ids) {
      for (const dp of ["avg_price", "new"]) {
        const points = truth([id], dp)
        expected += points.length
        const rows = await h.query(
          `SELECT CAST(date_start AS VARCHAR) AS d, value FROM market_time_series WHERE location_id = ${id} AND data_point = '${dp}' ORDER BY date_start`
        )
        expect(rows.map((r) => [r.d, r.value])).toEqual(points.map((p) => [p.date_start, p.value]))
      }
    }
    const [{ n }] = (await h.query(`SELECT count(*) AS n FROM market_time_series`)) as Array<{ n: number }>
    expect(n).toBe(expected)

    // one request row per request; the location without data answered 204 twice
    const reqs = await h.query(
      `SELECT area_key, data_point, points, empty, CAST(date_range_min AS VARCHAR) AS dmin FROM market_time_series_requests ORDER BY area_key, data_point`
    )
    expect(reqs.length).toBe(ids.length * 2)
    const empties = reqs.filter((r) => r.empty === true)
    expect(empties.map((r) => r.area_key)).toEqual([`loc=${without!.location_id}`, `loc=${without!.location_id}`])
    expect(empties.every((r) => r.points === 0)).toBe(true)
    expect(reqs[0]!.dmin).toBe("2026-01-05")

    // a rerun merges points in place (no duplicates) and appends one request row each
    await h.run(pipeline, { params })
    const [{ n: again }] = (await h.query(`SELECT count(*) AS n FROM market_time_series`)) as Array<{ n: number }>
    expect(again).toBe(expected)
    const [{ r }] = (await h.query(`SELECT count(*) AS r FROM market_time_series_requests`)) as Array<{ r: number }>
    expect(r).toBe(ids.length * 4)
  })

  it("groups location ids by ten with aggregate and sends circles as their own requests", async () => {
    const w = h.sandbox.context.world
    const ids = w.locations
      .filter((l) => l.country === "ES" && l.administrative_level === "district")
      .slice(0, 12)
      .map((l) => l.location_id)
    const center = w.locationCenter(ids[0]!)!
    const d = 0.2
    const square = [
      [-d, -d],
      [-d, d],
      [d, d],
      [d, -d],
      [-d, -d]
    ].map(([a, b]) => ({ latitude: center.latitude + a!, longitude: center.longitude + b! }))
    const before = requestsMade()
    const summary = await h.run(pipeline, {
      params: {
        location_ids: ids,
        aggregate: true,
        circles: [{ distance: 20000, target_point: center }],
        polygons: [square],
        types,
        business_type: "sale",
        data_points: ["available_on_market"],
        date_interval: "month",
        date_range
      }
    })
    expect(summary.status).toBe("done")
    expect(summary.plan.requests).toBe(4)
    expect(requestsMade() - before).toBe(4)
    const first = truth(ids.slice(0, 10), "available_on_market")
    const rows = await h.query(
      `SELECT value, location_ids FROM market_time_series WHERE area_key = 'locs=${ids.slice(0, 10).join(",")}' ORDER BY date_start`
    )
    expect(first.length).toBeGreaterThan(0)
    expect(rows.map((r) => r.value)).toEqual(first.map((p) => p.value))
    expect(rows[0]!.location_ids).toEqual(ids.slice(0, 10))
    const [areas] = await h.query(
      `SELECT count(*) FILTER (area_key LIKE 'circle=%') AS c, count(*) FILTER (area_key LIKE 'polygon=%') AS p FROM market_time_series_requests`
    )
    expect(areas).toEqual({ c: 1, p: 1 })
    const inSquare = h.sandbox.context.world.timeSeries(
      {
        types,
        business_type: "sale",
        custom_location_boundary: { polygon: square },
        data_point: "available_on_market",
        date_interval: "month",
        date_range: snapDateRange(date_range)
      } as never,
      h.sandbox.control.now()
    )
    const poly = await h.query(`SELECT value FROM market_time_series WHERE area_key LIKE 'polygon=%' ORDER BY date_start`)
    expect(poly.map((r) => r.value)).toEqual(inSquare.map((p) => p.value))
  })

  it("refuses bad parameters before any request", async () => {
    const before = requestsMade()
    const base = { location_ids: [1], business_type: "sale", data_points: ["avg_price"], date_interval: "month", date_range }
    await expect(h.run(pipeline, { params: { ...base, types: ["apartment", "villa"] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { ...base, types, data_points: [] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { ...base, types, location_ids: [] } })).rejects.toThrow(/location_ids, circles, polygons/)
    await expect(
      h.run(pipeline, { params: { ...base, types, date_range: { min: "2026-05-01", max: "2026-01-01" } } })
    ).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(requestsMade()).toBe(before)
  })
})
