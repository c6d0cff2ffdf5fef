/**
 * The page journal: every paid page, as it arrives, appended to a file beside the warehouse
 * before its slice may fetch the next one. The warehouse then lands journaled pages in large
 * groups, off the fetch path; a run that was killed replays its journal (pages numbered past
 * `_runs.pages`) before it fetches anything, so a page that reached the journal is never paid
 * twice. What a kill can lose is only the calls in flight (`budget.paidInFlight`).
 *
 * Layout: `<warehouse file>.journal/<pipeline>/<run_id>/<segment>.ndjson`, one JSON line per page,
 * `SEGMENT_PAGES` pages a segment; a segment is deleted once all its pages are in the warehouse,
 * the run's folder once the run has ended. A line cut short by a kill is ignored on replay (its
 * page was never acknowledged, so its slice's checkpoint still points before it).
 *
 * Assumed: surviving a killed process is what counts (SIGKILL, OOM, a closed terminal). Lines are
 * written with one `write` each and no `fsync`: the kernel keeps them when the process dies, but
 * a power cut or kernel crash may lose the pages since the warehouse's last commit (DuckDB's own
 * commit does `fsync`), which the resume then pays again.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { PageCommit } from "./PageCommit.js"
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
        }
        const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8")
        for (let off = 0; off < line.length;) off += fs.writeSync(fd, line, off)
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
      const path = nodePath.join(dir, name)
      const text = fs.readFileSync(path, "utf8")
      for (const line of text.split("\n")) {
        if (line.length === 0) continue
        let entry: JournalEntry
        try {
          entry = JSON.parse(line) as JournalEntry
        } catch {
          continue // a line cut short by a kill: its page was never acknowledged
        }
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
