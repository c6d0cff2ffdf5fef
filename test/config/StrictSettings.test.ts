/**
 * Strict settings: misspelt keys, unknown pipelines and set members, enumerations and misspelt
 * flags are refused with the closest allowed name; credentials are refused in the settings file
 * (naming the environment variable to use) and their values never show in any decode error.
 * Unit tests of the decode functions, then the real CLI as a child process (exit 2, one line).
 */
import { Either, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"
import { scanArgs } from "../../src/cli/Flags.js"
import { commands } from "../../src/cli/Commands.js"
import { isCredentialKey, redactValue, scrub } from "../../src/config/Credentials.js"
import { issuesLine } from "../../src/config/DecodeErrors.js"
import { decodeSettings } from "../../src/config/loadSettings.js"
import { Settings } from "../../src/config/Settings.js"
import { checkSettingsAgainst, credentialInSettings } from "../../src/config/StrictSettings.js"
import { closest, editDistance } from "../../src/config/Suggest.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { runCli } from "../support/cli.js"

const known = { knownPipelines: catalogue.map((p) => p.name) }
const pipeline = (name: string) => catalogue.find((p) => p.name === name)!
const errorOf = <A>(e: Either.Either<A, { readonly message: string }>): string => {
  if (Either.isRight(e)) throw new Error("expected a failure")
  return e.left.message
}
const lineOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown): string => {
  const r = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input)
  if (Either.isRight(r)) throw new Error("expected a failure")
  const { path: p, line } = issuesLine(r.left)
  return `${p.join(".")}: ${line}`
}

describe("suggestions", () => {
  it("edit distance counts a swap of neighbours as one edit, ignoring case", () => {
    expect(editDistance("confg", "config")).toBe(1)
    expect(editDistance("taregt", "target")).toBe(1)
    expect(editDistance("REMOTE", "remote")).toBe(0)
  })
  it("suggests only names close enough to be a typo", () => {
    expect(closest("remot", ["sandbox", "remote"])).toBe("remote")
    expect(closest("plot-germany", ["sourcing-search", "plots-germany"])).toBe("plots-germany")
    expect(closest("cloud", ["sandbox", "remote"])).toBeUndefined()
    expect(
      closest(
        "ghost",
        catalogue.map((p) => p.name)
      )
    ).toBeUndefined()
  })
})

describe("settings decode", () => {
  it("a misspelt key anywhere names the closest allowed key", () => {
    expect(errorOf(decodeSettings({ warehous: "x.duckdb" }, "s.json"))).toBe(`s.json: warehous: unknown key; did you mean "warehouse"?`)
    expect(errorOf(decodeSettings({ budget: { maxUnit: 5 } }, "s.json"))).toBe(
      `s.json: budget.maxUnit: unknown key; did you mean "maxUnits"?`
    )
    expect(errorOf(decodeSettings({ pipelines: { "plots-germany": { parms: {} } } }, "s.json"))).toBe(
      `s.json: pipelines.plots-germany.parms: unknown key; did you mean "params"?`
    )
    expect(errorOf(decodeSettings({ service: { colour: "red" } }, "s.json"))).toMatch(
      /^s\.json: service\.colour: unknown key; allowed: target, platformUrl, apiUrl, /
    )
  })

  it("an enumeration lists the allowed values and suggests the closest", () => {
    expect(errorOf(decodeSettings({ service: { target: "remot" } }, "s.json"))).toBe(
      `s.json: service.target: expected one of sandbox, remote; did you mean "remote"?`
    )
    expect(errorOf(decodeSettings({ service: { target: "cloud" } }, "s.json"))).toBe(
      `s.json: service.target: expected one of sandbox, remote (got "cloud")`
    )
  })

  it('an optional section\'s "Expected undefined" is left out (it showed the whole section)', () => {
    const message = errorOf(decodeSettings({ service: { target: "remot", timeoutMs: 0 } }, "s.json"))
    expect(message).not.toMatch(/undefined/)
    expect(message).toMatch(/service\.timeoutMs: /)
  })

  it("unknown pipelines under `pipelines` and in `sets` are refused when the known names are given", () => {
    const input = { pipelines: { "plot-germany": { params: { pageSize: 5 } } } }
    expect(Either.isRight(decodeSettings(input, "s.json"))).toBe(true) // the schema alone cannot know
    expect(errorOf(decodeSettings(input, "s.json", known))).toBe(
      `s.json: pipelines.plot-germany: unknown pipeline; did you mean "plots-germany"?`
    )
    expect(errorOf(decodeSettings({ sets: { nightly: ["plots-germany", "sourcing-serch"] } }, "s.json", known))).toBe(
      `s.json: sets.nightly: unknown pipeline "sourcing-serch"; did you mean "sourcing-search"?`
    )
    expect(errorOf(decodeSettings({ sets: { broken: ["ghost"] } }, "s.json", known))).toMatch(
      /^s\.json: sets\.broken: unknown pipeline "ghost"; allowed: plots-germany, /
    )
    const shipped = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../../config/sandbox.json"), "utf8"))
    expect(Either.isRight(decodeSettings(shipped, "config/sandbox.json", known))).toBe(true)
  })

  it("checkSettingsAgainst takes the known names as an argument (pipelines loaded from elsewhere)", () => {
    const settings = Schema.decodeSync(Settings)({ pipelines: { "my-own": { params: {} } }, sets: { mine: ["my-own"] } })
    expect(Either.isRight(checkSettingsAgainst(settings, ["my-own"]))).toBe(true)
    expect(errorOf(checkSettingsAgainst(settings, ["my-owm"]))).toBe(`settings: pipelines.my-own: unknown pipeline; did you mean "my-owm"?`)
  })
})

