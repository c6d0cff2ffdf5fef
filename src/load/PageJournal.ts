/**
 * The page journal: every paid page, as it arrives, appended to a file beside the warehouse
 * before its slice may fetch the next one. The warehouse then lands journaled pages in large
 * groups, off the fetch path; a run that was killed replays its journal (pages numbered past
 * `_runs.pages`) before it fetches anything, so a page that reached the journal is never paid
 * twice. What a kill can lose is only the calls in flight (`budget.paidInFlight`).
 *
 * Layout: `<warehouse file>.journal/<pipeline>/<run_id>/<segment>.ndjson`, one frame per page,
 * `SEGMENT_PAGES` pages a segment; a segment is deleted once all its pages are in the warehouse,
 * the run's folder once the run has ended. A frame is one JSON line (the whole entry), or, when
 * the records are exactly a list inside the raw body (`recordsAt`), a JSON line without records
 * and body that says `rawBytes`, then the body as received and a newline: the page is serialised
 * once, as its bytes, and the records are parsed from them again only on replay (measured: 1.0 ms
 * a page for the whole entry as JSON). A frame cut short by a kill is ignored on replay (its page
 * was never acknowledged, so its slice's checkpoint still points before it), and cut off the
 * segment before the resumed run appends to it.
 *
 * Assumed: surviving a killed process is what counts (SIGKILL, OOM, a closed terminal). Lines are
 * written with one `write` each and no `fsync`: the kernel keeps them when the process dies, but
 * a power cut or kernel crash may lose the pages since the warehouse's last commit (DuckDB's own
 * commit does `fsync`), which the resume then pays again.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { recordsAtPath } from "../service/ResponseShape.js"
import type { PageCommit } from "./PageCommit.js"
import { parseJson, stringifyJson } from "../shared/ExactJson.js"
import { causeMessage, WarehouseError } from "./WarehouseError.js"

/** Pages per segment file (about 10 MB for sourcing pages of 200). */
export const SEGMENT_PAGES = 64

/** One journaled page: what the runner needs to land it without calling the service again. */
export interface JournalEntry {
  /** The page's number within its run, 1-based: `_runs.pages` once it is committed. */
  readonly seq: number
  readonly slice: string
  /** The page's number within its slice in this run (0-based). */
  readonly sliceSeq: number
  readonly records: ReadonlyArray<unknown>
  readonly checkpoint: NonNullable<PageCommit["checkpoint"]>
  readonly ledger: PageCommit["ledger"]
  readonly units: number
  readonly requests: number
  readonly retries: number
  /** Answers 429 among the page's attempts (absent in journals written before it was counted). */
  readonly throttled?: number | undefined
  readonly raw?: PageCommit["raw"]
  /** What the service declared the slice holds, as of this page. */
  readonly declared?: number | undefined
  /** Why the slice ended early (on its last page). */
  readonly end?: NonNullable<PageCommit["slice"]>["end"]
  /** The slice's key was unknown to the service. */
  readonly missing?: PageCommit["missing"]
  /** `records` is exactly the list at this path of `raw.body` (see `Fetched.recordsAt`). */
  readonly recordsAt?: string | undefined
  /** Keys new to the slice (`Page.fresh`; absent in journals of older toolkits: the records count). */
  readonly fresh?: number | undefined
  /** Their hashes (`Page.freshKeys`), as plain numbers (exact in JSON: below 2^53). */
  readonly freshKeys?: ReadonlyArray<number> | undefined
  /** When the page's fetch began and its wall time, ms (`Page.timing`; absent in journals of older toolkits). */
  readonly timing?: { readonly startedAt: string; readonly ms: number } | undefined
  /** The operation that answered (`Fetched.operation`), when the page says. */
  readonly operation?: string | undefined
}

/** The header of a frame whose records are re-read from the body that follows it. */
interface FrameHead extends Omit<JournalEntry, "records" | "raw"> {
  readonly rawKey: string
  readonly rawBytes: number
  readonly rawRequest?: NonNullable<JournalEntry["raw"]>["request"]
}

