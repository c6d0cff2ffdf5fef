import { Effect } from "effect"
import { expect, it } from "vitest"
import { queryArrow } from "../../src/export/ArrowExport.js"
import { Warehouse } from "../../src/load/Warehouse.js"
it("a HUGEINT sum comes out of Arrow as a number", async () => {
  const t = await Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Warehouse, (w) =>
        queryArrow(w, "SELECT sum(x) AS s, CAST(7 AS UBIGINT) AS u FROM (SELECT 1::BIGINT AS x UNION ALL SELECT 2::BIGINT)")
      ).pipe(Effect.provide(Warehouse.Default({ path: ":memory:" })))
    )
  )
  expect(t.toArray()[0].toJSON()).toEqual({ s: 3, u: 7 })
})
