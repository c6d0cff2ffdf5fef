/**
 * The DuckDB warehouse, opened: one file, three faces for the callers that need them.
 *
 * - `Landing` (`Landing.ts`): what a run writes: tables declared, pages landed in one transaction
 *   per group, runs started and finished, a full refresh's forgetting;
 * - `RunLog` (`RunLog.ts`): what the warehouse remembers of runs, read back (runs, slices,
 *   checkpoints, the ledger's sums, the last full pull, reusable paid answers);
 * - `TableReads` (`TableReads.ts`): the tables read (any SQL, counts, fan-out keys, the specs, the
 *   connection for exports and merges).
 *
 * `Warehouse` is all three over one file (the runner's need); the read-only commands ask for the
 * face they use. `warehouseLayer(options)` provides the four from one open file.
 *
 * One writer: the file is locked for the service's lifetime (see `Database.ts`); a second
 * process gets `WarehouseError` reason `Locked` after `lockTimeout`. Groups of one warehouse are
 * committed one at a time, in the order they are handed over.
 *
 * `readOnly` (see `OpenOptions`): an existing warehouse opened to read (`status`, `query`,
 * `export`, `plan`): its format is checked but it is neither initialised nor migrated, it keeps no
 * raw archive and no page journal, and a write fails.
 */
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { checkFormat, initialise, stampCreation } from "./Bookkeeping.js"
import { type Database, MEMORY, type OpenOptions, openDatabase } from "./Database.js"
import { type LandingApi, makeWarehouseLanding } from "./Landing.js"
import { makeLandingSettings } from "./LandingSettings.js"
import { makePageJournal } from "./PageJournal.js"
import { makeRawArchive } from "./RawArchive.js"
import { makeRunLog, type RunLogApi } from "./RunLog.js"
import { makeTableReads, type TableReadsApi } from "./TableReads.js"
import { loadTableRegistry } from "./TableRegistry.js"
import { WarehouseError } from "./WarehouseError.js"
import { createWarehouseFile, isCutShort, removeDeadTemps } from "./WarehouseFile.js"

export {
  LANDING_CHECKPOINT_THRESHOLD,
  LANDING_MEMORY_CEILING_MB,
  LANDING_MEMORY_LIMIT,
  LANDING_MEMORY_LIMIT_MB
} from "./LandingSettings.js"
export { WAREHOUSE_BLOCK_SIZE, WAREHOUSE_THREADS } from "./Database.js"
export { jsValue } from "./TableReads.js"
export type { PageSummary } from "./GroupLanding.js"

export interface WarehouseOptions extends OpenOptions {
  /** The DuckDB file, or `":memory:"`. Default `data/warehouse.duckdb`. */
  readonly path?: string
  /**
   * Root of the raw archive. Default: `raw/` beside the warehouse file (`data/raw`); none for
   * `":memory:"`. `false` disables archiving (pages with `raw` then keep no body).
   */
  readonly rawDir?: string | false
  /**
   * Keep a page journal (`<path>.journal/`) so paid pages are durable before they are committed
   * (see `PageJournal.ts`). Default on for files; none for `":memory:"`.
   */
  readonly journal?: boolean
}

export const DEFAULT_WAREHOUSE_PATH = "data/warehouse.duckdb"

/**
 * Opens the warehouse file; one that does not exist yet is created whole first, and one a
 * creation left cut short is created again (to write) or named (to read): see `WarehouseFile.ts`.
 */
const openWarehouseFile = (path: string, options: OpenOptions) => {
  if (path === MEMORY) return openDatabase(path, options)
  const file = nodePath.resolve(path)
  const create = (replace: boolean) => Effect.zipRight(createWarehouseFile(file, replace, options.blockSize), openDatabase(path, options))
  if (!options.readOnly && !fs.existsSync(file)) return create(false)
  const opened = openDatabase(path, options).pipe(
    Effect.catchIf(
      (e) => (e.reason === "Corrupt" || e.reason === "Io") && fs.existsSync(file) && isCutShort(file),
      (e) =>
        options.readOnly
          ? Effect.fail(
              new WarehouseError({
                reason: "Foreign",
                path: file,
                cause: e,
                detail: `${file} is a database file whose creation was cut short (no data in it), not a warehouse yet; run a pipeline against it first`
              })
            )
          : create(true)
    )
  )
  return options.readOnly ? opened : Effect.tap(opened, () => Effect.sync(() => removeDeadTemps(file)))
}

export const makeWarehouse = (options: WarehouseOptions = {}) =>
  Effect.gen(function* () {
    const path = options.path ?? DEFAULT_WAREHOUSE_PATH
    const db: Database = yield* openWarehouseFile(path, options)
    if (options.readOnly && path !== MEMORY) {
      // read-only: checked, never initialised or migrated (an older format reads as it is)
      yield* db.use("Cannot read the warehouse", async (conn) => {
        const { names } = await checkFormat(conn, db.path)
        if (!names.has("_meta")) {
          throw new WarehouseError({
            reason: "Foreign",
            path: db.path,
            detail: `${db.path} is an empty DuckDB database, not a warehouse yet; run a pipeline against it first`
          })
        }
      })
    } else {
      yield* db.use("Cannot initialise the warehouse", async (conn) => {
        await initialise(conn, db.path)
        await stampCreation(conn)
      })
    }
    const rawRoot =
      options.rawDir === false || options.readOnly
        ? undefined
        : (options.rawDir ?? (path === MEMORY ? undefined : nodePath.join(nodePath.dirname(db.path), "raw")))
    const archive = rawRoot === undefined ? undefined : makeRawArchive(rawRoot)

    const journal = options.journal === false || options.readOnly || path === MEMORY ? undefined : makePageJournal(`${db.path}.journal`)

    const registry = yield* loadTableRegistry(db)
    const settings = makeLandingSettings(db, options)
    const landing = yield* makeWarehouseLanding(db, registry, settings, { archive, journal, rawRoot })
    return { ...landing, ...makeRunLog(db, settings.withMemoryToLand), ...makeTableReads(db, registry) } as const
  })

/** What an open warehouse offers (the `Warehouse` service's shape): its three faces over one file. */
export type WarehouseApi = LandingApi & RunLogApi & TableReadsApi

/** The warehouse service: `Warehouse.Default(options)` opens it for the layer's scope. */
export class Warehouse extends Effect.Service<Warehouse>()("load/Warehouse", {
  scoped: (options: WarehouseOptions = {}) => makeWarehouse(options)
}) {}

/** What a run writes (`Landing.ts`), of the warehouse open in this scope. */
export class Landing extends Context.Tag("load/Landing")<Landing, LandingApi>() {}
/** What the warehouse remembers of runs (`RunLog.ts`). */
export class RunLog extends Context.Tag("load/RunLog")<RunLog, RunLogApi>() {}
/** The warehouse's tables read (`TableReads.ts`). */
export class TableReads extends Context.Tag("load/TableReads")<TableReads, TableReadsApi>() {}

/** The faces of the `Warehouse` in context, each as its own service. */
export const WarehouseFaces: Layer.Layer<Landing | RunLog | TableReads, never, Warehouse> = Layer.effectContext(
  Effect.map(Warehouse, (w) => Context.make(Landing, w).pipe(Context.add(RunLog, w), Context.add(TableReads, w)))
)

/** One open warehouse as `Warehouse` and as each of its faces. */
export const warehouseLayer = (options: WarehouseOptions = {}) => Layer.provideMerge(WarehouseFaces, Warehouse.Default(options))
