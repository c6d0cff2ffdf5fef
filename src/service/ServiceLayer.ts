/**
 * The service layer of one run: both host clients over undici, sharing the run's retry budget
 * and the given cost guard. Needs `ServiceSettings` (built in `wiring/Environment.ts`).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import type { CostGuard } from "./CostGuard.js"
import { PlatformClient } from "./PlatformClient.js"
import { RetryBudget } from "./RetryBudget.js"
import { TokenClient } from "./TokenClient.js"

export const ServiceLayer = {
  /** Both clients over undici, sharing one retry budget and the given cost guard. */
  clients: <E, R>(guard: Layer.Layer<CostGuard, E, R>) =>
    Layer.mergeAll(PlatformClient.Default, TokenClient.Default).pipe(
      Layer.provideMerge(Layer.mergeAll(guard, RetryBudget.Default)),
      Layer.provide(NodeHttpClient.layerUndici)
    )
}
