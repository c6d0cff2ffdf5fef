/**
 * DuckDB's settings while a run lands pages (each unless the options set it: then that value holds
 * throughout, the checkpoint threshold being the toolkit's to apply while landing); exports and
 * queries between runs get DuckDB's own defaults back. (DuckDB's threads are not among them: a
 * warehouse opened to write has one throughout, `WAREHOUSE_THREADS` in `Database.ts`.)
 *
 * - memory_limit (`LANDING_MEMORY_LIMIT`, 80MB; see below). The history of the value: landing
 *   keeps nothing in DuckDB's cache it needs again, but DuckDB keeps the blocks of every table it
 *   wrote until the limit (its default is 80% of RAM), so a run's memory grew with the table
 *   (measured: 507 MB peak at 967,537 properties against 369 MB at 233,400; 429 against 384 at
 *   128MB). 96MB: about 10 MB less peak RSS than 128MB, CPU within
 *   the noise, a few MB of a group's temporary tables written to `<warehouse>.tmp`. At 64MB that
 *   spill was 18 MB and cost ~10% more CPU; at 32MB a checkpoint failed ("failed to pin block").
 *   Then 80MB, together with the checkpoint threshold below: 10-11 MB less peak RSS than 96MB with
 *   16MB checkpoints (stop 24, docs/BENCHMARKS.md), up to ~38 MB written to `<warehouse>.tmp`.
 * - checkpoints every 64MB of WAL (`LANDING_CHECKPOINT_THRESHOLD`; DuckDB's default 16MB): every
 *   checkpoint compresses again the table's last, still growing row group, so checkpoints every
 *   16MB of WAL cost the 207,071-property run about 1.0 s of CPU in its commits; at 64MB 0.35 s
 *   (measured on the thread running DuckDB), and the run's CPU 7-9% less. The rest is
 *   checkpointed when the warehouse closes, as before (not after a failed commit: `Database.use`).
 * - the checkpoints are the toolkit's, not DuckDB's: DuckDB's automatic one (checkpoint_threshold
 *   set out of reach while landing) runs inside a group's `COMMIT` at the landing limit, and a
 *   checkpoint that cannot pin a block is fatal in DuckDB ("Failed to create checkpoint", the
 *   database invalidated, the run exit 1: a 30-day alerts backlog at a 48MB limit under load 12).
 *   `checkpointIfDue` runs it after a group, with the limit raised for it (below).
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import * as fs from "node:fs"
import { Effect } from "effect"
import type { TableSpec } from "../normalize/Table.js"
import { type Database, literal, MEMORY, type OpenOptions, rowsOf } from "./Database.js"
import { isFatal, isOutOfMemory, type WarehouseError } from "./WarehouseError.js"

/**
 * 80MB. It was 256MB for a while: a 30-day alerts backlog (50,010 alerts, ~100,000 rows landed in
 * one run, 1000-row pages) under load died at 80MB with the database invalidated (exit 1). The
 * cause was DuckDB's automatic checkpoint inside a group's commit, short of memory (fatal); the
 * toolkit's own checkpoint now gets a raised limit, and the backlog landed 8 of 8 times at 48MB
 * under load 12 (docs/BENCHMARKS.md). Peak RSS of the 207,071-property run: 287-290 MB at 80MB,
 * 339-342 at 256MB, CPU within the noise. A group that does not fit is landed again with the
 * limit doubled (`withMemoryToLand`).
 */
export const LANDING_MEMORY_LIMIT_MB = 80
export const LANDING_MEMORY_LIMIT = `${LANDING_MEMORY_LIMIT_MB}MB`
/**
 * How far a group commit that runs out of memory at the landing limit may raise it (doubling).
 * Measured: a 24-day alerts backlog (80,039 alerts, 7 pages in a group) did not fit 80MB.
 */
