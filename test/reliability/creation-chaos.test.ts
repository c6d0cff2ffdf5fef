/**
 * Creating a warehouse and migrating one are crash-safe (issue 30, item 4): the real CLI (a
 * child process, `node -r test/support/killAt.cjs dist/bundle/main.js run ...`) is SIGKILLed at
 * instants aimed at, one kill per warehouse, and each kill proves where it landed (the preload
 * logs the instant it reached, and for a kill inside a call whether the call had returned):
 *
 * - a first run that builds its warehouse with DuckDB (a block size the build ships no template
 *   for): the appearance of each database file (its header perhaps still being written: a kill
 *   there left a file DuckDB refuses for ever, about 1 kill in 12 aimed at it before the warehouse
 *   was made under a temporary name; `test/load/Opening.test.ts` makes such files), DuckDB's
 *   creation of the file, statements in the middle of the creating transaction, its COMMIT
 *   (before, inside, after), the checkpoint and close of the new file, the link that gives it its
 *   name, the first opening under that name, the first tables' COMMIT, the first landing's COMMIT
 *   and the checkpoint when the run closes the warehouse, plus kills at random instants;
 * - a first run that copies the build's empty warehouse (the default block size, as the CLI
 *   ships): the temporary file's appearance, its bytes written and not synced, synced and not
 *   linked, the link, the first opening, each COMMIT and the close, and random instants;
 * - a format 1 warehouse (the ledger keyed by request id alone, the history members under format
 *   4's primary key) opened by this version: the statements of its migration to the current
 *   format (format 5's rebuild of the members' table among them), its COMMIT and the checkpoint
 *   after.
 *
 * After every kill the warehouse path holds nothing or a whole warehouse (of the old or the new
 * format, never between), and a later run and a `--full-refresh` run both exit 0.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BOOKKEEPING_TABLES, FORMAT_NAME, FORMAT_VERSION } from "../../src/load/Bookkeeping.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { collect, remoteConfig, runCli, sandboxEnv, spawnCli } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const HOOK = path.resolve(import.meta.dirname, "../support/killAt.cjs")
const pipelines = { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 2, sample: true } } }

/**
 * `make chaos` (CHAOS=full, the only run of this file: vitest.config.ts) aims at every instant
 * listed below; without it (the file run alone: `npx vitest run --config /dev/null <file>`) only
 * at the instants that broke warehouses before (the file's appearance, the creating
 * transaction's COMMIT, the link, the migration's COMMIT) and one random instant.
 */
const FULL = process.env.CHAOS === "full"
const BUILT_CORE = [
  '{"at":"file","path":"","delayUs":0}',
  '{"at":"sql","match":"^COMMIT$","nth":1,"phase":"during"',
  '{"at":"fs","call":"linkSync","nth":1,"phase":"after"}',
  '{"at":"sql","match":"^COMMIT$","nth":2,"phase":"during"',
  '{"at":"random","afterMs":'
]
const COPIED_CORE = [
  '{"at":"file","dir":"","match":"duckdb","delayUs":0}',
  '{"at":"fs","call":"fsyncSync","nth":1,"phase":"before"}',
  '{"at":"fs","call":"linkSync","nth":1,"phase":"after"}',
  '{"at":"sql","match":"^COMMIT$","nth":1,"phase":"during"',
  '{"at":"random","afterMs":'
]
// the old format before the COMMIT, and the new one after it: both must be seen
/** Members of an earlier pull in the format 4 table a migration rebuilds (kept whole, whatever the kill). */
const MEMBERS = 1000
const MIGRATION_CORE = ['"match":"^ALTER TABLE _raw_pages"', '"match":"^COMMIT$","nth":1,"phase":"after"']
/** The aims this run kills at: all of them under CHAOS=full, else those matching `core` (the first of each). */
const chosen = <A extends object>(aims: ReadonlyArray<A>, core: ReadonlyArray<string>): ReadonlyArray<A> =>
  FULL ? aims : core.flatMap((c) => aims.filter((a) => JSON.stringify(a).includes(c)).slice(0, 1))

/** Where a kill was aimed (see `killAt.cjs`). */
type Aim = Record<string, unknown> & { readonly at: string }

/** The first statement matching `match`, at `phase`. */
const sql = (match: string, phase: string, extra: Record<string, unknown> = {}): Aim => ({ at: "sql", match, nth: 1, phase, ...extra })
/** The nth COMMIT at `phase` (`during`: `share` of how long it took into it). */
const commit = (within: (k: string, share: number) => number, nth: number, phase: string, share?: number): Aim => ({
  at: "sql",
  match: "^COMMIT$",
  nth,
  phase,
  ...(share !== undefined ? { delayUs: within(`commit#${nth}`, share) } : {})
})

