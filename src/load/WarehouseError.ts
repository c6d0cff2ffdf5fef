/**
 * Errors of the load stage. One class, a `reason` a caller can switch on, and a one-line
 * message that says which file, table or run is concerned and what a person can do about it.
 *
 * - `Locked`: another process (or another open in this process) holds the warehouse file;
 * - `Corrupt`: the file at the warehouse path is not a readable DuckDB database, or is damaged
 *   (cut short, a block that fails its checksum);
 * - `Foreign`: a DuckDB database that this toolkit did not create, or a newer format version;
 * - `SchemaConflict`: a table spec changed in a way the loader will not apply by itself;
 * - `BadValue`: a row value does not fit its column (the whole page is refused);
 * - `Io`: the file system (raw archive, exports);
 * - `Sql`: any other DuckDB failure.
 */
import { Data } from "effect"
import { firstLine } from "../shared/ErrorClass.js"

export type WarehouseErrorReason = "Locked" | "Corrupt" | "Foreign" | "SchemaConflict" | "BadValue" | "Io" | "Sql"

export class WarehouseError extends Data.TaggedError("WarehouseError")<{
  readonly reason: WarehouseErrorReason
  /** One human line: what failed, where, and what to do. */
  readonly detail: string
  /** The warehouse file, table or folder concerned. */
  readonly path?: string | undefined
  readonly table?: string | undefined
  readonly runId?: string | undefined
  /** `Locked`: the process holding the file, when DuckDB names it. */
  readonly holderPid?: number | undefined
  readonly cause?: unknown
}> {
  override get message() {
    return this.detail
  }
}

/** The underlying message of anything thrown by DuckDB or node. */
export const causeMessage = (cause: unknown): string => (cause instanceof Error ? firstLine(cause.message) : String(cause))

/** DuckDB's words for a file whose blocks cannot be read back: cut short, or failing their checksum. */
const DAMAGED = /Could not read enough bytes|Corrupt database file|computed checksum|does not match stored checksum/i

/** Whether DuckDB's error says the file's blocks cannot be read back. */
export const isDamaged = (cause: unknown) => DAMAGED.test(causeMessage(cause))

/** A damaged warehouse file, with what a person can do about it (nothing was changed). */
export const damagedError = (path: string | undefined, cause: unknown): WarehouseError =>
  new WarehouseError({
    reason: "Corrupt",
    path,
    cause,
    detail:
      `${path ?? "the warehouse"} is damaged (${causeMessage(cause)}): the file was cut short or changed outside DuckDB (a full disk, a partial copy). ` +
      `Nothing was changed. Restore it from a backup, or move it away and run again to build a new one (the Parquet export is not affected)`
  })

/** Maps an error thrown while opening a DuckDB file to a reason and a clear message. */
export const openError = (path: string, cause: unknown): WarehouseError => {
  const msg = causeMessage(cause)
  if (/Could not set lock|Conflicting lock/i.test(msg)) {
    const pid = /PID (\d+)/.exec(msg)?.[1]
    return new WarehouseError({
      reason: "Locked",
      path,
      cause,
      holderPid: pid === undefined ? undefined : Number(pid),
      detail: `Warehouse ${path} is in use by another process${pid ? ` (PID ${pid})` : ""}; wait for it to finish or point this run at another warehouse file`
    })
  }
  if (DAMAGED.test(msg)) return damagedError(path, cause)
  if (/not a valid DuckDB database/i.test(msg)) {
    return new WarehouseError({
      reason: "Corrupt",
      path,
      cause,
      detail: `${path} exists but is not a DuckDB database (corrupt or another kind of file); move it away or choose another warehouse path`
    })
  }
  if (/version number|storage version|newer version/i.test(msg)) {
    return new WarehouseError({
      reason: "Foreign",
      path,
      cause,
      detail: `${path} was written by an incompatible DuckDB version: ${msg}`
    })
  }
  return new WarehouseError({ reason: "Io", path, cause, detail: `Cannot open warehouse ${path}: ${msg}` })
}

/**
 * A statement DuckDB could not run within its memory_limit (`Out of Memory Error`): the statement
 * failed inside its transaction, which rolls back whole, so the work can be done again with more
 * memory. A commit that fails short of memory is not this (see `isFailedCommit`).
 */
export const isOutOfMemory = (e: WarehouseError): boolean =>
  /Out of Memory Error/i.test(`${e.detail ?? ""} ${causeMessage(e.cause)}`) && !isFailedCommit(e)

/**
 * DuckDB failed a `COMMIT` itself (`TransactionContext Error: Failed to commit: ...`: short of
 * memory, `could not allocate block`, `failed to pin block`, `failed to allocate data`, seen
 * landing a 30-day alerts backlog at 48MB and finishing a 1,034,151-property pull at 160MB). The
 * transaction's rows are not written, but DuckDB 1.5 keeps their keys in the table's in-memory
 * index: the same rows landed again fail as duplicate keys, and a later commit to that table
 * followed by a checkpoint writes those keys into the file for good (reproduced). So such a
 * database takes no more work in this process (`Database.use`).
 */
export const isFailedCommit = (e: WarehouseError): boolean =>
  /TransactionContext Error: Failed to commit/.test(`${e.detail ?? ""} ${causeMessage(e.cause)}`)

/** DuckDB invalidated the database (a fatal error): nothing more runs on it in this process. */
export const isFatal = (e: WarehouseError): boolean =>
  /FATAL Error|database has been invalidated/i.test(`${e.detail ?? ""} ${causeMessage(e.cause)}`)

export const sqlError = (what: string, cause: unknown, extra?: { table?: string; runId?: string }): WarehouseError =>
  cause instanceof WarehouseError
    ? cause
    : DAMAGED.test(causeMessage(cause))
      ? damagedError(undefined, cause)
      : new WarehouseError({ reason: "Sql", detail: `${what}: ${causeMessage(cause)}`, cause, ...extra })
