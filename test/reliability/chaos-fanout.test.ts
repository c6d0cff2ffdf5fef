/**
 * Chaos on a fan-out source (seller-leads, five points = five offset-paged slices, two at once): the real CLI is
 * SIGKILLed 10 times at random instants and resumed; the warehouse must equal a clean run's.
 * The full harness (`make chaos`, tools/chaos.ts) does the same with 50 kills.
 */
import { describe, expect, it } from "vitest"
import { runChaos, scenarios } from "../../tools/chaos.js"

describe("chaos: fan-out source", () => {
  it("10 SIGKILLs and resumes end with the clean run's data, no duplicates, at most one page per slice in flight paid per kill", async () => {
    const r = await runChaos({ scenario: scenarios("ci")["seller-leads"]!, kills: 10, seed: 23 })
    expect(r.kills).toBe(10)
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
    // what the kills lost in flight: at most one page per slice fetched at once (concurrency 2)
    expect(r.unitsOver).toBeGreaterThanOrEqual(0)
    expect(r.unitsOver).toBeLessThanOrEqual(r.kills * 2)
  }, 240_000)
})
