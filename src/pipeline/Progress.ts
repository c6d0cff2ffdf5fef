/**
 * Run events for people and machines: a live line on a terminal, one JSON line per event
 * otherwise (cron, log shippers). Events never carry secrets: only names, counts and ids.
 */
import { Context, Effect, Layer } from "effect"

export type RunEvent =
  | {
      readonly type: "run_started"
      readonly pipeline: string
      readonly runId: string
      readonly resumed: boolean
      readonly slices: number
      readonly planned: PlanFigures
    }
  | {
      readonly type: "page_committed"
      readonly pipeline: string
      readonly runId: string
      readonly slice: string
      readonly seq: number
      readonly records: number
      readonly rows: number
      readonly rejects: number
      readonly units: number
      readonly totals: Totals
    }
  | {
      /**
       * A group of pages landed in one warehouse transaction (after its `page_committed` events):
       * the run's totals and its slices as of that commit. The run-state file is rewritten here.
       */
      readonly type: "group_landed"
      readonly pipeline: string
      readonly runId: string
      /** Pages in the group. */
      readonly pages: number
      /** Slices the run will read (the plan's) and those that reached their end so far. */
      readonly slices: { readonly total: number; readonly done: number }
      readonly totals: Totals
    }
  | {
      readonly type: "run_finished"
      readonly pipeline: string
      readonly runId: string
      readonly status: string
      readonly totals: Totals
      /** The plan as refined by first pages (see `makePlanRefiner`). */
      readonly expected?: { readonly pages: number; readonly units: number; readonly exact: boolean } | undefined
      readonly error?: string | undefined
    }

export interface PlanFigures {
  readonly requests: number
  readonly pages: number
  readonly units: number
  readonly exact: boolean
}

export interface Totals {
  readonly pages: number
  readonly records: number
  readonly rows: number
  readonly rejects: number
  readonly units: number
  readonly requests: number
  readonly retries: number
  /** Answers 429 (rate limited) among the requests. */
  readonly throttled: number
  readonly elapsedMs: number
  /** Expected pages when known (ETA). */
  readonly expectedPages?: number | undefined
}

export class Progress extends Context.Tag("pipeline/Progress")<
  Progress,
  {
    readonly emit: (event: RunEvent) => Effect.Effect<void>
  }
>() {
  /** Nothing shown (library use, tests). */
  static readonly Silent = Layer.succeed(Progress, { emit: () => Effect.void })

  /** One JSON line per event on stderr (stdout stays for results). */
  static readonly JsonLines = Layer.succeed(Progress, {
    emit: (event) => Effect.sync(() => process.stderr.write(JSON.stringify({ at: new Date().toISOString(), ...event }) + "\n"))
  })

  /** A live status line on a terminal: pages, rows, units, request rate, ETA. */
  static readonly Terminal = Layer.succeed(Progress, {
    emit: (event) =>
      Effect.sync(() => {
        if (event.type === "page_committed") {
          const t = event.totals
          const rate = t.elapsedMs > 0 ? (t.requests / (t.elapsedMs / 1000)).toFixed(1) : "0"
          const eta =
            t.expectedPages && t.pages > 0 && t.pages < t.expectedPages
              ? ` eta ${Math.round(((t.expectedPages - t.pages) * t.elapsedMs) / t.pages / 1000)}s`
              : ""
          process.stderr.write(`\r\x1b[2K${event.pipeline}: ${t.pages} pages, ${t.rows} rows, ${t.units} units, ${rate} req/s${eta}`)
        } else if (event.type === "group_landed") {
          // the page lines above already show the totals
        } else if (event.type === "run_finished") {
          process.stderr.write(`\r\x1b[2K${event.pipeline}: ${event.status}${event.error ? ` (${event.error})` : ""}\n`)
        } else {
          process.stderr.write(`${event.pipeline}: run ${event.runId}${event.resumed ? " resumed" : ""}, ${event.slices} slices\n`)
        }
      })
  })

  static readonly Auto = process.stderr.isTTY ? Progress.Terminal : Progress.JsonLines
}
