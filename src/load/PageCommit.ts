/**
 * What the engine hands the loader, and what the loader's bookkeeping reads back.
 */
import type { Row } from "../normalize/Table.js"
import type { Checkpoint } from "../extract/Page.js"
import type { Charge, SliceEndKind } from "../extract/Source.js"
import type { Reject } from "../normalize/Normalizer.js"
import { type JournalEntry, type RawBody, rawOf } from "./JournalFrame.js"

/**
 * A page that fetched nothing of a slice (a `reload` from the raw archive, a probe, a webhook
 * batch, a failed run's charge), with its rows by table: what it brings and what it cost.
 * Committed all or nothing. The pages a run fetches come as `Page`s instead (`StagedEntry`).
 */
export interface PageCommit {
  readonly runId: string
  readonly pipeline: string
  /**
   * The run's extraction time (ISO; the same for every page of a run): where the versions this
   * page adds to `history` tables begin. Default: the commit time.
   */
  readonly extractedAt?: string | undefined
  readonly rows: ReadonlyMap<string, ReadonlyArray<Row>>
  /**
   * Source position after this page (`key`: slice / fan-out key; `value`: JSON cursor, offset or
   * window). Absent when the page moves no source (a `reload` from the raw archive).
   */
  readonly checkpoint?: Checkpoint | undefined
  /** Units charged per request (request ids are unique: a page committed twice is not charged twice). */
  readonly ledger: ReadonlyArray<Charge>
  readonly rejects: ReadonlyArray<Reject>
  /** Raw response body, archived (gzip) before the page commits. */
  readonly raw?: RawBody | undefined
  readonly requests: number
  readonly retries: number
  /** What this page adds to a slice's completeness record (`_slices`), when it counts toward one. */
  readonly slice?: SliceProgress | undefined
}

/**
 * A page the run fetched, its rows staged (`Stage.ts`): the journaled page, wrapped with what its
 * normalisation made of it. Its records are dropped by then (`withoutPayload`): the journal has them.
 */
export interface StagedEntry {
  readonly runId: string
  readonly pipeline: string
  /** As `PageCommit.extractedAt`. */
  readonly extractedAt?: string | undefined
  readonly entry: JournalEntry
  /** Records the page brought (what the normaliser read). */
  readonly records: number
  /** Rows per table. */
  readonly counts: Readonly<Record<string, number>>
  readonly rejects: ReadonlyArray<Reject>
  /**
   * The body's size in bytes as it arrived, archived or not (a token-host page keeps no body):
   * what its group's commit weighs for its room (`LandingSettings.fitsWithoutRoom`). Undefined:
   * not known (the commit then gets the room).
   */
  readonly bytes?: number | undefined
}

/** A page whose rows are staged already: a fetched page (`StagedEntry`), or a `PageCommit` with `counts` for its rows. */
export type StagedPage =
  StagedEntry | (Omit<PageCommit, "rows"> & { readonly counts: Readonly<Record<string, number>>; readonly entry?: undefined })

/** The source position a staged page leaves, if it moves one. */
export const checkpointOf = (p: StagedPage): Checkpoint | undefined => (p.entry ? p.entry.page.checkpoint : p.checkpoint)

/** The charges a staged page enters in the ledger. */
export const ledgerOf = (p: StagedPage): ReadonlyArray<Charge> => (p.entry ? p.entry.page.fetched.charges : p.ledger)

/** The raw body a staged page archives, if any. */
export const rawBodyOf = (p: StagedPage): RawBody | undefined => (p.entry ? rawOf(p.entry) : p.raw)

/** A body's size in bytes (UTF-8 for text). */
const bodyBytes = (body: string | Uint8Array): number => (typeof body === "string" ? Buffer.byteLength(body) : body.length)

/**
 * A fetched page's bytes as they arrived: its journaled body's, else its text's (a token-host page
 * keeps no body), none for a "no content" answer (its records are the pipeline's note of the
 * request); undefined for a page with records and neither (a replayed page whose body was not
 * kept), so its group's commit gets the room. Until stop 51 only a kept body counted, so every
 * group of a token-host pipeline got the room: two `SET memory_limit`, two purges of DuckDB's
 * allocator, a group (market-time-series of 500 location ids: 34 `SET`s, 4.2-4.4 s of CPU; then
 * 2, 3.5-3.8 s; docs/BENCHMARKS.md). Until stop 54 a 204's page was such a page too: 23-24 `SET`s
 * again, each group holding a 204 getting the room.
 */
export const arrivedBytes = (e: JournalEntry): number | undefined => {
  if (e.body !== undefined) return bodyBytes(e.body)
  const { raw, records, empty } = e.page.fetched
  return raw !== "" ? bodyBytes(raw) : records.length === 0 || empty === true ? 0 : undefined
}

