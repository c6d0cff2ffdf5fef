/**
 * The hand-written loader with the toolkit's guarantees written in by hand: the floor of "these
 * rows, every guarantee kept", against which the toolkit's own overhead (Effect, the HTTP client,
 * queues, progress, the CLI) can be told apart from the cost of the guarantees themselves. The
 * same pages as `HandLoader.ts` (same places, page size, concurrency), landed in the toolkit's
 * groups (its record bound: 40 pages of 200), plus,
 * with the toolkit's own code where the guarantee is its code (so the work is the same work):
 *
 * - each record checked against its response schema (`makeRecordDecoder(SourcingProperty)`), a
 *   failing one kept as a reject instead of a row;
 * - each record mapped by the toolkit's table declarations (`sourcingPropertiesTable`: `extra`
 *   keeps unknown fields, the country code, the currency) and its agencies to the child table;
 * - the page journal: each body's bytes appended to one file as it arrives (one `write`, no
 *   `fsync`, as `PageJournal`);
 * - the raw archive: a group's bodies gzipped at level 3 on libuv's pool into one file (as
 *   `RawArchive.writeGroup`);
 * - rows staged through the appender in an attached in-memory database, then landed with the
 *   toolkit's landing SQL (`PageStager.landSql`): history versions for the properties (content
 *   hash, close or update, insert), a `MERGE` for the agencies;
 * - per group, in the same transaction: the checkpoint of each place (its `next`), one ledger row
 *   per page (request id and units from the service's headers), `_raw_pages`, `_slices` and the
 *   run's counters, in the toolkit's bookkeeping tables (`BOOKKEEPING_DDL`).
 *
 * Left out: retries and error mapping, budgets and the cost guard, the single-writer lock,
 * progress, signals, settings, the CLI and Effect. Run by the bench in a fresh process, as the
 * hand-written loader is: `node dist-bench/bench/GuardedLoader.js '<json>'` prints
 * `{"records","pages"}`.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import { BOOKKEEPING_DDL, TS } from "../src/load/Bookkeeping.js"
import { literal } from "../src/load/Database.js"
import { appendRows, keyRepeats, landSql, stageTableSql } from "../src/load/PageStager.js"
import { createTableSql } from "../src/load/TableDdl.js"
import { DEFAULT_LANDING_POLICY } from "../src/pipeline/LandingPolicy.js"
import { makeRecordDecoder } from "../src/service/schema/FastDecode.js"
import { sourcingAgenciesTable, sourcingPropertiesTable } from "../src/normalize/records/SourcingRows.js"
import type { Row } from "../src/normalize/Table.js"
import { SANDBOX_API_KEY } from "../src/sandbox/Credentials.js"
import { SourcingProperty } from "../src/service/schema/Sourcing.js"
import { fetchAgain, pool, type Place } from "./Floor.js"
import type { HandLoaderInput } from "./HandLoader.js"

const gzip = promisify(zlib.gzip)
const auth = { authorization: `Bearer ${SANDBOX_API_KEY}` }

const input = JSON.parse(process.argv[2] ?? "{}") as HandLoaderInput
/** The toolkit's group of these pages: its record bound (`DEFAULT_LANDING_POLICY`), or its page bound if smaller. */
const PAGES_PER_COMMIT = Math.min(DEFAULT_LANDING_POLICY.maxGroup, Math.floor(DEFAULT_LANDING_POLICY.maxGroupRows / input.pageSize))
const runId = "guarded"
const pipeline = "sourcing-search"
const extractedAt = new Date().toISOString()
const main = sourcingPropertiesTable()
const agencies = sourcingAgenciesTable()
const decode = makeRecordDecoder(SourcingProperty)

const db = await DuckDBInstance.create(input.file, { threads: "1" })
const conn = await db.connect()
for (const sql of BOOKKEEPING_DDL) await conn.run(sql)
await conn.run(createTableSql(main.spec))
await conn.run(createTableSql(agencies.spec))
await conn.run(`ATTACH ':memory:' AS stg`)
await conn.run(
  `INSERT INTO _runs (run_id, pipeline, started_at, status) VALUES (${literal(runId)}, ${literal(pipeline)}, ${TS(literal(extractedAt))}, 'running')`
)
const journal = fs.openSync(`${input.file}.journal`, "a")

