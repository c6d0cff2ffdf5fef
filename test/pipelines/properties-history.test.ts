/**
 * `properties` keeps history across nights: two runs of properties-by-id with the sandbox's clock
 * a day apart. What changed is computed from the world itself (its events between the two
 * instants), never from the warehouse.
 */
import { describe, expect, it } from "vitest"
import propertiesById from "../../pipelines/properties-by-id.js"
import { useHarness } from "../support/pipelines.js"

const DAY = 86_400_000
const OFF_MARKET = new Set(["sold", "rented", "none"])

describe("properties history across a day of the sandbox's world", () => {
  const h = useHarness({ sandbox: { world: { properties: 1500 } } })

  it("versions exactly the properties the world changed, closing the old version, keeping sold and delisted ones", async () => {
    const { world } = h.sandbox.context
    const t0 = h.sandbox.control.now()
    const t1 = t0 + DAY
    // Ground truth: a property changed when it has an event (an alert: a price or status change) in (t0, t1].
    const changed: Array<number> = []
    const unchanged: Array<number> = []
    for (let i = 0; i < world.size; i++) {
      const moved = world.alertIdsOfProperty(i, t1).length > world.alertIdsOfProperty(i, t0).length
      if (moved) changed.push(world.propertyIdOf(i))
      else if (unchanged.length < 40) unchanged.push(world.propertyIdOf(i))
    }
    const statusOf = (p: { sale_status?: string | null; rent_status?: string | null; operations?: ReadonlyArray<string> | null }) =>
      p.operations?.includes("rent") ? p.rent_status : p.sale_status
    const leftMarket = changed.filter((id) => OFF_MARKET.has(String(statusOf(world.propertyById(id, t1)!))))
    expect(changed.length).toBeGreaterThan(10)
    expect(leftMarket.length).toBeGreaterThan(2) // sold, rented or delisted during the day
    const ids = [...changed, ...unchanged]

    const first = await h.run(propertiesById, { params: { ids } })
    expect(first.status).toBe("done")
    const [before] = await h.query(`SELECT count(*) AS n, count(DISTINCT _valid_from) AS runs FROM properties`)
    expect(before).toEqual({ n: ids.length, runs: 1 })

    h.sandbox.control.advanceClock(DAY)
    const second = await h.run(propertiesById, { params: { ids } })
    expect(second.status).toBe("done")

    const versioned = await h.query(`SELECT property_id FROM properties GROUP BY 1 HAVING count(*) > 1 ORDER BY 1`)
    expect(versioned.map((r) => r.property_id)).toEqual([...changed].sort((a, b) => a - b))
    // nothing was deleted, nothing unchanged was rewritten (its version still begins with the first run)
    const firstRun = `(SELECT min(_valid_from) FROM properties)`
    const [after] = await h.query(
      `SELECT count(*) AS n, count(*) FILTER (WHERE _is_current) AS current,
              count(*) FILTER (WHERE NOT _is_current AND _valid_from = ${firstRun}) AS closed_first,
              count(*) FILTER (WHERE _is_current AND _valid_from = ${firstRun} AND property_id IN (${unchanged.join(", ")})) AS untouched
       FROM properties`
    )
    expect(after).toEqual({
      n: ids.length + changed.length,
      current: ids.length,
      closed_first: changed.length,
      untouched: unchanged.length
    })

    // each changed property: the closed version is the world at t0, the current one the world at t1
    const rows = await h.query(
      `SELECT property_id, sale_price, rent_price, sale_status, rent_status, _is_current AS current, _valid_from, _valid_to
       FROM properties WHERE property_id IN (${changed.join(", ")}) ORDER BY property_id, _valid_from`
    )
    for (const id of changed) {
      const [old, now] = rows.filter((r) => r.property_id === id)
      const was = world.propertyById(id, t0)!
      const is = world.propertyById(id, t1)!
      expect([old!.sale_price, old!.rent_price, old!.sale_status, old!.rent_status, old!.current]).toEqual([
        was.sale_price ?? null,
        was.rent_price ?? null,
        was.sale_status ?? null,
        was.rent_status ?? null,
        false
      ])
      expect([now!.sale_price, now!.rent_price, now!.sale_status, now!.rent_status, now!.current, now!._valid_to]).toEqual([
        is.sale_price ?? null,
        is.rent_price ?? null,
        is.sale_status ?? null,
        is.rent_status ?? null,
        true,
        null
      ])
      expect(old!._valid_to).toEqual(now!._valid_from)
    }
    // sold, rented and delisted properties are current versions carrying their status
    const offMarket = await h.query(
      `SELECT property_id FROM properties_current WHERE property_id IN (${leftMarket.join(", ")})
         AND coalesce(CASE WHEN operations::VARCHAR LIKE '%rent%' THEN rent_status ELSE sale_status END, '') IN ('sold', 'rented', 'none')`
    )
    expect(offMarket).toHaveLength(leftMarket.length)
    // the current view is one row per property, and the library reads it
    const [view] = await h.query(`SELECT count(*) AS n, count(DISTINCT property_id) AS d FROM properties_current`)
    expect(view).toEqual({ n: ids.length, d: ids.length })
  })
})
