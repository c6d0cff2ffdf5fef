import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { DEFAULT_UNIT_COSTS, ServiceSettings } from "../../src/service/ServiceSettings.js"

const env = (map: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(map))))

describe("ServiceSettings", () => {
  it.effect("reads the environment with documented defaults; secrets stay redacted", () =>
    Effect.gen(function* () {
      const s = yield* ServiceSettings.config.pipe(
        env({ SVC_PLATFORM_URL: "http://p.test/", SVC_API_URL: "http://a.test", SVC_API_KEY: "sk_secret_1", SVC_PASSWORD: "pw_secret", SVC_EMAIL: "me@x.test", SVC_UNIT_COSTS: "plot_search=2, new_op=5", SVC_MAX_UNITS: "400" })
      )
      expect(s.platformUrl).toBe("http://p.test")
      expect(s.requestTimeoutMs).toBe(30_000)
      expect(s.retryBudgetRatio).toBe(0.1)
      expect(s.retryBudgetFloor).toBe(10)
      expect(s.maxUnits).toEqual(Option.some(400))
      expect(s.unitCosts).toEqual({ ...DEFAULT_UNIT_COSTS, plot_search: 2, new_op: 5 })
      expect(Redacted.value(Option.getOrThrow(s.apiKey))).toBe("sk_secret_1")
      const printed = JSON.stringify(s) + String(Option.getOrThrow(s.password))
      expect(printed).not.toContain("sk_secret_1")
      expect(printed).not.toContain("pw_secret")
    }))

  it.effect("refuses bad values before anything runs", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(ServiceSettings.config.pipe(env({ SVC_PLATFORM_URL: "x", SVC_API_URL: "y", SVC_UNIT_COSTS: "plot_search=abc" })))
      expect(String(e)).toContain("SVC_UNIT_COSTS")
      yield* Effect.flip(ServiceSettings.config.pipe(env({ SVC_PLATFORM_URL: "x", SVC_API_URL: "y", SVC_PACING_HEADROOM: "1.5" })))
    }))

  it("is constructible directly, with the same defaults", () => {
    const s = ServiceSettings.make({ platformUrl: "http://p.test/", apiUrl: "http://a.test", apiKey: "k", maxUnits: 10 })
    expect(s.platformUrl).toBe("http://p.test")
    expect(s.maxRetries).toBe(5)
    expect(s.maxUnits).toEqual(Option.some(10))
    expect(s.unitCosts.ai_search_premises).toBe(40)
    expect(Redacted.isRedacted(Option.getOrThrow(s.apiKey))).toBe(true)
  })
})
