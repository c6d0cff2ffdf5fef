/** Builds both clients over undici for a test (as the CLI wires them), with settings tuned for fast tests. */
import { Effect, Layer, Option } from "effect"
import { CostGuard } from "../../src/service/CostGuard.js"
import { ServiceLayer } from "../../src/service/ServiceLayer.js"
import { ServiceSettings, type ServiceSettingsInput } from "../../src/service/ServiceSettings.js"

export const API_KEY = "sk_test_7f3c9a1e5b2d4f60a8c1"
export const EMAIL = "analyst@example.test"
export const PASSWORD = "hunter2-correct-horse"

/** Fast defaults: tiny backoffs, generous pacing, short timeouts. */
export const fastSettings = (platformUrl: string, apiUrl: string, over: Partial<ServiceSettingsInput> = {}): ServiceSettingsInput => ({
  platformUrl,
  apiUrl,
  apiKey: API_KEY,
  email: EMAIL,
  password: PASSWORD,
  timeoutMs: 5000,
  maxRetries: 3,
  retryBaseMs: 5,
  retryMaxMs: 50,
  retryMinMs: 2,
  platformRate: 10_000,
  apiRate: 10_000,
  ...over
})

/** The run's cost guard with the caps and costs of the settings. */
const guardOf = (run: { runId?: string; spentToday?: number }) =>
  Layer.unwrapEffect(
    Effect.map(ServiceSettings, (s) =>
      CostGuard.layer({
        runId: run.runId ?? "run_test",
        maxUnits: Option.getOrUndefined(s.maxUnits),
        dailyUnits: Option.getOrUndefined(s.dailyUnits),
        costs: s.costs,
        ...(run.spentToday !== undefined ? { spentToday: run.spentToday } : {})
      })
    )
  )

export const clientsLayer = (settings: ServiceSettingsInput, run: { runId?: string; spentToday?: number } = {}) =>
  ServiceLayer.clients(guardOf(run)).pipe(Layer.provideMerge(ServiceSettings.layer(settings)))

export const withClients =
  (settings: ServiceSettingsInput, run?: { runId?: string; spentToday?: number }) =>
  <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.provide(self, clientsLayer(settings, run))
