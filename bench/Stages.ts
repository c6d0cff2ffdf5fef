/**
 * Where the time of a sourcing-search page goes, stage by stage, in one process and without
 * HTTP: the same JSON bodies (built from the sandbox world) are (1) parsed, (2) decoded and
 * normalized by the pipeline's own record mapping, (3) committed page by page through the
 * warehouse (staging, upsert, checkpoint, ledger, raw archive, run row: one transaction each).
 * Each stage's rate says what it alone allows; the slowest bounds the end-to-end figure.
 *
 * Run by `bench/main.ts` in a fresh process: `tsx bench/Stages.ts <records>` prints JSON.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import sourcingSearch from "../pipelines/sourcing-search.js"
import { makeWarehouse } from "../src/load/Warehouse.js"
import { makeNormalizer } from "../src/normalize/Normalizer.js"
import type { PageContext } from "../src/pipeline/Pipeline.js"
import { DEFAULT_LANDING_POLICY } from "../src/pipeline/LandingPolicy.js"
import { makeWorld } from "../src/sandbox/world/World.js"
import { fmt, type Line } from "./Report.js"

export interface StageRates {
  readonly records: number
  readonly pages: number
  /** Records per second of each stage alone. */
  readonly parse: number
  readonly normalize: number
  readonly commit: number
  /** The commit with the loader's largest group of these pages (`GROUP_PAGES` a transaction). */
  readonly groupCommit: number
  /** Milliseconds per page of each stage. */
  readonly msPerPage: { readonly parse: number; readonly normalize: number; readonly commit: number; readonly group: number }
}

const PAGE = 200
/** The loader's largest group of sourcing pages: its record bound, or its page bound if smaller. */
const GROUP_PAGES = Math.min(DEFAULT_LANDING_POLICY.maxGroup, Math.floor(DEFAULT_LANDING_POLICY.maxGroupRows / PAGE))

export const measureStages = (records: number): Effect.Effect<StageRates, unknown> =>
  Effect.gen(function* () {
    const world = makeWorld({ seed: 42, properties: Math.max(records, 1000) })
    const bodies: Array<string> = []
    for (let p = 0; p < records; p += PAGE) {
      const results = []
      for (let i = p; i < Math.min(records, p + PAGE); i++) results.push(world.sourcingProperty(i))
      bodies.push(JSON.stringify({ count: records, results, next: null }))
    }
    const pages = bodies.length

    let t = performance.now()
    const parsed = bodies.map((b) => JSON.parse(b) as { results: Array<unknown> })
    const parseMs = performance.now() - t

    const normalize = makeNormalizer(sourcingSearch.records)
    const ctx: PageContext = { runId: "bench", slice: "ALL", extractedAt: new Date().toISOString() }
    t = performance.now()
    const normalized = parsed.map((b) => normalize(b.results, ctx))
    const normalizeMs = performance.now() - t

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-stages-"))
    // `group` pages per transaction: 1 is a loader that keeps up with the fetching; the loader's
    // largest group is what it lands when pages pile up behind a commit
    const commitWith = (group: number, file: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path: path.join(dir, file) })
          yield* wh.ensureTables(sourcingSearch.tables)
          yield* wh.startRun({ runId: "bench", pipeline: sourcingSearch.name })
          const t0 = performance.now()
          for (let i = 0; i < pages; i += group) {
            yield* wh.commitPages(
              normalized.slice(i, i + group).map((n, k) => ({
                runId: "bench",
                pipeline: sourcingSearch.name,
                rows: n.rows,
                checkpoint: { key: "ALL", value: { next: `cursor-${i + k}` }, done: i + k === pages - 1 },
                ledger: [{ requestId: `req-${i + k}`, operation: "sourcing_next", units: 1, at: new Date().toISOString() }],
                rejects: n.rejects,
                raw: { pageKey: String(i + k), body: bodies[i + k]! },
                requests: 1,
                retries: 0
              }))
            )
          }
          return performance.now() - t0
        })
      )
    const commitMs = yield* commitWith(1, "single.duckdb")
    const groupMs = yield* commitWith(GROUP_PAGES, "group.duckdb").pipe(
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )

    const rate = (ms: number) => (records * 1000) / ms
    return {
      records,
      pages,
      parse: rate(parseMs),
      normalize: rate(normalizeMs),
      commit: rate(commitMs),
      groupCommit: rate(groupMs),
      msPerPage: { parse: parseMs / pages, normalize: normalizeMs / pages, commit: commitMs / pages, group: groupMs / pages }
    }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await Effect.runPromise(measureStages(Number(process.argv[2] ?? 20_000)))
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

/** The stage figures as table lines, against the fetch-and-parse floor of the same bench run. */
export const stageLines = (s: StageRates, floorRate: number, e2eRate: number): ReadonlyArray<Line> => [
  {
    group: "stages",
    measure: `stage alone, not end to end: JSON.parse of sourcing pages (${fmt(s.msPerPage.parse, 2)} ms/page)`,
    value: `${fmt(s.parse)} rows/s`,
    baseline: `floor ${fmt(floorRate)} rows/s`,
    ratio: s.parse / floorRate,
    target: "",
    met: undefined
  },
  {
    group: "stages",
    measure: `stage alone, not end to end: decode + normalize, 1 core (${fmt(s.msPerPage.normalize, 2)} ms/page)`,
    value: `${fmt(s.normalize)} rows/s`,
    baseline: `floor ${fmt(floorRate)} rows/s`,
    ratio: s.normalize / floorRate,
    target: "",
    met: undefined
  },
  {
    group: "stages",
    measure: `stage alone, not end to end: warehouse commit, page by page (${fmt(s.msPerPage.commit, 1)} ms/page)`,
    value: `${fmt(s.commit)} rows/s`,
    baseline: `toolkit end to end ${fmt(e2eRate)} rows/s`,
    ratio: s.commit / e2eRate,
    target: "",
    met: undefined
  },
  {
    group: "stages",
    measure: `stage alone, not end to end: warehouse commit, ${GROUP_PAGES} pages per transaction, the loader's largest group of ${PAGE}-record pages (${fmt(s.msPerPage.group, 1)} ms/page)`,
    value: `${fmt(s.groupCommit)} rows/s`,
    baseline: `page by page ${fmt(s.commit)} rows/s`,
    ratio: s.groupCommit / s.commit,
    target: "",
    met: undefined
  }
]
