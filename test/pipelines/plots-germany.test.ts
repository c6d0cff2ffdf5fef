import { describe, expect, it } from "vitest"
import { useHarness } from "../support/pipelines.js"

describe("plots-germany", () => {
  const h = useHarness()

  it("lands every plot matching the criteria once, with its agency links, as the sandbox's ground truth says", async () => {
    const criteria = { regions: ["Bayern", "Hessen"], commercial_use: "all" }
    const truth = h.sandbox.context.world.searchPlots(criteria as never)
    const summary = await h.run("plots-germany", { params: { criteria, pageSize: 40 } })
    expect(summary.status).toBe("done")
    const [{ n, ids }] = (await h.query(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM plots`)) as Array<{ n: number; ids: number }>
    expect(n).toBe(truth.length)
    expect(ids).toBe(truth.length)
    const links = await h.query(`SELECT count(*) AS n FROM plot_agency_links`)
    expect(links[0]!.n).toBe(truth.reduce((s, p) => s + (p.agency_links?.length ?? 0), 0))
    const sample = truth[Math.floor(truth.length / 2)]!
    const [row] = await h.query(`SELECT * FROM plots WHERE id = '${sample.id}'`)
    expect(row!.commercial_use_level).toBe(sample.commercial_use.level)
    expect(row!.commercial_use_evidence).toBe(sample.commercial_use.evidence)
    expect(row!.lat).toBeCloseTo(sample.coordinates.lat, 6)
    expect(row!.sale_eur).toBe(sample.sale_eur)
    // every page was paid and entered in the ledger
    const [ledger] = await h.query(`SELECT count(*) AS calls, sum(units) AS units FROM _ledger`)
    expect(ledger!.units).toBe(summary.totals.units)
    expect(Number(ledger!.calls)).toBe(summary.totals.pages)
  })
})
