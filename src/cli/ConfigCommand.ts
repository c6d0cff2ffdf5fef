/**
 * `config show`: the settings a command would run with (after the environment, `.env`, the
 * settings file and the defaults), each value with where it came from, and whether the
 * credentials are set and from where. Secrets never show: a credential is `<redacted>` or
 * `not set`, a credential-named value anywhere is `<redacted>`, a URL's password too, and so is
 * whatever looks like a credential under any key (`config/Credentials.ts` `redactText`). A
 * setting the file leaves out shows its default (source `default`), also where the default is
 * applied where the value is used rather than by the schema (`IMPLIED_DEFAULTS`); `not set`
 * (source `none`) only for settings that have none.
 */
import { Command, Options } from "@effect/cli"
import { withCatalogue } from "../wiring/Catalogue.js"
import { Effect, Option, Schema, SchemaAST } from "effect"
import {
  credentialEnvOf,
  type EnvSecret,
  environmentSecrets,
  isCredentialKey,
  REDACTED,
  redactText,
  redactValue
} from "../config/Credentials.js"
import { lastDotEnvLoad } from "../config/DotEnv.js"
import { type EffectiveSettings, loadEffectiveSettings, overlaySource } from "../config/EffectiveSettings.js"
import { Settings } from "../config/Settings.js"
import { describeSource, envValue, type Source } from "../config/SettingsEnv.js"
import { LANDING_CHECKPOINT_THRESHOLD, LANDING_MEMORY_LIMIT, WAREHOUSE_BLOCK_SIZE, WAREHOUSE_THREADS } from "../load/Warehouse.js"
import { DEFAULT_LANDING_POLICY } from "../pipeline/LandingPolicy.js"
import { table } from "./Format.js"

interface Row {
  readonly setting: string
  /** Shown value, already redacted; `undefined`: not set. */
  readonly value: unknown
  /** `undefined`: not set, and no default (a credential, or a setting that has none). */
  readonly source: Source | undefined
  /** The variable a credential is read from. */
  readonly variable?: string
  /** When and where a default applies (`IMPLIED_DEFAULTS`). */
  readonly note?: string
}

interface ImpliedDefault {
  readonly value: unknown
  readonly note?: string
}

/**
 * Defaults of settings the schema leaves unset (`Schema.optional`), applied where the value is
 * used: what a command does when the settings say nothing. Settings absent here and unset have no
 * default (`include`, the hosts' URLs, `service.apiKeyHeader`, `metricsFile`, `budget.dailyMaxUnits`).
 */
const IMPLIED_DEFAULTS: Readonly<Record<string, (eff: EffectiveSettings) => ImpliedDefault>> = {
  "duckdb.memoryLimit": () => ({
    value: LANDING_MEMORY_LIMIT,
    note: "while a run lands pages; DuckDB's own, 80% of RAM, for exports and queries"
  }),
  "duckdb.checkpointThreshold": () => ({
    value: LANDING_CHECKPOINT_THRESHOLD,
    note: "while a run lands pages; DuckDB's own, 16MB, otherwise"
  }),
  "duckdb.threads": () => ({
    value: WAREHOUSE_THREADS,
    note: "in a warehouse opened to write (runs, their exports, merges); DuckDB's own, one per core, in one opened read-only (query, status, export)"
  }),
  "duckdb.blockSize": () => ({
    value: `${WAREHOUSE_BLOCK_SIZE / 1024}KB`,
    note: "for a warehouse the toolkit creates; one that exists keeps its own"
  }),
  "duckdb.groupPages": () => ({ value: DEFAULT_LANDING_POLICY.maxGroup }),
  "duckdb.groupRecords": () => ({ value: DEFAULT_LANDING_POLICY.maxGroupRows }),
  "duckdb.groupWaitMs": () => ({ value: DEFAULT_LANDING_POLICY.fillWaitMs }),
  // src/pipeline/PipelineModules.ts: a pipelines/ folder beside the settings file, when one was read
  pipelineModules: (eff) =>
    eff.file !== undefined
      ? { value: ["pipelines/*.mjs", "pipelines/*.js"], note: `beside ${eff.file.path}, test files skipped` }
      : { value: [], note: "no settings file: no pipelines/ folder is searched" }
}

