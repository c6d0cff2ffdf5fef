/**
 * Settings from flags, the environment, `.env`, the settings file and defaults, through the real
 * CLI started in a folder holding a `.env`:
 * - `config show` names each value's source (flag, env, .env, file, default), a left-out setting's
 *   default (`not set`, source none, only where there is none), the environment
 *   wins over `.env`, and no credential from `.env` or the environment reaches its output, nor
 *   anything that looks like one (a token, a JWT, a credential variable's value) under any setting;
 * - global options before the subcommand (`--config x config show`, `--log-level debug --config x
 *   run ...`) and after its arguments (`plan references --config x`);
 * - `--log-level debug` prints one line per request on stderr (method, path, status, units, ms)
 *   and never the API key, the password or a token; without it, no debug line.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LANDING_MEMORY_LIMIT, WAREHOUSE_THREADS } from "../../src/load/Warehouse.js"
import { DEFAULT_LANDING_POLICY } from "../../src/pipeline/LandingPolicy.js"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { runCli } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const references = {
  params: {
    location_countries: ["ES"],
    source_location_ids: [18],
    points: [{ latitude: 40.4168, longitude: -3.7038 }],
    typeahead: [{ country: "ES", query: "Mad" }],
    zip_codes: [{ country_code: "ES", zip_code: "28001" }]
  }
}

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/

const noSecrets = (text: string) => {
  expect(text).not.toContain(SANDBOX_API_KEY)
  expect(text).not.toContain(SANDBOX_USER.password)
  expect(text).not.toContain(SANDBOX_USER.email)
  expect(text).not.toMatch(JWT)
}

describe("settings from flags, environment, .env, file and defaults", () => {
  let sandbox: Sandbox
  let dir: string
  // the environment every invocation gets: the target from the environment (over .env's)
  const env = { ESTATE_ETL_TARGET: "remote", SVC_API_KEY: "", SVC_EMAIL: "", SVC_PASSWORD: "" }

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-settings-env-"))
    fs.writeFileSync(
      path.join(dir, "settings.json"),
      JSON.stringify({
        service: { target: "sandbox", apiUrl: sandbox.apiUrl },
        output: path.join(dir, "out"),
        budget: { maxUnits: 7 },
        pipelines: { references, "plots-germany": { params: { pageSize: 5, maxPages: 1, sample: true } } }
      })
    )
    fs.writeFileSync(
      path.join(dir, ".env"),
      [
        "# credentials for the sandbox, as a data repository would keep them (out of git)",
        `export SVC_API_KEY="${SANDBOX_API_KEY}"`,
        `SVC_EMAIL=${SANDBOX_USER.email}`,
        `SVC_PASSWORD='${SANDBOX_USER.password}'`,
        `SVC_PLATFORM_URL=${sandbox.platformUrl}  # the platform host`,
        "ESTATE_ETL_WAREHOUSE=from-dotenv.duckdb",
        "ESTATE_ETL_TARGET=sandbox",
        ""
      ].join("\n")
    )
  })
  afterAll(async () => {
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("config show names every value's source and never prints a credential", async () => {
    const shown = await runCli(["--config", "settings.json", "config", "show", "--json"], env, { cwd: dir })
    expect(shown.stderr).toBe("")
    expect(shown.code).toBe(0)
    noSecrets(shown.stdout)
    const out = JSON.parse(shown.stdout)
    expect(out.settingsFile).toEqual({ path: "settings.json", source: "flag", name: "--config" })
    expect(out.dotEnv.shadowed).toEqual(["ESTATE_ETL_TARGET"])
    const s = out.settings
    expect(s["service.target"]).toEqual({ value: "remote", source: "env", name: "ESTATE_ETL_TARGET" })
    expect(s["service.platformUrl"]).toMatchObject({ value: sandbox.platformUrl, source: ".env", name: "SVC_PLATFORM_URL" })
    expect(s["service.apiUrl"]).toEqual({ value: sandbox.apiUrl, source: "file", file: "settings.json" })
    expect(s["warehouse"]).toMatchObject({ value: "from-dotenv.duckdb", source: ".env", name: "ESTATE_ETL_WAREHOUSE" })
    expect(s["budget.maxUnits"]).toEqual({ value: 7, source: "file", file: "settings.json" })
    expect(s["budget.retryFloor"]).toEqual({ value: 10, source: "default" })
    expect(s["pipelines.references"].source).toBe("file")
    // a setting left out shows its default, also one applied where it is used (the schema leaves it
    // unset), with when it applies; "not set" (source none) only where there is no default
    expect(s["duckdb.memoryLimit"]).toEqual({
      value: LANDING_MEMORY_LIMIT,
      source: "default",
      note: expect.stringContaining("while a run lands pages")
    })
    expect(s["duckdb.threads"]).toMatchObject({ value: WAREHOUSE_THREADS, source: "default" })
    expect(s["duckdb.groupPages"]).toEqual({ value: DEFAULT_LANDING_POLICY.maxGroup, source: "default" })
    expect(s["duckdb.groupRecords"]).toEqual({ value: DEFAULT_LANDING_POLICY.maxGroupRows, source: "default" })
    expect(s["duckdb.groupWaitMs"]).toEqual({ value: DEFAULT_LANDING_POLICY.fillWaitMs, source: "default" })
    expect(s["pipelineModules"]).toEqual({
      value: ["pipelines/*.mjs", "pipelines/*.js"],
      source: "default",
      note: "beside settings.json, test files skipped"
    })
    for (const none of ["include", "service.apiKeyHeader", "metricsFile", "budget.dailyMaxUnits"])
      expect(s[none], none).toEqual({ value: null, source: "none" })
    expect(Object.values(s).filter((v) => (v as { value: unknown }).value === null)).toHaveLength(4)
    expect(out.credentials.apiKey).toMatchObject({ value: "<redacted>", source: ".env", name: "SVC_API_KEY" })
    expect(out.credentials.password).toMatchObject({ value: "<redacted>", source: ".env", name: "SVC_PASSWORD" })

    // the settings file from the environment, the warehouse from a flag; a credential from the
    // environment itself; the text form
    const text = await runCli(
      ["config", "show", "--warehouse", "flag.duckdb"],
      { ...env, ESTATE_ETL_CONFIG: "settings.json", SVC_API_KEY: SANDBOX_API_KEY },
      { cwd: dir }
    )
    expect(text.code).toBe(0)
    noSecrets(text.stdout + text.stderr)
    expect(text.stdout).toContain("settings file: settings.json (env ESTATE_ETL_CONFIG)")
    expect(text.stdout).toMatch(/^warehouse +flag --warehouse +flag\.duckdb$/m)
    expect(text.stdout).toMatch(/^credentials\.apiKey +env SVC_API_KEY +<redacted>$/m)
    expect(text.stdout).toMatch(/^credentials\.email +\.env SVC_EMAIL +<redacted>$/m)
    expect(text.stdout).toMatch(/^budget\.paidInFlight +default +1$/m)
    expect(text.stdout).toMatch(/^duckdb\.groupPages +default +256$/m)
    expect(text.stdout).toMatch(/^duckdb\.groupRecords +default +8000$/m)
    expect(text.stdout).toMatch(/^duckdb\.checkpointThreshold +default +64MB \(while a run lands pages; DuckDB's own, 16MB, otherwise\)$/m)
    expect(text.stdout).toMatch(/^budget\.dailyMaxUnits +none +not set$/m)
    expect(text.stdout).not.toMatch(/ default +not set$/m)
  })

  it("config show redacts whatever looks like a credential, under any setting, whatever it came from", async () => {
    const token = "Zq8XvL2mN4pR7tY1wK9bC3dF6gH0jS5e"
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzYW5kYm94In0.k3Jq8vX2mN4pR7tY1wK9bC3dF6gH0jS5eA"
    const secrets = {
      ...env,
      ESTATE_ETL_WAREHOUSE: `data/${jwt}/${token}.duckdb`,
      // the value of a credential variable (.env's SVC_PASSWORD) where a path goes
      ESTATE_ETL_METRICS_FILE: SANDBOX_USER.password
    }
    const shown = await runCli(["--config", "settings.json", "config", "show", "--json"], secrets, { cwd: dir })
    expect(shown.code, shown.stderr).toBe(0)
    const text = await runCli(["--config", "settings.json", "config", "show"], secrets, { cwd: dir })
    expect(text.code, text.stderr).toBe(0)
    for (const out of [shown.stdout, text.stdout]) {
      noSecrets(out)
      for (const secret of [token, jwt, "eyJzdWIiOiJzYW5kYm94In0"]) expect(out).not.toContain(secret)
    }
    const s = JSON.parse(shown.stdout).settings
    expect(s["warehouse"]).toMatchObject({ value: "data/<redacted>/<redacted>.duckdb", source: "env", name: "ESTATE_ETL_WAREHOUSE" })
    expect(s["metricsFile"]).toMatchObject({ value: "<redacted>", source: "env" })
    expect(text.stdout).toMatch(/^warehouse +env ESTATE_ETL_WAREHOUSE +data\/<redacted>\/<redacted>\.duckdb$/m)
  })

  it("--log-level debug logs every request on stderr, without credentials; global options go anywhere", async () => {
    const run = await runCli(["--log-level", "debug", "--config", "settings.json", "run", "references", "plots-germany", "--json"], env, {
      cwd: dir
    })
    const all = run.stdout + run.stderr
    expect(run.code, all).toBe(0)
    noSecrets(all)
    // the warehouse .env named, relative to the working directory
    expect(fs.existsSync(path.join(dir, "from-dotenv.duckdb"))).toBe(true)
    const logs = run.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === "log")
    expect(logs.every((l) => l.level === "DEBUG" && typeof l.ms === "number")).toBe(true)
    const byMessage = (m: string) => logs.filter((l) => l.message === m)
    expect(byMessage("POST /login")[0]).toMatchObject({ status: 200, units: 0, operation: "login" })
    expect(byMessage("GET /api/v1/references/features")[0]).toMatchObject({ status: 200 })
    expect(logs.some((l) => /^GET \/api\/v1\/references\/sources\?locationId=18$/.test(l.message))).toBe(true)
    expect(byMessage("POST /v1/ai/plots/search")[0]).toMatchObject({ status: 200, units: 1, operation: "plot_search" })

    // options after the arguments; no --log-level: no debug lines
    const plan = await runCli(["plan", "references", "--config", "settings.json"], env, { cwd: dir })
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toContain("references")
    expect(plan.stderr).not.toContain("DEBUG")
  })
})