export const LANDING_MEMORY_CEILING_MB = 1280
export const LANDING_CHECKPOINT_THRESHOLD_MB = 64
export const LANDING_CHECKPOINT_THRESHOLD = `${LANDING_CHECKPOINT_THRESHOLD_MB}MB`
/** DuckDB's automatic checkpoint while landing: never (the toolkit checkpoints, `checkpointIfDue`). */
const NO_AUTOMATIC_CHECKPOINT = "1000TB"
/**
 * Assumed: the memory limit a checkpoint gets while landing, when the limit is the toolkit's. A
 * checkpoint that runs out is fatal, so it gets the most a group commit may take. Nothing is
 * evicted while the limit is up, so DuckDB's cache may grow during the checkpoint; measured, the
 * 207,071-property run (two checkpoints) peaked at 284-291 MB, against 287-290 with DuckDB's own
 * checkpoints at the same landing limit, and the 1,034,151-property pull's checkpoints take RSS up
 * by 10-116 MB. The landing limit is set back after it.
 *
 * Not sized to the tables (measured at stop 43, DuckDB 1.5.5, docs/BENCHMARKS.md): a checkpoint
 * needs 1.0-1.6MB a column of the widest table with short values (31 columns failed at 30MB, 150
 * at 160MB), but more with long ones (a column of 51KB strings in 31 columns failed at 93MB and
 * passed at 160MB: DuckDB reads 2,048 values at a time), so no room read from the catalog is
 * safe, and a failure costs the run (exit 1) where the room costs transient RSS.
 */
const CHECKPOINT_MEMORY_MB = LANDING_MEMORY_CEILING_MB
/**
 * Assumed: the memory limit a landing transaction's `COMMIT` gets (a run's finish, a group that
 * may not fit the landing limit: `COMMIT_ROOM`; its statements run at the landing limit), the most
 * a group may take.
 * A commit that fails short of memory cannot be landed again in the same process
 * (`isFailedCommit`), so it gets its room before it starts.
 */
const COMMIT_MEMORY_MB = LANDING_MEMORY_CEILING_MB
/**
 * A group commit's size, for its room (`roomToCommit`): rows staged (every table's), the bytes of
 * its pages (undefined: not known), and the width of its widest table (`columnWeight`).
 */
export interface CommitSize {
  readonly rows: number
  readonly bytes: number | undefined
  readonly widest: number
}

/**
 * Assumed: a group commits at the landing limit, without the room above, when it stages at most
 * `rows` rows and its widest table's weight (`columnWeight`) at `mbPerColumn` MB a unit plus its
 * pages' bytes fit the limit; a run's finish, and a group of unknown bytes, always get the room.
 * Why not always: every `SET memory_limit` makes DuckDB 1.5 purge its allocator and trim the
 * process's `malloc` arenas (`BufferPool::SetLimit` -> `Allocator::FlushAll`: `madvise` on every
 * free page, then page faults to use them again), and the room around each group's commit cost
 * the 207,071-property run 3-5 s of its 20-28 s of CPU, most of it in the kernel (`perf`, an A/B
 * of the bundle: docs/BENCHMARKS.md, stop 44). What a commit needs follows the widest table it
 * appends to, like a checkpoint: without the room, the 30-day alerts backlog (`alerts`, 75
 * columns, weight 118, pages of 1,000 alerts) failed to commit a page at 48MB (2 runs of 2, load
 * ~4) and landed at 64MB, so 0.41-0.54MB a unit of weight; 1MB is about twice that. A long value
 * is bounded by the bytes: no column of a group holds more than its pages brought. So a sourcing
 * group (weight 25, ~4 MB of pages) commits at 80MB, and an alerts group gets its room (the
 * backlog then landed at 48MB too).
 */
export const COMMIT_ROOM = { rows: 40_000, mbPerColumn: 1 } as const

/**
 * A column's parts as DuckDB stores them, read from its type: 1 for a scalar, and one more for
 * each field, element or value a nested type adds (`STRUCT(a VARCHAR, b VARCHAR)[]`: 4). An upper
 * bound (`DECIMAL(18,3)` counts 3): the commit's room errs on the side of enough.
 */
export const columnWeight = (type: string): number => 1 + (type.match(/[(,]|\[\]/g)?.length ?? 0)

/** The size of a group commit: the rows its pages staged (`counts`), the widest of its tables, its bytes. */
export const commitSizeOf = (
  tables: Iterable<TableSpec>,
  counts: Iterable<Readonly<Record<string, number>>>,
  bytes: number | undefined
): CommitSize => {
  let rows = 0
  for (const c of counts) for (const table in c) rows += c[table]!
  let widest = 0
  for (const spec of tables)
    widest = Math.max(
      widest,
      spec.columns.reduce((w, c) => w + columnWeight(c.type), 0)
    )
  return { rows, bytes, widest }
}

/** Whether a group of `size` commits at a limit of `limitMb` without more room (`COMMIT_ROOM`). */
export const fitsWithoutRoom = (size: CommitSize | undefined, limitMb: number): boolean =>
  size !== undefined &&
  size.bytes !== undefined &&
  size.rows <= COMMIT_ROOM.rows &&
  size.widest * COMMIT_ROOM.mbPerColumn + size.bytes / 2 ** 20 <= limitMb

const SHOWN_UNITS: Record<string, number> = { bytes: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40, pib: 2 ** 50 }

/**
 * The bytes of a size as DuckDB shows it (`current_setting`: "61.0 MiB", "16 bytes"), whatever
 * spelling it was set with (`64MB`, `64M`, `64 megabytes`); undefined if not such a text.
 */
export const shownBytes = (shown: string): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB|TiB|PiB)$/i.exec(shown.trim())
  return m === null ? undefined : Number(m[1]) * SHOWN_UNITS[m[2]!.toLowerCase()]!
}