interface Killed {
  readonly aim: Aim
  readonly signal: NodeJS.Signals | null
  readonly code: number | null
  /** The preload's log: the instant reached, and for `during` where the kill landed. */
  readonly log: string
  readonly stderr: string
}

/** Runs `run plots-germany` with the preload aiming a SIGKILL at `aim`; the parent kills on `@@kill-me`. */
const runKilled = (config: string, aim: Aim, timeoutMs = 60_000): Promise<Killed> => {
  const log = path.join(path.dirname(config), "kill.log")
  fs.rmSync(log, { force: true })
  const child = spawnCli(["run", "plots-germany", "--config", config], {
    ...sandboxEnv(),
    NODE_OPTIONS: `--require ${HOOK}`,
    ESTATE_KILL_AT: JSON.stringify(aim),
    ESTATE_KILL_LOG: log
  })
  let seen = ""
  child.stderr!.on("data", (d) => {
    seen += String(d)
    if (seen.includes("@@kill-me")) child.kill("SIGKILL")
  })
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
  return collect(child).then((r) => {
    clearTimeout(timer)
    return { aim, signal: r.signal, code: r.code, stderr: r.stderr, log: fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "" }
  })
}

/** How long each instant took in a run that was not killed (`{ at: "time" }`), in microseconds. */
const calibrate = async (config: string) => {
  const started = Date.now()
  const r = await runKilled(config, { at: "time" })
  expect(r.code, r.stderr).toBe(0)
  const took = new Map<string, number>()
  for (const m of r.log.matchAll(/^took (\S+) (\d+)us$/gm)) took.set(m[1]!, Number(m[2]))
  return { took, wallMs: Date.now() - started }
}

/** The warehouse at `file`: absent, or whole (its format, every bookkeeping table), opened to read. */
const stateOf = async (file: string): Promise<"absent" | { readonly version: number; readonly tables: ReadonlyArray<string> }> => {
  if (!fs.existsSync(file)) return "absent"
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: file, readOnly: true })
        const meta = yield* wh.query(`SELECT key, value FROM _meta`)
        const get = (k: string) => meta.find((m) => m.key === k)?.value
        expect(get("format")).toBe(FORMAT_NAME)
        const tables = yield* wh.query(`SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY 1`)
        return { version: Number(get("format_version")), tables: tables.map((t) => String(t.table_name)) }
      })
    )
  )
}

/** Runs recorded in a whole warehouse. */
const runsIn = (file: string) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(makeWarehouse({ path: file, readOnly: true }), (wh) => wh.query(`SELECT count(*) AS n FROM _runs`)))
  ).then((rows) => Number(rows[0]!.n))

/** Runs `f` over `items`, `lanes` at a time (each item its own warehouse, so they do not meet). */
const inLanes = async <A, B>(items: ReadonlyArray<A>, lanes: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out: Array<B> = []
  let next = 0
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await f(items[i]!)
      }
    })
  )
  return out
}

/** Which of the aimed instants a kill hit; for a kill inside a call, whether the call had returned. */
const landed = (k: Killed) => {
  const aimed = /^aimed (.+) (before|after|during)$/m.exec(k.log)
  const inside = /^killed \+(\d+)us(?: returned=(\d))?/m.exec(k.log)
  return { aimed: aimed?.[1], phase: aimed?.[2], returned: inside?.[2] === "1" }
}

