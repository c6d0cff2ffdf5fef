/**
 * The example pipeline `estate-etl init` writes into a repository (`pipelines/price-drops.mjs`)
 * and its test (`pipelines/price-drops.test.mjs`, node:test against the embedded sandbox). Plain
 * JavaScript with JSDoc types, importing only from "estate-etl": Node runs it as it is, and an
 * editor checks it (`// @ts-check`) against the package's declarations.
 */

/** The example's name: in the `nightly` and `weekly` sets of the settings `init` writes. */
export const EXAMPLE_PIPELINE = "price-drops"

export const examplePipelineModule = `// @ts-check
/**
 * price-drops: an example pipeline, written by \`estate-etl init\`. It reads the alerts search of
 * the token host (POST /api/v1/listing-alerts/search: no units) for price cuts in the locations
 * it watches, page by page, and lands one row per alert in the table price_drops, merged by
 * alert_id (a rerun updates rows instead of adding them).
 *
 * A pipeline is a declaration: its parameters (an Effect Schema with defaults), its source (what
 * it calls and how it pages), its cost model, its tables and how a record becomes rows. No HTTP,
 * no SQL. \`estate-etl list\` shows it; \`estate-etl run price-drops\` runs it (it is in the nightly
 * set of estate-etl.json, which may also set its parameters under pipelines.price-drops.params).
 */
import { definePipeline, Effect, flatTable, offset, pageOf, paged, Schema, Schemas, TokenClient } from "estate-etl"

const Params = Schema.Struct({
  /** Location ids to watch (18 is Madrid in the sandbox; the table reference_locations lists them). */
  location_ids: Schema.optionalWith(Schema.Array(Schema.Int.pipe(Schema.positive())), { default: () => [18] }),
  /** Alerts a page, 1 to 500. */
  page_size: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 500)), { default: () => 200 }),
  /**
   * At most this many pages a run: for a sample (\`--sample\` or \`sample: true\`); a run it cuts short
   * is otherwise incomplete (exit 6). Default none: the service's count ends the read.
   */
  max_pages: Schema.optional(Schema.Int.pipe(Schema.between(1, 250)))
})
/** @typedef {typeof Params.Type} Params */
/** @typedef {typeof Schemas.Alert.Type} Alert */

/** A price from an alert's old_value / new_value (text), or null. */
const price = (/** @type {string | null | undefined} */ text) =>
  typeof text === "string" && text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : null

/** @type {import("estate-etl").FlatTable<Alert, import("estate-etl").PageContext>} */
const priceDrops = flatTable(
  "price_drops",
  {
    alert_id: "BIGINT",
    listing_id: "BIGINT",
    property_id: "BIGINT",
    title: "VARCHAR",
    location: ["VARCHAR", (alert) => alert.location?.name],
    alert_date: "DATE",
    old_price: ["DOUBLE", (alert) => price(alert.old_value)],
    new_price: ["DOUBLE", (alert) => price(alert.new_value)],
    drop_pct: [
      "DOUBLE",
      (alert) => {
        const before = price(alert.old_value)
        const after = price(alert.new_value)
        return before && after !== null ? Math.round(((before - after) / before) * 1000) / 10 : null
      }
    ],
    listing_url: "VARCHAR",
    extracted_at: ["TIMESTAMPTZ", (_alert, context) => context.extractedAt]
  },
  { primaryKey: ["alert_id"], disposition: "merge" }
)

export default definePipeline({
  name: "price-drops",
  description: "Price cuts in watched locations (alerts search), one row per alert with the drop in %",
  host: "token",
  params: Params,
  source: paged((/** @type {Params} */ p) =>
    offset({
      limit: p.page_size,
      maxPages: p.max_pages,
      fetch: ({ offset, limit }) =>
        Effect.flatMap(TokenClient, (client) =>
          client.alertsSearch({ location_ids: p.location_ids, alert_subtypes: ["price_down"], limit, offset })
        ).pipe(Effect.map((response) => pageOf(response)))
    })
  ),
  cost: {
    operation: "alerts_search",
    // what a plan shows before anything is called (free on the token host): one page, or max_pages
    estimate: (p) =>
      Effect.succeed({ requests: p.max_pages ?? 1, exact: false, note: p.max_pages ? "at most " + p.max_pages + " pages" : "one page or more" })
  },
  tables: [priceDrops.spec],
  records: {
    table: "price_drops",
    schema: Schemas.Alert,
    toRows: (alert, context) => ({ price_drops: [priceDrops.row(alert, context)] })
  }
})
`

export const examplePipelineTest = `// @ts-check
/**
 * The example pipeline against the embedded sandbox, through the library API: a throwaway
 * in-memory warehouse, nothing written to data/. Run with: node --test pipelines/*.test.mjs (or make test-pipelines)
 */
import assert from "node:assert/strict"
import { test } from "node:test"
import { extract } from "estate-etl"
import priceDrops from "./price-drops.mjs"

test("price-drops lands the sandbox's price cuts in Madrid, one row per alert", async () => {
  const result = await extract(priceDrops, {
    // settings as in estate-etl.json; an object here, so this test reads no file (a small sandbox world)
    settings: { service: { target: "sandbox" }, sandbox: { properties: 2000 } },
    params: { location_ids: [18], max_pages: 2 },
    sample: true
  })
  assert.equal(result.summary.status, "done")
  const rows = result.rows()
  assert.ok(rows.length > 0, "no rows landed")
  for (const row of rows) {
    assert.equal(typeof row.alert_id, "number")
    assert.ok(Number(row.new_price) < Number(row.old_price), "a price drop is a lower price")
  }
})
`
