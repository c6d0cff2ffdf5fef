/**
 * The library is typed: `tsc --strict` over the examples, the README's library block and
 * `typed/usage.ts` (its `@ts-expect-error` directives stripped) reports exactly the errors the
 * directives announce, code and line, and nothing else. So a misspelt pipeline name, a parameter
 * of the wrong type or a column a table does not have that stopped being an error fails here, and
 * so does an example or the README's code that stopped compiling.
 *
 * And at run time: `query` gives exact integers as numbers and bigints beyond 2^53 (or every
 * BIGINT as a bigint with `bigint: "keep"`), so the README's query goes to `JSON.stringify`.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { extract, query, queryArrow, rows, rowsOfArrow, Warehouse } from "../../src/index.js"
import plotsGermany from "../../pipelines/plots-germany.js"
import { typeErrors } from "../support/checkoutCopy.js"
import { startTestSandbox } from "../support/sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const USAGE = path.join(ROOT, "test/library/typed/usage.ts")
/**
 * The library as a package's user gets it: the declarations `make build` emits (dist/, the
 * package's `types`), which the test run builds first (test/support/globalSetup.ts). Checking
 * against them, not src/, also spares the compiler inferring the sources (7 s of CPU against 12).
 */
const DIST = path.join(ROOT, "dist")
const INDEX = path.join(DIST, "src/index.js")

/** The README's library block (the first ```ts block of "From a script or notebook"), importing this checkout. */
const readmeBlock = () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### From a script or notebook"))
  const block = /```ts\n([\s\S]*?)```/.exec(section)![1]!
  return block.replace(`from "estate-etl"`, `from ${JSON.stringify(INDEX)}`)
}

/** What `ValueOf` (src/normalize/RowType.ts) says a column type reads as; undefined: `unknown`, not checked. */
const expectedJsType = (type: string): string | undefined =>
  /^(VARCHAR|JSON|UUID)$/.test(type)
    ? "string"
    : /^(INTEGER|SMALLINT|TINYINT|DOUBLE|FLOAT|REAL|BIGINT|HUGEINT)$|^(DECIMAL|NUMERIC)/.test(type)
      ? "number" // BIGINT: these values are exact
      : type === "BOOLEAN"
        ? "boolean"
        : /^(DATE|TIMESTAMP)/.test(type)
          ? "Date"
          : undefined
const jsTypeOf = (v: unknown) => (v instanceof Date ? "Date" : typeof v)

/** `// @ts-expect-error TSnnnn ...` -> the code expected on the next line (1-based). */
const expectedErrors = (source: string) =>
  source
    .split("\n")
    .flatMap((line, i) => {
      const m = /\/\/ @ts-expect-error (TS\d+)/.exec(line)
      return m ? [`${i + 2} ${m[1]}`] : []
    })
    .sort()

