/**
 * Opening a DuckDB file safely: one writer at a time, garbage and foreign files refused before
 * anything is written, and every statement run by one fiber at a time on one connection.
 *
 * DuckDB takes a POSIX lock on the file per process. Such locks belong to the process, so a
 * second open of the same file inside the same process would succeed and, when closed, silently
 * drop the first one's lock. Opens are therefore also registered in-process and refused the same
 * way as a lock held by another process.
 */
import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api"
import { duckdb } from "./DuckDbApi.js"
import { Duration, Effect, Schedule } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { causeMessage, damagedError, isDamaged, isFailedCommit, openError, sqlError, WarehouseError } from "./WarehouseError.js"

export interface OpenOptions {
  /** How long to wait for another holder of the file to let go before failing `Locked`. Default 0. */
  readonly lockTimeout?: Duration.DurationInput
  /**
   * The longest pause between two attempts while waiting for the lock: attempts back off from
   * 50 ms (x1.5 each) up to it. Default 1 s.
   */
  readonly lockPoll?: Duration.DurationInput
  /**
   * Called once, when the file is first found held by another process and `lockTimeout` allows a
   * wait (e.g. to print one progress line naming the holder); failing stops the wait at once with
   * that error. DuckDB has no blocking lock, so the wait is attempts with backoff.
   */
  readonly onLocked?: ((held: WarehouseError) => Effect.Effect<void, WarehouseError>) | undefined
  /** DuckDB's `memory_limit` (e.g. `"256MB"`). Default DuckDB's own: 80% of the machine's RAM. */
  readonly memoryLimit?: string | undefined
  /**
   * The WAL size that triggers a checkpoint (e.g. `"64MB"`): DuckDB's `checkpoint_threshold`, and
   * while a run lands the toolkit's own between groups (`LandingSettings.ts`). Default DuckDB's own
   * (16MB), and 64MB while landing.
   */
  readonly checkpointThreshold?: string | undefined
  /**
   * DuckDB's worker threads. Default `WAREHOUSE_THREADS` (1) for a database opened to write,
   * DuckDB's own (one per core) for one opened `readOnly`.
   */
  readonly threads?: number | undefined
  /**
   * The block size, in bytes, of a database file this open creates (DuckDB's
   * `default_block_size`; a file that exists keeps its own). Default `WAREHOUSE_BLOCK_SIZE`.
   */
  readonly blockSize?: number | undefined
  /**
   * Open an existing file read-only (DuckDB `access_mode=READ_ONLY`): nothing is created or
   * written, a missing file fails (`Io`, naming it), a statement that writes fails. Default false.
   */
  readonly readOnly?: boolean | undefined
  /**
   * With `readOnly`: nothing outside the warehouse either (DuckDB `enable_external_access=false`,
   * then `lock_configuration`): `COPY ... TO`, `ATTACH`, `INSTALL`/`LOAD`, reading other files
   * and changing settings back are refused. What `query` opens. Default false.
   */
  readonly sealed?: boolean | undefined
}

/** An open warehouse database: one connection, used by one fiber at a time. */
export interface Database {
  readonly path: string
  /** Runs `f` with exclusive use of the connection; a throw becomes a `Sql` error (or passes a `WarehouseError` through). */
  readonly use: <A>(what: string, f: (conn: DuckDBConnection) => Promise<A>) => Effect.Effect<A, WarehouseError>
  /**
   * A second connection, opened on first use, with the in-memory database `STAGE_DB` attached:
   * pages are appended there as they arrive while the first connection lands earlier ones
   * (`Stage.ts`). Its statements are the caller's to serialise.
   */
  readonly staging: () => Promise<DuckDBConnection>
  /** Another connection of the same database (the caller closes it). */
  readonly connect: () => Promise<DuckDBConnection>
}