/**
 * The landing settings of one open warehouse: `enter` when a run starts (the first sets them),
 * `leave` when it ends (the last sets back what was there), `withMemoryToLand` around a group
 * commit or a run's finish and the reads that grow with a run, `roomToCommit` before their
 * `COMMIT`, `checkpointIfDue` after a group.
 *
 * Not `RESET` when leaving: on DuckDB 1.5 `RESET memory_limit` changes the setting shown but leaves
 * the buffer manager at the landing limit, so an export after a run ran out of memory at that limit.
 */
export const makeLandingSettings = (db: Database, options: OpenOptions) => {
  let landing = 0
  let landingLimitMb = LANDING_MEMORY_LIMIT_MB
  let before: ReadonlyArray<readonly [string, string]> = []
  // the WAL size the toolkit checkpoints at: the settings' (as DuckDB read it at open), or its own
  let checkpointBytes = LANDING_CHECKPOINT_THRESHOLD_MB * 1e6
  const settings = [
    ...(options.memoryLimit === undefined ? [["memory_limit", `'${LANDING_MEMORY_LIMIT}'`]] : []),
    ["checkpoint_threshold", `'${NO_AUTOMATIC_CHECKPOINT}'`]
  ]
  const wal = db.path === MEMORY ? undefined : `${db.path}.wal`
  // the memory limit this module set last (each `SET memory_limit` purges DuckDB's allocator: one
  // that would set what is set already is left out)
  let limitSet: string | undefined
  const setLimit = async (conn: DuckDBConnection, value: string) => {
    await conn.run(`SET memory_limit = ${value}`)
    limitSet = value
  }
  /** What to set back when the last run ends: a value the settings gave as they gave it, else what DuckDB showed. */
  const restore = (name: string, shown: string) =>
    name === "checkpoint_threshold" && options.checkpointThreshold !== undefined ? literal(options.checkpointThreshold) : literal(shown)
  const mode = (delta: 1 | -1) =>
    options.readOnly
      ? Effect.void
      : db.use("Cannot set DuckDB's landing settings", async (conn) => {
          landing = Math.max(0, landing + delta)
          if (delta === 1 && landing === 1) {
            const shown = await rowsOf(conn, `SELECT ${settings.map(([n]) => `current_setting('${n}')::VARCHAR AS ${n}`).join(", ")}`)
            before = settings.map(([name]) => [name, String(shown[0]![name!])] as const)
            if (options.checkpointThreshold !== undefined)
              checkpointBytes = shownBytes(String(shown[0]!.checkpoint_threshold)) ?? checkpointBytes
            for (const [name, value] of settings)
              if (name === "memory_limit") await setLimit(conn, value!)
              else await conn.run(`SET ${name} = ${value}`)
            landingLimitMb = LANDING_MEMORY_LIMIT_MB
          }
          if (delta === -1 && landing === 0)
            for (const [name, value] of before) {
              const back = restore(name, value)
              if (name !== "memory_limit") await conn.run(`SET ${name} = ${back}`)
              else if (limitSet !== back) await setLimit(conn, back)
            }
        })

  /**
   * A group whose statements do not fit the landing limit (a backlog of large pages: DuckDB keeps
   * a transaction's rows and the keys it checks in memory) is landed again, the transaction having
   * rolled back whole, with the limit doubled (never a failed commit: `isFailedCommit`), up to
   * `LANDING_MEMORY_CEILING_MB`; the limit stays raised for the rest of the run. The same holds
   * for the reads that grow with a run (a resumed run's keys). A limit the settings set is never
   * changed.
   */
  const withMemoryToLand = <A>(land: Effect.Effect<A, WarehouseError>): Effect.Effect<A, WarehouseError> =>
    Effect.catchIf(
      land,
      (e) =>
        landing > 0 && options.memoryLimit === undefined && isOutOfMemory(e) && !isFatal(e) && landingLimitMb < LANDING_MEMORY_CEILING_MB,
      () =>
        Effect.zipRight(
          db.use("Cannot raise DuckDB's memory limit", async (conn) => {
            landingLimitMb = Math.min(landingLimitMb * 2, LANDING_MEMORY_CEILING_MB)
            await setLimit(conn, `'${landingLimitMb}MB'`)
          }),
          Effect.suspend(() => withMemoryToLand(land))
        )
    )

  /**
   * On `conn`, while landing: the memory limit raised to `mb` (unless the settings set the limit or
   * it is that high already). Returns what sets the landing limit back, to run once the work that
   * needed the room ended, well or not; if DuckDB refuses the lower limit (it cannot evict down to
   * it), the raised one stays in force for the rest of the run.
   */
  const raiseTo = async (conn: DuckDBConnection, mb: number): Promise<() => Promise<void>> => {
    if (landing === 0 || options.memoryLimit !== undefined || landingLimitMb >= mb) return async () => undefined
    await setLimit(conn, `'${mb}MB'`)
    return async () => {
      try {
        await setLimit(conn, `'${landingLimitMb}MB'`)
      } catch {
        landingLimitMb = mb
      }
    }
  }

  /**
   * Inside a group's landing transaction, just before its `COMMIT`: room for it (`raiseTo`
   * `COMMIT_MEMORY_MB`), unless the group's `size` fits the landing limit as it is
   * (`fitsWithoutRoom`). A run's finish gets its room from `roomToFinish`.
   */
  const roomToCommit = (conn: DuckDBConnection, size: CommitSize) =>
    fitsWithoutRoom(size, landingLimitMb) ? Promise.resolve(async () => undefined) : raiseTo(conn, COMMIT_MEMORY_MB)

  /**
   * Inside a run's finishing transaction, just before its `COMMIT`: room for it, always (what a
   * finish needs is not known before it runs). The landing limit comes back after it only while
   * another run lands on this warehouse: otherwise the run's `leave` follows and sets DuckDB's own
   * limit back, and the landing limit in between would be one more purge of DuckDB's allocator
   * (each `SET memory_limit` is one) for nothing. For the same reason the last run's finish gets
   * that limit itself when it is room enough (DuckDB's default, 80% of RAM, on a machine of more
   * than 1.6 GB), and its `leave` then has no limit to set.
   */
  const roomToFinish = async (conn: DuckDBConnection) => {
    const back = landing === 1 && options.memoryLimit === undefined ? before.find(([name]) => name === "memory_limit") : undefined
    if (back !== undefined && (shownBytes(back[1]) ?? 0) >= COMMIT_MEMORY_MB * 2 ** 20) {
      await setLimit(conn, restore(...back))
      // a run that began landing meanwhile lands at the landing limit, not at DuckDB's own
      return async () => {
        if (landing > 1) await setLimit(conn, `'${landingLimitMb}MB'`)
      }
    }
    const setBack = await raiseTo(conn, COMMIT_MEMORY_MB)
    return async () => {
      if (landing > 1) await setBack()
    }
  }

  /**
   * While landing, after a group: a checkpoint once the WAL has grown past the threshold (the
   * settings' `checkpointThreshold` or `LANDING_CHECKPOINT_THRESHOLD`), with the limit raised to
   * `CHECKPOINT_MEMORY_MB` for it. Only a fatal error fails (the database is gone); a checkpoint
   * DuckDB declines or cannot start (another write transaction in the way, the limit not raised)
   * is logged and tried again after the next group: the group before it has landed either way.
   */
  const checkpointIfDue = Effect.suspend(() => {
    if (landing === 0 || wal === undefined) return Effect.void
    const size = fs.statSync(wal, { throwIfNoEntry: false })?.size ?? 0
    if (size < checkpointBytes) return Effect.void
    return db
      .use("Cannot checkpoint the warehouse", async (conn) => {
        const setBack = await raiseTo(conn, CHECKPOINT_MEMORY_MB)
        try {
          await conn.run("CHECKPOINT")
        } finally {
          await setBack()
        }
      })
      .pipe(
        Effect.catchIf(
          (e) => !isFatal(e),
          (e) => Effect.logWarning(`The warehouse's checkpoint waits for the next group (the WAL is ${size} bytes): ${e.detail}`)
        )
      )
  })

  return { enter: mode(1), leave: mode(-1), withMemoryToLand, roomToCommit, roomToFinish, checkpointIfDue } as const
}
