/**
 * A floor in a fresh process, so it starts as cold as the toolkit's run does (its process start,
 * its JIT): each page of the pipeline fetched and `JSON.parse`d, nothing else (no decode, no rows,
 * no DuckDB). `node dist-bench/bench/FloorRun.js '<json>'` prints `{"records","pages","elapsedMs"}`,
 * `elapsedMs` by its own timer (the fetches alone, as a run's timer leaves out its start).
 *
 * - `kind` "sourcing" (the default): every sourcing page of `places`; `Rounds.ts` times the
 *   process from outside (process start counted, as the toolkit's CLI).
 * - "plots": every plot search page of `criteria` (`Throughput.ts`, against the run's timer).
 * - "series": one time-series request per body after one login (`Throughput.ts`, the same).
 *
 * Until stop 54 the plots and series floors ran in the bench's own process, whose code the
 * earlier rounds had warmed, while each run started cold.
 */
import { SANDBOX_USER } from "../src/sandbox/Credentials.js"
import { type FloorResult, type Place, plotPages, sourcingPages, timeSeriesCalls } from "./Floor.js"

export type FloorInput =
  | {
      readonly kind?: "sourcing"
      readonly platformUrl: string
      readonly places: ReadonlyArray<Place>
      readonly operation: string
      readonly pageSize: number
      readonly concurrency: number
    }
  | {
      readonly kind: "plots"
      readonly platformUrl: string
      readonly criteria: Record<string, unknown>
      readonly pageSize: number
      readonly maxPages: number
    }
  | {
      readonly kind: "series"
      readonly apiUrl: string
      readonly bodies: ReadonlyArray<Record<string, unknown>>
      readonly concurrency: number
    }

const floorOf = (input: FloorInput): Promise<FloorResult> => {
  switch (input.kind) {
    case "plots":
      return plotPages(input.platformUrl, input.criteria, input, () => {})
    case "series":
      return timeSeriesCalls(input.apiUrl, SANDBOX_USER, input.bodies, input.concurrency)
    default:
      return sourcingPages(input.platformUrl, input.places, input, () => {})
  }
}

const r = await floorOf(JSON.parse(process.argv[2] ?? "{}") as FloorInput)
process.stdout.write(`${JSON.stringify({ records: r.records, pages: r.pages, elapsedMs: r.elapsedMs })}\n`)
