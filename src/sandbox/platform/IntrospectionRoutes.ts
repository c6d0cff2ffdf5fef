/**
 * `/__sandbox/` on the platform host: the `SandboxControl` operations and ground truth from
 * the world over HTTP, for tests and demos in other processes. Not rate-limited, not faulted,
 * not counted, no credential.
 *
 * - GET  /__sandbox/stats                          -> SandboxStatsSnapshot
 * - GET  /__sandbox/balance/{id or key}            -> {id, balance}
 * - POST /__sandbox/balance {id, units}
 * - POST /__sandbox/faults {host, ...FaultSettings} (replaces the host's settings)
 * - POST /__sandbox/rate-limit {host, quota, windowSeconds}
 * - POST /__sandbox/plot-quota {calls}
 * - POST /__sandbox/expire-tokens
 * - POST /__sandbox/clock/advance {ms}             -> {now}
 * - POST /__sandbox/reset                         (also restores the configured dialect)
 * - GET  /__sandbox/dialect                        -> the active dialect flags (Dialect.ts; {} = default)
 * - POST /__sandbox/dialect {name} | {...flags} | {name, ...flags} -> the active flags; both hosts
 *   switch at once; 400 on an unknown name or flag
 * - GET  /__sandbox/removed                       -> {ids, removals: [{query, ids, positions}]} (dialect
 *   `removeAfterFirstPage`: the records that left each query; `SandboxControl.removed`)
 * - GET  /__sandbox/truth/plots?criteria=<json>    -> {count, ids} (criteria as in plot search)
 * - GET  /__sandbox/truth/properties?filter=<json> -> {count} (body of a sourcing search)
 * - GET  /__sandbox/truth/premises?query=<json>    -> {count, ids}
 * - GET  /__sandbox/truth/seller-leads?query=<json> -> {count, ids} (the list's query parameters)
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import type { SandboxControl } from "../SandboxControl.js"
import type { SandboxState } from "../SandboxState.js"
import { RateLimitPolicy } from "../RateLimits.js"
import { isObject, type PlatformError } from "./PlatformRoute.js"
import { parsePlotRequest } from "./PlotRoutes.js"
import { parseLeadQuery } from "./SellerLeadRoutes.js"
import { parseSearch } from "./SourcingRequest.js"

const ok = (body: unknown) => HttpServerResponse.unsafeJson(body)
const bad = (message: string) => HttpServerResponse.unsafeJson({ error: message }, { status: 400 })

const body = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) =>
  Effect.map(
    Effect.orElseSucceed(req.text, () => ""),
    (t): Record<string, unknown> | undefined => {
      try {
        const v = t.trim() === "" ? {} : (JSON.parse(t) as unknown)
        return isObject(v) ? v : undefined
      } catch {
        return undefined
      }
    }
  )
)

const jsonParam = (name: string) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (req) => {
    const raw = new URL(req.url, "http://x").searchParams.get(name)
    if (raw === null) return undefined
    try {
      return JSON.parse(raw) as unknown
    } catch {
      return undefined
    }
  })

const host = (v: unknown) => (v === "platform" || v === "token" ? v : undefined)

/** Runs a handler over a JSON body; 400 when it is not an object or the handler throws. */
const withBody = (f: (b: Record<string, unknown>) => unknown) =>
  Effect.map(body, (b) => {
    if (b === undefined) return bad("The body must be a JSON object")
    try {
      return ok(f(b) ?? { ok: true })
    } catch (e) {
      return bad(e instanceof Error ? e.message : String(e))
    }
  })

const truth = <A>(name: string, parse: (v: unknown) => Effect.Effect<A, PlatformError>, answer: (a: A) => unknown) =>
  Effect.flatMap(jsonParam(name), (v) =>
    Effect.map(Effect.either(parse(v ?? {})), (r) => (Either.isLeft(r) ? bad(r.left.detail) : ok(answer(r.right))))
  )

