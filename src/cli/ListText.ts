/**
 * `list` as text: the pipelines' table and the sets, within the terminal's width (at most 100
 * columns; the tables and description columns are cut), or every column in full with `--wide`.
 */
import { outputWidth, table, wrap } from "./Format.js"

export interface PipelineRow {
  readonly pipeline: string
  readonly host: string
  readonly operation: string
  readonly units_per_call: number
  readonly tables: string
  readonly description: string
}

export const listText = (
  rows: ReadonlyArray<PipelineRow>,
  sets: Readonly<Record<string, ReadonlyArray<string>>>,
  wide: boolean
): string => {
  const width = wide ? undefined : outputWidth()
  const shown = rows.map(({ units_per_call, ...r }) => ({ ...r, units: units_per_call }))
  const columns = ["pipeline", "host", "operation", "units", "tables", "description"]
  const lines = [table(shown, columns, width === undefined ? undefined : { width, shrink: ["tables", "description"] })]
  for (const [set, members] of Object.entries(sets)) {
    const text = `set ${set}: ${members.join(", ")}`
    lines.push(...(width === undefined ? [text] : wrap(text, width - 2).map((l, i) => (i === 0 ? l : `  ${l}`))))
  }
  return lines.join("\n") + "\n"
}