describe("typed library", () => {
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-typed-"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("tsc --strict flags exactly the announced errors and compiles the examples and the README block", async () => {
    const usage = fs.readFileSync(USAGE, "utf8")
    const expected = expectedErrors(usage)
    expect(expected.length).toBeGreaterThanOrEqual(10)
    // .mts: ES modules whatever the folder, so the README's top-level await compiles
    const stripped = path.join(dir, "usage.mts")
    fs.writeFileSync(
      stripped,
      usage
        .replaceAll("// @ts-expect-error", "// expected:")
        .replace(/from "\.\.\/\.\.\/\.\.\/(.+?)"/g, (_, p) => `from ${JSON.stringify(path.join(DIST, p))}`)
    )
    const readme = path.join(dir, "readme.mts")
    fs.writeFileSync(readme, readmeBlock())
    // the examples beside their support module, importing the library as the package gives it (ES
    // modules, as this repository's package.json says)
    const examples = fs.readdirSync(path.join(ROOT, "examples")).filter((f) => f.endsWith(".ts"))
    fs.mkdirSync(path.join(dir, "examples"))
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
    for (const f of examples)
      fs.writeFileSync(
        path.join(dir, "examples", f),
        fs.readFileSync(path.join(ROOT, "examples", f), "utf8").replaceAll(`from "../src/index.js"`, `from ${JSON.stringify(INDEX)}`)
      )
    // Checking only these files (the types they use are resolved as needed; the rest of the
    // project is `make typecheck`'s), in a child process: seconds of compiler CPU that this
    // worker's event loop (and vitest's calls to it) must not wait behind on a loaded machine.
    const errors = await typeErrors([stripped, readme, ...examples.map((f) => path.join(dir, "examples", f))])
    const ours = errors.filter((l) => l.startsWith("usage.mts(")).map((l) => `${/\((\d+)\)/.exec(l)![1]} ${/: (TS\d+)/.exec(l)![1]}`)
    expect(errors.filter((l) => !l.startsWith("usage.mts("))).toEqual([])
    expect(ours.sort()).toEqual(expected)
  }, 240_000)

  it("query() gives exact integers as numbers, bigints beyond 2^53, and bigints throughout when kept", async () => {
    const warehouse = path.join(dir, "numbers.duckdb")
    // a warehouse of this toolkit (reads refuse other DuckDB files), with a table of edge values
    await Effect.runPromise(
      Effect.flatMap(Warehouse, (w) =>
        w.withConnection("setup", async (conn) => {
          await conn.run(`CREATE TABLE t (k VARCHAR, v BIGINT)`)
          await conn.run(
            `INSERT INTO t VALUES ('a', 9007199254740991), ('a', 1), ('b', 9007199254740993), ('c', -9007199254740993), ('d', NULL)`
          )
        })
      ).pipe(Effect.provide(Warehouse.Default({ path: warehouse })), Effect.scoped)
    )
    const sql = `SELECT k, v, sum(v) OVER (PARTITION BY k) AS total, CAST(v AS DECIMAL(38, 0)) AS d, 12.50::DECIMAL(10, 2) AS price,
                 [v, 7::BIGINT] AS list, {'v': v} AS st FROM t ORDER BY k, v`
    const got = await query(sql, { warehouse })
    // 'a' totals 2^53: beyond the exact range, so a bigint (HUGEINT), while each value is a number
    expect(got).toEqual([
      { k: "a", v: 1, total: 9007199254740992n, d: 1, price: 12.5, list: [1, 7], st: { v: 1 } },
      {
        k: "a",
        v: 9007199254740991,
        total: 9007199254740992n,
        d: 9007199254740991,
        price: 12.5,
        list: [9007199254740991, 7],
        st: { v: 9007199254740991 }
      },
      {
        k: "b",
        v: 9007199254740993n,
        total: 9007199254740993n,
        d: 9007199254740993n,
        price: 12.5,
        list: [9007199254740993n, 7],
        st: { v: 9007199254740993n }
      },
      {
        k: "c",
        v: -9007199254740993n,
        total: -9007199254740993n,
        d: -9007199254740993n,
        price: 12.5,
        list: [-9007199254740993n, 7],
        st: { v: -9007199254740993n }
      },
      { k: "d", v: null, total: null, d: null, price: 12.5, list: [null, 7], st: { v: null } }
    ])
    expect(await rows(sql, { warehouse })).toEqual(got)
    const kept = await query(`SELECT v, sum(v) AS s FROM t WHERE k = 'a' GROUP BY v ORDER BY v`, { warehouse, bigint: "keep" })
    expect(kept).toEqual([
      { v: 1n, s: 1n },
      { v: 9007199254740991n, s: 9007199254740991n }
    ])
    // the Arrow side agrees: rowsOfArrow keeps the same conventions
    const arrowRows = rowsOfArrow(await queryArrow(`SELECT k, v FROM t ORDER BY k, v`, { warehouse }))
    expect(arrowRows.map((r) => r.v)).toEqual(got.map((r) => r.v))
    expect(rowsOfArrow(await queryArrow(`SELECT v FROM t WHERE k = 'a' ORDER BY v`, { warehouse }), { bigint: "keep" })).toEqual([
      { v: 1n },
      { v: 9007199254740991n }
    ])
  })

  it("the README's query over a pipeline's warehouse goes to JSON.stringify and agrees with the sandbox", async () => {
    const sandbox = await startTestSandbox({})
    try {
      const warehouse = path.join(dir, "plots.duckdb")
      const criteria = { regions: ["Bayern", "Berlin"], commercial_use: "all" } as const
      const x = await extract("plots-germany", {
        sandbox,
        into: "warehouse",
        warehouse,
        params: { criteria, pageSize: 50, maxPages: 2, sample: true }
      })
      expect(x.summary.status).toBe("done")
      const byRegion = await query<{ region: string; n: number }>(
        "SELECT region, count(*) AS n FROM plots_current GROUP BY region ORDER BY region",
        { warehouse }
      )
      const truth = new Map<string, number>()
      for (const p of sandbox.context.world.searchPlots(criteria as never).slice(0, 100))
        truth.set(p.region, (truth.get(p.region) ?? 0) + 1)
      expect(JSON.parse(JSON.stringify(byRegion))).toEqual(
        [...truth].sort(([a], [b]) => a.localeCompare(b)).map(([region, n]) => ({ region, n }))
      )
      // the row types tell the truth: the declared columns plus the loader's, values of the mapped JS types
      for (const spec of plotsGermany.tables) {
        const extra = spec.disposition === "history" ? ["_valid_from", "_content_hash"] : []
        const got = x.rows(spec.name)
        expect(got.length).toBeGreaterThan(0)
        for (const row of got) {
          expect(Object.keys(row).sort()).toEqual([...spec.columns.map((c) => c.name), ...extra].sort())
          for (const c of spec.columns) {
            const v = (row as Record<string, unknown>)[c.name]
            if (v === null) expect(c.nullable && !spec.primaryKey.includes(c.name), `${spec.name}.${c.name}`).toBe(true)
            else if (expectedJsType(c.type) !== undefined)
              expect(jsTypeOf(v), `${spec.name}.${c.name}: ${c.type}`).toBe(expectedJsType(c.type))
          }
        }
      }
      expect(x.rows()[0]!._valid_from).toBeInstanceOf(Date)
    } finally {
      await sandbox.close()
    }
  })
})
