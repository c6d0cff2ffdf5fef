/**
 * A pipeline is its file, its test and its line in the catalogue: in a copy of the code
 * (`test/support/checkoutCopy.ts`, never this checkout's `pipelines/`), one new file under
 * `pipelines/` for an existing operation (plot search, Bavaria only) and its import and entry in
 * `pipelines/index.ts`, and nothing else, make a pipeline that `list` shows, `plan` prices, `run`
 * lands from the sandbox (real HTTP on 127.0.0.1, a DuckDB file in a temp folder: the plots the
 * sandbox's world lists, each once, and one unit a page, as the sandbox billed them) and the
 * library types (`extract("plots-bayern", ...)` compiles, a parameter of the wrong type does not).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Warehouse } from "../../src/load/Warehouse.js"
import { sandboxEnv, settingsFile } from "../support/cli.js"
import { copyCheckout, type CheckoutCopy, typeErrors } from "../support/checkoutCopy.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"

const NAME = "plots-bayern"
const CRITERIA = { regions: ["Bayern"], commercial_use: "all" } as const
const PAGE_SIZE = 20

/** The new pipeline's file, as a person would write it beside `plots-germany.ts`. */
const SOURCE = `/**
 * plots-bayern: every plot search result in Bavaria, offset pages, into \`bayern_plots\`.
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { paged } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { PlotResult } from "../src/service/schema/Plots.js"

const Params = Schema.Struct({
  /** Page size, 1 to 100. Default ${PAGE_SIZE}. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => ${PAGE_SIZE} }),
  /** At most this many pages (a sample). Default none. */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 1000)))
})
type Params = typeof Params.Type

const plots = flatTable.of<PlotResult, PageContext>()(
  "bayern_plots",
  {
    id: "VARCHAR",
    title: "VARCHAR",
    region: "VARCHAR",
    municipality: "VARCHAR",
    plot_area_m2: "DOUBLE",
    extracted_at: ["TIMESTAMPTZ", (_p, c) => c.extractedAt]
  },
  { primaryKey: ["id"], disposition: "merge" }
)

export default definePipeline({
  name: "${NAME}",
  description: "Plots in Bavaria (plot search), offset pages",
  host: "platform",
  params: Params,
  source: paged((p: Params) =>
    offset({
      limit: p.pageSize,
      maxPages: p.maxPages,
      fetch: ({ offset, limit }) =>
        Effect.flatMap(PlatformClient, (c) =>
          c.plotSearch({ criteria: { regions: ["Bayern"], commercial_use: "all", limit, offset } })
        ).pipe(Effect.map((r) => pageOf(r)))
    })
  ),
  cost: {
    operation: "plot_search",
    estimate: (p) => Effect.succeed({ requests: p.maxPages ?? 1, exact: false, note: "one page or more" })
  },
  tables: [plots.spec],
  records: {
    table: "bayern_plots",
    schema: PlotResult,
    toRows: (plot, ctx) => ({ bayern_plots: [plots.row(plot, ctx)] })
  }
})
`

describe("a new built-in pipeline: one file and its catalogue line", () => {
  let copy: CheckoutCopy
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  let env: Record<string, string>
  let config: string

  beforeAll(async () => {
    copy = copyCheckout("new-builtin")
    copy.addBuiltIn({ file: `${NAME}.ts`, source: SOURCE, binding: "plotsBayern", after: "plotsGermany" })
    sandbox = await startTestSandbox({})
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-new-builtin-"))
    config = settingsFile(dir, sandbox)
    env = { ...(sandboxEnv() as Record<string, string>), SVC_PLATFORM_URL: "", SVC_API_URL: "" }
  })
  afterAll(async () => {
    await sandbox?.close()
    copy?.remove()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("changes only the new file and pipelines/index.ts (two lines)", () => {
    const index = fs.readFileSync(path.join(copy.dir, "pipelines/index.ts"), "utf8").split("\n")
    const original = fs.readFileSync(path.resolve(import.meta.dirname, "../../pipelines/index.ts"), "utf8").split("\n")
    expect(index.filter((l) => !original.includes(l))).toEqual([`import plotsBayern from "./${NAME}.js"`, "  plotsBayern,"])
    expect(original.filter((l) => !index.includes(l))).toEqual([])
    expect(
      fs
        .readdirSync(path.join(copy.dir, "pipelines"))
        .filter((f) => !fs.existsSync(path.resolve(import.meta.dirname, "../../pipelines", f)))
    ).toEqual([`${NAME}.ts`])
  })

  it("is listed, planned and run: the sandbox's plots of Bavaria land, one unit a page", async () => {
    const list = await copy.cli(["list", "--config", config], env)
    expect(list.code, list.output).toBe(0)
    const row = list.output.split("\n").find((l) => l.includes(NAME))
    expect(row, list.output).toBeDefined()
    expect(row).toMatch(/plot_search/)
    expect(row).toMatch(/bayern_plots/)

    const plan = await copy.cli(["plan", NAME, "--config", config], env)
    expect(plan.code, plan.output).toBe(0)
    expect(plan.output).toContain(NAME)
    expect(totalUnits(sandbox)).toBe(0) // a plan pays nothing

    const run = await copy.cli(["run", NAME, "--config", config], env)
    expect(run.code, run.output).toBe(0)

    const truth = sandbox.context.world.searchPlots(CRITERIA as never)
    expect(truth.length).toBeGreaterThan(PAGE_SIZE) // more than one page
    const pages = Math.ceil(truth.length / PAGE_SIZE)
    const warehouse = path.join(dir, "warehouse.duckdb")
    const { landed, runs } = await Effect.runPromise(
      Effect.flatMap(Warehouse, (w) =>
        Effect.all({
          landed: w.query(`SELECT id, title, region, municipality FROM bayern_plots ORDER BY id`),
          runs: w.query(`SELECT pipeline, status, units_charged FROM _runs`)
        })
      ).pipe(Effect.provide(Warehouse.Default({ path: warehouse })), Effect.scoped)
    )
    expect(landed).toEqual(
      [...truth]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((p) => ({ id: p.id, title: p.title ?? null, region: p.region ?? null, municipality: p.municipality ?? null }))
    )
    expect(runs).toEqual([{ pipeline: NAME, status: "done", units_charged: pages }])
    expect(totalUnits(sandbox)).toBe(pages)
  }, 120_000)

  it("is typed in the library: its name and parameters compile, a parameter of the wrong type does not", async () => {
    const usage = path.join(copy.dir, "usage.mts")
    fs.writeFileSync(
      usage,
      [
        `import { extract } from ${JSON.stringify(path.join(copy.dir, "src/index.js"))}`,
        `const plots = await extract("${NAME}", { params: { pageSize: 10, maxPages: 1 }, sample: true })`,
        `export const id: string = plots.rows("bayern_plots")[0]!.id`,
        `export const area: number | null = plots.rows()[0]!.plot_area_m2`,
        `await extract("${NAME}", { params: { pageSize: "ten" } })`,
        `await extract("plots-bavaria", {})`
      ].join("\n") + "\n"
    )
    const errors = await typeErrors([usage])
    // line 5: pageSize is a number; line 6: a name the catalogue does not have
    expect(
      errors.map((e) => /^\S+ TS\d+/.exec(e)?.[0]),
      errors.join("\n")
    ).toEqual(["usage.mts(5): TS2322", "usage.mts(6): TS2345"])
  }, 120_000)
})
