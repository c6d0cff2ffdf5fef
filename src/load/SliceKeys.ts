/**
 * `_slice_keys`: the key hashes each landed page brought its slice (`extract/SeenKeys.ts`), kept
 * while a run may resume, so a resumed slice still knows what it read: a page repeating keys read
 * before the kill is a repeat, and its distinct keys are not counted twice. Forgotten once the
 * run ends for good and when the pipeline starts a new run.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { rowsOf } from "./Database.js"

/** The key hashes of each slice of `runId`, by slice key. */
export const readSliceKeys = async (conn: DuckDBConnection, runId: string): Promise<Map<string, Array<number>>> => {
  const out = new Map<string, Array<number>>()
  for (const r of await rowsOf(conn, `SELECT slice, keys FROM _slice_keys WHERE run_id = ?`, [runId])) {
    const bytes = r.keys as Uint8Array
    // copied: a blob's bytes need not sit on an 8-byte boundary
    const hashes = new Float64Array(Uint8Array.from(bytes).buffer)
    const list = out.get(String(r.slice)) ?? []
    for (const h of hashes) list.push(h)
    out.set(String(r.slice), list)
  }
  return out
}

/**
 * Forgets the key hashes of `pipeline`'s runs, except those of `keep` (a run that may still
 * resume), and the history keys of those runs (`HistoryClosing.ts`: a run that ended joined them
 * to its slices' members then).
 */
export const forgetSliceKeys = async (conn: DuckDBConnection, pipeline: string, keep?: string) => {
  for (const table of ["_slice_keys", "_history_keys"])
    await conn.run(`DELETE FROM ${table} WHERE run_id IN (SELECT run_id FROM _runs WHERE pipeline = ? AND run_id <> ?)`, [
      pipeline,
      keep ?? ""
    ])
}
