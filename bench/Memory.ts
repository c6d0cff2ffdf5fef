/**
 * Where the memory runs of the bench keep their warehouses.
 *
 * The lean profile (V8's old space capped at 96 MB, 4 MB semi-spaces, DuckDB at 64MB, two malloc
 * arenas) was a line of its own until the defaults met the memory target of issue 18. It was
 * retired in stop 24: the defaults measured 296 MB at 207,071 properties and the lean profile
 * 323 MB in the same run (DuckDB's 64MB, set for the whole instance, spilled more and V8 collected
 * more often); docs/BENCHMARKS.md keeps its history.
 */
import * as path from "node:path"

export const warehouseIn = (dir: string, name: string) => path.join(dir, `${name}.duckdb`)
