/**
 * The hand-written loader, the baseline of the toolkit's CPU per row: what an afternoon's script
 * does with the same sourcing pages (same places, page size and concurrency): `fetch`,
 * `JSON.parse`, each result mapped to the main table's columns (`sourcing_properties`, typed as
 * the toolkit types them) and its agencies to the child table, DuckDB's appender, one
 * transaction per `PAGES_PER_COMMIT` pages.
 *
 * What it leaves out, all of which the toolkit does: retries within a budget and error mapping,
 * checkpoints (a crash starts over and pays every page again), the page journal, the raw archive,
 * schema decoding and `_rejects` (a bad record fails or lands as is), unit budgets and the cost
 * guard, the ledger, `_runs` / `_slices` / completeness, history versions (it only appends), the
 * single-writer lock, progress, signals, settings and the CLI. Its rows are not checked against
 * the sandbox either: it is a cost floor for "land these rows", not a loader to trust.
 * `GuardedLoader.ts` is this loader with the guarantees that cost CPU written in by hand.
 *
 * Run in a fresh process by the bench: `node dist-bench/bench/HandLoader.js '<json>'` prints
 * `{"records","pages"}`.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { type Place, sourcingPages } from "./Floor.js"

export interface HandLoaderInput {
  readonly platformUrl: string
  readonly places: ReadonlyArray<Place>
  readonly file: string
  readonly operation: string
  readonly pageSize: number
  readonly concurrency: number
}

const PAGES_PER_COMMIT = 32

const TABLE = `CREATE TABLE sourcing_properties (
  id VARCHAR, property_id BIGINT, country VARCHAR, location_id BIGINT, location_name VARCHAR,
  type VARCHAR, type_group VARCHAR, operation VARCHAR, price_eur DOUBLE, area_m2 DOUBLE,
  bedrooms INTEGER, latitude DOUBLE, longitude DOUBLE, listings_count INTEGER,
  agencies_count INTEGER, updated_at TIMESTAMP, extracted_at TIMESTAMP)`
const AGENCIES = "CREATE TABLE sourcing_property_agencies (id VARCHAR, seq INTEGER, agency VARCHAR)"

const input = JSON.parse(process.argv[2] ?? "{}") as HandLoaderInput
const db = await DuckDBInstance.create(input.file)
const conn = await db.connect()
await conn.run(TABLE)
await conn.run(AGENCIES)
const extractedAt = new Date().toISOString()

type P = Record<string, any>
const str = (a: any, v: unknown) => (v === null || v === undefined ? a.appendNull() : a.appendVarchar(String(v)))
const big = (a: any, v: unknown) => (typeof v === "number" ? a.appendBigInt(BigInt(v)) : a.appendNull())
const int = (a: any, v: unknown) => (typeof v === "number" ? a.appendInteger(v) : a.appendNull())
const dbl = (a: any, v: unknown) => (typeof v === "number" ? a.appendDouble(v) : a.appendNull())

let pending: Array<Array<P>> = []
const land = async () => {
  const pages = pending
  pending = []
  await conn.run("BEGIN TRANSACTION")
  const props = await conn.createAppender("sourcing_properties")
  const agencies = await conn.createAppender("sourcing_property_agencies")
  for (const results of pages) {
    for (const p of results) {
      str(props, p.id)
      big(props, p.property_id)
      str(props, p.country)
      big(props, p.location_id)
      str(props, p.location_name)
      str(props, p.type)
      str(props, p.type_group)
      str(props, p.operation)
      dbl(props, p.price_eur)
      dbl(props, p.area_m2)
      int(props, p.bedrooms)
      dbl(props, p.latitude)
      dbl(props, p.longitude)
      int(props, p.listings_count)
      int(props, p.agencies?.length ?? 0)
      str(props, p.updated_at)
      str(props, extractedAt)
      props.endRow()
      const list: Array<string> = p.agencies ?? []
      for (let i = 0; i < list.length; i++) {
        agencies.appendVarchar(p.id)
        agencies.appendInteger(i)
        agencies.appendVarchar(list[i]!)
        agencies.endRow()
      }
    }
  }
  props.flushSync()
  props.closeSync()
  agencies.flushSync()
  agencies.closeSync()
  await conn.run("COMMIT")
}

// one landing at a time (an appender must not interleave); fetching goes on meanwhile
let landing = Promise.resolve()
const r = await sourcingPages(input.platformUrl, input.places, input, (body) => {
  pending.push(body.results)
  if (pending.length >= PAGES_PER_COMMIT) landing = landing.then(land)
})
await landing
if (pending.length > 0) await land()
const check = await conn.runAndReadAll("SELECT count(*)::INTEGER FROM sourcing_properties")
const landed = check.getRows()[0]![0] as number
conn.closeSync()
db.closeSync()
if (landed !== r.records) throw new Error(`hand loader: ${landed} rows landed of ${r.records} received`)
process.stdout.write(`${JSON.stringify({ records: r.records, pages: r.pages })}\n`)
