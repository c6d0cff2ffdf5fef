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
import { credentialLook, isCredentialKey, redactText, redactValue, scrub } from "../../src/config/Credentials.js"
import { issuesLine } from "../../src/config/DecodeErrors.js"
import { decodeSettings } from "../../src/config/loadSettings.js"
import { Settings } from "../../src/config/Settings.js"
import { checkSettingsAgainst, credentialInSettings } from "../../src/config/StrictSettings.js"
import { closest, editDistance } from "../../src/config/Suggest.js"
import { parseOverride, resolveParams } from "../../src/pipeline/Params.js"
import { messageOf } from "../../src/shared/ErrorClass.js"
import { cli } from "../support/inProcessCli.js"

/** The CLI's entry (`runCliMain`) in this process, without credentials. */
const runCli = (args: ReadonlyArray<string>) => cli(args, {})

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

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzYW5kYm94QGV4YW1wbGUuY29tIiwiZXhwIjoxNzk1NzI2NTI5fQ.k3Jq8vX2mN4pR7tY1wK9bC3dF6gH0jS5eA"

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
    expect(message).toBe(
      "s.json: service.apiKey: credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead"
    )
  })
})

describe("pipeline parameters", () => {
  it("unknown parameters and enumeration values suggest the closest", () => {
    expect(errorOf(resolveParams(pipeline("plots-germany"), {}, ["pagesize=5"]))).toBe(
      `plots-germany.pagesize: unknown key; did you mean "pageSize"?`
    )
    expect(errorOf(resolveParams(pipeline("plots-germany"), { criteria: { sort: "price_m2_ac" } }, []))).toBe(
      `plots-germany.criteria.sort: must be one of commercial_use, newest, price_asc, area_desc, price_m2_asc (got "price_m2_ac"); did you mean "price_m2_asc"? (set in the settings: pipelines.plots-germany.params.criteria)`
    )
    // the settings gave it, not the command line: the line says where
    expect(errorOf(resolveParams(pipeline("plots-germany"), { pagesize: 5 }, []))).toBe(
      `plots-germany.pagesize: unknown key; did you mean "pageSize"? (set in the settings: pipelines.plots-germany.params.pagesize)`
    )
    // a --param over the settings' value: the command line's
    expect(errorOf(resolveParams(pipeline("plots-germany"), { criteria: { sort: "newest" } }, ["criteria.sort=oldest"]))).toMatch(
      /^plots-germany\.criteria\.sort: must be one of .*\(got "oldest"\)$/
    )
  })

  it("a credential given as a parameter never shows", () => {
    const message = errorOf(resolveParams(pipeline("plots-germany"), {}, [`criteria={"sort":1,"apiKey":"${"sk-param-77aa88bb"}"}`]))
    expect(message).toBe(
      "plots-germany.criteria.apiKey: this value looks like a credential (an API key); credentials are never read from parameters: they come from the environment (SVC_API_KEY, SVC_EMAIL, SVC_PASSWORD)"
    )
    expect(message).not.toContain("sk-param-77aa88bb")
    const underAnyKey = errorOf(resolveParams(pipeline("sourcing-describe"), {}, [`phrases=["flat near the sea","${JWT}"]`]))
    expect(underAnyKey).toMatch(/^sourcing-describe\.phrases\.1: this value looks like a credential \(a JWT\)/)
    expect(underAnyKey).not.toContain(JWT.slice(0, 20))
    const typed = errorOf(resolveParams(pipeline("plots-germany"), {}, [`pageSize={"token":"tok-99887766"}`]))
    expect(typed).not.toContain("tok-99887766")
    expect(typed).toContain("<redacted>")
  })
})

describe("parameter keys that reach JavaScript's object machinery", () => {
  it("__proto__, constructor and prototype are refused as keys of --param, at any depth of a JSON value, and in the settings' params", () => {
    const refused = (key: string) => `"${key}" is not allowed as a key (it names JavaScript's object machinery, not a setting or parameter)`
    expect(errorOf(parseOverride("__proto__.pageSize=5"))).toBe(`--param: ${refused("__proto__")}`)
    expect(errorOf(resolveParams(pipeline("plots-germany"), {}, ["constructor.prototype.maxPages=1"]))).toBe(
      `--param: ${refused("constructor")}`
    )
    expect(errorOf(resolveParams(pipeline("plots-germany"), {}, [`criteria={"__proto__":{"sort":"newest"}}`]))).toBe(
      `plots-germany.criteria.__proto__: ${refused("__proto__")}`
    )
    expect(errorOf(resolveParams(pipeline("plots-germany"), JSON.parse(`{"criteria":{"regions":[{"prototype":1}]}}`), []))).toBe(
      `plots-germany.criteria.regions.0.prototype: ${refused("prototype")} (set in the settings: pipelines.plots-germany.params.criteria)`
    )
    expect(
      errorOf(decodeSettings(JSON.parse(`{"pipelines":{"plots-germany":{"params":{"__proto__":{"pageSize":5}}}}}`), "s.json", known))
    ).toBe(`s.json: pipelines.plots-germany.params.__proto__: ${refused("__proto__")}`)
    expect(errorOf(decodeSettings({ sets: { constructor: ["plots-germany"] } }, "s.json", known))).toBe(
      `s.json: sets.constructor: ${refused("constructor")}`
    )
    // nothing leaked into Object.prototype on the way
    expect(({} as Record<string, unknown>).pageSize).toBeUndefined()
  })
})