/** A URL's password taken out; anything else as it is. */
const redactUrl = (v: string): string => {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(v)) return v
  try {
    const u = new URL(v)
    if (u.password === "") return v
    u.password = "redacted"
    return u.toString().replace(":redacted@", `:${REDACTED}@`)
  } catch {
    return v
  }
}

/**
 * A value as shown: `<redacted>` under a credential-looking key, and anything that looks like a
 * credential inside it (an API key, a JWT, a whsec_ secret, a long random token, a credential
 * variable's value: `secrets`) redacted whatever key holds it.
 */
const shown = (key: string, value: unknown, secrets: ReadonlyArray<EnvSecret>): unknown =>
  isCredentialKey(key) ? REDACTED : typeof value === "string" ? redactText(redactUrl(value), secrets) : redactValue(value, secrets)

const typeLiteralOf = (ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined =>
  SchemaAST.isTypeLiteral(ast) ? ast : SchemaAST.isUnion(ast) ? ast.types.map(typeLiteralOf).find((t) => t !== undefined) : undefined

/**
 * One row per setting: every field of a section (`service.*`, `budget.*`, ..., unset optional ones
 * too), one per entry of a map (`pipelines.<name>`, `sets.<name>`), the rest whole.
 */
const settingRows = (eff: EffectiveSettings): Array<Row> => {
  const rows: Array<Row> = []
  const root = typeLiteralOf(Schema.typeSchema(Settings).ast)!
  const values = eff.settings as Record<string, unknown>
  const secrets = environmentSecrets(credentialEnvOf(eff.settings))
  const row = (path: ReadonlyArray<string>, value: unknown) => {
    const source = eff.sourceOf(path)
    const implied = value === undefined && source.kind === "default" ? IMPLIED_DEFAULTS[path.join(".")]?.(eff) : undefined
    const unset = value === undefined && implied === undefined && source.kind === "default"
    rows.push({
      setting: redactText(path.join("."), secrets),
      value: shown(path[path.length - 1]!, implied ? implied.value : value, secrets),
      // no value and no default: source none, not "default"
      source: unset ? undefined : source,
      ...(implied?.note !== undefined ? { note: redactText(implied.note, secrets) } : {})
    })
  }
  for (const prop of root.propertySignatures) {
    const name = String(prop.name)
    if (name === "$schema") continue
    const value = values[name]
    const section = typeLiteralOf(prop.type)
    if (section && section.indexSignatures.length === 0 && typeof value === "object" && value !== null) {
      for (const field of section.propertySignatures)
        row([name, String(field.name)], (value as Record<string, unknown>)[String(field.name)])
    } else if (
      section &&
      section.indexSignatures.length > 0 &&
      typeof value === "object" &&
      value !== null &&
      Object.keys(value).length > 0
    ) {
      for (const [key, v] of Object.entries(value)) row([name, key], v)
    } else row([name], value)
  }
  return rows
}

const credentialRows = (eff: EffectiveSettings): Array<Row> => {
  const s = eff.settings.service
  return (
    [
      ["apiKey", s.apiKeyEnv],
      ["email", s.emailEnv],
      ["password", s.passwordEnv]
    ] as const
  ).map(([name, variable]) => {
    const found = envValue(variable)
    return { setting: `credentials.${name}`, value: found ? REDACTED : undefined, source: found?.source, variable }
  })
}

const textOf = (v: unknown) => (v === undefined ? "not set" : typeof v === "string" ? v : JSON.stringify(v))

const valueText = (r: Row) => textOf(r.value) + (r.note !== undefined ? ` (${r.note})` : "")

const sourceText = (r: Row) => (r.source ? describeSource(r.source) : r.variable !== undefined ? `none (${r.variable})` : "none")

const sourceJson = (r: Row) => {
  if (!r.source) return r.variable !== undefined ? { source: "none", name: r.variable } : { source: "none" }
  const { kind, ...rest } = r.source
  return { source: kind, ...rest }
}

const show = Command.make(
  "show",
  {
    config: Options.file("config").pipe(
      Options.withAlias("c"),
      Options.optional,
      Options.withDescription(
        "Settings file (JSON). Default: ESTATE_ETL_CONFIG, else estate-etl.json, else config/sandbox.json, when present"
      )
    ),
    warehouse: Options.text("warehouse").pipe(
      Options.optional,
      Options.withDescription("DuckDB warehouse file, as the other commands take it")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))
  },
  (o) =>
    Effect.gen(function* () {
      const eff = yield* loadEffectiveSettings({ config: Option.getOrUndefined(o.config), warehouse: Option.getOrUndefined(o.warehouse) })
      // the names the settings use are checked against the catalogue, the user's modules included
      yield* withCatalogue(eff.settings, eff.file?.path)
      const settings = settingRows(eff)
      const credentials = credentialRows(eff)
      const dotEnv = lastDotEnvLoad()
      const sandboxNote =
        eff.settings.service.target === "sandbox" ? "target sandbox: the embedded sandbox's own credentials are used, not these" : undefined
      if (o.json) {
        const entries = (rows: ReadonlyArray<Row>, strip = "") =>
          Object.fromEntries(
            rows.map((r) => [
              r.setting.slice(strip.length),
              { value: r.value ?? null, ...sourceJson(r), ...(r.note !== undefined ? { note: r.note } : {}) }
            ])
          )
        const out = {
          settingsFile: eff.file
            ? { path: eff.file.path, ...sourceJson({ setting: "", value: undefined, source: eff.file.source }) }
            : null,
          overlay: eff.overlay ? { path: eff.overlay.path, name: eff.overlay.name, via: describeSource(eff.overlay.via) } : null,
          dotEnv: dotEnv ?? null,
          settings: entries(settings),
          credentials: entries(credentials, "credentials."),
          ...(sandboxNote ? { note: sandboxNote } : {})
        }
        process.stdout.write(JSON.stringify(out, null, 2) + "\n")
        return
      }
      const lines = [
        `settings file: ${eff.file ? `${eff.file.path} (${describeSource(eff.file.source)})` : "none (defaults and the environment)"}`,
        ...(eff.overlay
          ? [`overlay: ${describeSource(overlaySource(eff.overlay)).replace(/^overlay /, "")}, laid over the settings file`]
          : []),
        dotEnv === undefined
          ? ".env: not read"
          : dotEnv.found
            ? `.env: ${dotEnv.file} (set ${dotEnv.applied.join(", ") || "nothing"}` +
              (dotEnv.shadowed.length > 0 ? `; the environment's own: ${dotEnv.shadowed.join(", ")})` : ")")
            : `.env: none at ${dotEnv.file}`,
        "",
        // the value last: a pipeline's parameters are long
        table([...settings, ...credentials].map((r) => ({ setting: r.setting, source: sourceText(r), value: valueText(r) }))),
        ...(sandboxNote ? ["", sandboxNote] : [])
      ]
      process.stdout.write(lines.join("\n") + "\n")
    })
).pipe(
  Command.withDescription(
    "Print the effective settings, each with its source (flag, env, .env, settings file, the --env overlay, default; none: not set and no default); secrets redacted. Examples: estate-etl config show; estate-etl config show --json"
  )
)

export const configCommand = Command.make("config").pipe(
  Command.withDescription("Inspect the settings. Example: estate-etl config show"),
  Command.withSubcommands([show])
)
