/**
 * The catalogue with a repository's own pipeline modules (src/wiring/Catalogue.ts): modules
 * found beside the settings file or named by `pipelineModules`, checked like the built-ins, their
 * names accepted by the settings' checks; a bad module refused with one line naming its file; and
 * `derivePipeline`, what `estate-etl new pipeline` writes. Modules here are real files in a temp
 * folder, imported by Node as a user's would be (they import this package's source by URL).
 */
import { Effect, Either, Exit, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtInPipeline, builtInPipelines, loadSettingsAndCatalogue } from "../../src/wiring/Catalogue.js"
import { derivePipeline } from "../../src/wiring/derivePipeline.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { isPipeline } from "../../src/pipeline/Pipeline.js"
import { pipelineProblem } from "../../src/pipeline/PipelineCheck.js"
import { nodeStripsTypes } from "../../src/pipeline/PipelineModules.js"
import { byName, extract } from "../../src/index.js"
import { startTestSandbox } from "../support/sandbox.js"

const INDEX = pathToFileURL(path.resolve(import.meta.dirname, "../../src/index.ts")).href

/** A module deriving `base` under `name` (what `new pipeline` writes, importing this package's source). */
const derived = (name: string, base = "references", params: object = { location_countries: ["ES"] }) =>
  `import { derivePipeline } from ${JSON.stringify(INDEX)}\n` +
  `export default derivePipeline(${JSON.stringify(base)}, { name: ${JSON.stringify(name)}, params: ${JSON.stringify(params)} })\n`

let root: string
let case_ = 0

/** A folder with `settings.json` (plus `settings`) and `files` (path -> text); returns the settings path. */
const repo = (files: Record<string, string>, settings: object = {}): string => {
  const dir = path.join(root, `repo-${++case_}`)
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true })
    fs.writeFileSync(path.join(dir, p), text)
  }
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings))
  return path.join(dir, "settings.json")
}

const load = (settingsPath: string | undefined) => Effect.runPromise(loadSettingsAndCatalogue(settingsPath))

