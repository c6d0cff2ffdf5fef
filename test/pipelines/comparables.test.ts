import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import comparables from "../../pipelines/comparables.js"
import { useHarness, type Harness } from "../support/pipelines.js"

describe("comparables", () => {
  const h = useHarness({ sandbox: { world: { properties: 5000 } } })

  const targetsNear = (h: Harness, n: number) => {
    const world = h.sandbox.context.world
    return Array.from({ length: n }, (_, i) => {
      const p = world.property(i * 11)
      return { id: `t${i}`, latitude: p.coordinates.latitude, longitude: p.coordinates.longitude, type: p.type }
    })
  }

  it("lands comparables and a valuation per target from a CSV, keeping the target id", async () => {
    const targets = targetsNear(h, 3)
    const csv = path.join(h.dir, "targets.csv")
    fs.writeFileSync(csv, "id,latitude,longitude\n" + targets.map((t) => `${t.id},${t.latitude},${t.longitude}`).join("\n") + "\n")
    const params = { csv, comparables_count: 10, distance: 25, comparables_types: ["apartment", "penthouse", "duplex", "studio"] }
    const summary = await h.run(comparables, { params })
    expect(summary.status).toBe("done")
    expect(summary.plan.requests).toBe(6)
    const world = h.sandbox.context.world
    for (const t of targets) {
      const truth = world.comparables(
        {
          comparables_count: 10,
          operation: "sale",
          comparables_types: params.comparables_types,
          location_boundary: { circle: { distance: 25, target_point: { coordinates: { latitude: t.latitude, longitude: t.longitude } } } }
        } as never,
        h.sandbox.context.clock.now()
      )
      const rows = await h.query(`SELECT property_id FROM comparables WHERE target_id = '${t.id}' ORDER BY rank`)
      const expected =
        "results" in truth ? (truth as unknown as { results: Array<{ property_id: number }> }).results.map((r) => r.property_id) : []
      expect(expected.length).toBeGreaterThan(0)
      expect(rows.map((r) => r.property_id)).toEqual(expected)
      const [v] = await h.query(`SELECT count(*) AS n FROM valuations WHERE target_id = '${t.id}'`)
      expect(v!.n).toBe(1)
    }
  })

  it("refuses a target whose request breaks a rule, before any request", async () => {
    const before = JSON.stringify(h.sandbox.control.stats().requests)
    await expect(
      h.run(comparables, { params: { targets: [{ id: "a", latitude: 40, longitude: -3 }], comparables_count: 60 } })
    ).rejects.toMatchObject({ _tag: "InvalidInput", field: "comparables.targets.0" })
    await expect(
      h.run(comparables, { params: { targets: [{ id: "b", latitude: 40, longitude: -3 }], comparables_types: ["apartment", "villa"] } })
    ).rejects.toMatchObject({ _tag: "InvalidInput" })
    // a filter the body does not have is refused by name, not sent for the host to ignore
    await expect(
      h.run(comparables, { params: { targets: [{ id: "c", latitude: 40, longitude: -3 }], filters: { bedroms: 2 } } })
    ).rejects.toMatchObject({ _tag: "InvalidInput", field: "comparables.filters.bedroms" })
    expect(JSON.stringify(h.sandbox.control.stats().requests)).toBe(before)
  })
})