describe("credentials", () => {
  const SECRET = "sk-live-4f9a8b7c6d5e"

  it("credential-looking names: key, token, secret, password in any case; the settings' own env-var fields are not", () => {
    for (const k of ["apiKey", "api_key", "SVC_API_KEY", "refreshToken", "clientSecret", "PASSWORD", "passwd"])
      expect(isCredentialKey(k), k).toBe(true)
    for (const k of ["apiKeyEnv", "passwordEnv", "emailEnv", "apiKeyHeader", "keywords", "target", "email"])
      expect(isCredentialKey(k), k).toBe(false)
  })

  it("a credential in the settings file is refused, naming the environment variable, never the value", () => {
    const cases: Array<[unknown, string]> = [
      [
        { service: { apiKey: SECRET } },
        "s.json: service.apiKey: credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead"
      ],
      [
        { service: { password: SECRET } },
        "s.json: service.password: credentials are never read from the settings file; remove it and set the environment variable SVC_PASSWORD instead"
      ],
      [
        { service: { apiKeyEnv: "ACME_KEY", api_key: SECRET } },
        "s.json: service.api_key: credentials are never read from the settings file; remove it and set the environment variable ACME_KEY instead"
      ],
      [
        { service: { refreshToken: SECRET } },
        "s.json: service.refreshToken: credentials are never read from the settings file; remove it: tokens come from signing in with the environment variables SVC_EMAIL and SVC_PASSWORD"
      ],
      [
        { pipelines: { "plots-germany": { params: { criteria: { SVC_API_KEY: SECRET } } } } },
        "s.json: pipelines.plots-germany.params.criteria.SVC_API_KEY: credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead"
      ]
    ]
    for (const [input, message] of cases) {
      expect(errorOf(decodeSettings(input, "s.json", known))).toBe(message)
      expect(errorOf(decodeSettings(input, "s.json"))).not.toContain(SECRET)
    }
    expect(credentialInSettings({ service: { apiKeyEnv: "SVC_API_KEY", passwordEnv: "SVC_PASSWORD" } }, "s.json")).toBeUndefined()
  })

  it("decode errors never echo a credential's value, at any depth", () => {
    // a credential-looking field with the wrong type: its own value is redacted
    expect(lineOf(Schema.Struct({ auth: Schema.Struct({ token: Schema.Number }) }), { auth: { token: SECRET } })).toBe(
      `auth.token: Expected number, actual "<redacted>"`
    )
    // a credential inside a value shown whole
    expect(lineOf(Schema.Struct({ limit: Schema.Number }), { limit: { apiKey: SECRET, n: 1 } })).toBe(
      `limit: Expected number, actual {"apiKey":"<redacted>","n":1}`
    )
    // a message a filter builds from the values itself
    const Login = Schema.Struct({ user: Schema.String, password: Schema.String }).pipe(
      Schema.filter((l) => l.password.length > 40 || `user ${l.user} with password ${l.password} refused`)
    )
    const line = lineOf(Login, { user: "ann", password: SECRET })
    expect(line).not.toContain(SECRET)
    expect(line).toContain("<redacted>")
    expect(scrub(`"${SECRET}" and ${SECRET}`, { k: { secret: SECRET } })).toBe(`"<redacted>" and <redacted>`)
    expect(redactValue({ a: [{ password: "x" }], apiKeyEnv: "SVC_API_KEY" })).toEqual({
      a: [{ password: "<redacted>" }],
      apiKeyEnv: "SVC_API_KEY"
    })
  })

  it("the settings' errors for a section holding a non-string credential show no value either", () => {
    const message = errorOf(decodeSettings({ service: { target: "remot", apiKey: [SECRET] } }, "s.json"))
    expect(message).not.toContain(SECRET)
    expect(message).toMatch(/service\.apiKey: unknown key/)
  })
})