const NL = 0x0a

const textOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** One page's frame: the body as received when the records can be re-read from it, else the entry as JSON. */
const encode = (entry: JournalEntry): Buffer => {
  if (entry.recordsAt === undefined || entry.raw === undefined) {
    const text =
      entry.raw === undefined || typeof entry.raw.body === "string"
        ? entry
        : { ...entry, raw: { ...entry.raw, body: textOf(entry.raw.body) } }
    return Buffer.from(`${stringifyJson(text)}\n`, "utf8")
  }
  const { records: _records, raw, ...rest } = entry
  const body = typeof raw.body === "string" ? Buffer.from(raw.body, "utf8") : raw.body
  const head: FrameHead = {
    ...rest,
    rawKey: raw.pageKey,
    rawBytes: body.length,
    ...(raw.request ? { rawRequest: raw.request } : {})
  }
  return Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`, "utf8"), body, Buffer.from([NL])])
}

/** The whole frames of a segment, in file order, and where the last whole frame ends. */
const decodeFrames = (bytes: Buffer): { readonly entries: Array<JournalEntry>; readonly end: number } => {
  const entries: Array<JournalEntry> = []
  let pos = 0
  let end = 0
  while (pos < bytes.length) {
    const nl = bytes.indexOf(NL, pos)
    if (nl < 0) break // a frame cut short by a kill
    let head: JournalEntry | FrameHead
    try {
      head = parseJson(bytes.toString("utf8", pos, nl)) as JournalEntry | FrameHead
    } catch {
      pos = nl + 1 // a line cut short by a kill, written before frames were checked on resume
      continue
    }
    if (!("rawBytes" in head)) {
      entries.push(head)
      pos = end = nl + 1
      continue
    }
    const bodyEnd = nl + 1 + head.rawBytes
    if (bodyEnd >= bytes.length || bytes[bodyEnd] !== NL) break // its body was cut short
    const body = bytes.toString("utf8", nl + 1, bodyEnd)
    const records = head.recordsAt === undefined ? undefined : recordsAtPath(parseJson(body), head.recordsAt)
    if (records === undefined)
      throw new WarehouseError({ reason: "Io", detail: `Page journal: page ${head.seq} has no records at "${head.recordsAt}"` })
    const { rawKey, rawBytes: _bytes, rawRequest, ...rest } = head
    entries.push({ ...rest, records, raw: { pageKey: rawKey, body, ...(rawRequest ? { request: rawRequest } : {}) } })
    pos = end = bodyEnd + 1
  }
  return { entries, end }
}

const segmentOf = (seq: number) => Math.floor((seq - 1) / SEGMENT_PAGES)
const segmentFile = (segment: number) => `${String(segment).padStart(6, "0")}.ndjson`

const io = (what: string, path: string, cause: unknown) =>
  new WarehouseError({ reason: "Io", path, cause, detail: `${what} ${path}: ${causeMessage(cause)}` })

const safeSegment = (id: string) => {
  if (id.length === 0 || id === "." || id === ".." || /[/\\\0]/.test(id)) {
    throw new WarehouseError({ reason: "Io", detail: `"${id}" cannot be used as a folder name in the page journal` })
  }
  return id
}

/** A journal step as an effect (its only failure is a `WarehouseError` of reason `Io`). */
export const journalIo = <A>(f: () => A): Effect.Effect<A, WarehouseError> =>
  Effect.try({
    try: f,
    catch: (e) => (e instanceof WarehouseError ? e : new WarehouseError({ reason: "Io", detail: `Page journal: ${String(e)}` }))
  })
export type JournalWriter = ReturnType<PageJournal["open"]>

/** A run's writer as a scoped resource: its segment file is closed when the scope closes, whatever ended the run. */
export const openWriter = (
  journal: PageJournal,
  pipeline: string,
  runId: string
): Effect.Effect<JournalWriter, WarehouseError, Scope.Scope> =>
  Effect.acquireRelease(
    journalIo(() => journal.open(pipeline, runId)),
    (writer) => Effect.sync(() => writer.close())
  )

/** The journal of one warehouse file. Every method throws `WarehouseError` (reason `Io`). */
export const makePageJournal = (root: string) => {
  const pipelineDir = (pipeline: string) => nodePath.join(root, safeSegment(pipeline))
  const runDir = (pipeline: string, runId: string) => nodePath.join(pipelineDir(pipeline), safeSegment(runId))

  /** A writer for one run: `append` is synchronous, so a page is in the journal before anything else runs. */
  const open = (pipeline: string, runId: string) => {
    const dir = runDir(pipeline, runId)
    let fd: number | undefined
    let segment = -1
    let kept = 0 // segments below this one are deleted
    const close = () => {
      if (fd !== undefined) fs.closeSync(fd)
      fd = undefined
    }
    const append = (entry: JournalEntry) => {
      const s = segmentOf(entry.seq)
      const path = nodePath.join(dir, segmentFile(s))
      try {
        if (s !== segment || fd === undefined) {
          close()
          fs.mkdirSync(dir, { recursive: true })
          fd = fs.openSync(path, "a")
          segment = s
          // a resumed run appends after whole frames only: a frame cut by the kill would hide the next
          const size = fs.fstatSync(fd).size
          if (size > 0) {
            const { end } = decodeFrames(fs.readFileSync(path))
            if (end < size) fs.ftruncateSync(fd, end)
          }
        }
        const frame = encode(entry)
        for (let off = 0; off < frame.length;) off += fs.writeSync(fd, frame, off)
      } catch (cause) {
        throw io("Cannot write the page journal", path, cause)
      }
    }
    /** Forgets the segments whose pages are all committed (`seq` and before). */
    const committed = (seq: number) => {
      const upTo = Math.min(segmentOf(seq + 1), segment)
      for (; kept < upTo; kept++) fs.rmSync(nodePath.join(dir, segmentFile(kept)), { force: true })
    }
    /** Closes the writer and deletes the run's journal (every page of it is in the warehouse). */
    const finish = () => {
      close()
      fs.rmSync(dir, { recursive: true, force: true })
      // and the folders above it when nothing else is journaled there
      for (const up of [pipelineDir(pipeline), root]) {
        try {
          fs.rmdirSync(up)
        } catch {
          break // not empty (another run's journal), or already gone
        }
      }
    }
    return { append, committed, close, finish }
  }

  /** The run's journaled pages numbered after `after` (the pages the warehouse has), in order. */
  const pending = (pipeline: string, runId: string, after: number): Array<JournalEntry> => {
    const dir = runDir(pipeline, runId)
    let names: Array<string>
    try {
      names = fs
        .readdirSync(dir)
        .filter((n) => /^\d+\.ndjson$/.test(n))
        .sort()
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "ENOENT") return []
      throw io("Cannot read the page journal", dir, cause)
    }
    const out: Array<JournalEntry> = []
    for (const name of names) {
      for (const entry of decodeFrames(fs.readFileSync(nodePath.join(dir, name))).entries) {
        if (entry.seq > after) out.push(entry)
      }
    }
    out.sort((a, b) => a.seq - b.seq)
    // only the unbroken run of pages after `after` can be landed in order
    const ordered: Array<JournalEntry> = []
    for (const e of out) {
      if (e.seq !== after + ordered.length + 1) break
      ordered.push(e)
    }
    return ordered
  }

  /** Deletes every journal of a pipeline (a full refresh, or a fresh run after a finished one). */
  const discard = (pipeline: string) => fs.rmSync(pipelineDir(pipeline), { recursive: true, force: true })

  return { root, open, pending, discard } as const
}

export type PageJournal = ReturnType<typeof makePageJournal>
