/** Shared fixtures of the load tests: temp folders, table specs and page builders. */
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import type { Row, TableSpec } from "../../src/normalize/Table.js"
import type { PageCommit } from "../../src/load/PageCommit.js"
import { makeTempDir } from "../support/tempDirs.js"

export const tempDir = (prefix = "wh-") => makeTempDir(prefix)

export const plots: TableSpec = {
  name: "plots",
  columns: [
    { name: "id", type: "VARCHAR", nullable: false },
    { name: "country", type: "VARCHAR" },
    { name: "price_eur", type: "DOUBLE" },
    { name: "area_m2", type: "INTEGER" },
    { name: "listed_on", type: "DATE" },
    { name: "updated_at", type: "TIMESTAMP" },
    { name: "for_sale", type: "BOOLEAN" },
    { name: "extra", type: "JSON" },
    { name: "views", type: "BIGINT" }
  ],
  primaryKey: ["id"],
  disposition: "merge",
  partitionBy: ["country"]
}

export const links: TableSpec = {
  name: "plot_agency_links",
  columns: [
    { name: "plot_id", type: "VARCHAR" },
    { name: "agency", type: "VARCHAR" },
    { name: "since", type: "DATE" }
  ],
  primaryKey: ["plot_id", "agency"],
  disposition: "merge"
}

export const snapshots: TableSpec = {
  name: "price_snapshots",
  columns: [
    { name: "plot_id", type: "VARCHAR" },
    { name: "price_eur", type: "DOUBLE" }
  ],
  primaryKey: [],
  disposition: "append",
  partitionBy: ["_extracted_date"]
}

export const agencies: TableSpec = {
  name: "agencies",
  columns: [
    { name: "agency_id", type: "VARCHAR" },
    { name: "name", type: "VARCHAR" }
  ],
  primaryKey: ["agency_id"],
  disposition: "replace"
}

export const plotRow = (i: number, over: Partial<Row> = {}): Row => ({
  id: `plot_${i}`,
  country: i % 2 === 0 ? "ES" : "PT",
  price_eur: 1000 + i * 10.5,
  area_m2: 100 + i,
  listed_on: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`,
  updated_at: `2026-02-01T10:00:${String(i % 60).padStart(2, "0")}.000Z`,
  for_sale: i % 3 !== 0,
  extra: JSON.stringify({ n: i }),
  views: BigInt(i) * 1000n,
  ...over
})

let requestSeq = 0

export const page = (
  runId: string,
  rows: Record<string, ReadonlyArray<Row>>,
  checkpoint: { key: string; value: unknown; done?: boolean },
  extra: Partial<PageCommit> = {}
): PageCommit => ({
  runId,
  pipeline: "plots",
  rows: new Map(Object.entries(rows)),
  checkpoint: { key: checkpoint.key, value: checkpoint.value, done: checkpoint.done ?? false },
  ledger: [{ requestId: `req_${runId}_${++requestSeq}`, operation: "plots.search", units: 1, at: "2026-11-21T10:00:00.000Z" }],
  rejects: [],
  requests: 1,
  retries: 0,
  ...extra
})

/** Statements on a closed warehouse file, outside the toolkit (what an older toolkit, or a hand, left). */
export const onFile = (path: string, ...sql: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const db = await DuckDBInstance.create(path)
    const conn = await db.connect()
    try {
      for (const s of sql) await conn.run(s)
    } finally {
      conn.closeSync()
      db.closeSync()
    }
  })
