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
import { decodeFrames, encode, type JournalEntry } from "./JournalFrame.js"
import { causeMessage, WarehouseError } from "./WarehouseError.js"

export { type JournalEntry, type RawBody, rawOf } from "./JournalFrame.js"

/** Pages per segment file (about 10 MB for sourcing pages of 200). */
export const SEGMENT_PAGES = 64

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
