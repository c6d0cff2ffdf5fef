/**
 * Moving a pipeline's incremental positions between warehouses, and setting one by hand: what
 * `estate-etl state copy` and `state set` do (the CLI checks names and values first,
 * `cli/StateTransferCommands.ts`).
 *
 * A position is a checkpoint row (`_checkpoints`: pipeline, slice key, JSON value, finished or
 * not). Nothing is lost: a copy never overwrites a checkpoint unless told to (`replace`), and both
 * return the positions they replaced so the caller can print them (and the user set them back).
 * Each writes in one transaction.
 */
import { Effect, Option } from "effect"
import { inTransaction, rowsOf } from "./Database.js"
import { type CheckpointRecord, toCheckpointRecord } from "./PageCommit.js"
import type { RunLogApi } from "./RunLog.js"
import type { TableReadsApi } from "./TableReads.js"
import type { WarehouseError } from "./WarehouseError.js"

/** Run statuses a next run resumes (as `PipelineState.ts` reads them). */
export const UNFINISHED = ["running", "paused", "interrupted"] as const

/** Pipelines holding checkpoints in this warehouse. */
export const pipelinesWithCheckpoints = (w: TableReadsApi): Effect.Effect<ReadonlyArray<string>, WarehouseError> =>
  w.withConnection("Cannot read the checkpoints", async (conn) =>
    (await rowsOf(conn, `SELECT DISTINCT pipeline FROM _checkpoints ORDER BY 1`)).map((r) => String(r.pipeline))
  )

/** The pipeline's last run when a next run would resume it (its id and status), else undefined. */
export const unfinishedRun = (
  log: RunLogApi,
  pipeline: string
): Effect.Effect<{ readonly runId: string; readonly status: string } | undefined, WarehouseError> =>
  Effect.map(log.lastRun(pipeline), (last) =>
    Option.isSome(last) && (UNFINISHED as ReadonlyArray<string>).includes(last.value.status)
      ? { runId: last.value.runId, status: last.value.status }
      : undefined
  )

export interface CopyResult {
  readonly copied: number
  /** The target's checkpoints of the pipeline that were there before (replaced, or removed when the source lacks their slice). */
  readonly replaced: ReadonlyArray<CheckpointRecord>
}

/**
 * Writes `checkpoints` (read from another warehouse) as the pipeline's checkpoints here, in one
 * transaction: the pipeline's existing checkpoints go first when `replace` (they are returned),
 * and when there are some and not `replace` nothing is written (`copied` 0, the existing ones in
 * `replaced` for the caller to refuse with).
 */
export const copyCheckpoints = Effect.fn("StateTransfer.copy")(function* (
  w: TableReadsApi,
  pipeline: string,
  checkpoints: ReadonlyArray<CheckpointRecord>,
  replace: boolean
) {
  return yield* w.withConnection(`Cannot copy the checkpoints of ${pipeline}`, (conn) =>
    inTransaction(conn, async (): Promise<CopyResult> => {
      const existing = (await rowsOf(conn, `SELECT * FROM _checkpoints WHERE pipeline = ? ORDER BY key`, [pipeline])).map(
        toCheckpointRecord
      )
      if (existing.length > 0 && !replace) return { copied: 0, replaced: existing }
      await conn.run(`DELETE FROM _checkpoints WHERE pipeline = ?`, [pipeline])
      for (const c of checkpoints) {
        await conn.run(
          `INSERT INTO _checkpoints (pipeline, run_id, key, value, done, updated_at) VALUES (?, ?, ?, ?, ?, CAST(? AS TIMESTAMP))`,
          [pipeline, c.runId, c.key, JSON.stringify(c.value), c.done, c.updatedAt.replace("Z", "")]
        )
      }
      return { copied: checkpoints.length, replaced: existing }
    })
  )
})

/**
 * Sets the position of one slice that has a checkpoint (its finished flag and run id stay); returns
 * the checkpoint as it was.
 */
export const setCheckpoint = Effect.fn("StateTransfer.set")(function* (w: TableReadsApi, pipeline: string, key: string, value: unknown) {
  return yield* w.withConnection(`Cannot set the checkpoint ${pipeline} ${key}`, (conn) =>
    inTransaction(conn, async (): Promise<CheckpointRecord | undefined> => {
      const before = await rowsOf(conn, `SELECT * FROM _checkpoints WHERE pipeline = ? AND key = ?`, [pipeline, key])
      if (before.length === 0) return undefined
      await conn.run(`UPDATE _checkpoints SET value = ?, updated_at = CAST(now() AS TIMESTAMP) WHERE pipeline = ? AND key = ?`, [
        JSON.stringify(value),
        pipeline,
        key
      ])
      return toCheckpointRecord(before[0]!)
    })
  )
})
