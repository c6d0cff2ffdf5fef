/**
 * The toolkit's settings: one JSON file (`--config`, default `estate-etl.json`, else
 * `config/sandbox.json`) plus the
 * environment. Every field is documented with its default; a bad value fails before any request.
 * Credentials never live in the file: they come from the environment (names configurable).
 */
import { Schema } from "effect"
import { Dialect } from "./Dialect.js"
import { SHAPED_OPERATIONS } from "./ShapedOperations.js"

const PositiveInt = Schema.Int.pipe(Schema.positive())

/** A response shape override: any of the four paths (see `service/ResponseShape.ts`). */
const ShapeSetting = Schema.Struct({
  results: Schema.optional(Schema.String),
  count: Schema.optional(Schema.String),
  next: Schema.optional(Schema.String),
  returned: Schema.optional(Schema.String)
})
const NonNegative = Schema.Number.pipe(Schema.nonNegative())

/** The name of an environment variable (never its value: credentials live only in the environment). */
const EnvName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: () =>
      "must be the name of an environment variable (letters, digits and _, not starting with a digit), not the credential itself"
  })
)

export const ServiceSection = Schema.Struct({
  /**
   * `sandbox` (default): start the embedded sandbox in-process and use its URLs and credentials.
   * `remote`: use `platformUrl` / `apiUrl` (or SVC_PLATFORM_URL / SVC_API_URL) and credentials from the environment.
   */
  target: Schema.optionalWith(Schema.Literal("sandbox", "remote"), { default: () => "sandbox" as const }),
  /** Platform host base URL (env SVC_PLATFORM_URL wins). */
  platformUrl: Schema.optional(Schema.String),
  /** Token host base URL (env SVC_API_URL wins). */
  apiUrl: Schema.optional(Schema.String),
  /** Environment variable holding the platform API key. Default SVC_API_KEY. */
  apiKeyEnv: Schema.optionalWith(EnvName, { default: () => "SVC_API_KEY" }),
  /** Environment variable holding the token host e-mail. Default SVC_EMAIL. */
  emailEnv: Schema.optionalWith(EnvName, { default: () => "SVC_EMAIL" }),
  /** Environment variable holding the token host password. Default SVC_PASSWORD. */
  passwordEnv: Schema.optionalWith(EnvName, { default: () => "SVC_PASSWORD" }),
  /** Per-request timeout in milliseconds. Default 30000. */
  timeoutMs: Schema.optionalWith(PositiveInt, { default: () => 30_000 }),
  /** Retries of one request at most, after its first attempt (within the run's retry budget). Default 5. */
  maxRetries: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 20)), { default: () => 5 }),
  /**
   * First backoff delay between attempts, ms; it doubles each retry, with jitter, up to
   * `retryMaxMs`. A host's `Retry-After` is obeyed instead. Default 500.
   */
  retryBaseMs: Schema.optionalWith(PositiveInt, { default: () => 500 }),
  /** Longest delay between two attempts, ms; a `Retry-After` asking for longer pauses the run instead. Default 60000. */
  retryMaxMs: Schema.optionalWith(PositiveInt, { default: () => 60_000 }),
  /**
   * Platform requests per second until the host's `RateLimit-Policy` is seen (then the policy
   * rules); 0 = no pacing until then. Default 20 (Assumed, docs/ASSUMPTIONS.md).
   */
  platformRate: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 20 }),
  /** Token-host requests per second until its policy is seen; 0 = no pacing until then. Default 50. */
  apiRate: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 50 }),
  /** Share of a host's rate-limit policy to aim at, above 0 and at most 1. Default 0.97; lower it when other jobs share the same key. */
  pacingHeadroom: Schema.optionalWith(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1)), { default: () => 0.97 }),
  /**
   * Where each operation's answer keeps its records, count, next link and `returned`, by
   * operation name (e.g. `{"sourcing_search": {"results": "data.items", "count": "total"}}`);
   * dotted paths, `"."` for the body itself, `""` for "the answer has none". Each operation's
   * default is declared in its schema module (docs/ASSUMPTIONS.md, "Response shapes").
   */
  shapes: Schema.optionalWith(
    Schema.Struct(
      Object.fromEntries(SHAPED_OPERATIONS.map((op) => [op, Schema.optional(ShapeSetting)])) as Record<
        string,
        Schema.optional<typeof ShapeSetting>
      >
    ),
    { default: () => ({}) }
  ),
  /** Member of a 402 problem that holds the payment link. Default `payment_url` (Assumed). */
  paymentLinkMember: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1)), { default: () => "payment_url" }),
  /**
   * Send the platform API key in this header instead of `Authorization: Bearer` (the spec names no
   * header). Default none (Bearer).
   */
  apiKeyHeader: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]+$/, { message: () => "a header name (letters, digits, -)" }))
  )
})

