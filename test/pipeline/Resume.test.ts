/**
 * Resumes that say what they do: an unfinished run is resumed only with its own parameters (or
 * when the requested ones equal them); other parameters are refused with the difference and the
 * two ways on (`resume` keeps the saved ones, `restart` starts over with the new ones). A run
 * that failed on a non-resumable error does not stick.
 */
import { Effect } from "effect"
import { Warehouse } from "../../src/load/Warehouse.js"
import { describe, expect, it } from "vitest"
import { useHarness } from "../support/pipelines.js"

const criteria = { commercial_use: "all" }

describe("resume", () => {
  const h = useHarness({ sandbox: { world: { plots: 400 } } })

  it("refuses other parameters for an unfinished run, then resumes or restarts as asked", async () => {
    const paused = await h.run("plots-germany", {
      params: { criteria, pageSize: 20, maxPages: 5, sample: true },
      maxUnits: 1,
      untilCap: true,
      fullRefresh: true
    })
    expect(paused.status).toBe("paused")

    const refused = await h.run("plots-germany", { params: { criteria, pageSize: 30, maxPages: 5, sample: true } }).then(
      () => undefined,
      (e) => e
    )
    expect(refused?._tag).toBe("InvalidInput")
    expect(refused.message).toMatch(/unfinished run .* \(paused\) has other parameters \(pageSize: 20 -> 30\)/)
    expect(refused.message).toMatch(/--resume goes on with its saved parameters, --restart drops its checkpoints/)

    // the same parameters resume without asking
    const same = await h.run("plots-germany", {
      params: { criteria, pageSize: 20, maxPages: 5, sample: true },
      maxUnits: 1,
      untilCap: true
    })
    expect(same.resumed).toBe(true)
    expect(same.runId).toBe(paused.runId)

    const resumed = await h.run("plots-germany", { params: { criteria, pageSize: 30, maxPages: 5, sample: true }, resume: "resume" })
    expect(resumed.resumed).toBe(true)
    expect(resumed.runId).toBe(paused.runId)
    expect(resumed.status).toBe("done")
    const [saved] = await h.query(`SELECT json_extract(params, '$.pageSize') AS p FROM _runs WHERE run_id = '${resumed.runId}'`)
    expect(Number(saved!.p)).toBe(20)

    // a paused run restarted with new parameters: a new run with them
    await h.run("plots-germany", {
      params: { criteria, pageSize: 20, maxPages: 5, sample: true },
      maxUnits: 1,
      untilCap: true,
      fullRefresh: true
    })
    const restarted = await h.run("plots-germany", { params: { criteria, pageSize: 30, maxPages: 5, sample: true }, resume: "restart" })
    expect(restarted.resumed).toBe(false)
    expect(restarted.status).toBe("done")
    const [fresh] = await h.query(`SELECT json_extract(params, '$.pageSize') AS p FROM _runs WHERE run_id = '${restarted.runId}'`)
    expect(Number(fresh!.p)).toBe(30)
  })

  it("a run recorded failed (a non-resumable ending) is not resumed: the next run starts from the first page", async () => {
    const first = await h.run("plots-germany", {
      params: { criteria, pageSize: 20, maxPages: 5, sample: true },
      maxUnits: 1,
      untilCap: true,
      fullRefresh: true,
      // bought again, not reused from the earlier tests' archive: the cap stops it after a page
      fresh: true
    })
    expect(first.status).toBe("paused")
    expect(first.totals.pages).toBe(1)
    // as a failed ending records it (an authentication failure, a bug): its checkpoints stay behind
    await h.use(Effect.flatMap(Warehouse, (w) => w.query(`UPDATE _runs SET status = 'failed' WHERE run_id = '${first.runId}'`)))
    const next = await h.run("plots-germany", { params: { criteria, pageSize: 30, maxPages: 5, sample: true } })
    expect(next.resumed).toBe(false)
    expect(next.runId).not.toBe(first.runId)
    expect(next.status).toBe("done")
    expect(next.totals.pages).toBeGreaterThan(1)
    const checkpoints = await h.query(`SELECT DISTINCT run_id FROM _checkpoints WHERE pipeline = 'plots-germany'`)
    expect(checkpoints).toEqual([{ run_id: next.runId }])
  })

  it("a resumed run reads the slices it had not reached, not taking an earlier run's finished ones for its own", async () => {
    // three countries, one slice each: a complete pull, then a second one stopped at its cap before it read them all
    const params = { places: [{ country: "AD" }, { country: "CY" }, { country: "HR" }], operation: "sale", pageSize: 50 }
    const full = await h.run("sourcing-search", { params })
    expect(full.status).toBe("done")
    const stopped = await h.run("sourcing-search", { params, maxUnits: 1, untilCap: true, fresh: true })
    expect(stopped.status).toBe("paused")
    expect(stopped.totals.pages).toBeLessThan(full.totals.pages)
    const resumed = await h.run("sourcing-search", { params, fresh: true })
    expect(resumed.resumed).toBe(true)
    expect(resumed.status).toBe("done")
    // every slice's position is the resumed run's own: those it had not reached were read by it
    const owners = await h.query(`SELECT key, run_id FROM _checkpoints WHERE pipeline = 'sourcing-search' ORDER BY key`)
    expect(owners.map((o) => o.run_id)).toEqual(owners.map(() => stopped.runId))
    expect(owners).toHaveLength(3)
    expect(stopped.totals.pages + resumed.totals.pages).toBe(full.totals.pages)
  })
})

describe("a resumed run's expectation", () => {
  const h = useHarness({ sandbox: { world: { properties: 4000 } } })

  it("counts a slice finished before the stop by its pages, not at the plan's mean a slice", async () => {
    // AD's records (read once in pages of 20, so no answer of the run below is reused)
    const solo = await h.run("sourcing-search", { params: { places: [{ country: "AD" }], operation: "sale", pageSize: 20 } })
    const adPages = Math.ceil(solo.totals.records / 10)
    expect(adPages).toBeGreaterThan(1)
    // AD then PT, one at a time: the cap stops the run after AD's last page and PT's first
    const params = { places: [{ country: "AD" }, { country: "PT" }], operation: "sale", pageSize: 10, concurrency: 1 }
    const stopped = await h.run("sourcing-search", { params, maxUnits: adPages + 1, untilCap: true })
    expect(stopped.status).toBe("paused")
    expect(stopped.totals.pages).toBe(adPages + 1)
    const resumed = await h.run("sourcing-search", { params })
    expect(resumed.resumed).toBe(true)
    expect(resumed.status).toBe("done")
    const pages = stopped.totals.pages + resumed.totals.pages
    expect(resumed.expected).toEqual({ pages, units: pages, exact: true })
  })
})