describe("pipeline parameters", () => {
  it("unknown parameters and enumeration values suggest the closest", () => {
    expect(errorOf(resolveParams(pipeline("plots-germany"), {}, ["pagesize=5"]))).toBe(
      `plots-germany.pagesize: unknown key; did you mean "pageSize"?`
    )
    expect(errorOf(resolveParams(pipeline("plots-germany"), { criteria: { sort: "price_m2_ac" } }, []))).toBe(
      `plots-germany.criteria.sort: must be one of commercial_use, newest, price_asc, area_desc, price_m2_asc (got "price_m2_ac"); did you mean "price_m2_asc"?`
    )
  })

  it("a credential given as a parameter never shows", () => {
    const message = errorOf(resolveParams(pipeline("plots-germany"), {}, [`criteria={"sort":1,"apiKey":"${"sk-param-77aa88bb"}"}`]))
    expect(message).toMatch(/^plots-germany\.criteria\.apiKey: unknown key/)
    expect(message).not.toContain("sk-param-77aa88bb")
    const typed = errorOf(resolveParams(pipeline("plots-germany"), {}, [`pageSize={"token":"tok-99887766"}`]))
    expect(typed).not.toContain("tok-99887766")
    expect(typed).toContain("<redacted>")
  })
})

describe("flags", () => {
  const argv = (...args: Array<string>) => ["node", "estate-etl", ...args]
  it("a misspelt flag is named as a flag, with the closest of the command's flags", () => {
    expect(scanArgs(commands, argv("run", "--confg", "x", "nightly")).error?.message).toBe(
      "run: unknown flag --confg; did you mean --config?"
    )
    expect(scanArgs(commands, argv("run", "nightly", "--max-unit=5")).error?.message).toBe(
      "run: unknown flag --max-unit; did you mean --max-units?"
    )
    expect(scanArgs(commands, argv("alerts", "feeds", "list", "--jsn")).error?.message).toBe(
      "alerts feeds list: unknown flag --jsn; did you mean --json?"
    )
    expect(scanArgs(commands, argv("run", "nightly", "--frobnicate")).error?.message).toMatch(
      /^run: unknown flag --frobnicate; flags of run: --config, /
    )
  })
  it("a flag that takes a value, given none (last, or before another flag), is named; it is not read as a pipeline", () => {
    expect(scanArgs(commands, argv("run", "plots-germany", "--max-units")).error?.message).toBe("--max-units: needs a value")
    expect(scanArgs(commands, argv("run", "--config", "--max-units", "5", "nightly")).error?.message).toBe("--config: needs a value")
    expect(scanArgs(commands, argv("run", "--max-units", "5", "nightly")).error).toBeUndefined()
    expect(scanArgs(commands, argv("run", "--max-units=5", "nightly")).error).toBeUndefined()
  })
  it("declared flags, their values, short aliases, built-ins and arguments after -- pass", () => {
    for (const args of [
      ["run", "--config", "x.json", "nightly", "--max-units", "-5", "-p", "limit=--x", "--until-cap"],
      ["run", "--config=x.json", "--param=a=1", "--json", "nightly"],
      ["plan", "-c", "x.json", "nightly"],
      ["run", "--help"],
      ["--version"],
      ["query", "-- a comment\nSELECT 1"],
      ["run", "nightly", "--", "--not-a-flag"],
      ["alerts", "feeds", "list", "--config", "x.json", "--json"]
    ])
      expect(scanArgs(commands, argv(...args)).error, args.join(" ")).toBeUndefined()
  })
})

describe("the CLI (child process): exit 2, one line, before any request", () => {
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-strict-"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const settings = (name: string, content: unknown) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, JSON.stringify({ warehouse: path.join(dir, "warehouse.duckdb"), output: dir, ...(content as object) }, null, 2))
    return file
  }

  it("a misspelt pipeline key", async () => {
    const file = settings("pipeline-key.json", { pipelines: { "plot-germany": { params: { pageSize: 5 } } } })
    const r = await runCli(["run", "plots-germany", "--config", file])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${file}: pipelines.plot-germany: unknown pipeline; did you mean "plots-germany"?\n`
    })
    expect(fs.existsSync(path.join(dir, "warehouse.duckdb"))).toBe(false)
  })

  it('target: "remot"', async () => {
    const file = settings("target.json", { service: { target: "remot" } })
    const r = await runCli(["run", "plots-germany", "--config", file])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${file}: service.target: expected one of sandbox, remote; did you mean "remote"?\n`
    })
  })

  it("--confg", async () => {
    const r = await runCli(["run", "--confg", "x", "nightly"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: "error: run: unknown flag --confg; did you mean --config?\n"
    })
  })

  it("an API key in the settings file: the environment variable is named, the key shown nowhere", async () => {
    const key = "sk-live-0123456789abcdef0123"
    const file = settings("api-key.json", { service: { target: "remot", apiKey: key }, budget: { maxUnits: -1 } })
    const r = await runCli(["run", "plots-germany", "--config", file])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${file}: service.apiKey: credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead\n`
    })
    expect(r.stdout + r.stderr).not.toContain(key)
    expect(r.stdout + r.stderr).not.toContain(key.slice(8))
  })
})
