/**
 * What landing a history table's groups costs, statement by statement, in one process and without
 * HTTP: sourcing-search records from the sandbox world are mapped by the pipeline's table
 * declaration (`sourcingPropertiesTable`), staged through the appender as `GuardedLoader.ts`
 * stages them, and landed with the toolkit's landing SQL (`PageStager.landSql`: the versions'
 * content hash, their close-or-update `MERGE` and their `INSERT`) in groups of 32 pages of 200.
 * DuckDB runs on one thread, so `process.cpuUsage()` around each statement is its CPU.
 *
 * Passes over the same records, each a run of its own: the first land (every key new), a
 * night where nothing changed (every key current, every hash the same), a night where every tenth
 * record's price changed; then the same again after every current hash was rewritten in recipe v1
 * (the night after upgrading), and once more. Prints JSON: per pass, CPU µs per row of each kind
 * of statement.
 *
 *   node dist-bench/bench/HistoryLanding.js [records=64000] [file]
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ident, literal } from "../src/load/Database.js"
import * as History from "../src/load/HistoryTable.js"
import { appendRows, keyRepeats, landSql, stageTableSql } from "../src/load/PageStager.js"
import { createTableSql } from "../src/load/TableDdl.js"
import { sourcingPropertiesTable } from "../src/normalize/records/SourcingRows.js"
import type { Row } from "../src/normalize/Table.js"
import { makeWorld } from "../src/sandbox/world/World.js"
import { makeRecordDecoder } from "../src/service/schema/FastDecode.js"
import { SourcingProperty } from "../src/service/schema/Sourcing.js"

const records = Number(process.argv[2] ?? 64_000)
const GROUP = 32 * 200
const main = sourcingPropertiesTable()
const spec = main.spec
const decode = makeRecordDecoder(SourcingProperty)
const world = makeWorld({ seed: 42, properties: Math.max(records, 1000) })
const raw: Array<SourcingProperty> = []
for (let i = 0; i < records; i++) {
  const d = decode(JSON.parse(JSON.stringify(world.sourcingProperty(i))))
  if (d._tag === "Right") raw.push(d.right)
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-history-landing-"))
const file = process.argv[3] ?? path.join(dir, "landing.duckdb")
const db = await DuckDBInstance.create(file, { threads: "1" })
const conn = await db.connect()
await conn.run(createTableSql(spec))
await conn.run(`ATTACH ':memory:' AS stg`)

const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const kindOf = (sql: string) => {
  const s = sql.replace(/\s+/g, " ").trim()
  if (s.startsWith("CREATE OR REPLACE TEMP TABLE")) return "hash (temp table, and the join with the target since the rowid landing)"
  if (s.startsWith("MERGE")) return "merge (close/update)"
  if (s.startsWith("UPDATE")) return s.includes("_is_current = FALSE") ? "close (by rowid)" : "update (by rowid)"
  if (s.startsWith("INSERT")) return "insert (new versions)"
  return s.slice(0, 32)
}

let group = 0
const pass = async (name: string, at: string, rowOf: (p: SourcingProperty, i: number) => Row) => {
  const totals: Record<string, number> = {}
  const add = (k: string, us: number) => (totals[k] = (totals[k] ?? 0) + us)
  const ctx = { runId: name, pipeline: "sourcing-search", extractedAt: at, validFrom: at }
  const t0 = cpu()
  for (let lo = 0; lo < raw.length; lo += GROUP) {
    const g = group++
    const rows = raw.slice(lo, lo + GROUP).map((p, k) => rowOf(p, lo + k))
    let t = cpu()
    const staged = `stg.main."g${g}"`
    await conn.run(stageTableSql(spec, staged))
    const app = await conn.createAppender(`g${g}`, "main", "stg")
    appendRows(app, spec, rows, 0)
    app.flushSync()
    app.closeSync()
    const unique = !keyRepeats(spec)(rows)
    add("stage (appender)", cpu() - t)
    await conn.run("BEGIN TRANSACTION")
    for (const sql of landSql(spec, ctx, { name: staged, uniqueKeys: unique })) {
      t = cpu()
      await conn.run(sql)
      add(kindOf(sql), cpu() - t)
    }
    t = cpu()
    await conn.run("COMMIT")
    add("commit", cpu() - t)
    await conn.run(`DROP TABLE ${staged}`)
  }
  const total = cpu() - t0
  const perRow = Object.fromEntries(Object.entries(totals).map(([k, us]) => [k, +(us / raw.length).toFixed(2)]))
  return { pass: name, rows: raw.length, usPerRow: +(total / raw.length).toFixed(2), statements: perRow }
}

const ctxOf = (at: string) => ({ runId: "bench", slice: "ALL", extractedAt: at })
const nights = ["2026-11-01T02:00:00.000Z", "2026-11-02T02:00:00.000Z", "2026-11-03T02:00:00.000Z"] as const
const out = [
  await pass("first land", nights[0], (p) => main.row(p, ctxOf(nights[0]))),
  await pass("unchanged night", nights[1], (p) => main.row(p, ctxOf(nights[1]))),
  await pass("a tenth changed", nights[2], (p, i) => {
    const r = main.row(p, ctxOf(nights[2]))
    return i % 10 === 0 ? { ...r, price_eur: Number(r.price_eur ?? 0) + 1 } : r
  })
]
// the night after upgrading from a toolkit that wrote recipe v1 (md5 over the columns as text):
// every current version is of another recipe, hashed again from its columns and re-stamped once
const v1 = `md5(concat_ws(chr(31), 'v1'${History.hashedColumns(spec)
  .map((c) => `, CASE WHEN ${ident(c)} IS NULL THEN NULL ELSE ${literal(`${c}=`)} || CAST(${ident(c)} AS VARCHAR) END`)
  .join("")}))`
await conn.run(`UPDATE ${spec.name} SET _content_hash = ${v1} WHERE _is_current`)
// what ensuring the table does on the first open after the upgrade (the code before recipes has none)
const rehash = (History as { rehashOtherRecipesSql?: (s: typeof spec) => string }).rehashOtherRecipesSql
let t = cpu()
if (rehash) await conn.run(rehash(spec))
const rehashUs = cpu() - t
t = cpu()
if (rehash) await conn.run(rehash(spec))
const rehashAgainUs = cpu() - t
out.push(
  await pass("unchanged, v1 hashes (upgrade)", nights[2], (p, i) => {
    const r = main.row(p, ctxOf(nights[2]))
    return i % 10 === 0 ? { ...r, price_eur: Number(r.price_eur ?? 0) + 1 } : r
  })
)
out.push(
  await pass("unchanged after it", nights[2], (p, i) => {
    const r = main.row(p, ctxOf(nights[2]))
    return i % 10 === 0 ? { ...r, price_eur: Number(r.price_eur ?? 0) + 1 } : r
  })
)
const versions = await conn.runAndReadAll(
  `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE _is_current)::INTEGER AS c FROM ${spec.name}`
)
const [n, c] = versions.getRows()[0] as [number, number]
conn.closeSync()
db.closeSync()
if (!process.argv[3]) fs.rmSync(dir, { recursive: true, force: true })
const expected = raw.length + Math.ceil(raw.length / 10)
if (n !== expected || c !== raw.length)
  throw new Error(`history landing: ${n} versions (${c} current), expected ${expected} (${raw.length})`)
process.stdout.write(
  `${JSON.stringify({ columns: spec.columns.length, hashed: out, versions: n, rehashAtOpenMs: { first: rehashUs / 1000, again: rehashAgainUs / 1000 } })}\n`
)