export const introspectionRoutes = (state: SandboxState, control: SandboxControl) => {
  const { world } = state.ctx
  return HttpRouter.empty.pipe(
    HttpRouter.get(
      "/__sandbox/stats",
      Effect.sync(() => ok(control.stats()))
    ),
    HttpRouter.get(
      "/__sandbox/balance/:id",
      Effect.map(HttpRouter.params, (p) => {
        const balance = control.getBalance(p["id"] ?? "")
        return balance === undefined
          ? HttpServerResponse.unsafeJson({ error: "unknown credential" }, { status: 404 })
          : ok({ id: p["id"], balance })
      })
    ),
    HttpRouter.post(
      "/__sandbox/balance",
      withBody((b) => {
        if (typeof b["id"] !== "string" || typeof b["units"] !== "number") throw new Error("expected {id, units}")
        if (!control.setBalance(b["id"], b["units"])) throw new Error("unknown credential")
      })
    ),
    HttpRouter.post(
      "/__sandbox/faults",
      withBody(({ host: h, ...settings }) => {
        const which = host(h)
        if (which === undefined) throw new Error("host must be platform or token")
        control.setFaults(which, settings)
      })
    ),
    HttpRouter.post(
      "/__sandbox/rate-limit",
      withBody(({ host: h, ...policy }) => {
        const which = host(h)
        if (which === undefined) throw new Error("host must be platform or token")
        control.setRateLimit(which, Schema.decodeUnknownSync(RateLimitPolicy)(policy))
      })
    ),
    HttpRouter.post(
      "/__sandbox/plot-quota",
      withBody((b) => {
        if (typeof b["calls"] !== "number") throw new Error("expected {calls}")
        control.setPlotDailyQuota(b["calls"])
      })
    ),
    HttpRouter.post(
      "/__sandbox/expire-tokens",
      withBody(() => control.expireAccessTokens())
    ),
    HttpRouter.post(
      "/__sandbox/clock/advance",
      withBody((b) => {
        if (typeof b["ms"] !== "number" || b["ms"] < 0) throw new Error("expected {ms} >= 0")
        control.advanceClock(b["ms"])
        return { now: new Date(control.now()).toISOString() }
      })
    ),
    HttpRouter.post(
      "/__sandbox/reset",
      withBody(() => control.reset())
    ),
    HttpRouter.get(
      "/__sandbox/dialect",
      Effect.sync(() => ok(control.dialect()))
    ),
    HttpRouter.post(
      "/__sandbox/dialect",
      withBody((b) => control.setDialect(b as never))
    ),
    HttpRouter.get(
      "/__sandbox/removed",
      Effect.sync(() => ok({ ids: control.removed(), removals: control.removals() }))
    ),
    HttpRouter.get(
      "/__sandbox/truth/plots",
      truth(
        "criteria",
        (c) => parsePlotRequest({ criteria: c }),
        ({ criteria }) => {
          const all = world.searchPlots(criteria)
          return { count: all.length, ids: all.map((p) => p.id) }
        }
      )
    ),
    HttpRouter.get(
      "/__sandbox/truth/properties",
      truth("filter", parseSearch, ({ filter }) => ({ count: world.countProperties(filter, state.ctx.clock.now()) }))
    ),
    HttpRouter.get(
      "/__sandbox/truth/premises",
      truth(
        "query",
        (q) => Effect.succeed((isObject(q) ? q : {}) as never),
        (q) => {
          const all = world.searchPremises(q)
          return { count: all.length, ids: all.map((p) => p.id) }
        }
      )
    ),
    HttpRouter.get(
      "/__sandbox/truth/seller-leads",
      truth(
        "query",
        (q) => parseLeadQuery(new URLSearchParams(Object.entries(isObject(q) ? q : {}).map(([k, v]): [string, string] => [k, String(v)]))),
        ({ query }) => {
          const all = world.sellerLeads({ ...query, nowMs: state.ctx.clock.now() })
          return { count: all.length, ids: all.map((l) => l.id) }
        }
      )
    )
  )
}