interface Page {
  readonly place: string
  readonly bytes: Buffer
  readonly props: Array<Row>
  readonly children: Array<Row>
  readonly rejects: number
  readonly requestId: string
  readonly units: number
  readonly next: string | null
}

let pending: Array<Page> = []
let group = 0
const land = async (pages: ReadonlyArray<Page>) => {
  const g = group++
  const gz = await Promise.all(pages.map((p) => gzip(p.bytes, { level: 3 })))
  const archive = `${input.file}.raw-${g}.json.gz`
  fs.writeFileSync(archive, Buffer.concat(gz))
  const at = new Date().toISOString()
  const ctx = { runId, pipeline, extractedAt: at, validFrom: extractedAt }
  // staged outside the transaction (one transaction writes one database), then landed in it
  const staged: Array<{ spec: typeof main.spec | typeof agencies.spec; name: string; unique: boolean }> = []
  for (const [table, rowsOf] of [
    [main, (p: Page) => p.props],
    [agencies, (p: Page) => p.children]
  ] as const) {
    const name = `stg.main."g${g}_${table.spec.name}"`
    await conn.run(stageTableSql(table.spec, name))
    const app = await conn.createAppender(`g${g}_${table.spec.name}`, "main", "stg")
    const repeats = keyRepeats(table.spec)
    let seq = 0
    let unique = true
    for (const p of pages) {
      const rows = rowsOf(p)
      appendRows(app, table.spec, rows, seq)
      if (unique && repeats(rows)) unique = false
      seq += rows.length
    }
    app.flushSync()
    app.closeSync()
    staged.push({ spec: table.spec, name, unique })
  }
  await conn.run("BEGIN TRANSACTION")
  for (const { spec, name, unique } of staged) for (const sql of landSql(spec, ctx, { name, uniqueKeys: unique })) await conn.run(sql)
  const atTs = TS(literal(at))
  const last = new Map(pages.map((p) => [p.place, p]))
  // the upserts as MERGE, as the toolkit writes them (half the CPU of ON CONFLICT, `BookkeepingRows.mergeInto`)
  await conn.run(
    `MERGE INTO _checkpoints USING (VALUES ${[...last.values()]
      .map(
        (p) =>
          `(${literal(pipeline)}, ${literal(runId)}, ${literal(p.place)}, ${literal(JSON.stringify({ next: p.next }))}, ${p.next === null}, ${atTs})`
      )
      .join(
        ", "
      )}) AS _s(pipeline, run_id, key, value, done, updated_at) ON _checkpoints.pipeline = _s.pipeline AND _checkpoints.key = _s.key
     WHEN MATCHED THEN UPDATE SET run_id = _s.run_id, value = _s.value, done = _s.done, updated_at = _s.updated_at
     WHEN NOT MATCHED THEN INSERT VALUES (_s.pipeline, _s.run_id, _s.key, _s.value, _s.done, _s.updated_at)`
  )
  await conn.run(
    `MERGE INTO _ledger USING (VALUES ${pages
      .map((p) => `(${literal(p.requestId)}, ${literal(runId)}, ${literal(pipeline)}, 'sourcing_search', ${p.units}, ${atTs})`)
      .join(
        ", "
      )}) AS _s(request_id, run_id, pipeline, operation, units, "at") ON _ledger.run_id = _s.run_id AND _ledger.request_id = _s.request_id
     WHEN NOT MATCHED THEN INSERT (request_id, run_id, pipeline, operation, units, "at")
       VALUES (_s.request_id, _s.run_id, _s.pipeline, _s.operation, _s.units, _s."at")`
  )
  await conn.run(
    `MERGE INTO _raw_pages USING (VALUES ${pages
      .map(
        (p, i) =>
          `(${literal(runId)}, ${literal(pipeline)}, ${g * PAGES_PER_COMMIT + i}, ${literal(p.place)}, ${literal(archive)}, ${p.bytes.length}, ${atTs})`
      )
      .join(", ")}) AS _s(run_id, pipeline, seq, page_key, path, bytes, "at") ON _raw_pages.run_id = _s.run_id AND _raw_pages.seq = _s.seq
     WHEN MATCHED THEN UPDATE SET pipeline = _s.pipeline, page_key = _s.page_key, path = _s.path, bytes = _s.bytes, "at" = _s."at"
     WHEN NOT MATCHED THEN INSERT (run_id, pipeline, seq, page_key, path, bytes, "at")
       VALUES (_s.run_id, _s.pipeline, _s.seq, _s.page_key, _s.path, _s.bytes, _s."at")`
  )
  const slices = new Map<string, { received: number; landed: number; rejected: number; pages: number; done: boolean }>()
  for (const p of pages) {
    const s = slices.get(p.place) ?? { received: 0, landed: 0, rejected: 0, pages: 0, done: false }
    slices.set(p.place, {
      received: s.received + p.props.length + p.rejects,
      landed: s.landed + p.props.length,
      rejected: s.rejected + p.rejects,
      pages: s.pages + 1,
      done: p.next === null
    })
  }
  await conn.run(
    `MERGE INTO _slices USING (VALUES ${[...slices]
      .map(
        ([k, s]) =>
          `(${literal(runId)}, ${literal(pipeline)}, ${literal(k)}, ${s.received}, ${s.landed}, ${s.rejected}, ${s.pages}, ${s.done}, ${atTs})`
      )
      .join(", ")}) AS _s(run_id, pipeline, slice, received, landed, rejected, pages, done, updated_at)
     ON _slices.run_id = _s.run_id AND _slices.slice = _s.slice
     WHEN MATCHED THEN UPDATE SET received = _slices.received + _s.received, landed = _slices.landed + _s.landed,
       rejected = _slices.rejected + _s.rejected, pages = _slices.pages + _s.pages, done = _s.done, updated_at = _s.updated_at
     WHEN NOT MATCHED THEN INSERT (run_id, pipeline, slice, received, landed, rejected, pages, done, updated_at)
       VALUES (_s.run_id, _s.pipeline, _s.slice, _s.received, _s.landed, _s.rejected, _s.pages, _s.done, _s.updated_at)`
  )
  const units = pages.reduce((s, p) => s + p.units, 0)
  await conn.run(
    `UPDATE _runs SET pages = pages + ${pages.length}, units_charged = units_charged + ${units} WHERE run_id = ${literal(runId)}`
  )
  await conn.run("COMMIT")
  for (const { name } of staged) await conn.run(`DROP TABLE ${name}`)
}

