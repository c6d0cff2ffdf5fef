/**
 * A small CSV reader for key lists (targets of comparables, links to resolve): a header row,
 * comma-separated, double quotes around fields that hold commas or quotes (`""` inside).
 * Files of key lists are small; the whole file is read at once.
 */
import * as fs from "node:fs"

const splitLine = (line: string): Array<string> => {
  const out: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quoted) {
      if (ch === "\"" && line[i + 1] === "\"") field += "\"", i++
      else if (ch === "\"") quoted = false
      else field += ch
    } else if (ch === "\"") quoted = true
    else if (ch === ",") out.push(field), field = ""
    else field += ch
  }
  out.push(field)
  return out.map((f) => f.trim())
}

/** Rows of a CSV text as objects by header name; empty cells are absent. */
export const parseCsv = (text: string): Array<Record<string, string>> => {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"))
  if (lines.length === 0) return []
  const header = splitLine(lines[0]!)
  return lines.slice(1).map((line) => {
    const cells = splitLine(line)
    const row: Record<string, string> = {}
    header.forEach((h, i) => {
      if (cells[i] !== undefined && cells[i] !== "") row[h] = cells[i]!
    })
    return row
  })
}

export const readCsv = (path: string): Array<Record<string, string>> => parseCsv(fs.readFileSync(path, "utf8"))
