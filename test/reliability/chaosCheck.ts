/**
 * The chaos verdict both CI chaos tests share: after N SIGKILLs and resumes the warehouse equals
 * a clean run's, holds no duplicate, its ledger holds what the clean run paid, and the kills cost
 * at most `pagesPerKill` pages each: the paid call in flight when the process died (a page that
 * arrived is in the page journal and is landed by the resume, not fetched again).
 */
import { expect, it } from "vitest"
import { runChaos, scenarios } from "../support/chaos.js"

/** `make test` kills 5 times a source, `make chaos` (CHAOS=full) 10 here and 50 in tools/chaos.ts. */
const KILLS = process.env.CHAOS === "full" ? 10 : 5

export const chaosTest = (scenario: "sourcing-search" | "seller-leads", seed: number, pagesPerKill: number) =>
  it(`${KILLS} SIGKILLs and resumes end with the clean run's data, no duplicates, at most ${pagesPerKill} page(s) paid per kill`, async () => {
    const r = await runChaos({ scenario: scenarios("ci")[scenario]!, kills: KILLS, seed })
    expect(r.kills).toBe(KILLS)
    expect(r.finalExit).toBe(0)
    for (const [table, { clean, chaos }] of Object.entries(r.tables)) {
      expect(clean.rows, table).toBeGreaterThan(0)
      expect(chaos, table).toEqual(clean)
    }
    expect(r.rowsLost).toBe(0)
    expect(r.duplicates).toBe(0)
    // every committed page is in the ledger once, and the ledger holds what the clean run paid
    expect(r.ledgerDuplicates).toBe(0)
    expect(r.ledgerUnits).toBe(r.cleanUnits)
    // what the kills lost in flight
    expect(r.unitsOver).toBeGreaterThanOrEqual(0)
    expect(r.unitsOver).toBeLessThanOrEqual(r.kills * pagesPerKill)
  }, 240_000)
