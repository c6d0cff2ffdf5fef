/**
 * Optional instrumentation for `runOnce` (loaded with `--import ./bench/sqlTiming.ts` when
 * BENCH_SQL_TIMING names an output file): wall time of every DuckDB statement and appender
 * flush, grouped by the statement's first words, written as JSON when the process exits.
 */
import { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api"
import * as fs from "node:fs"

const out = process.env.BENCH_SQL_TIMING
if (out) {
  const totals = new Map<string, { ms: number; n: number }>()
  const add = (key: string, ms: number) => {
    const t = totals.get(key) ?? { ms: 0, n: 0 }
    t.ms += ms
    t.n++
    totals.set(key, t)
  }
  const keyOf = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 48)
  const proto = DuckDBConnection.prototype as any
  for (const name of ["run", "runAndReadAll"]) {
    const original = proto[name]
    proto[name] = async function (this: unknown, sql: string, ...rest: Array<unknown>) {
      const t = performance.now()
      try {
        return await original.call(this, sql, ...rest)
      } finally {
        add(keyOf(sql), performance.now() - t)
      }
    }
  }
  const app = DuckDBAppender.prototype as any
  const flush = app.flushSync
  app.flushSync = function (this: unknown) {
    const t = performance.now()
    try {
      return flush.call(this)
    } finally {
      add("(appender flush)", performance.now() - t)
    }
  }
  process.on("exit", () => {
    fs.writeFileSync(
      out,
      JSON.stringify(
        [...totals].sort((a, b) => b[1].ms - a[1].ms).map(([sql, t]) => ({ sql, ...t })),
        null,
        1
      )
    )
  })
}
