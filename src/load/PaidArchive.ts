/**
 * The raw archive as a store of paid answers (`service/PaidAnswers.ts`): the pages `_raw_pages`
 * records with the request they answer and when they were bought. A reused answer is archived
 * again with its first purchase time, so reuse never makes an answer younger than it is.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import type { AnswerEntry } from "../service/PaidAnswers.js"
import { TS } from "./Bookkeeping.js"
import { rowsOf } from "./Database.js"

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : `${String(v).replace(" ", "T")}Z`)

/** Answers bought since `sinceIso` whose request is known, newest first. */
export const readReusableAnswers = async (conn: DuckDBConnection, sinceIso: string): Promise<Array<AnswerEntry>> =>
  (
    await rowsOf(
      conn,
      `SELECT pipeline, operation, request_key, path, bought_at, units FROM _raw_pages
       WHERE request_key IS NOT NULL AND bought_at >= ${TS("?")} ORDER BY bought_at DESC`,
      [sinceIso]
    )
  ).map((r) => ({
    pipeline: String(r.pipeline),
    operation: String(r.operation),
    key: String(r.request_key),
    path: String(r.path),
    boughtAt: iso(r.bought_at),
    units: Number(r.units ?? 0)
  }))