/** A duration: a number and a unit (`s`, `m`, `h`, `d`), or `0`. */
const Duration = Schema.String.pipe(
  Schema.pattern(/^(0|\d+(\.\d+)?(s|m|h|d))$/, { message: () => "a duration such as 12h, 90m or 2d (s, m, h, d), or 0" })
)

/** A duration setting in milliseconds. */
export const durationMs = (text: string): number => {
  const m = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(text)
  if (m === null) return 0
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"]
}

export const BudgetSection = Schema.Struct({
  /** Units one run may spend (run cap). Default 5000 (EUR 200). */
  maxUnits: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 5000 }),
  /** Units all runs may spend per UTC day, counted from the warehouse ledger. Default: no daily cap. */
  dailyMaxUnits: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** Retries allowed per request made, plus `retryFloor`. Default 0.1. */
  retryRatio: Schema.optionalWith(NonNegative, { default: () => 0.1 }),
  /** Retries always allowed. Default 10. */
  retryFloor: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 10 }),
  /** Share of records that may fail their schema before the run fails. Default 0.05. */
  maxRejectRatio: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 1)), { default: () => 0.05 }),
  /**
   * Paid calls in flight at once, across all slices. 1 (default) bounds what a crash can cost: one
   * page on a single slice, two on a fan-out (one in flight, one charged page awaiting its commit).
   * Raise it to overlap paid calls on a high-latency host. 0 = no limit.
   */
  paidInFlight: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 1 }),
  /** Units per call by operation, overriding the defaults (premises.search 40). */
  costs: Schema.optionalWith(Schema.Record({ key: Schema.String, value: NonNegative }), { default: () => ({}) }),
  /**
   * How long a paid answer stays reusable: a rerun (after a failure, an exit 6 or a crash) that
   * sends the same request within this time reads the archived answer at 0 units instead of
   * buying it again. A duration (`12h`, `90m`, `2d`); `0` never reuses. Default `12h`, so the next
   * night buys fresh answers. `run --fresh` buys again whatever this says.
   */
  reuseWithin: Schema.optionalWith(Duration, { default: () => "12h" }),
  /**
   * Paid pages a slice may read again to repair a list that shifted while it was read (its count
   * dropped between pages: records left it). Beyond it the slice ends `shifted` (exit 6). Default 2.
   */
  paidRereads: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 1000)), { default: () => 2 }),
  /**
   * Retry a paid call that got no answer (a timeout, a connection cut after it was sent). Default
   * false: such a call may have been charged (the probe cannot tell), so the run pauses (exit 3)
   * and a resume asks again. Set true once the balance shows unanswered calls are not charged.
   */
  retryUnansweredPaid: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

export const SandboxSection = Schema.Struct({
  /** Seed of the sandbox's deterministic world. Default 42. */
  seed: Schema.optionalWith(Schema.Int, { default: () => 42 }),
  /** Properties in the sandbox world. Default 20000. */
  properties: Schema.optionalWith(PositiveInt, { default: () => 20_000 }),
  /**
   * Which spec-valid reading of what the spec leaves unsaid the embedded sandbox speaks: a preset
   * (`default`, `capped-pages`, `no-count`, `no-next`, `results-key`, `strict-datetime`,
   * `missing-keys`, `header-key`, `payment-member`) or its flags (`src/config/Dialect.ts`).
   * Default `default`. Also switchable at run time: `POST /__sandbox/dialect`.
   */
  dialect: Schema.optionalWith(Dialect, { default: () => "default" as const }),
  /** Legacy alert feeds the sandbox account starts with (`{name, filter}`). Default none. */
  legacyFeeds: Schema.optionalWith(
    Schema.Array(Schema.Struct({ name: Schema.String, filter: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })),
    { default: () => [] }
  )
})

/** The block sizes DuckDB accepts for a database file (powers of two, 16KB to 256KB). */
export const BLOCK_SIZES = ["16KB", "32KB", "64KB", "128KB", "256KB"] as const
export type BlockSize = (typeof BLOCK_SIZES)[number]
/** The bytes of a `duckdb.blockSize`. */
export const blockSizeBytes = (size: BlockSize): number => Number(size.slice(0, -2)) * 1024

/** A DuckDB size setting. */
const Size = Schema.String.pipe(
  Schema.pattern(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, {
    message: () => "a size such as 256MB or 2GB (KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
  })
)

