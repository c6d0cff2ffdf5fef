/**
 * Never pay twice for the same request: a paid answer, once archived (the raw archive keeps every
 * platform page), is reused by any later call of the same operation with the same canonical
 * request while it is fresh (`budget.reuseWithin`, default 12 hours), at 0 units. A rerun after a
 * failure, an exit 6 or a crash buys only what it has not bought; `run --fresh` buys again.
 *
 * The runner provides the index of reusable answers for its run (read from the warehouse's
 * `_raw_pages` at its start); the platform client asks it before each paid call. Without the
 * service (a library run into memory, a probe without a warehouse) nothing is reused.
 */
import { createHash } from "node:crypto"
import { Context, Effect, Option } from "effect"
import { canonicalJson } from "../shared/ExactJson.js"

/** A paid request and its answer's age: what the raw archive keys a reusable answer by. */
export interface PaidRequest {
  readonly operation: string
  /** A hash of the operation, method, path, query and body (`requestKeyOf`). */
  readonly key: string
  /** When the answer was bought (ISO): a reused answer keeps its first purchase time. */
  readonly boughtAt: string
  /** Units the answer cost when it was bought. */
  readonly units: number
  /** The answer came from the archive, not the service (0 units now). */
  readonly reused?: boolean | undefined
}

/** An archived answer: its body as received, when it was bought and what it cost then. */
export interface ArchivedAnswer {
  readonly body: string
  readonly boughtAt: string
  readonly units: number
}

/** Where an archived answer lies, by request. */
export interface AnswerEntry {
  /** The pipeline whose run bought it (reuse is by request, whatever the pipeline). */
  readonly pipeline: string
  readonly operation: string
  readonly key: string
  /** The raw archive's path of the body (`_raw_pages.path`). */
  readonly path: string
  readonly boughtAt: string
  readonly units: number
}

export interface PaidAnswersShape {
  /** The archived answer to this request, if a fresh one was kept (a body that cannot be read is none). */
  readonly find: (operation: string, key: string) => Effect.Effect<Option.Option<ArchivedAnswer>>
  /** Answers reusable now, for a plan's line. */
  readonly size: number
}

export class PaidAnswers extends Context.Tag("service/PaidAnswers")<PaidAnswers, PaidAnswersShape>() {
  /** An index over `entries` (the newest per request wins), reading bodies with `read`. */
  static readonly make = (
    entries: ReadonlyArray<AnswerEntry>,
    read: (path: string) => Effect.Effect<string, unknown>
  ): PaidAnswersShape => {
    const index = new Map<string, AnswerEntry>()
    for (const e of entries) {
      const id = `${e.operation}\u0000${e.key}`
      const had = index.get(id)
      if (had === undefined || had.boughtAt < e.boughtAt) index.set(id, e)
    }
    return {
      size: index.size,
      find: (operation, key) => {
        const e = index.get(`${operation}\u0000${key}`)
        if (e === undefined) return Effect.succeed(Option.none())
        return read(e.path).pipe(
          Effect.map((body) => Option.some({ body, boughtAt: e.boughtAt, units: e.units })),
          Effect.orElseSucceed(() => Option.none())
        )
      }
    }
  }
}

/**
 * The canonical request: operation, method, the path relative to its host (a new base URL or
 * sandbox port keeps the key), the query parameters sorted, the body with its keys sorted.
 * Credentials are never part of it (they travel in headers).
 */
export const requestKeyOf = (request: {
  readonly operation: string
  readonly method: string
  /** The URL as sent. */
  readonly url: string
  readonly body?: unknown
}): string => {
  const u = new URL(request.url)
  const query = [...u.searchParams.entries()].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  const text = canonicalJson([request.operation, request.method, u.pathname, query, request.body ?? null])
  return createHash("sha256").update(text).digest("hex").slice(0, 32)
}
