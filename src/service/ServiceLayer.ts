/**
 * The service layer of one run: both host clients over undici, sharing the run's retry budget
 * and cost guard. Needs `ServiceSettings` (from `ServiceSettings.layerConfig` or `.layer(...)`).
 *
 *   ServiceLayer.run({ runId, spentToday }).pipe(Layer.provide(ServiceSettings.layer(settings)))
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import { CostGuard } from "./CostGuard.js"
import { PlatformClient } from "./PlatformClient.js"
import { RetryBudget } from "./RetryBudget.js"
import { TokenClient } from "./TokenClient.js"

export interface RunServiceOptions {
  /** Id of the run, stamped on every ledger charge. */
  readonly runId: string
  /** Units charged today by earlier runs (from the warehouse ledger), for the daily cap. */
  readonly spentToday?: number
}

export const ServiceLayer = {
  /** Both clients over undici, sharing one retry budget and the given cost guard. */
  clients: <E, R>(guard: Layer.Layer<CostGuard, E, R>) =>
    Layer.mergeAll(PlatformClient.Default, TokenClient.Default).pipe(
      Layer.provideMerge(Layer.mergeAll(guard, RetryBudget.Default)),
      Layer.provide(NodeHttpClient.layerUndici)
    ),
  /** PlatformClient, TokenClient, CostGuard and RetryBudget for one run, caps from the settings. */
  run: (options: RunServiceOptions) => ServiceLayer.clients(CostGuard.layerFromSettings(options))
}
