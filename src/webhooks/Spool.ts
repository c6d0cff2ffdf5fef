/**
 * The receiver's spool: an append-only NDJSON file of verified deliveries. A delivery is
 * acknowledged only after its line is written and `fsync`ed, so whatever was acknowledged
 * survives a crash of the process or the machine.
 *
 * Contract:
 * - one line per delivery: `{"id","timestamp","receivedAt","body"}` (`body` is the raw request
 *   body as text, exactly the bytes that were signed);
 * - concurrent appends are group-committed: every line waiting when a write starts goes in one
 *   `write` + `fsync`, and each append resolves when its own line is durable;
 * - a crash can leave a torn last line (no trailing newline). It was never acknowledged, so
 *   `openSpool` cuts it off before appending; `readSpool` ignores it;
 * - after a failed write the spool refuses further appends (the file may end in a partial line
 *   until the next `openSpool` cuts it).
 */
import { Data, Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"

export class SpoolError extends Data.TaggedError("SpoolError")<{
  readonly reason: "Open" | "Read" | "Write"
  readonly path: string
  readonly cause?: unknown
}> {
  override get message() {
    return `Spool ${this.reason.toLowerCase()} failed: ${this.path}${this.cause instanceof Error ? ` (${this.cause.message})` : ""}`
  }
}

/** A verified delivery as spooled. */
export interface SpoolEntry {
  /** `webhook-id`: the delivery id, the key of idempotency. */
  readonly id: string
  /** `webhook-timestamp`, Unix seconds. */
  readonly timestamp: number
  /** When the receiver accepted it, epoch ms. */
  readonly receivedAt: number
  /** The raw body, as signed. */
  readonly body: string
}

/** An entry read back, with the byte offset just after its line (the loader's checkpoint). */
export interface SpooledEntry extends SpoolEntry {
  readonly end: number
}

export interface SpoolRead {
  readonly entries: ReadonlyArray<SpooledEntry>
  /** Offset after the last complete line read. */
  readonly end: number
  /** Complete lines that are not a spool entry (never written by this module; skipped). */
  readonly corrupt: number
}

const NL = 0x0a

const isEntry = (v: unknown): v is SpoolEntry =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as SpoolEntry).id === "string" &&
  typeof (v as SpoolEntry).body === "string" &&
  typeof (v as SpoolEntry).timestamp === "number" &&
  typeof (v as SpoolEntry).receivedAt === "number"

/** Parses complete lines of `buf`, which starts at file offset `base`. */
const parseLines = (buf: Buffer, base: number): SpoolRead => {
  const entries: Array<SpooledEntry> = []
  let corrupt = 0
  let start = 0
  for (let nl = buf.indexOf(NL, start); nl >= 0; nl = buf.indexOf(NL, start)) {
    const line = buf.subarray(start, nl).toString("utf8")
    start = nl + 1
    if (line.trim() === "") continue
    try {
      const v = JSON.parse(line) as unknown
      if (isEntry(v)) entries.push({ id: v.id, timestamp: v.timestamp, receivedAt: v.receivedAt, body: v.body, end: base + start })
      else corrupt += 1
    } catch {
      corrupt += 1
    }
  }
  return { entries, end: base + start, corrupt }
}

/**
 * Complete lines from byte `from` on (a torn last line is left out). A missing file reads empty;
 * a file shorter than `from` is read from the start.
 */
export const readSpool = (path: string, from = 0): Effect.Effect<SpoolRead, SpoolError> =>
  Effect.tryPromise({
    try: async () => {
      let fh: fs.promises.FileHandle
      try {
        fh = await fs.promises.open(path, "r")
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], end: from, corrupt: 0 }
        throw e
      }
      try {
        const size = (await fh.stat()).size
        // A file shorter than the offset was replaced: read it from the start (loading is idempotent).
        const start = from > size ? 0 : from
        const buf = Buffer.alloc(size - start)
        if (buf.length > 0) await fh.read(buf, 0, buf.length, start)
        return parseLines(buf, start)
      } finally {
        await fh.close()
      }
    },
    catch: (cause) => new SpoolError({ reason: "Read", path, cause })
  }).pipe(Effect.withSpan("Spool.read"))

export interface Spool {
  readonly path: string
  /** Delivery ids already in the file when it was opened (the receiver's replay cache starts from them). */
  readonly existingIds: ReadonlyArray<string>
  /** Appends one entry; succeeds once it is on disk (written and fsynced). */
  readonly append: (entry: SpoolEntry) => Effect.Effect<void, SpoolError>
}

interface Waiter {
  readonly line: Buffer
  readonly done: (error: unknown) => void
}

/** Opens (creating) the spool for appending, for the scope; cuts a torn last line first. */
export const openSpool = (path: string): Effect.Effect<Spool, SpoolError, Scope.Scope> =>
  Effect.gen(function* () {
    const opened = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          await fs.promises.mkdir(nodePath.dirname(nodePath.resolve(path)), { recursive: true })
          const fh = await fs.promises.open(path, "a+")
          const size = (await fh.stat()).size
          const buf = Buffer.alloc(size)
          if (size > 0) await fh.read(buf, 0, size, 0)
          const read = parseLines(buf, 0)
          if (read.end < size) {
            // Torn tail: never acknowledged (the ack follows the fsync of a whole line).
            await fh.truncate(read.end)
            await fh.sync()
          }
          return { fh, ids: read.entries.map((e) => e.id) }
        },
        catch: (cause) => new SpoolError({ reason: "Open", path, cause })
      }),
      ({ fh }) => Effect.promise(() => fh.close().catch(() => undefined))
    )
    const { fh } = opened
    let queue: Array<Waiter> = []
    let writing = false
    let broken: unknown = undefined

    const drain = async () => {
      writing = true
      while (queue.length > 0) {
        const batch = queue
        queue = []
        let error: unknown = broken
        if (error === undefined) {
          try {
            await fh.write(Buffer.concat(batch.map((w) => w.line)))
            await fh.sync()
          } catch (e) {
            error = e
            broken = e
          }
        }
        for (const w of batch) w.done(error)
      }
      writing = false
    }

    const append = (entry: SpoolEntry) =>
      Effect.async<void, SpoolError>((resume) => {
        const line = Buffer.from(
          JSON.stringify({ id: entry.id, timestamp: entry.timestamp, receivedAt: entry.receivedAt, body: entry.body }) + "\n",
          "utf8"
        )
        queue.push({
          line,
          done: (error) => resume(error === undefined ? Effect.void : Effect.fail(new SpoolError({ reason: "Write", path, cause: error })))
        })
        if (!writing) void drain()
      })

    return { path, existingIds: opened.ids, append } satisfies Spool
  })