let records = 0
let pageCount = 0
let landing = Promise.resolve()
const onPage = (place: Place, res: Response, text: string) => {
  const bytes = Buffer.from(text)
  fs.writeSync(journal, bytes)
  const body = JSON.parse(text) as { results: Array<unknown>; next?: string | null }
  const key = JSON.stringify(place)
  const ctx = { runId, slice: key, extractedAt }
  const props: Array<Row> = []
  const children: Array<Row> = []
  let rejects = 0
  for (const r of body.results) {
    const d = decode(r)
    if (d._tag === "Left") {
      rejects++
      continue
    }
    const p = d.right
    props.push(main.row(p, ctx))
    const list = p.agencies
    if (list) for (let i = 0; i < list.length; i++) children.push({ id: p.id, seq: i, agency: list[i]! })
  }
  records += body.results.length
  pageCount++
  const units = Number(res.headers.get("svc-units-charged") ?? 0)
  pending.push({
    place: key,
    bytes,
    props,
    children,
    rejects,
    requestId: res.headers.get("svc-request-id") ?? `p${pageCount}`,
    units,
    next: body.next ?? null
  })
  if (pending.length >= PAGES_PER_COMMIT) {
    // groups as the toolkit's at most (a landing that lags does not make them larger)
    const batch = pending
    pending = []
    landing = landing.then(() => land(batch))
  }
  return body.next ?? null
}

await pool(input.places, input.concurrency, async (place) => {
  let res = await fetchAgain(`${input.platformUrl}/v1/property-sourcing/searches`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ ...place, operation: input.operation, limit: input.pageSize })
  })
  for (;;) {
    const text = await res.text()
    if (!res.ok) throw new Error(`sourcing page: ${res.status} ${text}`)
    const next = onPage(place, res, text)
    if (!next) break
    res = await fetchAgain(next, { headers: auth })
  }
})
await landing
if (pending.length > 0) await land(pending)
fs.closeSync(journal)
const check = await conn.runAndReadAll(`SELECT count(*)::INTEGER FROM ${main.spec.name}`)
const landed = check.getRows()[0]![0] as number
conn.closeSync()
db.closeSync()
if (landed !== records) throw new Error(`guarded loader: ${landed} rows landed of ${records} received`)
process.stdout.write(`${JSON.stringify({ records, pages: pageCount })}\n`)
