/**
 * The table specs an open warehouse knows: those of `_tables` when it opened, and those this
 * process declared since (`Landing.ensureTables`). Landing needs a table's spec to write it;
 * exports, merges and counts read the list.
 */
import { Effect } from "effect"
import type { TableSpec } from "../normalize/Table.js"
import type { Database } from "./Database.js"
import { registeredSpecs } from "./TableDdl.js"
import { WarehouseError } from "./WarehouseError.js"

export interface TableRegistry {
  readonly get: (table: string) => TableSpec | undefined
  /** The spec of `table`; a table never declared is `SchemaConflict` (thrown: it runs inside a commit). */
  readonly specOf: (table: string, runId: string) => TableSpec
  readonly declare: (spec: TableSpec) => void
  readonly names: () => ReadonlyArray<string>
  readonly all: () => ReadonlyArray<TableSpec>
}

export const loadTableRegistry = (db: Database): Effect.Effect<TableRegistry, WarehouseError> =>
  Effect.map(
    db.use("Cannot read _tables", (conn) => registeredSpecs(conn)),
    (registered) => {
      const specs = new Map<string, TableSpec>(registered.map((s) => [s.name, s]))
      return {
        get: (table) => specs.get(table),
        specOf: (table, runId) => {
          const spec = specs.get(table)
          if (spec !== undefined) return spec
          throw new WarehouseError({
            reason: "SchemaConflict",
            table,
            runId,
            detail: `Table ${table} was not declared; call ensureTables with its spec before committing rows to it`
          })
        },
        declare: (spec) => void specs.set(spec.name, spec),
        names: () => [...specs.keys()],
        all: () => [...specs.values()]
      }
    }
  )
