/**
 * How commands other than `run` open the warehouse. None of them creates one: a path that does
 * not exist is bad input (exit 2) in one line naming it, so a mistyped `--warehouse` is noticed
 * instead of answered from a new empty file.
 *
 * - `status`, `query`, `export`, `report`: read-only (DuckDB `READ_ONLY`); they never write the warehouse
 *   (a writing statement in `query` is refused by DuckDB, exit 2); `query` also opens it sealed
 *   (no `COPY ... TO`, `ATTACH`, `INSTALL`, nor other files: `Database.ts`).
 * - A warehouse another process holds is waited for (`--lock-wait`, `LockWait.ts`).
 * - `plan`: read-only when the warehouse exists, else an in-memory one (keys read from tables
 *   are then "0 yet"); it never creates the file.
 * - `reload`: writes (it re-lands archived pages), but only into an existing warehouse.
 */
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { OpenOptions } from "../load/Database.js"
import { warehouseLayer } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"

/** `path` when a warehouse file is there; `InvalidInput` (field `warehouse`) naming it otherwise. */
export const existingWarehouse = (path: string): Effect.Effect<string, InvalidInput> =>
  Effect.suspend(() => {
    if (path === ":memory:") return Effect.succeed(path)
    const absolute = nodePath.resolve(path)
    if (!fs.existsSync(absolute)) {
      return Effect.fail(
        new InvalidInput({
          field: "warehouse",
          detail: `${absolute} does not exist (a mistyped --warehouse or settings "warehouse", or nothing has run yet); this command does not create one`
        })
      )
    }
    if (fs.statSync(absolute).isDirectory()) {
      return Effect.fail(
        new InvalidInput({ field: "warehouse", detail: `${absolute} is a folder; give a DuckDB file path such as data/warehouse.duckdb` })
      )
    }
    return Effect.succeed(path)
  })

/** How a command opens an existing warehouse beyond read or write: its wait for the lock (`LockWait.ts`), sealed (`query`). */
export type AccessOptions = Pick<OpenOptions, "lockTimeout" | "onLocked" | "sealed">

/** The warehouse at `path`, which must exist, opened read-only. */
export const readOnlyWarehouse = (path: string, options: AccessOptions = {}) =>
  Layer.unwrapEffect(Effect.map(existingWarehouse(path), (p) => warehouseLayer({ path: p, readOnly: true, ...options })))

/** The warehouse at `path`, which must exist, opened to write. */
export const existingWritableWarehouse = (path: string, options: Omit<AccessOptions, "sealed"> = {}) =>
  Layer.unwrapEffect(Effect.map(existingWarehouse(path), (p) => warehouseLayer({ path: p, ...options })))

/** What `plan` reads keys from: the warehouse read-only when it exists, else an empty in-memory one. */
export const planWarehousePath = (path: string): { readonly path: string; readonly readOnly: boolean } =>
  fs.existsSync(path) && !fs.statSync(path).isDirectory() ? { path, readOnly: true } : { path: ":memory:", readOnly: false }

/** DuckDB errors of the engine or the machine, not of the statement. */
const SYSTEM_ERROR = /^(Out of Memory|IO|INTERNAL|FATAL|Interrupt) Error/i

/**
 * A statement DuckDB refused (parser, binder, catalog, conversion, a write on a read-only
 * warehouse...) as bad input, with DuckDB's own message on one line (the `LINE n:` excerpt and its
 * caret dropped); other failures stay what they are.
 */
export const sqlAsInput = <E>(e: E): E | InvalidInput => {
  const w = e as { _tag?: string; reason?: string; cause?: unknown; detail?: string }
  if (w._tag !== "WarehouseError" || w.reason !== "Sql") return e
  const raw = w.cause instanceof Error ? w.cause.message : String(w.detail ?? "")
  if (SYSTEM_ERROR.test(raw)) return e
  const line = raw
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^LINE \d+:/.test(l) && !/^\^+$/.test(l))
    .join(" ")
  return new InvalidInput({ field: "query", detail: line })
}

/** DuckDB's refusal of file access on a sealed warehouse (`Permission Error`), as what `query` does not do. */
export const sealedRefusal = <E>(e: E): E | InvalidInput => {
  const w = e as { _tag?: string; detail?: string }
  if (w._tag === "InvalidInput" && /Permission Error/.test(w.detail ?? "")) {
    return new InvalidInput({
      field: "query",
      detail: `reads only: writing or reading other files (COPY ... TO, read_csv), ATTACH, INSTALL and LOAD are refused (${w.detail})`
    })
  }
  return e
}
