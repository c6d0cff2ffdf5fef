/**
 * The ledger holds what the service charged even when a run ends on two failures at once: a paid
 * answer whose body broke off after its headers (charged, never retried) ends the fetching, and the
 * landing then fails on its own (here: more records failed their schema than the run allows). The
 * run ends with the landing's error; the broken answer's charge still goes into `_ledger` and the
 * run's `units_charged`, without counting as a page; the next run buys only the broken page again.
 *
 * The sandbox's fault PRNG is seeded so that the run's second platform request (page 2) is cut off
 * and the first and third are not (`nextFault`, seed 17, truncate rate 0.5); every record drifts
 * from the spec, so the first page's group fails the reject ratio when it lands.
 */
import { describe, expect, it } from "vitest"
import { unitsSpent, useHarness } from "../support/pipelines.js"

describe("charges of a run that ends on two failures", () => {
  const h = useHarness({
    sandbox: { seed: 17, world: { plots: 600 }, faults: { platform: { truncateRate: 0.5, driftRate: 1 } } },
    // the group lands when the fetching ends, not after a wait: the cut answer arrives first
    settings: { service: { platformRate: 0, apiRate: 0 }, duckdb: { groupWaitMs: 60_000 } }
  })
  const ledger = () =>
    h.query(`SELECT request_id, units::INTEGER AS units FROM _ledger ORDER BY "at", request_id`) as Promise<
      Array<{ request_id: string; units: number }>
    >

  it("keeps the charge of a broken answer when the landing fails too, outside the run's pages", async () => {
    const failed = await h.run("plots-germany", { params: { pageSize: 100 } })
    expect(failed.status).toBe("failed")
    expect(failed.error).toMatch(/failed their schema \(more than 5%\)/)
    // page 1 (landed, then judged) and page 2 (cut off after its headers): two charges
    expect(unitsSpent(h)).toBe(2)
    const charges = await ledger()
    expect(charges.map((c) => c.units)).toEqual([1, 1])
    expect(new Set(charges.map((c) => c.request_id)).size).toBe(2)
    expect(failed.totals.units).toBe(2)
    const [run] = await h.query(
      `SELECT pages::INTEGER AS pages, units_charged::INTEGER AS units FROM _runs WHERE run_id = '${failed.runId}'`
    )
    expect(run).toEqual({ pages: 1, units: 2 })
  }, 60_000)

  it("the next run, the answers whole again, buys only the broken page again, and the ledger is the service's bill", async () => {
    h.sandbox.control.setFaults("platform", {})
    const before = unitsSpent(h)
    const next = await h.run("plots-germany", { params: { pageSize: 100 } })
    // a reject ratio is not resumed: the run starts over, and its records still fail their schema
    expect([next.resumed, next.status]).toEqual([false, "failed"])
    expect(next.error).toMatch(/52 of 187 records failed their schema/)
    // page 1 comes back from the raw archive; page 2, whose first answer broke off, is bought again
    expect([next.totals.pages, next.totals.requests, next.totals.units]).toEqual([2, 1, 1])
    expect(unitsSpent(h) - before).toBe(1)
    const charges = await ledger()
    expect(charges.reduce((n, c) => n + c.units, 0)).toBe(unitsSpent(h))
    const [runs] = await h.query(`SELECT sum(units_charged)::INTEGER AS units FROM _runs`)
    expect(runs!.units).toBe(unitsSpent(h))
  }, 60_000)
})

describe("charges of a run that ends on a broken answer alone", () => {
  const h = useHarness({
    sandbox: { seed: 17, world: { plots: 600 }, faults: { platform: { truncateRate: 0.5 } } },
    settings: { service: { platformRate: 0, apiRate: 0 }, duckdb: { groupWaitMs: 60_000 } }
  })

  it("lands the pages before it and records its charge, which `_runs.pages` does not count as a page", async () => {
    const stopped = await h.run("plots-germany", { params: { pageSize: 100 } })
    // a broken answer pauses the run (the resume goes on from its checkpoint)
    expect(stopped.status).toBe("paused")
    expect(stopped.error).toMatch(/plot_search \(request req_\w+\): TruncatedBody/)
    expect(unitsSpent(h)).toBe(2)
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS n, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger).toEqual({ n: 2, units: 2 })
    const [run] = await h.query(
      `SELECT pages::INTEGER AS pages, units_charged::INTEGER AS units FROM _runs WHERE run_id = '${stopped.runId}'`
    )
    expect(run).toEqual({ pages: 1, units: 2 })
    expect([stopped.totals.pages, stopped.totals.units]).toEqual([1, 2])
  }, 60_000)

  it("its resume buys the broken page again and nothing else; the run's pages are the pages it landed", async () => {
    h.sandbox.control.setFaults("platform", {})
    const resumed = await h.run("plots-germany", { params: { pageSize: 100 } })
    expect([resumed.resumed, resumed.status, resumed.error]).toEqual([true, "done", undefined])
    expect(unitsSpent(h)).toBe(3)
    const [run] = await h.query(
      `SELECT pages::INTEGER AS pages, units_charged::INTEGER AS units FROM _runs WHERE run_id = '${resumed.runId}'`
    )
    expect(run).toEqual({ pages: 2, units: 3 })
    const [ledger] = await h.query(`SELECT sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger!.units).toBe(3)
  }, 60_000)
})
