/**
 * How a read-only command (`status`, `trace`) meets a warehouse a run holds: DuckDB cannot open
 * it, so the run is shown from its run-state file instead, whether it held the warehouse from the
 * start or took it while the command waited; any other holder (a receiver's short load, another
 * command) is waited for up to `--lock-wait`.
 */
import { Effect } from "effect"
import type { Warehouse } from "../load/Warehouse.js"
import { WarehouseError } from "../load/WarehouseError.js"
import { type RunStateView, viewRunState } from "../monitor/RunStateFile.js"
import { lockWait } from "./LockWait.js"
import { readOnlyWarehouse } from "./WarehouseAccess.js"

export type LiveView = Extract<RunStateView, { kind: "live" }>

/** `read` over the warehouse at `path`, or `showLive` of the run that holds it. */
export const readOrShowLive = <A, E, R>(
  path: string,
  waitMs: number,
  read: Effect.Effect<A, E, R | Warehouse>,
  showLive: (view: LiveView) => Effect.Effect<void>
) =>
  Effect.suspend(() => {
    const view = viewRunState(path)
    if (view.kind === "live") return showLive(view)
    return read.pipe(
      Effect.provide(
        readOnlyWarehouse(
          path,
          // a run that took the warehouse meanwhile is shown, not waited for
          lockWait(path, waitMs, { onHeld: (holder, e) => (holder.run ? Effect.fail(e) : Effect.void) })
        )
      ),
      Effect.catchIf(
        (e): e is WarehouseError => e instanceof WarehouseError && e.reason === "Locked",
        (e) => {
          const now = viewRunState(path)
          return now.kind === "live" ? showLive(now) : Effect.fail(e)
        }
      )
    )
  })