/** A staged page's bytes for its commit's room: a fetched page's as they arrived (`arrivedBytes`), another's archived body's; undefined if not known. */
export const bytesOf = (p: StagedPage): number | undefined => (p.entry ? p.bytes : p.raw === undefined ? undefined : bodyBytes(p.raw.body))

/** The requests a staged page took, and its retries. */
export const attemptsOf = (p: StagedPage): { readonly requests: number; readonly retries: number } => (p.entry ? p.entry.page.attempts : p)

/**
 * What a staged page adds to its slice's completeness record: a fetched page's from the page and
 * its normalisation (a missing key's page counts nothing but its end).
 */
export const sliceProgressOf = (p: StagedPage): SliceProgress | undefined => {
  if (!p.entry) return p.slice
  const page = p.entry.page
  const counted = page.missing === undefined
  return {
    key: page.slice,
    declared: page.declared,
    received: counted ? p.records : 0,
    landed: counted ? p.records - p.rejects.length : 0,
    rejected: counted ? p.rejects.length : 0,
    fresh: counted ? page.fresh : 0,
    freshKeys: page.freshKeys,
    end: page.end,
    done: page.checkpoint.done || page.end !== undefined
  }
}

/** One page's share of its slice's counts; `declared` and `end` are the latest the slice said. */
export interface SliceProgress {
  readonly key: string
  readonly declared?: number | undefined
  readonly received: number
  readonly landed: number
  readonly rejected: number
  /** Keys new to the slice in this page (`Page.fresh`): the slice's distinct keys add up from them. */
  readonly fresh?: number | undefined
  /** Their hashes, kept in `_slice_keys` while the run may resume. */
  readonly freshKeys?: ArrayLike<number> | undefined
  readonly end?: { readonly kind: SliceEndKind; readonly detail: string } | undefined
  readonly done: boolean
}

/** A row of `_slices`: what the service declared for a slice of a run, and what came and landed. */
export interface SliceRecord {
  readonly slice: string
  readonly declared: number | null
  readonly received: number
  readonly landed: number
  readonly rejected: number
  /** Distinct keys the slice read (null in runs recorded before format 3). */
  readonly distinct: number | null
  readonly pages: number
  readonly endedBy: SliceEndKind | null
  readonly endDetail: string | null
  readonly done: boolean
}

export type RunStatus = "running" | "done" | "paused" | "failed" | "incomplete" | "interrupted"

export interface StartRun {
  readonly runId: string
  readonly pipeline: string
  readonly params?: unknown
  readonly unitsPlanned?: number | undefined
  /** Units the plan said a full pull would cost (equal to `unitsPlanned` for a read of everything). */
  readonly unitsFull?: number | undefined
  readonly eur?: number | undefined
}

/** A row of `_runs`, timestamps as ISO strings. */
export interface RunRecord {
  readonly runId: string
  readonly pipeline: string
  readonly params: unknown
  readonly startedAt: string
  readonly finishedAt: string | null
  readonly status: RunStatus
  readonly pages: number
  readonly rowsPerTable: Record<string, number>
  readonly requests: number
  readonly retries: number
  readonly unitsPlanned: number | null
  readonly unitsCharged: number
  readonly eur: number | null
  readonly error: string | null
}

/** A row of `_checkpoints`: the last committed position of one source key. */
export interface CheckpointRecord {
  readonly pipeline: string
  readonly runId: string
  readonly key: string
  readonly value: unknown
  readonly done: boolean
  readonly updatedAt: string
}

/** A page recorded in `_raw_pages` (committed together with its rows). */
export interface RawPageRecord {
  readonly runId: string
  readonly pipeline: string
  readonly seq: number
  readonly pageKey: string
  readonly path: string
  /** The operation that answered (format 3); absent on older pages and on pages kept without their request (a repeat). */
  readonly operation?: string | undefined
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v))
const num = (v: unknown): number => (typeof v === "bigint" ? Number(v) : Number(v))
const json = (v: unknown): unknown => (v === null || v === undefined ? null : JSON.parse(String(v)))

export const toRunRecord = (r: Record<string, unknown>): RunRecord => ({
  runId: String(r.run_id),
  pipeline: String(r.pipeline),
  params: json(r.params),
  startedAt: iso(r.started_at),
  finishedAt: r.finished_at === null ? null : iso(r.finished_at),
  status: String(r.status) as RunStatus,
  pages: num(r.pages),
  rowsPerTable: (json(r.rows_per_table) ?? {}) as Record<string, number>,
  requests: num(r.requests),
  retries: num(r.retries),
  unitsPlanned: r.units_planned === null ? null : num(r.units_planned),
  unitsCharged: num(r.units_charged),
  eur: r.eur === null ? null : num(r.eur),
  error: r.error === null ? null : String(r.error)
})

export const toCheckpointRecord = (r: Record<string, unknown>): CheckpointRecord => ({
  pipeline: String(r.pipeline),
  runId: String(r.run_id),
  key: String(r.key),
  value: json(r.value),
  done: r.done === true,
  updatedAt: iso(r.updated_at)
})
