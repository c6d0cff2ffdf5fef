/**
 * The `.gitignore` `estate-etl init` leaves in a repository: what must never be committed (the
 * data folder, `.env`, `node_modules/`, a warehouse's side files). It is never overwritten, not
 * even with `--force`: a `.gitignore` that exists gets only the lines it lacks, appended under a
 * comment; one that has them all is left as it is.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { InvalidInput } from "../shared/InvalidInput.js"

export const GITIGNORE = ".gitignore"

/** One pattern the repository needs ignored, with the comment put above it. */
interface IgnoreLine {
  readonly pattern: string
  readonly why: string
}

/** What `init`'s settings write and what holds secrets, in the order the file lists them. */
export const IGNORE_LINES: ReadonlyArray<IgnoreLine> = [
  { pattern: "data/", why: "the warehouse, its page journal, the raw archive, Parquet and Arrow exports (settings: warehouse, output)" },
  { pattern: ".env", why: "credentials: the command line reads .env itself (.env.example lists the names)" },
  { pattern: "node_modules/", why: "npm's packages" },
  {
    pattern: "*.duckdb.wal",
    why: "a warehouse's side files wherever the settings put it: DuckDB's WAL, a rewrite's temporary, the page journal"
  },
  { pattern: "*.duckdb.tmp", why: "" },
  { pattern: "*.duckdb.journal/", why: "" }
]

/**
 * A pattern as it is compared: `data`, `/data`, `data/`, `/data/`, `data/*` and `data/**` all keep
 * `data/` out of git at the root (the spellings people use), so an existing one is not added again.
 */
const normal = (line: string): string =>
  line
    .trim()
    .replace(/^\//, "")
    .replace(/\/\*\*?$/, "")
    .replace(/\/$/, "")

const withComments = (lines: ReadonlyArray<IgnoreLine>): Array<string> =>
  lines.flatMap((l) => (l.why === "" ? [l.pattern] : [`# ${l.why}`, l.pattern]))

export const gitIgnoreText = (): string =>
  ["# Written by `npx estate-etl init`: what must not be committed.", ...withComments(IGNORE_LINES), ""].join("\n")

/** What `mergeGitIgnore` did: `wrote` a new file, `appended` the missing lines, or left it `complete`. */
export type GitIgnoreResult =
  | { readonly kind: "wrote" }
  | { readonly kind: "appended"; readonly added: ReadonlyArray<string>; readonly had: ReadonlyArray<string> }
  | { readonly kind: "complete" }

/** The patterns of `IGNORE_LINES` that `text` (a `.gitignore`) lacks. */
export const missingIgnoreLines = (text: string): ReadonlyArray<IgnoreLine> => {
  const present = new Set(
    text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
      .map(normal)
  )
  return IGNORE_LINES.filter((l) => !present.has(normal(l.pattern)))
}

/** Writes `dir/.gitignore`, or appends to the one there the lines it lacks; never replaces a line. */
export const mergeGitIgnore = (dir: string, field: string): Effect.Effect<GitIgnoreResult, InvalidInput> =>
  Effect.try({
    try: (): GitIgnoreResult => {
      const file = nodePath.join(dir, GITIGNORE)
      if (!fs.existsSync(file)) {
        fs.mkdirSync(dir, { recursive: true })
        fs.writeFileSync(file, gitIgnoreText())
        return { kind: "wrote" }
      }
      const text = fs.readFileSync(file, "utf8")
      const missing = missingIgnoreLines(text)
      if (missing.length === 0) return { kind: "complete" }
      // a lone follower line loses the comment its group's first line carries: give it its own
      const lines = missing.map((l) => (l.why === "" ? { ...l, why: "a warehouse's side file" } : l))
      const eol = text.includes("\r\n") ? "\r\n" : "\n"
      // after a blank line (the last line ended first, when it did not)
      const before = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol
      const block = ["# Added by `npx estate-etl init`: what must not be committed.", ...withComments(lines)]
      fs.appendFileSync(file, before + block.join(eol) + eol)
      const added = missing.map((l) => l.pattern)
      return { kind: "appended", added, had: IGNORE_LINES.map((l) => l.pattern).filter((p) => !added.includes(p)) }
    },
    catch: (e) => new InvalidInput({ field, detail: `cannot write ${GITIGNORE} in ${dir}: ${(e as Error).message}` })
  })

/** The line `init` prints about the `.gitignore`, aligned like `wroteLines` (`width`: its path column). */
export const gitIgnoreLine = (result: GitIgnoreResult, width: number): string => {
  const path = GITIGNORE.padEnd(width)
  switch (result.kind) {
    case "wrote":
      return `wrote ${path}  keeps data/, .env, node_modules/ and a warehouse's side files out of git`
    case "appended":
      return `appended to ${GITIGNORE} (it existed; its own lines kept): ${result.added.join(", ")}`
    case "complete":
      return `kept ${GITIGNORE} as it was: it ignores data/, .env, node_modules/ and a warehouse's side files already`
  }
}
