/**
 * The page journal's frames (`PageJournal.ts`): what a journaled page is in memory (the walker's
 * page, numbered in its run, with the body kept for the raw archive) and on disk. On disk a
 * frame keeps the field names journals have always had, the page's fields side by side, so a
 * journal a killed run of an older toolkit left replays; this file is the one place that maps
 * one to the other.
 */
import { recordsAtPath } from "../service/ResponseShape.js"
import { isStalled, type Page } from "../extract/Page.js"
import type { Charge, PaidRequest } from "../extract/Source.js"
import { parseJson, stringifyJson } from "../shared/ExactJson.js"
import { WarehouseError } from "./WarehouseError.js"

/** One journaled page: the walker's page, numbered in its run, and the body kept for the raw archive. */
export interface JournalEntry<R = unknown> {
  /** The page's number within its run, 1-based: `_runs.pages` once it is committed. */
  readonly seq: number
  readonly page: Page<R>
  /**
   * The raw body for the archive, as received (bytes: they wait for their group outside V8's
   * heap; text once replayed). Absent when the run keeps no raw bodies.
   */
  readonly body?: string | Uint8Array | undefined
}

/** A raw body to archive with its page: its key in the run, the body, the paid request it answers. */
export interface RawBody {
  readonly pageKey: string
  readonly body: string | Uint8Array
  /** The paid request the body answers: recorded so a later run reuses it instead of buying it again. */
  readonly request?: PaidRequest | undefined
}

/**
 * What the archive keeps of a journaled page: its body, keyed by its place in the run, with the
 * request it answers (a page that ended its slice as a repeat is not an answer worth reusing).
 */
export const rawOf = (entry: JournalEntry): RawBody | undefined =>
  entry.body === undefined
    ? undefined
    : {
        pageKey: String(entry.seq - 1),
        body: entry.body,
        ...(entry.page.fetched.request && !isStalled(entry.page) ? { request: entry.page.fetched.request } : {})
      }

/**
 * A frame as it is on disk: the field names journals have always used (a journal left by a killed
 * run of an older toolkit replays), whatever the shape in memory. Optional fields absent from
 * older journals: `throttled`, `fresh`, `freshKeys`, `timing`, `operation`.
 */
interface Frame {
  readonly seq: number
  readonly slice: string
  readonly sliceSeq: number
  readonly records: ReadonlyArray<unknown>
  readonly checkpoint: Page["checkpoint"]
  readonly ledger: ReadonlyArray<Charge>
  readonly units: number
  readonly requests: number
  readonly retries: number
  readonly throttled?: number | undefined
  readonly raw?: RawBody | undefined
  readonly declared?: number | undefined
  readonly end?: Page["end"]
  readonly missing?: Page["missing"]
  /** `records` is exactly the list at this path of `raw.body` (see `Fetched.recordsAt`). */
  readonly recordsAt?: string | undefined
  readonly fresh?: number | undefined
  /** As plain numbers (exact in JSON: below 2^53). */
  readonly freshKeys?: ReadonlyArray<number> | undefined
  readonly timing?: Page["timing"]
  readonly operation?: string | undefined
}

/** The header of a frame whose records are re-read from the body that follows it. */
interface FrameHead extends Omit<Frame, "records" | "raw"> {
  readonly rawKey: string
  readonly rawBytes: number
  readonly rawRequest?: PaidRequest | undefined
}

const NL = 0x0a

const textOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** The on-disk fields of an entry (the frame's, without its records and body). */
const frameOf = ({ seq, page, body }: JournalEntry): Omit<Frame, "records" | "raw"> => ({
  seq,
  slice: page.slice,
  sliceSeq: page.seq,
  checkpoint: page.checkpoint,
  ledger: page.fetched.charges,
  units: page.fetched.units,
  requests: page.attempts.requests,
  retries: page.attempts.retries,
  throttled: page.attempts.throttled,
  ...(page.timing ? { timing: page.timing } : {}),
  ...(page.fetched.operation !== undefined ? { operation: page.fetched.operation } : {}),
  ...(body !== undefined ? { recordsAt: page.fetched.recordsAt } : {}),
  fresh: page.fresh,
  ...(page.freshKeys ? { freshKeys: Array.from(page.freshKeys) } : {}),
  ...(page.declared !== undefined ? { declared: page.declared } : {}),
  ...(page.end ? { end: page.end } : {}),
  ...(page.missing ? { missing: page.missing } : {})
})

/** The entry a frame holds (its records and raw body read already). */
const entryOf = (frame: Omit<Frame, "records" | "raw">, records: ReadonlyArray<unknown>, raw: RawBody | undefined): JournalEntry => ({
  seq: frame.seq,
  page: {
    slice: frame.slice,
    seq: frame.sliceSeq,
    fetched: {
      records,
      raw: "",
      units: frame.units,
      charges: frame.ledger,
      ...(frame.recordsAt !== undefined ? { recordsAt: frame.recordsAt } : {}),
      ...(frame.operation !== undefined ? { operation: frame.operation } : {}),
      ...(raw?.request ? { request: raw.request } : {})
    },
    checkpoint: frame.checkpoint,
    declared: frame.declared,
    end: frame.end,
    missing: frame.missing,
    attempts: { requests: frame.requests, retries: frame.retries, throttled: frame.throttled ?? 0 },
    timing: frame.timing,
    // journals of older toolkits did not count keys: every record counts as new
    fresh: frame.fresh ?? records.length,
    ...(frame.freshKeys ? { freshKeys: Float64Array.from(frame.freshKeys) } : {})
  },
  ...(raw ? { body: raw.body } : {})
})

/** One page's frame: the body as received when the records can be re-read from it, else the entry as JSON. */
export const encode = (entry: JournalEntry): Buffer => {
  const raw = rawOf(entry)
  const head = frameOf(entry)
  if (entry.page.fetched.recordsAt === undefined || raw === undefined) {
    const frame: Frame = {
      ...head,
      records: entry.page.fetched.records,
      ...(raw ? { raw: typeof raw.body === "string" ? raw : { ...raw, body: textOf(raw.body) } } : {})
    }
    return Buffer.from(`${stringifyJson(frame)}\n`, "utf8")
  }
  const body = typeof raw.body === "string" ? Buffer.from(raw.body, "utf8") : raw.body
  const framed: FrameHead = {
    ...head,
    rawKey: raw.pageKey,
    rawBytes: body.length,
    ...(raw.request ? { rawRequest: raw.request } : {})
  }
  return Buffer.concat([Buffer.from(`${JSON.stringify(framed)}\n`, "utf8"), body, Buffer.from([NL])])
}

/** The whole frames of a segment, in file order, and where the last whole frame ends. */
export const decodeFrames = (bytes: Buffer): { readonly entries: Array<JournalEntry>; readonly end: number } => {
  const entries: Array<JournalEntry> = []
  let pos = 0
  let end = 0
  while (pos < bytes.length) {
    const nl = bytes.indexOf(NL, pos)
    if (nl < 0) break // a frame cut short by a kill
    let head: Frame | FrameHead
    try {
      head = parseJson(bytes.toString("utf8", pos, nl)) as Frame | FrameHead
    } catch {
      pos = nl + 1 // a line cut short by a kill, written before frames were checked on resume
      continue
    }
    if (!("rawBytes" in head)) {
      const { records, raw, ...rest } = head
      entries.push(entryOf(rest, records, raw))
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
    entries.push(entryOf(rest, records, { pageKey: rawKey, body, ...(rawRequest ? { request: rawRequest } : {}) }))
    pos = end = bodyEnd + 1
  }
  return { entries, end }
}
