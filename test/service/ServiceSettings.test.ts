import { describe, expect, it } from "vitest"
import { Either, Option, Redacted } from "effect"
import { decodeSettings } from "../../src/config/loadSettings.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { DEFAULTS, ServiceSettings } from "../../src/service/ServiceSettings.js"

describe("ServiceSettings", () => {
  it("is built from values with documented defaults; secrets stay redacted", () => {
    const s = ServiceSettings.make({
      platformUrl: "http://p.test/",
      apiUrl: "http://a.test",
      apiKey: "sk_secret_1",
      password: "pw_secret",
      email: "me@x.test",
      maxUnits: 10,
      costs: { plot_search: 2, new_op: 5 }
    })
    expect(s.platformUrl).toBe("http://p.test")
    expect(s.timeoutMs).toBe(30_000)
    expect(s.maxRetries).toBe(5)
    expect(s.retryRatio).toBe(0.1)
    expect(s.maxUnits).toEqual(Option.some(10))
    expect(s.costs).toEqual({ ...DEFAULT_UNIT_COSTS, plot_search: 2, new_op: 5 })
    expect(s.costs.ai_search_premises).toBe(40)
    expect(Redacted.isRedacted(Option.getOrThrow(s.apiKey))).toBe(true)
    const printed = JSON.stringify(s) + String(Option.getOrThrow(s.password))
    expect(printed).not.toContain("sk_secret_1")
    expect(printed).not.toContain("pw_secret")
  })

  it("the settings file's defaults for the clients are the clients' own (config sits below service, so each states them)", () => {
    const settings = Either.getOrThrow(decodeSettings({}, "test"))
    const fields = ["timeoutMs", "maxRetries", "retryBaseMs", "retryMaxMs", "platformRate", "apiRate", "pacingHeadroom"] as const
    expect(Object.fromEntries(fields.map((f) => [f, settings.service[f]]))).toEqual(Object.fromEntries(fields.map((f) => [f, DEFAULTS[f]])))
    expect({ retryRatio: settings.budget.retryRatio, retryFloor: settings.budget.retryFloor }).toEqual({
      retryRatio: DEFAULTS.retryRatio,
      retryFloor: DEFAULTS.retryFloor
    })
  })
})
