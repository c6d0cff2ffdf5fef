/**
 * Alerts by webhook, from the command line:
 * - `alerts feeds list|create|show|delete`, `alerts webhook set <url>`, `alerts rotate-secret
 *   [--immediate]`: the alerts-api family of the token host (through `TokenClient`);
 * - `alerts load`: lands what a receiver's spool holds in the warehouse (once per delivery id);
 * - `serve-alerts`: the receiver (verify, spool with fsync, 204), plus a loader every
 *   `--load-interval` seconds; timeouts and caps against slow or flooding clients are options.
 *   Secrets come from the secrets file `--secrets-file` (see `webhooks/Secrets.ts`) once it exists,
 *   else from the environment variable named by `--secret-env` (space- or comma-separated while a
 *   rotation's old and new secret both sign), as `Redacted` values.
 * - How a revocation reaches the receiver: `alerts rotate-secret` rewrites the same secrets file
 *   (`--immediate`: only the new secret; graceful: the new one first, the earlier ones until the
 *   24-hour grace ends); the running receiver re-reads the file when it changes (checked before
 *   each signature check), so a revoked secret is refused from the next delivery on.
 */
import { Args, Command, Options } from "@effect/cli"
import { Config, Duration, Effect, Option, Schedule } from "effect"
import { loadCliSettings } from "../config/EffectiveSettings.js"
import { DEFAULT_WAREHOUSE_PATH, Warehouse } from "../load/Warehouse.js"
import { Progress } from "../pipeline/Progress.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { TokenClient, type TokenResponse } from "../service/TokenClient.js"
import { UnexpectedShape } from "../service/ServiceError.js"
import {
  DEFAULT_BODY_RATE_GRACE_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_PENDING_BODIES,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  startReceiver
} from "../webhooks/Receiver.js"
import { type HeldSecret, readSecretsFile, rotatedSecrets, writeSecretsFile } from "../webhooks/Secrets.js"
import { parseSecrets } from "../shared/WebhookSignature.js"
import { loadSpool } from "../webhooks/SpoolLoader.js"
import { WarehouseError } from "../load/WarehouseError.js"
import { viewRunState, waitingRuns } from "../monitor/RunStateFile.js"
import { holderOf, lockWait, lockWaitOption, parseLockWait, runText } from "./LockWait.js"
import { makeEnvironment } from "../wiring/Environment.js"
import { jsonSafe, table } from "./Format.js"

const config = Options.file("config").pipe(Options.withAlias("c"), Options.optional, Options.withDescription("Settings file (JSON)"))
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))
const spool = Options.text("spool").pipe(
  Options.withDefault("data/alerts-spool.ndjson"),
  Options.withDescription("Spool of verified deliveries (default data/alerts-spool.ndjson)")
)
const warehouse = Options.text("warehouse").pipe(
  Options.optional,
  Options.withDescription(`DuckDB warehouse the spool is loaded into (default: the settings' warehouse, ${DEFAULT_WAREHOUSE_PATH})`)
)

/** `--warehouse`, else the warehouse of the settings (`--config`, ESTATE_ETL_WAREHOUSE...) as every other command reads it. */
const warehousePath = (o: { readonly config: Option.Option<string>; readonly warehouse: Option.Option<string> }) =>
  Option.match(o.warehouse, {
    onSome: Effect.succeed,
    onNone: () => Effect.map(loadCliSettings(o.config), (s) => s.warehouse)
  })
const DEFAULT_SECRETS_FILE = "data/alerts-webhook-secrets"
const secretsFile = Options.text("secrets-file").pipe(
  Options.withDefault(DEFAULT_SECRETS_FILE),
  Options.withDescription(`Secrets file, rewritten by rotate-secret, re-read on change (default ${DEFAULT_SECRETS_FILE})`)
)
const secretEnv = Options.text("secret-env").pipe(
  Options.withDefault("ALERTS_WEBHOOK_SECRETS"),
  Options.withDescription(
    "Environment variable holding the signing secret(s), space- or comma-separated, used while the secrets file does not exist (default ALERTS_WEBHOOK_SECRETS)"
  )
)
const loadBatch = Options.integer("load-batch").pipe(
  Options.withDefault(500),
  Options.withDescription("Deliveries per warehouse transaction (default 500)")
)