describe("name-valued maps: did you mean", () => {
  it("budget.costs names metered operations: the built-in table's and the catalogue's own", () => {
    expect(errorOf(decodeSettings({ budget: { costs: { plot_serch: 2 } } }, "s.json", known))).toBe(
      `s.json: budget.costs.plot_serch: unknown operation; did you mean "plot_search"? (units are per call of a platform operation; token-host calls cost none)`
    )
    expect(errorOf(decodeSettings({ budget: { costs: { premises: 2 } } }, "s.json", known))).toMatch(
      /^s\.json: budget\.costs\.premises: unknown operation; allowed: ai_search_premises, plot_search, .*, seller_lead \(units are per call/
    )
    expect(Either.isRight(decodeSettings({ budget: { costs: { ai_search_premises: 45, sourcing_next: 2 } } }, "s.json", known))).toBe(true)
    // an operation a user's pipeline calls on the platform host is known once its pipeline is
    const mine = Schema.decodeSync(Settings)({ budget: { costs: { my_lookup: 3 } } })
    expect(errorOf(checkSettingsAgainst(mine, ["plots-germany"]))).toMatch(/budget\.costs\.my_lookup: unknown operation/)
    expect(Either.isRight(checkSettingsAgainst(mine, { pipelines: ["plots-germany"], operations: ["my_lookup"] }))).toBe(true)
  })

  it("service.shapes names shaped operations and their four members", () => {
    expect(errorOf(decodeSettings({ service: { shapes: { sourcing_serch: { results: "items" } } } }, "s.json", known))).toBe(
      `s.json: service.shapes.sourcing_serch: unknown key; did you mean "sourcing_search"?`
    )
    expect(errorOf(decodeSettings({ service: { shapes: { sourcing_search: { reslts: "items" } } } }, "s.json", known))).toBe(
      `s.json: service.shapes.sourcing_search.reslts: unknown key; did you mean "results"?`
    )
  })
})

describe("values that look like credentials, under any key", () => {
  const KEY = "sk_live_51HxYz8Kq2Lm3Np4Qr"
  const TOKEN = "Zq8XvL2mN4pR7tY1wK9bC3dF6gH0jS5e"
  const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  it("API keys, JWTs, whsec_ secrets, long random tokens and the credential variables' values; not paths, ids or names", () => {
    expect(credentialLook(KEY)).toBe("an API key")
    expect(credentialLook("sk-live-4f9a8b7c6d5e")).toBe("an API key")
    expect(credentialLook("sk_sandbox_default_7f3a9c2e41d84b06")).toBe("an API key")
    expect(credentialLook(JWT)).toBe("a JWT")
    expect(credentialLook(WHSEC)).toBe("a webhook secret (whsec_)")
    expect(credentialLook(TOKEN)).toBe("a random token")
    expect(credentialLook("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")).toBe("a random token")
    expect(credentialLook("hunter2-secret", [{ variable: "ACME_PW", value: "hunter2-secret" }])).toBe("the value of ACME_PW")
    for (const ordinary of [
      "/tmp/estate-state-user-pipelines-XyZ123/settings-abc123",
      "data/warehouse.duckdb",
      "http://127.0.0.1:8701",
      "SVC_API_KEY",
      "plots-germany",
      "sk-something-long",
      "ThisIsAVeryLongCamelCaseIdentifier2026X",
      "prop_1000123",
      "9872023VH5797S0001WX",
      "3f2b8c1e-9d4a-4b6e-8c2f-1a2b3c4d5e6f",
      "20261126203735-plots-germany-rpv4m7",
      "2026-05-25T00:00:00Z",
      "flat near the sea with a terrace"
    ])
      expect(credentialLook(ordinary), ordinary).toBeUndefined()
  })

  it("text keeps everything but what looks like a credential", () => {
    const line = `run 20261126203735-plots-germany-rpv4m7 of /tmp/estate-x-AbC123/w.duckdb sent Bearer ${KEY}, token=${JWT}, ${TOKEN} and ${WHSEC}`
    expect(redactText(line)).toBe(
      "run 20261126203735-plots-germany-rpv4m7 of /tmp/estate-x-AbC123/w.duckdb sent Bearer <redacted>, token=<redacted>, <redacted> and <redacted>"
    )
    expect(redactText(`password "pw-123456" or pw-123456`, [{ variable: "SVC_PASSWORD", value: "pw-123456" }])).toBe(
      `password "<redacted>" or <redacted>`
    )
    expect(lineOf(Schema.Struct({ limit: Schema.Number }), { limit: KEY })).toBe(`limit: Expected number, actual "<redacted>"`)
    // every error's one line (printed, stored in _runs.error, sent as an event)
    expect(messageOf(new Error(`unknown pipeline "${KEY}"\n    at stack`))).toBe(`unknown pipeline "<redacted>"`)
  })

  it("refused in the settings file with one line saying where the secret goes, the value never shown", () => {
    const cases: Array<[unknown, string, NodeJS.ProcessEnv?]> = [
      [
        { service: { apiKeyEnv: KEY } },
        "s.json: service.apiKeyEnv: names the environment variable that holds the credential, and this value looks like the credential itself (an API key); put the secret in an environment variable (default SVC_API_KEY) and set apiKeyEnv to that variable's name, or leave it out"
      ],
      [
        { sets: { nightly: ["plots-germany", JWT] } },
        "s.json: sets.nightly.1: this value looks like a credential (a JWT); credentials are never read from the settings file; remove it: tokens come from signing in with the environment variables SVC_EMAIL and SVC_PASSWORD"
      ],
      [
        { pipelines: { "sourcing-describe": { params: { phrases: [WHSEC] } } } },
        "s.json: pipelines.sourcing-describe.params.phrases.0: this value looks like a credential (a webhook secret (whsec_)); credentials are never read from the settings file; remove it: webhook secrets go in the receiver's secrets file (serve-alerts --secrets-file) or its environment variable (ALERTS_WEBHOOK_SECRETS)"
      ],
      [
        { output: TOKEN },
        "s.json: output: this value looks like a credential (a random token); credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead"
      ],
      [
        { sets: { [KEY]: ["plots-germany"] } },
        "s.json: sets: a key of this map looks like a credential (an API key); credentials are never read from the settings file; remove it and set the environment variable SVC_API_KEY instead"
      ],
      [
        { service: { passwordEnv: "ACME_PW" }, warehouse: "pw-of-acme-42" },
        "s.json: warehouse: this value looks like a credential (the value of ACME_PW); credentials are never read from the settings file; remove it and set the environment variable ACME_PW instead",
        { ACME_PW: "pw-of-acme-42" }
      ]
    ]
    for (const [input, message, env] of cases) {
      const e = errorOf(decodeSettings(input, "s.json", { ...known, env: env ?? {} }))
      expect(e).toBe(message)
      for (const secret of [KEY, JWT, WHSEC, TOKEN, "pw-of-acme-42"]) expect(e).not.toContain(secret)
    }
    // a credential variable's own field holding something that is no variable name: refused without showing it
    const notAName = errorOf(decodeSettings({ service: { passwordEnv: "hunter2!" } }, "s.json", known))
    expect(notAName).toBe(
      "s.json: service.passwordEnv: must be the name of an environment variable (letters, digits and _, not starting with a digit), not the credential itself"
    )
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

  it("an API key put under service.apiKeyEnv (where the variable's name belongs): run and config show refuse it, shown nowhere", async () => {
    const key = "sk_live_51HxYz8Kq2Lm3Np4Qr"
    const file = settings("api-key-env.json", { service: { apiKeyEnv: key } })
    const line = `error: ${file}: service.apiKeyEnv: names the environment variable that holds the credential, and this value looks like the credential itself (an API key); put the secret in an environment variable (default SVC_API_KEY) and set apiKeyEnv to that variable's name, or leave it out\n`
    for (const args of [
      ["run", "plots-germany", "--config", file],
      ["config", "show", "--config", file],
      ["config", "show", "--json", "--config", file]
    ]) {
      const r = await runCli(args)
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }, args.join(" ")).toEqual({ code: 2, stdout: "", stderr: line })
    }
    expect(fs.existsSync(path.join(dir, "warehouse.duckdb"))).toBe(false)
  })

  it("a credential typed where a pipeline's name goes: the error line shows <redacted>", async () => {
    const file = settings("plain.json", {})
    const r = await runCli(["plan", "sk_live_51HxYz8Kq2Lm3Np4Qr", "--config", file])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^error: .*unknown pipeline "<redacted>"/)
    expect(r.stderr).not.toContain("51HxYz8Kq2Lm3Np4Qr")
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