/**
 * The block size of the DuckDB files the toolkit creates (a new warehouse: `WarehouseFile.ts`):
 * 32KB, where DuckDB's own is 256KB. DuckDB sizes each column's in-memory segment to
 * a block, so a transaction or a checkpoint that touches a table fills and writes a block per
 * column whatever the rows: `memset` of the fresh segments and the page faults behind it were a
 * quarter of a small run's CPU (`perf`, test/reliability/dialects.test.ts), and the checkpoint of
 * one changed row of a 37-column table cost 31 ms at 256KB, 21 at 64KB, 17 at 16KB
 * (docs/BENCHMARKS.md, stop 46). Measured on whole processes, alternated: dialects.test.ts used
 * 7-14% less CPU at 32KB and 16KB; the 207,071-property sourcing run the same CPU and peak RSS at
 * 32KB and 64KB, and 3% more CPU and 8-10 MB more RSS at 16KB. A file made at 256KB stays so.
 */
export const WAREHOUSE_BLOCK_SIZE = 32_768

/**
 * DuckDB's worker threads in a database opened to write (runs, the exports and merges after them,
 * the webhook receiver): one, DuckDB itself running each statement on the calling thread. Why:
 * - a group commit works on a few thousand rows, where DuckDB's parallel operators cost more CPU
 *   than they save (the 207,071-property sourcing run: 1.2 s less CPU, the same wall time);
 * - DuckDB 1.5 built with glibc trims the whole process's `malloc` arenas (`malloc_trim`:
 *   `madvise` on every free page, TLB shootdowns, then page faults to use the memory again) each
 *   time one of its worker threads has been idle for half a second, when it starts or stops its
 *   threads and when an instance closes. In a Node process the arenas hold Node's memory too
 *   (bodies, buffers, the compiler's zones), so each trim costs the whole process. Measured on the
 *   suite (`vitest run`, 2 cores, docs/BENCHMARKS.md, stop 47): 692 s of CPU (403 s of wall) with
 *   DuckDB's own threads, 662 s (382 s) with one; with `malloc_trim` made a no-op (an experiment,
 *   not something to ship) 589 s (347 s).
 * A database opened `readOnly` (`query`, `status`, `export`: a user's SQL over whole tables) keeps
 * DuckDB's own. The setting `duckdb.threads` sets both.
 */
export const WAREHOUSE_THREADS = 1

/** The in-memory database (attached to the instance, so every connection sees it) that stages rows. */
export const STAGE_DB = "_estate_stage"

const held = new Set<string>()

/** Whether this process has the file open as a warehouse (attaching it too would break its lock). */
export const isOpenInProcess = (path: string) => held.has(nodePath.resolve(path))

export const MEMORY = ":memory:"

const canonical = (path: string) => (path === MEMORY ? path : nodePath.resolve(path))