const print = (value: unknown, asJson: boolean) =>
  Effect.sync(() => {
    if (asJson || typeof value !== "object" || value === null) process.stdout.write(JSON.stringify(value, (_k, v) => jsonSafe(v), 2) + "\n")
    else process.stdout.write(table(Array.isArray(value) ? value : [value]) + "\n")
  })

/**
 * Runs `f` with the token client of the configured target (settings and environment). The
 * alerts-api calls are free and land nothing, so the environment's warehouse is in memory.
 */
const withClient = <A, E>(configPath: Option.Option<string>, f: (client: TokenClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(loadCliSettings(configPath), (settings) =>
    Effect.flatMap(TokenClient, f).pipe(Effect.provide(makeEnvironment({ settings, warehouse: ":memory:", progress: Progress.Silent })))
  )

/**
 * A write the service answered 2xx but whose body cannot be read: the write happened, so it is
 * reported as done (exit 0) with a line saying what could not be read; a rerun would repeat it.
 */
const unreadableNote = (what: string, r: TokenResponse<unknown>) =>
  r.unreadable === undefined
    ? Effect.void
    : Effect.sync(() =>
        process.stderr.write(
          `${what}: the service answered ${r.status} (done), but ${r.unreadable}: ${JSON.stringify(r.raw.replace(/\s+/g, " ").slice(0, 200))}; do not run it again\n`
        )
      )

const feedRow = (f: Record<string, unknown>) => ({
  feed_id: f.feed_id,
  name: f.name,
  filter: JSON.stringify(f.filter ?? {}),
  created_at: f.created_at
})

const feedsList = Command.make("list", { config, json }, (o) =>
  withClient(o.config, (c) =>
    Effect.gen(function* () {
      const feeds: Array<Record<string, unknown>> = []
      let page = (yield* c.alertsApiFeeds({ limit: 500 })).page
      feeds.push(...(page.records as Array<Record<string, unknown>>))
      while (typeof page.next === "string") {
        page = (yield* c.nextPage(page.next, "alerts_api_feeds")).page
        feeds.push(...(page.records as Array<Record<string, unknown>>))
      }
      yield* print(o.json ? feeds : feeds.map(feedRow), o.json)
    })
  )
).pipe(Command.withDescription("List the alerts-api feeds, newest first. Example: estate-etl alerts feeds list"))

const parseFilter = (text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed({} as Record<string, unknown>),
    onSome: (t) =>
      Effect.try({
        try: () => JSON.parse(t) as Record<string, unknown>,
        catch: () => new InvalidInput({ field: "--filter", detail: "not valid JSON" })
      })
  })

const feedsCreate = Command.make(
  "create",
  {
    config,
    json,
    name: Options.text("name").pipe(Options.withDescription("Feed name")),
    filter: Options.text("filter").pipe(
      Options.optional,
      Options.withDescription(`Feed filter as JSON, e.g. '{"alert_subtypes":["price_down"],"location_ids":[12]}'`)
    ),
    subtype: Options.choice("subtype", ["new", "price_up", "price_down", "reserved", "delisted", "sold"]).pipe(
      Options.repeated,
      Options.withDescription("Alert subtype to deliver (repeatable; adds to the filter's alert_subtypes)")
    )
  },
  (o) =>
    withClient(o.config, (c) =>
      Effect.gen(function* () {
        const filter = yield* parseFilter(o.filter)
        if (o.subtype.length > 0) filter.alert_subtypes = [...((filter.alert_subtypes as Array<string> | undefined) ?? []), ...o.subtype]
        const r = yield* c.alertsApiFeedCreate({ name: o.name, filter })
        yield* unreadableNote("feed created", r)
        const feed = typeof r.body === "object" && r.body !== null ? (r.body as Record<string, unknown>) : undefined
        if (feed !== undefined) yield* print(o.json ? feed : feedRow(feed), o.json)
        else if (o.json) yield* print({ created: true, status: r.status }, true)
      })
    )
).pipe(
  Command.withDescription(
    "Create a feed whose events go to the webhook URL. Example: estate-etl alerts feeds create --name cuts --subtype price_down"
  )
)

const feedId = Args.text({ name: "feed_id" })

const feedsShow = Command.make("show", { config, feedId }, (o) =>
  withClient(o.config, (c) => Effect.flatMap(c.alertsApiFeed(o.feedId), (r) => print(r.body, true)))
).pipe(Command.withDescription("Show a feed as created. Example: estate-etl alerts feeds show feed_1"))

const feedsDelete = Command.make("delete", { config, feedId }, (o) =>
  withClient(o.config, (c) =>
    Effect.zipRight(
      c.alertsApiFeedDelete(o.feedId),
      Effect.sync(() => process.stdout.write(`deleted ${o.feedId}\n`))
    )
  )
).pipe(Command.withDescription("Delete a feed permanently. Example: estate-etl alerts feeds delete feed_1"))

const webhookSet = Command.make("set", { config, url: Args.text({ name: "url" }) }, (o) =>
  withClient(o.config, (c) =>
    Effect.flatMap(c.setWebhook({ url: o.url }), (r) =>
      Effect.zipRight(unreadableNote("webhook set", r), print(r.body ?? { set: true, status: r.status }, true))
    )
  )
).pipe(Command.withDescription("Set the delivery URL of all feeds. Example: estate-etl alerts webhook set http://127.0.0.1:8787/alerts"))

const rotateSecret = Command.make(
  "rotate-secret",
  {
    config,
    secretsFile,
    secretEnv,
    immediate: Options.boolean("immediate").pipe(
      Options.withDescription("Revoke every earlier secret now (default: they keep signing for 24 hours)")
    )
  },
  (o) =>
    withClient(o.config, (c) =>
      Effect.gen(function* () {
        // What the receiver held before (for a graceful rotation): the file, else the environment's secrets.
        const previous: ReadonlyArray<HeldSecret> = o.immediate
          ? []
          : ((yield* readSecretsFile(o.secretsFile)) ?? (yield* envSecrets(o.secretEnv)).map((secret) => ({ secret })))
        const r = yield* c.rotateSecret({ immediate: o.immediate })
        if (r.unreadable !== undefined || typeof r.body?.secret !== "string") {
          // rotated, but the new secret is not where the spec says: nothing to write, and a rerun would rotate again
          return yield* new UnexpectedShape({
            operation: "rotate_secret",
            host: "token",
            detail: `the service rotated the secret (${r.status}), but its answer has no readable \`secret\`; ${o.secretsFile} is unchanged. Do not rerun: read the new secret from the service's console`,
            bodyStart: "(not shown: it may hold the secret)"
          })
        }
        // The new secret is this command's output (stdout only, so it can be piped into a secret store),
        // printed before the file is written: the service has rotated whatever happens next.
        process.stdout.write(`${r.body.secret}\n`)
        yield* writeSecretsFile(o.secretsFile, rotatedSecrets(r.body.secret, previous, o.immediate, Date.now()))
        process.stderr.write(
          o.immediate
            ? `every earlier secret is revoked: ${o.secretsFile} now holds only this secret, and serve-alerts refuses the others from its next delivery on\n`
            : `earlier secrets keep signing for 24 hours: ${o.secretsFile} holds this secret first and the earlier ones until then\n`
        )
      })
    )
).pipe(
  Command.withDescription(
    "Issue a new signing secret (printed on stdout) and rewrite the receiver's secrets file. Example: estate-etl alerts rotate-secret --immediate"
  )
)

const load = Command.make("load", { config, spool, warehouse, loadBatch, json, lockWait: lockWaitOption }, (o) =>
  Effect.flatMap(Effect.zip(warehousePath(o), parseLockWait(o.lockWait)), ([path, waitMs]) =>
    Effect.flatMap(loadSpool({ spoolPath: o.spool, batchSize: o.loadBatch }), (s) => print(s, o.json)).pipe(
      Effect.provide(Warehouse.Default({ path, ...lockWait(path, waitMs) }))
    )
  )
).pipe(Command.withDescription("Land the spooled deliveries in the warehouse (once per delivery id). Example: estate-etl alerts load"))

export const alertsCommand = Command.make("alerts").pipe(
  Command.withDescription("Alerts by webhook: feeds, webhook URL, signing secrets, loading the spool"),
  Command.withSubcommands([
    Command.make("feeds").pipe(
      Command.withDescription("alerts-api feeds"),
      Command.withSubcommands([feedsList, feedsCreate, feedsShow, feedsDelete])
    ),
    Command.make("webhook").pipe(Command.withDescription("The delivery URL"), Command.withSubcommands([webhookSet])),
    rotateSecret,
    load
  ])
)

/**
 * One load of the spool into the warehouse, as `serve-alerts` runs it every `--load-interval`.
 * Runs come first: the spool is durable and its deliveries can wait, a run's slot cannot. So the
 * warehouse is opened per pass, only for the pass (other commands use it in between), never waited
 * for (held: this pass is skipped), and a pass is skipped while a run holds it or waits for it
 * (its run-state file, its waiting marker); a pass in progress stops after the batch it is landing
 * when a run starts waiting. The first pass skipped for a run says so in one line; the next that
 * loads says so too.
 */
const spoolPass = (warehouseFile: string, spoolPath: string, batchSize: number) => {
  let yieldingTo: string | undefined
  const note = (holder: string | undefined) =>
    Effect.sync(() => {
      if (holder === yieldingTo) return
      yieldingTo = holder
      process.stdout.write(holder ? `spool loads wait: ${holder} uses the warehouse\n` : "spool loads go on: the warehouse is free\n")
    })
  const runWaiting = () => waitingRuns(warehouseFile).length > 0
  return Effect.suspend(() => {
    const view = viewRunState(warehouseFile)
    if (view.kind === "live") return note(runText(view.state))
    const waiting = waitingRuns(warehouseFile)
    if (waiting.length > 0) return note(`a run (PID ${waiting[0]}) waiting for it`)
    return loadSpool({ spoolPath, batchSize, yieldNow: runWaiting }).pipe(
      Effect.provide(Warehouse.Default({ path: warehouseFile })),
      Effect.tap((s) =>
        Effect.zipRight(
          yieldingTo !== undefined ? note(undefined) : Effect.void,
          s.loaded > 0
            ? Effect.sync(() =>
                process.stdout.write(
                  `loaded ${s.loaded} deliveries (${s.duplicates} duplicates, ${s.rejected} rejected)${s.yielded ? "; the rest waits for a run" : ""}\n`
                )
              )
            : Effect.void
        )
      ),
      Effect.catchAll((e) =>
        e instanceof WarehouseError && e.reason === "Locked"
          ? note(holderOf(warehouseFile, e.holderPid).text)
          : Effect.logWarning(`load failed, retrying next pass: ${e.message}`)
      ),
      Effect.uninterruptible
    )
  })
}

/** Secrets from the environment variable `name`, as Redacted values; none when it is not set. */
const envSecrets = (name: string) =>
  Effect.map(Effect.option(Config.redacted(name)), Option.match({ onNone: () => [], onSome: parseSecrets }))

/**
 * The receiver's starting secrets: the file's when it exists (it must hold one in force), else the
 * environment's (which must hold one); the environment's are the fallback either way.
 */
const receiverSecrets = (file: string, env: string) =>
  Effect.gen(function* () {
    const fallback = yield* envSecrets(env)
    const held = yield* readSecretsFile(file).pipe(Effect.mapError((e) => new InvalidInput({ field: "--secrets-file", detail: e.message })))
    if (held !== undefined) {
      const now = Date.now()
      const inForce = held.filter((s) => s.until === undefined || s.until > now).length
      if (inForce === 0)
        return yield* Effect.fail(
          new InvalidInput({ field: "--secrets-file", detail: `${file} holds no secret in force (whsec_... one a line)` })
        )
      return { fallback, count: inForce, origin: file }
    }
    if (fallback.length === 0) {
      return yield* Effect.fail(
        new InvalidInput({
          field: "--secret-env",
          detail: `neither the secrets file ${file} nor the environment variable ${env} holds a secret (the webhook signing secret, whsec_...)`
        })
      )
    }
    return { fallback, count: fallback.length, origin: `$${env}` }
  })

const positive = (name: string, fallback: number, description: string) =>
  Options.integer(name).pipe(Options.withDefault(fallback), Options.withDescription(`${description} (default ${fallback})`))

export const serveAlertsCommand = Command.make(
  "serve-alerts",
  {
    host: Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("Interface to bind (default 127.0.0.1)")),
    port: Options.integer("port").pipe(Options.withDefault(8787), Options.withDescription("Port (default 8787; 0 picks a free one)")),
    config,
    spool,
    warehouse,
    loadBatch,
    secretsFile,
    secretEnv,
    maxBodyBytes: positive("max-body-bytes", DEFAULT_MAX_BODY_BYTES, "Largest accepted body, bytes"),
    headersTimeoutMs: positive(
      "headers-timeout-ms",
      DEFAULT_HEADERS_TIMEOUT_MS,
      "Time to receive a request's headers, ms; then 408 and the connection is closed"
    ),
    bodyTimeoutMs: positive("body-timeout-ms", DEFAULT_BODY_TIMEOUT_MS, "Time to receive a body once its headers are in, ms; then 408"),
    maxConnections: positive(
      "max-connections",
      DEFAULT_MAX_CONNECTIONS,
      "Open connections at most; beyond, the oldest without a request in progress is closed"
    ),
    maxPendingBodies: positive(
      "max-pending-bodies",
      DEFAULT_MAX_PENDING_BODIES,
      "Bodies read and verified at once at most; beyond, the body read longest gets 503 to make room"
    ),
    minBodyBytesPerSecond: positive(
      "min-body-bytes-per-second",
      DEFAULT_MIN_BODY_BYTES_PER_SECOND,
      "Average rate a body must keep once the grace is over, bytes/s; under it, 408 (0: no check)"
    ),
    bodyRateGraceMs: positive("body-rate-grace-ms", DEFAULT_BODY_RATE_GRACE_MS, "Time a body has before its rate is checked, ms"),
    loadInterval: Options.integer("load-interval").pipe(
      Options.withDefault(5),
      Options.withDescription("Seconds between loads of the spool into the warehouse (default 5; 0: never, use `alerts load`)")
    )
  },
  (o) =>
    Effect.scoped(
      Effect.gen(function* () {
        const secrets = yield* receiverSecrets(o.secretsFile, o.secretEnv)
        for (const [field, value] of [
          ["--max-body-bytes", o.maxBodyBytes],
          ["--headers-timeout-ms", o.headersTimeoutMs],
          ["--body-timeout-ms", o.bodyTimeoutMs],
          ["--max-connections", o.maxConnections],
          ["--max-pending-bodies", o.maxPendingBodies],
          ["--body-rate-grace-ms", o.bodyRateGraceMs]
        ] as const) {
          if (value < 1) return yield* Effect.fail(new InvalidInput({ field, detail: "must be at least 1" }))
        }
        if (o.minBodyBytesPerSecond < 0)
          return yield* Effect.fail(new InvalidInput({ field: "--min-body-bytes-per-second", detail: "must be at least 0" }))
        // settled before listening, so a settings error stops the receiver before any delivery
        const warehouseFile = o.loadInterval > 0 ? yield* warehousePath(o) : undefined
        const r = yield* startReceiver({
          host: o.host,
          port: o.port,
          spoolPath: o.spool,
          secretsFile: o.secretsFile,
          secrets: secrets.fallback,
          maxBodyBytes: o.maxBodyBytes,
          headersTimeoutMs: o.headersTimeoutMs,
          bodyTimeoutMs: o.bodyTimeoutMs,
          maxConnections: o.maxConnections,
          maxPendingBodies: o.maxPendingBodies,
          minBodyBytesPerSecond: o.minBodyBytesPerSecond,
          bodyRateGraceMs: o.bodyRateGraceMs
        })
        process.stdout.write(
          `listening on ${r.url} (spool ${o.spool}, ${secrets.count} secret${secrets.count === 1 ? "" : "s"} from ${secrets.origin})\n`
        )
        if (warehouseFile !== undefined) {
          const pass = spoolPass(warehouseFile, o.spool, o.loadBatch)
          // A pass in flight finishes before shutdown (its warehouse transaction is not cut).
          yield* Effect.addFinalizer(() => pass)
          yield* Effect.forkScoped(Effect.repeat(pass, Schedule.spaced(Duration.seconds(o.loadInterval))))
        }
        return yield* Effect.never
      })
    )
).pipe(
  Command.withDescription(
    "Receive alert events by webhook: verify, spool durably, acknowledge, load into the warehouse. Examples: estate-etl alerts rotate-secret; estate-etl serve-alerts --port 8787"
  )
)
