/**
 * What `estate-etl init` writes into a repository, by path relative to it: settings for the
 * embedded sandbox (`estate-etl.json`, the first file the default lookup finds, so every command
 * works there without `--config`), an example of settings for the real service, a Makefile
 * fragment, an example pipeline with its test, and the credential variables' names.
 */
import { Schema } from "effect"
import { INIT_CONFIG } from "../config/loadSettings.js"
import { ServiceSection } from "../config/Settings.js"
import { EXAMPLE_PIPELINE, examplePipelineModule, examplePipelineTest } from "./ExamplePipeline.js"

export interface ScaffoldFile {
  /** Relative to the repository (the working directory). */
  readonly path: string
  /** What it is for, shown beside the path. */
  readonly about: string
  readonly text: string
}

/**
 * The sets `init` writes: `nightly` buys what changed (plots newest first, stopping at plots
 * landed before: one page a night without new ones; the example reads unmetered alerts), `weekly`
 * is the full pull (`make weekly` runs it with --full-refresh) and what changes slowly.
 */
const nightly = ["plots-germany", EXAMPLE_PIPELINE]
const weekly = ["references", "plots-germany", EXAMPLE_PIPELINE, "market-analysis"]

const pipelineParams = {
  references: { params: { location_countries: ["ES", "DE"] } },
  "plots-germany": { params: { criteria: { regions: ["Bayern"], sort: "newest" }, pageSize: 50 } },
  "market-analysis": { params: { location_ids: [18], types: ["apartment"], business_type: "sale" } },
  [EXAMPLE_PIPELINE]: { params: { location_ids: [18] } }
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n"

const sandboxSettings = () =>
  json({
    $schema: "./node_modules/estate-etl/config/schema.json",
    service: { target: "sandbox" },
    warehouse: "data/warehouse.duckdb",
    output: "data",
    budget: { maxUnits: 100, dailyMaxUnits: 500 },
    sandbox: { seed: 42, properties: 20000 },
    sets: { nightly, weekly },
    pipelines: pipelineParams
  })

const remoteSettings = () => {
  const env = Schema.decodeSync(ServiceSection)({})
  return json({
    $schema: "../node_modules/estate-etl/config/schema.json",
    service: {
      target: "remote",
      platformUrl: "https://platform.example.com",
      apiUrl: "https://api.example.com",
      apiKeyEnv: env.apiKeyEnv,
      emailEnv: env.emailEnv,
      passwordEnv: env.passwordEnv,
      timeoutMs: 30000
    },
    // this file is in config/: the modules are one folder up
    pipelineModules: ["../pipelines/*.mjs"],
    warehouse: "data/warehouse.duckdb",
    output: "data",
    budget: { maxUnits: 500, dailyMaxUnits: 2000, retryRatio: 0.1, retryFloor: 10, maxRejectRatio: 0.02 },
    sets: { nightly, weekly },
    pipelines: pipelineParams
  })
}

const makefile = () =>
  [
    "# estate-etl targets, written by `npx estate-etl init`. In your Makefile:",
    "#   include estate-etl.mk",
    `# CONFIG picks the settings (default ${INIT_CONFIG}: the embedded sandbox), e.g.`,
    "#   make nightly CONFIG=config/remote.json   (credentials in .env or the environment, see .env.example)",
    "ESTATE_ETL ?= npx --no estate-etl",
    `CONFIG ?= ${INIT_CONFIG}`,
    "",
    ".PHONY: nightly weekly plan status test-pipelines",
    "",
    "## Monday to Saturday: the nightly set (what changed), then Parquet under the settings' output folder.",
    "nightly:",
    "\t$(ESTATE_ETL) run nightly --config $(CONFIG) --export parquet",
    "## Sunday: the full pull (--full-refresh forgets the incremental positions). A full pull every",
    "## night: schedule `make weekly` every night instead of `make nightly`.",
    "weekly:",
    "\t$(ESTATE_ETL) run weekly --config $(CONFIG) --full-refresh --export parquet",
    "## Requests, pages, units and EUR of a night and of the week's full pull; nothing paid is called.",
    "plan:",
    "\t$(ESTATE_ETL) plan nightly --config $(CONFIG)",
    "\t$(ESTATE_ETL) plan weekly --config $(CONFIG) --full-refresh",
    "status:",
    "\t$(ESTATE_ETL) status --config $(CONFIG)",
    "## One pipeline: make extract-plots-germany, make extract-price-drops (`estate-etl list` names them).",
    "extract-%:",
    "\t$(ESTATE_ETL) run $* --config $(CONFIG)",
    "## The tests of pipelines/ (node:test against the embedded sandbox).",
    "test-pipelines:",
    "\tnode --test $(wildcard pipelines/*.test.mjs)",
    ""
  ].join("\n")

const envExample = () => {
  const env = Schema.decodeSync(ServiceSection)({})
  return [
    '# Credentials of the real service, for settings with "service": {"target": "remote"} (config/remote.example.json).',
    "# Never in a settings file. Copy this file to .env and fill it in: the command line reads .env itself",
    "# (from its working directory), no export needed. A variable the environment sets (non-empty) wins",
    "# over .env, so a scheduler's own environment needs no .env. The library API does not read .env.",
    "# .gitignore keeps .env out of git. `npx estate-etl config show` shows where each value came from.",
    `# Platform host API key (service.apiKeyEnv)`,
    `${env.apiKeyEnv}=`,
    `# Token host sign-in (service.emailEnv, service.passwordEnv)`,
    `${env.emailEnv}=`,
    `${env.passwordEnv}=`,
    "# Optional: base URLs of the two hosts, over service.platformUrl / service.apiUrl",
    "# SVC_PLATFORM_URL=",
    "# SVC_API_URL=",
    ""
  ].join("\n")
}

/** Every file `init` writes, in the order it lists them. */
export const initFiles = (): ReadonlyArray<ScaffoldFile> => [
  {
    path: INIT_CONFIG,
    about: "settings: the embedded sandbox, sets nightly (what changed) and weekly (the full pull), budget caps",
    text: sandboxSettings()
  },
  {
    path: "config/remote.example.json",
    about: "settings for the real service (copy to config/remote.json; credentials from .env or the environment)",
    text: remoteSettings()
  },
  { path: "estate-etl.mk", about: "make targets: nightly, weekly, plan, status, extract-<pipeline>, test-pipelines", text: makefile() },
  { path: `pipelines/${EXAMPLE_PIPELINE}.mjs`, about: "an example pipeline (JavaScript, JSDoc types)", text: examplePipelineModule },
  { path: `pipelines/${EXAMPLE_PIPELINE}.test.mjs`, about: "its test: node --test pipelines/*.test.mjs", text: examplePipelineTest },
  { path: ".env.example", about: "the credentials' variables (copy to .env: the CLI reads it itself)", text: envExample() }
]