/** Every DuckDB file starts with an 8-byte checksum followed by the magic bytes `DUCK`. */
const checkHeader = (path: string): WarehouseError | undefined => {
  let fd: number | undefined
  try {
    const size = fs.statSync(path).size
    if (size === 0) return undefined
    fd = fs.openSync(path, "r")
    const head = Buffer.alloc(12)
    const read = fs.readSync(fd, head, 0, 12, 0)
    if (read < 12 || head.subarray(8, 12).toString("latin1") !== "DUCK") {
      return new WarehouseError({
        reason: "Corrupt",
        path,
        detail: `${path} exists but is not a DuckDB database (corrupt or another kind of file); move it away or choose another warehouse path`
      })
    }
    return undefined
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined
    return new WarehouseError({ reason: "Io", path, cause, detail: `Cannot read ${path}: ${causeMessage(cause)}` })
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** DuckDB's `threads` at the instance's creation: the options', else `WAREHOUSE_THREADS` unless read-only. */
const threadsOf = (options: OpenOptions): { threads?: string } => {
  const threads = options.threads ?? (options.readOnly ? undefined : WAREHOUSE_THREADS)
  return threads === undefined ? {} : { threads: String(threads) }
}

const attemptOpen = (path: string, options: OpenOptions) =>
  Effect.gen(function* () {
    if (path !== MEMORY && held.has(path)) {
      return yield* Effect.fail(
        new WarehouseError({
          reason: "Locked",
          path,
          detail: `Warehouse ${path} is already open in this process; close it first or use another warehouse file`
        })
      )
    }
    if (options.readOnly && path !== MEMORY && !fs.existsSync(path)) {
      return yield* Effect.fail(new WarehouseError({ reason: "Io", path, detail: `no warehouse at ${path}: the file does not exist` }))
    }
    const bad = path === MEMORY ? undefined : checkHeader(path)
    if (bad) return yield* Effect.fail(bad)
    if (path !== MEMORY) held.add(path)
    return yield* Effect.tryPromise({
      try: async () => {
        if (path !== MEMORY && !options.readOnly) fs.mkdirSync(nodePath.dirname(path), { recursive: true })
        const instance = await duckdb.DuckDBInstance.create(path, {
          ...(options.readOnly && path !== MEMORY ? { access_mode: "READ_ONLY" } : {}),
          ...(options.sealed ? { enable_external_access: "false" } : {}),
          autoinstall_known_extensions: "false",
          autoload_known_extensions: "true",
          ...(options.memoryLimit ? { memory_limit: options.memoryLimit } : {}),
          ...(options.checkpointThreshold ? { checkpoint_threshold: options.checkpointThreshold } : {}),
          ...threadsOf(options),
          default_block_size: String(options.blockSize ?? WAREHOUSE_BLOCK_SIZE)
        })
        try {
          const conn = await instance.connect()
          // Timestamps are stored as UTC wall time; casts of ISO strings with offsets go through TIMESTAMPTZ.
          await conn.run("SET TimeZone = 'UTC'")
          // nothing the statements run later can turn the settings above back
          if (options.sealed) await conn.run("SET lock_configuration = true")
          return { instance, conn }
        } catch (e) {
          instance.closeSync()
          throw e
        }
      },
      catch: (cause) => openError(path, cause)
    }).pipe(Effect.tapError(() => Effect.sync(() => held.delete(path))))
  })

/**
 * Opens (creating if missing, unless `readOnly`) the DuckDB file at `path`, or an in-memory
 * database for `":memory:"`.
 */
export const openDatabase = (rawPath: string, options: OpenOptions = {}) =>
  Effect.gen(function* () {
    const path = canonical(rawPath)
    const timeout = Duration.decode(options.lockTimeout ?? 0)
    const poll = Duration.decode(options.lockPoll ?? Duration.seconds(1))
    const waits = Duration.toMillis(timeout) > 0
    let staging: Promise<DuckDBConnection> | undefined
    // `onLocked` is told once; when it fails, the wait ends with its error
    let told = false
    let stopped = false
    const attempt = attemptOpen(path, options).pipe(
      Effect.catchAll((e) => {
        if (e.reason !== "Locked" || !waits || told || options.onLocked === undefined) return Effect.fail(e)
        told = true
        return options.onLocked(e).pipe(
          Effect.tapError(() => Effect.sync(() => (stopped = true))),
          Effect.zipRight(Effect.fail(e))
        )
      })
    )
    const { instance, conn } = yield* Effect.acquireRelease(
      attempt.pipe(
        Effect.retry({
          // from 50 ms, half as long again each time, never longer than `poll`, for `timeout` at most
          schedule: Schedule.exponential(Duration.millis(50), 1.5).pipe(Schedule.union(Schedule.spaced(poll)), Schedule.upTo(timeout)),
          while: (e) => waits && !stopped && e.reason === "Locked"
        }),
        Effect.mapError((e) =>
          e.reason === "Locked" && waits && !stopped
            ? new WarehouseError({ ...e, detail: `${e.detail} (waited ${Duration.format(timeout)})` })
            : e
        )
      ),
      ({ conn, instance }) =>
        Effect.promise(() =>
          (staging ?? Promise.resolve(undefined)).then(
            (c) => c?.closeSync(),
            () => undefined
          )
        ).pipe(
          // The WAL written into the file on DuckDB's side of the bindings. `closeSync` would do it
          // on this thread, holding the event loop for as long as the checkpoint takes while an
          // in-process sandbox, other warehouses' runs and timers wait (5.3 s of the 54 s the
          // dialect matrix's worker thread ran: `--cpu-prof`, docs/BENCHMARKS.md, stop 50). Not
          // after a failed commit (`refuseAfter`); what this one cannot do, the close does.
          Effect.andThen(
            Effect.promise(() =>
              options.readOnly || refused !== undefined
                ? Promise.resolve()
                : conn.run("CHECKPOINT").then(
                    () => undefined,
                    () => undefined
                  )
            )
          ),
          Effect.andThen(() => {
            try {
              conn.closeSync()
              instance.closeSync()
            } finally {
              held.delete(path)
            }
          })
        )
    )
    const mutex = yield* Effect.makeSemaphore(1)
    // after a failed commit: what every later use fails with (see `refuseAfter`)
    let refused: WarehouseError | undefined
    /**
     * A `COMMIT` DuckDB failed (`isFailedCommit`) leaves keys of rows it never wrote in the table's
     * in-memory index, which the next commit and checkpoint would make permanent. So nothing more
     * runs on this database in this process, and it is closed without its checkpoint: the next
     * open replays the WAL (every transaction that did commit) into indexes read from the file.
     */
    const refuseAfter = (failed: WarehouseError) =>
      Effect.gen(function* () {
        const unsure = yield* Effect.promise(() =>
          conn.run("PRAGMA disable_checkpoint_on_shutdown").then(
            () => undefined,
            (e: unknown) => causeMessage(e)
          )
        )
        if (unsure !== undefined) yield* Effect.logWarning(`${path} may be checkpointed when it closes: ${unsure}`)
        refused = new WarehouseError({
          reason: failed.reason,
          path,
          cause: failed.cause,
          detail:
            `${failed.detail}. DuckDB failed to commit, and may keep index entries of the rows it did not write: ${path} takes nothing ` +
            `more in this process (nothing of that transaction landed). Run again: the run resumes where it stopped ` +
            `(the pages its journal kept are not paid again)`
        })
        return yield* Effect.fail(refused)
      })
    const use = <A>(what: string, f: (conn: DuckDBConnection) => Promise<A>) =>
      mutex.withPermits(1)(
        Effect.suspend(() =>
          refused !== undefined
            ? Effect.fail(refused)
            : Effect.tryPromise({
                try: () => f(conn),
                catch: (cause) =>
                  isDamaged(cause) && !(cause instanceof WarehouseError) ? damagedError(path, cause) : sqlError(what, cause)
              }).pipe(Effect.catchIf(isFailedCommit, refuseAfter))
        ).pipe(Effect.uninterruptible)
      )
    const openStaging = async () => {
      const c = await instance.connect()
      await c.run(`ATTACH ':memory:' AS ${STAGE_DB}`)
      return c
    }
    return { path, use, staging: () => (staging ??= openStaging()), connect: () => instance.connect() } satisfies Database
  })

/** Double-quotes an identifier for DuckDB. */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Single-quotes a string literal for DuckDB. */
export const literal = (value: string) => `'${value.replaceAll("'", "''")}'`

/** Runs a statement and returns its rows as JS values (BIGINT as bigint, DATE/TIMESTAMP as Date). */
export const rowsOf = async (
  conn: DuckDBConnection,
  sql: string,
  params?: ReadonlyArray<DuckDBValue>
): Promise<Array<Record<string, unknown>>> => {
  const reader = await conn.runAndReadAll(sql, params ? [...params] : undefined)
  return reader.getRowObjectsJS() as Array<Record<string, unknown>>
}

/** Runs `f` inside BEGIN/COMMIT; any failure rolls the whole transaction back and is rethrown. */
export const inTransaction = async <A>(conn: DuckDBConnection, f: () => Promise<A>): Promise<A> => {
  await conn.run("BEGIN TRANSACTION")
  try {
    const a = await f()
    await conn.run("COMMIT")
    return a
  } catch (e) {
    await conn.run("ROLLBACK").catch(() => undefined)
    throw e
  }
}