export const DuckDbSection = Schema.Struct({
  /**
   * DuckDB's memory_limit, e.g. `256MB` or `2GB`, for everything when set. Default: 80MB while a
   * run lands pages (`LANDING_MEMORY_LIMIT`, doubled for a group or a run's finish whose
   * statements do not fit, raised for each commit and the toolkit's checkpoints), DuckDB's own
   * (80% of RAM) for exports and queries.
   */
  memoryLimit: Schema.optional(Size),
  /**
   * The WAL size that triggers a checkpoint, e.g. `64MB`, for everything when set. Default: 64MB
   * while a run lands pages (`LANDING_CHECKPOINT_THRESHOLD`, measured cheaper), DuckDB's own
   * checkpoint_threshold (16MB) otherwise. While a run lands, the toolkit checkpoints between
   * groups itself (a checkpoint short of memory inside a commit is fatal in DuckDB).
   */
  checkpointThreshold: Schema.optional(Size),
  /**
   * DuckDB's worker threads, for everything when set. Default: 1 in a warehouse opened to write
   * (runs, their exports, merges: `WAREHOUSE_THREADS`, measured cheaper), DuckDB's own (one per
   * core) in one opened read-only (`query`, `status`, `export`).
   */
  threads: Schema.optional(Schema.Int.pipe(Schema.between(1, 256))),
  /**
   * The block size of a warehouse the toolkit creates (DuckDB's `BLOCK_SIZE`, fixed when the file
   * is made: one that exists keeps its own). Default 32KB (`WAREHOUSE_BLOCK_SIZE`,
   * docs/BENCHMARKS.md); `256KB` is DuckDB's own. Files of other than 256KB need DuckDB 1.2 or later.
   */
  blockSize: Schema.optional(Schema.Literal(...BLOCK_SIZES)),
  /**
   * Most pages a run lands in one transaction. Default 256 (`DEFAULT_LANDING_POLICY`): a group
   * also closes at `groupRecords`, which is what bounds groups of large pages; this bounds groups
   * of small ones (a fan-out of one small answer per key), whose transactions' fixed statements
   * would otherwise outweigh their rows (docs/BENCHMARKS.md).
   */
  groupPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 1024))),
  /**
   * Most records a run lands in one transaction. Default 8000 (`DEFAULT_LANDING_POLICY`; 40
   * sourcing pages of 200): each landing joins its group's keys with the whole target, so fewer,
   * larger groups cost less CPU and hold more pages' rows and bodies in memory (two groups' worth
   * wait at most; docs/SCHEDULING.md).
   */
  groupRecords: Schema.optional(Schema.Int.pipe(Schema.between(100, 1_000_000))),
  /**
   * How long the loader waits for a group to fill before it lands it part full, in ms. Default
   * 1000; 0 lands whatever has arrived as soon as the loader is free. A run's last pages and a
   * stopped run's queued pages land without waiting.
   */
  groupWaitMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 600_000)))
})

export const PipelineEntry = Schema.Struct({
  /** Parameters of the pipeline (checked by its own schema). */
  params: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) })
})

export const Settings = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  /**
   * Settings files laid over this one, in order, relative to its folder: e.g. the fragment
   * `estate-etl probe --write config/probed.json` writes. Their objects merge member by member;
   * their other values replace this file's.
   */
  include: Schema.optional(Schema.Array(Schema.String)),
  service: Schema.optionalWith(ServiceSection, { default: () => Schema.decodeSync(ServiceSection)({}) }),
  /** DuckDB warehouse file. Default `data/warehouse.duckdb`. */
  warehouse: Schema.optionalWith(Schema.String, { default: () => "data/warehouse.duckdb" }),
  /** DuckDB knobs for pipeline runs (memory, threads). */
  duckdb: Schema.optionalWith(DuckDbSection, { default: () => ({}) }),
  /** Output folder for Parquet, Arrow and the raw archive. Default `data`. */
  output: Schema.optionalWith(Schema.String, { default: () => "data" }),
  /**
   * Prometheus text file `run` rewrites at its end (node_exporter's textfile collector), keeping
   * other pipelines' series (`docs/MONITORING.md`). `--metrics-file` and ESTATE_ETL_METRICS_FILE
   * win. Default none.
   */
  metricsFile: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  budget: Schema.optionalWith(BudgetSection, { default: () => Schema.decodeSync(BudgetSection)({}) }),
  sandbox: Schema.optionalWith(SandboxSection, { default: () => Schema.decodeSync(SandboxSection)({}) }),
  /**
   * Your repository's own pipeline modules: JavaScript files whose default export (or named
   * exports) are made with `definePipeline`. Paths, or globs in the file name only
   * (`pipelines/*.mjs`), relative to the settings file's folder. Absent: every `*.mjs` / `*.js` of
   * a `pipelines/` folder beside the settings file, when there is one. Globs and that folder skip
   * test files (`*.test.*`, `*.spec.*`). `[]`: none.
   */
  pipelineModules: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1)))),
  /** Per-pipeline parameters, by pipeline name. */
  pipelines: Schema.optionalWith(Schema.Record({ key: Schema.String, value: PipelineEntry }), { default: () => ({}) }),
  /** Named sets of pipelines (`nightly`). */
  sets: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }), { default: () => ({}) })
}).annotations({ identifier: "Settings", description: "Settings of the estate-etl toolkit" })

export type Settings = typeof Settings.Type