describe("crash-safe creation and migration", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-creation-chaos-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /** A fresh folder with a settings file (`settings` laid over the pipelines'); its warehouse path. */
  const fresh = (settings: Record<string, unknown> = {}) => {
    const d = fs.mkdtempSync(path.join(dir, "w-"))
    return { d, config: remoteConfig(d, sandbox, { pipelines, ...settings }), file: path.join(d, "warehouse.duckdb") }
  }

  /**
   * After a kill: a later run exits 0, a `--full-refresh` run too (where the warehouse holds a run,
   * which is all it changes), and no temporary file of the killed creation is left.
   */
  const laterRunsWork = async (w: { config: string; d: string; file: string }, what: string) => {
    const hadRun = (await stateOf(w.file)) !== "absent" && (await runsIn(w.file)) > 0
    const run = await runCli(["run", "plots-germany", "--config", w.config], sandboxEnv())
    expect(run.code, `${what}: run\n${run.stderr.slice(-600)}`).toBe(0)
    if (hadRun) {
      const full = await runCli(["run", "plots-germany", "--config", w.config, "--full-refresh"], sandboxEnv())
      expect(full.code, `${what}: --full-refresh\n${full.stderr.slice(-600)}`).toBe(0)
    }
    expect(fs.readdirSync(w.d).filter((f) => f.includes(".creating-"))).toEqual([])
  }

  /**
   * Kills aimed at the instants of a first run (`aimsOf`, given how long each took in a run not
   * killed: `calibrated` names the instants that run must show), one warehouse each; after every
   * kill the path holds nothing or a whole warehouse and later runs work.
   */
  const firstRunKills = async (
    settings: Record<string, unknown>,
    calibrated: ReadonlyArray<string>,
    aimsOf: (within: (k: string, share: number) => number, wallMs: number) => Array<Aim>,
    core: ReadonlyArray<string>
  ) => {
    const started = Date.now()
    const c = fresh(settings)
    const { took, wallMs } = await calibrate(c.config)
    expect([...took.keys()]).toEqual(calibrated)
    const within = (k: string, share: number) => Math.round(took.get(k)! * share)
    const results = await inLanes(chosen(aimsOf(within, wallMs), core), 2, async (aim) => {
      const w = fresh(settings)
      const k =
        aim.at === "random"
          ? await (async () => {
              const child = spawnCli(["run", "plots-germany", "--config", w.config], sandboxEnv())
              const timer = setTimeout(() => child.kill("SIGKILL"), aim.afterMs as number)
              const r = await collect(child)
              clearTimeout(timer)
              return { aim, signal: r.signal, code: r.code, stderr: r.stderr, log: "" }
            })()
          : await runKilled(w.config, aim.at === "file" ? { ...aim, ...("path" in aim ? { path: w.file } : { dir: w.d }) } : aim)
      const what = JSON.stringify(aim)
      const hit = landed(k)
      if (aim.at !== "random") {
        // the kill landed where it was aimed: the instant was reached and the process died of SIGKILL
        expect(k.signal, `${what}\n${k.log}\n${k.stderr.slice(-400)}`).toBe("SIGKILL")
        expect(hit.aimed, `${what}\n${k.log}`).toBeDefined()
      }
      const state = await stateOf(w.file)
      if (state !== "absent") {
        expect(state.version, what).toBe(FORMAT_VERSION)
        for (const t of BOOKKEEPING_TABLES) expect(state.tables, `${what}: ${t}`).toContain(t)
      }
      await laterRunsWork(w, what)
      return { aim, state, hit }
    })
    const inside = results.filter((r) => r.hit.phase === "during" && !r.hit.returned).length
    console.log(
      `creation chaos (${JSON.stringify(settings)}): ${results.length} kills in ${Math.round((Date.now() - started) / 1000)} s (a first run takes ${wallMs} ms); ` +
        `${results.filter((r) => r.state === "absent").length} left no warehouse, ${results.filter((r) => r.state !== "absent").length} a whole one; ` +
        `${inside} of ${results.filter((r) => r.hit.phase === "during").length} kills inside a call landed before it returned`
    )
    // every kind of instant was hit while its call was under way at least once
    for (const kind of FULL ? ["create", "sql", "close"] : ["sql"]) {
      expect(
        results.some((r) => r.aim.at === kind && r.hit.phase === "during" && !r.hit.returned),
        kind
      ).toBe(true)
    }
  }

  it(
    "a SIGKILL at any instant of a first run that builds its warehouse with DuckDB leaves no warehouse or a whole one, and later runs work",
    () =>
      // a block size the build ships no template for: DuckDB makes the empty warehouse (create#1 and
      // close#1 under its temporary name, commit#1 its bookkeeping), then it is linked and opened under
      // its own name (create#2); commit#2 writes its creation time, commit#3 the pipeline's tables,
      // commit#4 lands the pages
      firstRunKills(
        { duckdb: { blockSize: "16KB" } },
        ["create#1", "commit#1", "close#1", "create#2", "commit#2", "commit#3", "commit#4", "close#2"],
        (within, wallMs) => [
          // the instant a database file appears (DuckDB writes its header blocks right after): any
          // file of the warehouse's folder, and the warehouse's own name (watched more closely)
          ...[0, 300, 3000].map((delayUs) => ({ at: "file", dir: "", match: "duckdb", delayUs })),
          ...[0, 0, 20, 50].map((delayUs) => ({ at: "file", path: "", delayUs })),
          ...[0.3, 0.7].map((s) => ({ at: "create", nth: 1, phase: "during", delayUs: within("create#1", s) })),
          sql("^CREATE TABLE IF NOT EXISTS _ledger", "before"),
          sql("^INSERT INTO _meta", "before"),
          commit(within, 1, "before"),
          ...[0, 0.5].map((s) => commit(within, 1, "during", s)),
          commit(within, 1, "after"),
          sql("^CHECKPOINT$", "before"),
          sql("^CHECKPOINT$", "during", { delayUs: 200 }),
          sql("^CHECKPOINT$", "after"),
          { at: "close", nth: 1, phase: "during", delayUs: within("close#1", 0.3) },
          { at: "close", nth: 1, phase: "after" },
          { at: "fs", call: "linkSync", nth: 1, phase: "before" },
          { at: "fs", call: "linkSync", nth: 1, phase: "after" },
          { at: "create", nth: 2, phase: "during", delayUs: within("create#2", 0.5) },
          ...[2, 3, 4].flatMap((nth) => [commit(within, nth, "before"), commit(within, nth, "during", 0.4), commit(within, nth, "after")]),
          ...[0.1, 0.5].map((s) => ({ at: "close", nth: 2, phase: "during", delayUs: within("close#2", s) })),
          // and anywhere in a first run
          ...[0.2, 0.45, 0.7].map((s) => ({ at: "random", afterMs: Math.round(wallMs * s) }))
        ],
        BUILT_CORE
      ),
    600_000
  )

  it(
    "a SIGKILL at any instant of a first run that copies the build's empty warehouse leaves no warehouse or a whole one, and later runs work",
    () =>
      // the default block size: the build's template is written under the temporary name (its bytes,
      // then fsync), linked to the warehouse's name, then opened (create#1); commit#1 writes its
      // creation time, commit#2 the pipeline's tables, commit#3 lands the pages
      firstRunKills(
        {},
        ["create#1", "commit#1", "commit#2", "commit#3", "close#1"],
        (within, wallMs) => [
          // the temporary file appearing (its bytes not yet written), and the warehouse's name (the link)
          ...[0, 300, 3000].map((delayUs) => ({ at: "file", dir: "", match: "duckdb", delayUs })),
          ...[0, 0, 20, 50].map((delayUs) => ({ at: "file", path: "", delayUs })),
          // the bytes written and not synced; synced and not linked; linked
          { at: "fs", call: "writeSync", nth: 1, phase: "after" },
          { at: "fs", call: "fsyncSync", nth: 1, phase: "before" },
          { at: "fs", call: "fsyncSync", nth: 1, phase: "after" },
          { at: "fs", call: "linkSync", nth: 1, phase: "before" },
          { at: "fs", call: "linkSync", nth: 1, phase: "after" },
          ...[0.3, 0.7].map((s) => ({ at: "create", nth: 1, phase: "during", delayUs: within("create#1", s) })),
          ...[1, 2, 3].flatMap((nth) => [commit(within, nth, "before"), commit(within, nth, "during", 0.4), commit(within, nth, "after")]),
          ...[0.1, 0.5].map((s) => ({ at: "close", nth: 1, phase: "during", delayUs: within("close#1", s) })),
          ...[0.2, 0.45, 0.7].map((s) => ({ at: "random", afterMs: Math.round(wallMs * s) }))
        ],
        COPIED_CORE
      ),
    600_000
  )

  it("a SIGKILL at any instant of a migration leaves the old format or the new one, and later runs work", async () => {
    const started = Date.now()
    const base = fresh()
    expect((await runCli(["run", "plots-germany", "--config", base.config], sandboxEnv())).code).toBe(0)
    // back to format 1: the ledger keyed by request id alone, without format 3's tables and columns
    // nor format 4's (the balance of each charge, a run's full-pull plan)
    const db = await DuckDBInstance.create(base.file)
    const conn = await db.connect()
    await conn.run(`DROP TABLE _slice_keys`)
    for (const col of ["operation", "request_key", "bought_at", "units"]) await conn.run(`ALTER TABLE _raw_pages DROP COLUMN ${col}`)
    await conn.run(`ALTER TABLE _slices DROP COLUMN distinct_keys`)
    await conn.run(`ALTER TABLE _runs DROP COLUMN units_full`)
    await conn.run(`CREATE TABLE _ledger_v1 (request_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL,
      operation VARCHAR NOT NULL, units DOUBLE NOT NULL, "at" TIMESTAMP NOT NULL)`)
    await conn.run(`INSERT INTO _ledger_v1 SELECT request_id, run_id, pipeline, operation, units, "at" FROM _ledger`)
    await conn.run(`DROP TABLE _ledger`)
    await conn.run(`ALTER TABLE _ledger_v1 RENAME TO _ledger`)
    // and the history members under format 4's primary key (format 5 dropped it), with members of a pull
    await conn.run(`DROP TABLE _history_members`)
    await conn.run(`CREATE TABLE _history_members (pipeline VARCHAR NOT NULL, scope VARCHAR NOT NULL, slice VARCHAR NOT NULL,
      table_name VARCHAR NOT NULL, "key" VARCHAR NOT NULL, PRIMARY KEY (pipeline, scope, slice, table_name, "key"))`)
    await conn.run(`INSERT INTO _history_members SELECT 'format-4-pull', 'all', 'DE', 'plots', 'plot_' || i FROM range(${MEMBERS}) r(i)`)
    await conn.run(`UPDATE _meta SET value = '1' WHERE key = 'format_version'`)
    const charges = Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM _ledger`)).getRowObjectsJS()[0]!.n)
    conn.closeSync()
    db.closeSync()
    expect(charges).toBeGreaterThan(0)

    const aims: Array<Aim> = [
      sql("^CREATE TABLE IF NOT EXISTS _ledger_v2", "before"),
      sql("^ALTER TABLE _ledger_v2 RENAME", "before"),
      sql("^ALTER TABLE _raw_pages", "before"),
      // format 4 -> 5: the members' table rebuilt without its primary key
      sql("^INSERT INTO _history_members_v5", "before"),
      sql("^DROP TABLE _history_members$", "after"),
      sql("^ALTER TABLE _history_members_v5 RENAME", "before"),
      sql("^UPDATE _meta", "before"),
      sql("^COMMIT$", "before"),
      sql("^COMMIT$", "during", { delayUs: 0 }),
      sql("^COMMIT$", "after"),
      { at: "close", nth: 1, phase: "during", delayUs: 2000 }
    ]
    const seen = new Set<number>()
    await inLanes(chosen(aims, MIGRATION_CORE), 2, async (aim) => {
      const w = fresh()
      fs.copyFileSync(base.file, w.file)
      const k = await runKilled(w.config, aim)
      const what = JSON.stringify(aim)
      expect(k.signal, `${what}\n${k.log}\n${k.stderr.slice(-400)}`).toBe("SIGKILL")
      expect(landed(k).aimed, `${what}\n${k.log}`).toBeDefined()
      // the old format with its own layout, or the new one with all of it: never between
      const state = await stateOf(w.file)
      if (state === "absent") throw new Error(`${what}: the warehouse is gone`)
      seen.add(state.version)
      const layout = await Effect.runPromise(
        Effect.scoped(
          Effect.flatMap(makeWarehouse({ path: w.file, readOnly: true }), (wh) =>
            wh.query(
              `SELECT (SELECT count(*) FROM _ledger) AS charges,
                 (SELECT count(*) FROM duckdb_constraints() WHERE table_name = '_ledger' AND constraint_type = 'PRIMARY KEY'
                    AND len(constraint_column_names) = 2) AS run_keyed,
                 (SELECT count(*) FROM duckdb_tables() WHERE table_name = '_slice_keys') AS slice_keys,
                 (SELECT count(*) FROM duckdb_columns() WHERE table_name = '_raw_pages' AND column_name = 'request_key') AS request_key,
                 (SELECT count(*) FROM duckdb_columns() WHERE table_name = '_ledger' AND column_name = 'units_remaining') AS remaining,
                 (SELECT count(*) FROM _history_members WHERE pipeline = 'format-4-pull') AS members,
                 (SELECT count(*) FROM duckdb_constraints() WHERE table_name = '_history_members' AND constraint_type = 'PRIMARY KEY') AS members_keyed`
            )
          )
        )
      )
      const v3 = state.version === FORMAT_VERSION
      // no charge lost (a kill after the run's own pages landed adds its charges)
      expect(Number(layout[0]!.charges), what).toBeGreaterThanOrEqual(charges)
      expect([what, state.version, layout[0]]).toEqual([
        what,
        v3 ? FORMAT_VERSION : 1,
        {
          charges: expect.any(Number),
          run_keyed: v3 ? 1 : 0,
          slice_keys: v3 ? 1 : 0,
          request_key: v3 ? 1 : 0,
          remaining: v3 ? 1 : 0,
          members: MEMBERS,
          members_keyed: v3 ? 0 : 1
        }
      ])
      await laterRunsWork(w, what)
      expect((await stateOf(w.file)) as { version: number }).toMatchObject({ version: FORMAT_VERSION })
    })
    console.log(`migration chaos: ${aims.length} kills in ${Math.round((Date.now() - started) / 1000)} s`)
    // kills before the COMMIT kept format 1, kills after it the current format
    expect([...seen].sort()).toEqual([1, FORMAT_VERSION])
  }, 600_000)
})
