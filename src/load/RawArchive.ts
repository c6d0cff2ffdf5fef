/**
 * Raw archive: each page's response body as received, gzip-compressed, under
 * `<root>/<pipeline>/<run_id>/`: the pages a group commit lands go into one file,
 * `<first seq>-<last seq>.json.gz`, one gzip member a page (so `zcat` prints them in order), and
 * `_raw_pages.path` names a page as `<file>#<offset>+<length>` (the whole file when it holds one
 * page). Archives written before groups, one `<seq>.json.gz` a page, read as before.
 * Assumed: `seq` is the page's number within its run (pages committed so far + 1), so a retried
 * commit of the same pages rewrites its own file; the page key is kept in `_raw_pages`.
 * Measured on a 207,071-property sourcing run (1,041 pages): a file a page cost about 1.2 s of
 * CPU (open, write, close, a span and a promise a page); a file a group about half of it.
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
import * as fsSync from "node:fs"
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
const groupName = (first: number, last: number) => `${String(first).padStart(6, "0")}-${String(last).padStart(6, "0")}.json.gz`
const GROUP = /^(\d+)-(\d+)\.json\.gz$/
/** A page inside a group file: `<file>#<offset>+<length>`. */
const MEMBER = /^(.*)#(\d+)\+(\d+)$/

/** Node writes gzip members with a fixed 10-byte header (no name, no extra) and an 8-byte trailer. */
const GZIP_HEADER = 10
const GZIP_TRAILER = 8

/** Where each gzip member of a group file starts and how long it is. */
const membersOf = (bytes: Buffer): Array<{ readonly offset: number; readonly length: number }> => {
  const out: Array<{ offset: number; length: number }> = []
  for (let offset = 0; offset < bytes.length;) {
    const { engine } = zlib.inflateRawSync(bytes.subarray(offset + GZIP_HEADER), { info: true }) as unknown as {
      engine: { bytesWritten: number }
    }
    const length = GZIP_HEADER + engine.bytesWritten + GZIP_TRAILER
    out.push({ offset, length })
    offset += length
  }
  return out
}

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

  /**
   * Writes the bodies of consecutive pages of one run (`seqs` ascending) as one group file;
   * returns where each went (`path` as `_raw_pages` keeps it) and its compressed size.
   */
  const writeGroup = (
    pipeline: string,
    runId: string,
    pages: ReadonlyArray<{ readonly seq: number; readonly body: string | Uint8Array }>
  ) =>
    Effect.gen(function* () {
      const dir = yield* Effect.try({ try: () => runDir(pipeline, runId), catch: (e) => e as WarehouseError })
      const file = nodePath.join(dir, groupName(pages[0]!.seq, pages[pages.length - 1]!.seq))
      return yield* Effect.tryPromise({
        try: async () => {
          if (!made.has(dir)) {
            await fs.mkdir(dir, { recursive: true })
            made.add(dir)
          }
          const gz = await Promise.all(pages.map((p) => gzip(p.body, GZIP)))
          const all = gz.length === 1 ? gz[0]! : Buffer.concat(gz)
          await fs.writeFile(file, all).catch(async (e: NodeJS.ErrnoException) => {
            if (e.code !== "ENOENT") throw e
            await fs.mkdir(dir, { recursive: true }) // the folder was removed meanwhile
            await fs.writeFile(file, all)
          })
          let offset = 0
          return gz.map((g) => {
            const path = gz.length === 1 ? file : `${file}#${offset}+${g.byteLength}`
            offset += g.byteLength
            return { path, bytes: g.byteLength }
          })
        },
        catch: io("Cannot write raw pages", file)
      })
    }).pipe(Effect.withSpan("RawArchive.writeGroup", { attributes: { pages: pages.length } }))

  /** The archived pages of a run, in page order. */
  const list = (pipeline: string, runId: string) =>
    Effect.gen(function* () {
      const dir = yield* Effect.try({ try: () => runDir(pipeline, runId), catch: (e) => e as WarehouseError })
      const names = yield* Effect.tryPromise({
        try: () => fs.readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : Promise.reject(e))),
        catch: io("Cannot list raw pages in", dir)
      })
      const pages: Array<RawPage> = []
      for (const n of names) {
        const file = nodePath.join(dir, n)
        if (/^\d+\.json\.gz$/.test(n)) pages.push({ pipeline, runId, seq: Number.parseInt(n, 10), path: file })
        const group = GROUP.exec(n)
        if (group === null) continue
        const members = yield* Effect.try({ try: () => membersOf(fsSync.readFileSync(file)), catch: io("Cannot read raw pages in", file) })
        const first = Number.parseInt(group[1]!, 10)
        members.forEach((m, i) =>
          pages.push({ pipeline, runId, seq: first + i, path: members.length === 1 ? file : `${file}#${m.offset}+${m.length}` })
        )
      }
      return pages.sort((a, b) => a.seq - b.seq)
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

  /** The body of one archived page, decompressed (a whole file, or a member of a group file). */
  const read = (page: RawPage | string) => {
    const path = typeof page === "string" ? page : page.path
    const member = MEMBER.exec(path)
    return Effect.tryPromise({
      try: async () => {
        if (member === null) return (await gunzip(await fs.readFile(path))).toString("utf8")
        const handle = await fs.open(member[1]!, "r")
        try {
          const length = Number(member[3])
          const bytes = Buffer.alloc(length)
          const { bytesRead } = await handle.read(bytes, 0, length, Number(member[2]))
          return (await gunzip(bytes.subarray(0, bytesRead))).toString("utf8")
        } finally {
          await handle.close()
        }
      },
      catch: io("Cannot read raw page", member?.[1] ?? path)
    })
  }

  return { root, write, writeGroup, list, runs, read } as const
}

export type RawArchive = ReturnType<typeof makeRawArchive>
