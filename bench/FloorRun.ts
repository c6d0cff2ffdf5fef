/**
 * The floor in a fresh process, so its process start counts as the toolkit's does: every
 * sourcing page of the places fetched and `JSON.parse`d, nothing else (no decode, no rows, no
 * DuckDB). `node dist-bench/bench/FloorRun.js '<json>'` prints `{"records","pages"}`.
 */
import { type Place, sourcingPages } from "./Floor.js"

const input = JSON.parse(process.argv[2] ?? "{}") as {
  platformUrl: string
  places: ReadonlyArray<Place>
  operation: string
  pageSize: number
  concurrency: number
}
const r = await sourcingPages(input.platformUrl, input.places, input, () => {})
process.stdout.write(`${JSON.stringify({ records: r.records, pages: r.pages })}\n`)
