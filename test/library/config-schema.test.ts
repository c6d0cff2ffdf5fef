/**
 * `config/schema.json` is generated from the settings' Effect Schema (and the catalogue's
 * parameter schemas) by `scripts/gen-config-schema.ts`; it must match what the script writes now,
 * and every config file must point editors at it.
 */
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"
import { configSchema, configSchemaText, SCHEMA_PATH } from "../../scripts/gen-config-schema.js"
import { Settings } from "../../src/config/Settings.js"

describe("config/schema.json", () => {
  it("is up to date (regenerate with: npx tsx scripts/gen-config-schema.ts)", () => {
    expect(fs.existsSync(SCHEMA_PATH)).toBe(true)
    expect(fs.readFileSync(SCHEMA_PATH, "utf8")).toBe(configSchemaText())
  })

  it("describes every settings field with its default, and every catalogue pipeline's params", () => {
    const schema = configSchema()
    const settings = schema.$defs.Settings
    const defaults = Schema.decodeSync(Settings)({})
    expect(Object.keys(settings.properties).sort()).toEqual(Object.keys(Settings.fields).sort())
    expect(settings.additionalProperties).toBe(false)
    expect(settings.properties.budget.properties.maxUnits.default).toBe(defaults.budget.maxUnits)
    expect(settings.properties.budget.properties.maxUnits.description).toMatch(/Default 5000/)
    expect(settings.properties.service.properties.target.enum).toEqual(["sandbox", "remote"])
    expect(Object.keys(settings.properties.pipelines.properties).sort()).toEqual(catalogue.map((p) => p.name).sort())
    for (const p of catalogue) expect(settings.properties.pipelines.properties[p.name].properties.params.type).toBe("object")
  })

  it("is referenced by every config file", () => {
    const dir = path.dirname(SCHEMA_PATH)
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "schema.json")
    for (const f of files) expect(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).$schema, f).toBe("./schema.json")
  })
})
