/**
 * Comparing a warehouse with a clean run's: per table the rows, distinct keys and a content
 * checksum (tools/chaos.ts `tableFigures`), and, where records drifted, per key: every record the
 * sandbox did not drift lands exactly as in the clean run, and every drifted one either lands or
 * is in `_rejects`.
 */
import { primaryKeysOf, readWarehouse, RUN_COLUMNS, tableFigures, type TableFigure } from "../support/chaos.js"

export const figuresOf = async (file: string, pipelines: ReadonlyArray<string>): Promise<Record<string, TableFigure>> =>
  tableFigures(file, Object.assign({}, ...pipelines.map(primaryKeysOf)))

const q = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Key -> content hash of every row of `table` (key columns joined by `|`). */
export const rowHashes = async (file: string, table: string, key: ReadonlyArray<string>): Promise<Map<string, string>> => {
  const cols = await readWarehouse<{ c: string }>(
    file,
    `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '${table}' ORDER BY ordinal_position`
  )
  const content = cols.map((r) => r.c).filter((c) => !c.startsWith("_") && !RUN_COLUMNS.has(c))
  const rows = await readWarehouse<{ k: string; h: string }>(
    file,
    `SELECT concat_ws('|', ${key.map((k) => `CAST(${q(k)} AS VARCHAR)`).join(", ")}) AS k, CAST(hash(${content.map(q).join(", ")}) AS VARCHAR) AS h FROM ${q(table)}`
  )
  return new Map(rows.map((r) => [r.k, r.h]))
}

export interface DriftCheck {
  readonly cleanRows: number
  readonly rows: number
  readonly rejects: number
  /** Keys of records the sandbox did not drift whose row differs from the clean run's, or is missing. */
  readonly changedUndrifted: ReadonlyArray<string>
  /** Keys present that the clean run does not have. */
  readonly unknown: ReadonlyArray<string>
}

/** Drift-aware comparison of one table whose records carry the key `id`. */
export const driftCheck = async (
  cleanFile: string,
  file: string,
  table: string,
  pipeline: string,
  drifted: (id: string) => boolean
): Promise<DriftCheck> => {
  const clean = await rowHashes(cleanFile, table, ["id"])
  const got = await rowHashes(file, table, ["id"])
  const [r] = await readWarehouse<{ n: bigint | number }>(file, `SELECT count(*) AS n FROM _rejects WHERE pipeline = '${pipeline}'`)
  return {
    cleanRows: clean.size,
    rows: got.size,
    rejects: Number(r!.n),
    changedUndrifted: [...clean].filter(([k, h]) => !drifted(k) && got.get(k) !== h).map(([k]) => k),
    unknown: [...got.keys()].filter((k) => !clean.has(k))
  }
}