/** The one-line message of a refused catalogue. */
const refusal = async (settingsPath: string): Promise<string> => {
  const exit = await Effect.runPromiseExit(loadSettingsAndCatalogue(settingsPath))
  if (Exit.isSuccess(exit)) throw new Error("expected a refusal")
  const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  expect(error?._tag).toBe("InvalidInput")
  expect(error!.message).not.toContain("\n")
  return error!.message
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "estate-catalogue-"))
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("the catalogue", () => {
  it("holds the built-ins to the checks a user's module gets, and keeps their names unique", () => {
    for (const p of builtInPipelines) {
      expect(isPipeline(p)).toBe(true)
      expect(pipelineProblem(p), p.name).toBeUndefined()
    }
    expect(new Set(builtInPipelines.map((p) => p.name)).size).toBe(builtInPipelines.length)
  })

  it("in this repository (config/sandbox.json) loads the built-ins only: there is no config/pipelines/", async () => {
    const { file, catalogue } = await load(undefined)
    expect(file).toBe("config/sandbox.json")
    expect(catalogue.user).toEqual([])
    expect(catalogue.all.map((p) => p.name)).toEqual(builtInPipelines.map((p) => p.name))
  })

  it("loads pipelines/*.mjs|js beside the settings (tests skipped) and accepts their names in pipelines and sets", async () => {
    const settings = repo(
      {
        "pipelines/es-refs.mjs": derived("es-refs"),
        // named exports made with definePipeline count too, each once
        "pipelines/two.js":
          `import { derivePipeline } from ${JSON.stringify(INDEX)}\n` +
          `export const a = derivePipeline("references", { name: "refs-a" })\nexport default a\n` +
          `export const b = derivePipeline("plot_search", { name: "plots-b" })\nexport const notAPipeline = 42\n`,
        "package.json": JSON.stringify({ type: "module" }),
        "pipelines/es-refs.test.mjs": `throw new Error("a test file must not be imported")`,
        "pipelines/README.md": "not a module"
      },
      { pipelines: { "es-refs": { params: { location_countries: ["PT"] } } }, sets: { mine: ["es-refs", "plots-b", "references"] } }
    )
    const { catalogue, settings: s } = await load(settings)
    expect(catalogue.user.map((u) => [u.pipeline.name, path.basename(u.module)])).toEqual([
      ["es-refs", "es-refs.mjs"],
      ["refs-a", "two.js"],
      ["plots-b", "two.js"]
    ])
    expect(catalogue.all.length).toBe(builtInPipelines.length + 3)
    expect(s.sets.mine).toEqual(["es-refs", "plots-b", "references"])
  })

  it("takes pipelineModules (paths and file-name globs relative to the settings' folder) instead of the folder", async () => {
    const settings = repo(
      {
        "pipelines/ignored.mjs": `throw new Error("not named by pipelineModules")`,
        "etl/one.mjs": derived("one"),
        "etl/two.mjs": derived("two"),
        "etl/two.test.mjs": `throw new Error("a test file must not be imported")`,
        "other/three.js": derived("three"),
        "other/package.json": JSON.stringify({ type: "module" })
      },
      { pipelineModules: ["etl/*.mjs", "other/three.js"] }
    )
    expect((await load(settings)).catalogue.user.map((u) => u.pipeline.name)).toEqual(["one", "two", "three"])
    expect((await load(repo({ "pipelines/x.mjs": `throw new Error("no")` }, { pipelineModules: [] }))).catalogue.user).toEqual([])
  })

  it("refuses a bad module or entry with one line naming it", async () => {
    const cases: Array<[Record<string, string>, object, RegExp]> = [
      [{}, { pipelineModules: ["pipelines/missing.mjs"] }, /pipelineModules: "pipelines\/missing\.mjs": no such file/],
      [{}, { pipelineModules: ["pipelines/*.mjs"] }, /"pipelines\/\*\.mjs": no folder/],
      [{ "p/a.txt": "" }, { pipelineModules: ["p/*.mjs"] }, /"p\/\*\.mjs": matches no module file/],
      [{}, { pipelineModules: ["*/a.mjs"] }, /only the file name may hold \* or \?/],
      [{ "pipelines/bad.mjs": "export default {\n  name: 'x',,\n}\n" }, {}, /pipelines\/bad\.mjs: cannot be imported: \w*Error: .+/],
      [{ "pipelines/boom.mjs": `throw new RangeError("no credentials")` }, {}, /boom\.mjs: cannot be imported: RangeError: no credentials/],
      [
        { "pipelines/obj.mjs": `export default { name: "x" }` },
        {},
        /obj\.mjs: its default export is not a pipeline made with definePipeline/
      ],
      [{ "pipelines/none.mjs": `export const x = 1` }, {}, /none\.mjs: exports no pipeline/],
      [
        { "package.json": JSON.stringify({ type: "commonjs" }), "pipelines/esm.js": derived("esm") },
        {},
        /esm\.js: uses import\/export but its package\.json is not "type": "module"; name it \.mjs/
      ],
      [{ "pipelines/clash.mjs": derived("plots-germany") }, {}, /clash\.mjs: pipeline name "plots-germany" is a built-in pipeline's/],
      [
        { "pipelines/a.mjs": derived("twin"), "pipelines/b.mjs": derived("twin") },
        {},
        /b\.mjs: pipeline "twin" is declared by .*a\.mjs too/
      ],
      [
        { "pipelines/set.mjs": derived("nightly") },
        { sets: { nightly: ["references"] } },
        /set\.mjs: pipeline "nightly" has the name of a set/
      ],
      [{ "pipelines/Bad.mjs": derived("Bad_Name") }, {}, /Bad\.mjs: pipeline "Bad_Name": name must be kebab-case/],
      [
        { "pipelines/unknown-base.mjs": derived("mine", "plot_serch") },
        {},
        /unknown-base\.mjs: cannot be imported: Error: derivePipeline: .*did you mean "plot_search"\?/
      ],
      [
        {
          "pipelines/table.mjs":
            `import { derivePipeline, flatTable } from ${JSON.stringify(INDEX)}\n` +
            `const base = derivePipeline("references", { name: "other-refs" })\n` +
            `const t = flatTable("reference_agencies", { id: "VARCHAR" }, { primaryKey: ["id"], disposition: "merge" })\n` +
            `export default { ...base, tables: [t.spec], records: { ...base.records, table: "reference_agencies" } }\n`
        },
        {},
        /table\.mjs: pipeline "other-refs": table reference_agencies is declared differently by references/
      ],
      [
        {
          "pipelines/nokey.mjs":
            `import { derivePipeline, flatTable } from ${JSON.stringify(INDEX)}\n` +
            `const base = derivePipeline("references", { name: "no-key" })\n` +
            `const t = flatTable("my_rows", { id: "VARCHAR" }, { disposition: "merge" })\n` +
            `export default { ...base, tables: [t.spec], records: { ...base.records, table: "my_rows" } }\n`
        },
        {},
        /nokey\.mjs: pipeline "no-key": table my_rows merges rows, so it needs a primaryKey/
      ],
      [{ "pipelines/x.mjs": derived("x") }, { sets: { s: ["xx"] } }, /sets\.s: unknown pipeline "xx"; did you mean "x"\?/]
    ]
    if (!nodeStripsTypes())
      cases.push([
        { "p/t.ts": "export default 1" },
        { pipelineModules: ["p/t.ts"] },
        /t\.ts: Node .* cannot import TypeScript; write the module as \.mjs or \.js/
      ])
    for (const [files, settings, expected] of cases) expect(await refusal(repo(files, settings))).toMatch(expected)
  })
})

describe("derivePipeline", () => {
  const mine = derivePipeline("plot_search", {
    name: "my-plots",
    params: { criteria: { regions: ["Hessen"], sort: "price_m2_asc" }, maxPages: 3 }
  })

  it("re-declares a built-in (by name or operation) with its own defaults, merged under what a run gives, checked by the base's schema", () => {
    const base = Either.getOrThrow(builtInPipeline("plots-germany"))
    expect(mine.name).toBe("my-plots")
    expect(mine.tables).toBe(base.tables)
    expect(mine.source).toBe(base.source)
    expect(isPipeline(mine) && pipelineProblem(mine)).toBeUndefined()
    expect(Either.getOrThrow(resolveParams(mine, {}, []))).toEqual({
      criteria: { regions: ["Hessen"], sort: "price_m2_asc" },
      pageSize: 100,
      maxPages: 3,
      knownPagesTolerated: 1
    })
    // settings and overrides go over the defaults, objects key by key
    expect(Either.getOrThrow(resolveParams(mine, { pageSize: 20 }, ['criteria.regions=["Bayern"]']))).toEqual({
      criteria: { regions: ["Bayern"], sort: "price_m2_asc" },
      pageSize: 20,
      maxPages: 3,
      knownPagesTolerated: 1
    })
    const bad = resolveParams(mine, {}, ["maxPages=0"])
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/^my-plots\.maxPages: /)
    const unknown = resolveParams(mine, { pageSze: 2 }, [])
    expect(Either.isLeft(unknown) && unknown.left.message).toMatch(/pageSze/)
    // stored parameters (resume compares them) encode back
    expect(Schema.encodeSync(mine.params)(Either.getOrThrow(resolveParams(mine, {}, [])))).toMatchObject({ maxPages: 3 })
  })

  it("runs by name in a library session whose settings name its module, landing rows", async () => {
    const sandbox = await startTestSandbox({ world: { properties: 500 } })
    try {
      const file = path.join(root, "lib-module.mjs")
      fs.writeFileSync(file, derived("lib-refs", "references", { location_countries: ["ES"] }))
      const x = await extract(byName("lib-refs"), { sandbox, settings: { pipelineModules: [file] }, read: ["reference_locations"] })
      expect(x.summary.pipeline).toBe("lib-refs")
      expect(x.summary.status).toBe("done")
      const countries = new Set(x.rows("reference_locations").map((r) => r.country))
      expect(x.rows("reference_locations").length).toBeGreaterThan(0)
      expect([...countries]).toEqual(["ES"])
    } finally {
      await sandbox.close()
    }
  })
})
