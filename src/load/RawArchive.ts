/**
 * Raw archive: each page's response body, gzip-compressed, under
 * `<root>/<pipeline>/<run_id>/<seq>.json.gz` (seq zero-padded, 1-based, in page order).
 * Assumed: `seq` is the page's number within its run (pages committed so far + 1), so a retried
 * commit of the same page overwrites its own file; the page key is kept in `_raw_pages`.
 *
 * Why files and not a BLOB table: bodies are written once and read only by `reload`, so keeping
 * them out of the warehouse keeps it small to copy, merge and export; `zcat` reads them without
 * the toolkit, and pruning old runs is deleting a folder. The warehouse still knows which pages
 * committed: the page transaction records each file in `_raw_pages` (key, path, size), and a file
 * without such a row belongs to a page that never committed.
 *
 * A file is written in place: a body cut short by a crash belongs to a page that never committed
 * (no `_raw_pages` row points at it, `reload` reads only those), and the resume rewrites it.
 * Bodies are compressed at gzip level 3: measured on sourcing pages, a third less CPU than the
 * default level 6 for files 15% larger.
 */
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import { causeMessage, WarehouseError } from "./WarehouseError.js"

const gzip = promisify(zlib.gzip)
const GZIP = { level: 3 }
const gunzip = promisify(zlib.gunzip)

export interface RawPage {
  readonly pipeline: string
  readonly runId: string
  readonly seq: number
  readonly path: string
}

const io = (what: string, path: string) => (cause: unknown) =>
  new WarehouseError({ reason: "Io", path, cause, detail: `${what} ${path}: ${causeMessage(cause)}` })

/** A path segment from an id: refuses separators and dot-dot so ids cannot escape the root. */
const segment = (id: string) => {
  if (id.length === 0 || id === "." || id === ".." || /[/\\\0]/.test(id)) {
    throw new WarehouseError({ reason: "Io", detail: `"${id}" cannot be used as a folder name in the raw archive` })
  }
  return id
}

const fileName = (seq: number) => `${String(seq).padStart(6, "0")}.json.gz`

export const makeRawArchive = (root: string) => {
  const runDir = (pipeline: string, runId: string) => nodePath.join(root, segment(pipeline), segment(runId))
  const made = new Set<string>()

  /** Writes one page body; returns where it went and its compressed size. */
  const write = (pipeline: string, runId: string, seq: number, body: string) =>
    Effect.gen(function* () {
      const dir = yield* Effect.try({ try: () => runDir(pipeline, runId), catch: (e) => e as WarehouseError })
      const path = nodePath.join(dir, fileName(seq))
      const bytes = yield* Effect.tryPromise({
        try: async () => {
          if (!made.has(dir)) {
            await fs.mkdir(dir, { recursive: true })
            made.add(dir)
          }
          const gz = await gzip(body, GZIP)
          await fs.writeFile(path, gz).catch(async (e: NodeJS.ErrnoException) => {
            if (e.code !== "ENOENT") throw e
            await fs.mkdir(dir, { recursive: true }) // the folder was removed meanwhile
            await fs.writeFile(path, gz)
          })
          return gz.byteLength
        },
        catch: io("Cannot write raw page", path)
      })
      return { path, bytes }
    }).pipe(Effect.withSpan("RawArchive.write"))

  /** The archived pages of a run, in page order. */
  const list = (pipeline: string, runId: string) =>
    Effect.gen(function* () {
      const dir = yield* Effect.try({ try: () => runDir(pipeline, runId), catch: (e) => e as WarehouseError })
      const names = yield* Effect.tryPromise({
        try: () => fs.readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : Promise.reject(e))),
        catch: io("Cannot list raw pages in", dir)
      })
      return names
        .filter((n) => /^\d+\.json\.gz$/.test(n))
        .map((n): RawPage => ({ pipeline, runId, seq: Number.parseInt(n, 10), path: nodePath.join(dir, n) }))
        .sort((a, b) => a.seq - b.seq)
    })

  /** Runs of a pipeline that have archived pages (folder names, sorted). */
  const runs = (pipeline: string) =>
    Effect.gen(function* () {
      const dir = nodePath.join(root, yield* Effect.try({ try: () => segment(pipeline), catch: (e) => e as WarehouseError }))
      const entries = yield* Effect.tryPromise({
        try: () =>
          fs.readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : Promise.reject(e))),
        catch: io("Cannot list raw runs in", dir)
      })
      return entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    })

  /** The body of one archived page, decompressed. */
  const read = (page: RawPage | string) => {
    const path = typeof page === "string" ? page : page.path
    return Effect.tryPromise({
      try: async () => (await gunzip(await fs.readFile(path))).toString("utf8"),
      catch: io("Cannot read raw page", path)
    })
  }

  return { root, write, list, runs, read } as const
}
