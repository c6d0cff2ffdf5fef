/**
 * The CSV reader for key lists and inputs (comparables targets, links to resolve): RFC 4180
 * quoting (`""` inside quotes, commas and line breaks inside quoted cells), CRLF or LF, a UTF-8
 * byte-order mark ignored. Files of key lists are small; the whole file is read at once.
 */
import * as fs from "node:fs"

/** Splits CSV text into rows of cells; blank rows are dropped. */
export const csvRows = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = [],
    cell = "",
    quoted = false
  const source = text.replace(/^\uFEFF/, "")
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!
    if (quoted) {
      if (ch === '"' && source[i + 1] === '"') ((cell += '"'), i++)
      else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ",") (row.push(cell), (cell = ""))
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && source[i + 1] === "\n") i++
      ;(row.push(cell), rows.push(row), (row = []), (cell = ""))
    } else cell += ch
  }
  if (cell !== "" || row.length > 0) (row.push(cell), rows.push(row))
  return rows.filter((r) => r.some((c) => c.trim() !== ""))
}

/** Rows of a CSV text as objects by header name (cells trimmed; empty cells absent; `#` lines skipped). */
export const parseCsv = (text: string): Array<Record<string, string>> => {
  const [header, ...rows] = csvRows(text).filter((r) => !r[0]!.trimStart().startsWith("#"))
  if (header === undefined) return []
  const names = header.map((h) => h.trim())
  return rows.map((cells) => {
    const row: Record<string, string> = {}
    names.forEach((h, i) => {
      const v = cells[i]?.trim()
      if (v !== undefined && v !== "") row[h] = v
    })
    return row
  })
}

export const readCsv = (path: string): Array<Record<string, string>> => parseCsv(fs.readFileSync(path, "utf8"))
