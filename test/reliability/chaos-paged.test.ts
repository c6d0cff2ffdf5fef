/**
 * Chaos on a paged source (sourcing-search, one country = one cursor slice): the real CLI is
 * SIGKILLed 10 times at random instants and resumed; the warehouse must equal a clean run's.
 * The full harness (`make chaos`, tools/chaos.ts) does the same with 50 kills.
 */
import { describe, expect, it } from "vitest"
import { runChaos, scenarios } from "../../tools/chaos.js"

describe("chaos: paged source", () => {
  it("10 SIGKILLs and resumes end with the clean run's data, no duplicates, at most one page paid per kill", async () => {
    const r = await runChaos({ scenario: scenarios("ci")["sourcing-search"]!, kills: 10, seed: 11 })
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
    // what the kills lost in flight: at most one page each (one slice)
    expect(r.unitsOver).toBeGreaterThanOrEqual(0)
    expect(r.unitsOver).toBeLessThanOrEqual(r.kills)
  }, 240_000)
})
