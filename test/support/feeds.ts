/**
 * The alert feeds the ground-truth cases read (`TruthContext.feeds`), made through the toolkit's own
 * token client in one environment: each `Harness.use` opens the harness's warehouse and closes it
 * again, a DuckDB instance and its allocator purge per call, and the dialect matrix made six feeds
 * in each of its nineteen runs.
 */
import { Effect } from "effect"
import { TokenClient } from "../../src/service/TokenClient.js"
import type { TruthContext } from "./groundTruth.js"
import type { Harness } from "./pipelines.js"

export interface FeedsToMake {
  /** Names of the alerts-api feeds (one legacy feed, `everything`, is always made). */
  readonly alertsApi: ReadonlyArray<string>
  /** The alerts-api feeds' filter. */
  readonly alertsApiFilter: Record<string, unknown>
}

export const makeFeeds = (h: Harness, feeds: FeedsToMake): Promise<TruthContext["feeds"]> =>
  h.use(
    Effect.gen(function* () {
      const client = yield* TokenClient
      const legacy = [((yield* client.legacyFeedCreate({ name: "everything", filter: {} })).body as { id: number }).id]
      const alertsApi: Array<string> = []
      for (const name of feeds.alertsApi)
        alertsApi.push(((yield* client.alertsApiFeedCreate({ name, filter: feeds.alertsApiFilter })).body as { feed_id: string }).feed_id)
      return { legacy, alertsApi }
    })
  )
