import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import sourcingResolve from "../../pipelines/sourcing-resolve.js"
import { csvRows } from "../../src/extract/Csv.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("sourcing-resolve", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  const write = (name: string, text: string) => {
    const file = path.join(h.dir, name)
    fs.writeFileSync(file, text)
    return file
  }

  it("parses quoted CSV cells", () => {
    expect(csvRows('kind,value\r\nurl,"https://x.test/a,b"\n\nreference,"say ""hi"""\n')).toEqual([
      ["kind", "value"],
      ["url", "https://x.test/a,b"],
      ["reference", 'say "hi"']
    ])
  })

  it("resolves kind,value rows one call each; what matches nothing is a row with a null property_id and no charge", async () => {
    const world = h.sandbox.context.world
    const byUrl = world.property(12).listings![0]!.listing_url!
    const byRef = world.property(10).listings![0]!.ref_numbers![0]!
    const byListing = world.listingIdsOf(13)[1]!
    const file = write(
      "pairs.csv",
      [
        "kind,value",
        `url,${byUrl}`,
        `reference,${byRef}`,
        `listing_id,${byListing}`,
        "url,https://nowhere.example/listing/none",
        `url,${byUrl}` // a duplicate: asked once
      ].join("\n") + "\n"
    )
    const before = unitsSpent(h)
    const summary = await h.run(sourcingResolve, { params: { file } })
    expect(summary.status).toBe("done")
    expect(summary.plan).toMatchObject({ requests: 4, exact: true })
    const rows = await h.query(`SELECT * FROM sourcing_resolutions ORDER BY input_kind, input_value`)
    expect(rows).toHaveLength(4)
    const of = (kind: string, value: string) => rows.find((r) => r.input_kind === kind && r.input_value === value)!
    const expected = [
      ["url", byUrl, 12],
      ["reference", byRef, 10],
      ["listing_id", String(byListing), 13]
    ] as const
    for (const [kind, value, index] of expected) {
      const truth = world.sourcingDetail(index)
      const row = of(kind, value)
      expect(row.matched_by).toBe(kind)
      expect(row.property_id).toBe(truth.id)
      expect(row.price_eur).toBe(truth.price_eur)
      expect(row.address).toBe(truth.address)
      expect(row.energy_rating).toBe(truth.energy_rating)
    }
    const missing = of("url", "https://nowhere.example/listing/none")
    expect(missing.property_id).toBeNull()
    expect(missing.matched_by).toBeNull()
    expect(missing.price_eur).toBeNull()

    // three matches charged one unit each; the 404 is not charged and not in the ledger
    expect(unitsSpent(h) - before).toBe(3)
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger).toEqual({ calls: 3, units: 3 })
    expect(summary.totals.units).toBe(3)
  })

  it("reads a file with a column per kind", async () => {
    const world = h.sandbox.context.world
    const warehouse = path.join(h.dir, "columns.duckdb")
    const ids = [world.listingIdsOf(20)[0]!, world.listingIdsOf(21)[0]!]
    const file = write("columns.csv", `listing_id,reference\n${ids[0]},\n${ids[1]},REF-${ids[0]}\n`)
    const summary = await h.run(sourcingResolve, { params: { file }, warehouse })
    expect(summary.status).toBe("done")
    const rows = await h.query(
      `SELECT input_kind, input_value, property_id FROM sourcing_resolutions ORDER BY input_kind, input_value`,
      warehouse
    )
    expect(rows).toEqual([
      { input_kind: "listing_id", input_value: String(ids[0]), property_id: world.sourcingProperty(20).id },
      { input_kind: "listing_id", input_value: String(ids[1]), property_id: world.sourcingProperty(21).id },
      { input_kind: "reference", input_value: `REF-${ids[0]}`, property_id: world.sourcingProperty(20).id }
    ])
  })

  it("refuses a bad file or bad parameters before any request", async () => {
    const before = requestCount(h)
    const bad = [
      write("bad-kind.csv", "kind,value\nurl,https://x.test/1\nzip,28001\n"),
      write("bad-url.csv", "kind,value\nurl,ftp://x.test/1\n"),
      write("bad-id.csv", "listing_id\n12x\n"),
      write("bad-header.csv", "link\nhttps://x.test/1\n"),
      path.join(h.dir, "absent.csv")
    ]
    for (const file of bad) {
      // found with the parameters, before the run opens the warehouse (exit code 2 in the CLI)
      await expect(h.run(sourcingResolve, { params: { file } })).rejects.toThrow(/^(.*: )?sourcing-resolve\.file: /)
    }
    await expect(h.run(sourcingResolve, { params: {} })).rejects.toMatchObject({ _tag: "InvalidInput", field: "sourcing-resolve.file" })
    expect(requestCount(h)).toBe(before)
  })
})
