/**
 * Commercial plot search (Germany), `POST /v1/ai/plots/search`. The platform forwards to the
 * plot service, so its answers carry `Ai-Version` and the service's own error body
 * `{error: {code, message}}` for 400, 401, 403 and 429.
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { CommercialUseLevel, DEFAULT_COMMERCIAL_USE, PlotOperation, PlotSort, PlotType } from "../../service/schema/Enums.js"
import type { Account } from "../Accounts.js"
import { activeDialect, capLimit, shapeList } from "../Dialect.js"
import { listOf, queryKey, readPage } from "../Paging.js"
import type { SandboxState } from "../SandboxState.js"
import type { PlotCriteria } from "../world/World.js"
import { intField, invalid, isObject, jsonBody, operation, PlatformError } from "./PlatformRoute.js"

/** Assumed: value of the plot service's version header (docs/ASSUMPTIONS.md). */
export const AI_VERSION = "2026-10-01"
/** Assumed (docs/ASSUMPTIONS.md): page size default 20, at most 100. Cost 1 unit. */
export const PLOT_DEFAULT_LIMIT = 20
export const PLOT_MAX_LIMIT = 100
export const PLOT_COST = 1
/** Assumed: the `scope` and `note` of the 200 body. */
export const PLOT_SCOPE = "plots_only"
export const PLOT_NOTE =
  "Commercial-use levels restate what each property's own text says; they are not a zoning check. One result per plot; coordinates are approximate."

const STRING_LISTS = ["regions", "municipalities", "zipcodes", "keywords"] as const
const NUMBERS = ["plot_area_min", "plot_area_max", "sale_price_min", "sale_price_max", "sale_price_m2_max"] as const
const KNOWN = new Set<string>([
  ...STRING_LISTS,
  ...NUMBERS,
  "plot_types",
  "operation",
  "commercial_use",
  "serviced",
  "limit",
  "offset",
  "sort"
])

const isStringList = (v: unknown): v is Array<string> => Array.isArray(v) && v.every((x) => typeof x === "string")

/** Validates the criteria table; returns the world's criteria and the page. */
export const parsePlotRequest = (body: unknown) =>
  Effect.gen(function* () {
    if (!isObject(body)) return yield* invalid("The body must be a JSON object with a criteria object")
    const extraTop = Object.keys(body).filter((k) => k !== "criteria")
    if (extraTop.length > 0) return yield* invalid(`Unknown members: ${extraTop.join(", ")}`)
    const c = body["criteria"]
    if (!isObject(c)) return yield* invalid("criteria must be an object")
    const extra = Object.keys(c).filter((k) => !KNOWN.has(k))
    if (extra.length > 0) return yield* invalid(`Unknown criteria: ${extra.join(", ")}`)
    for (const k of STRING_LISTS) if (c[k] !== undefined && !isStringList(c[k])) return yield* invalid(`${k} must be a list of strings`)
    for (const k of NUMBERS) {
      const v = c[k]
      if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0))
        return yield* invalid(`${k} must be a non-negative number`)
    }
    const pt = c["plot_types"]
    if (pt !== undefined && (!isStringList(pt) || !pt.every((t) => (PlotType.values as ReadonlyArray<string>).includes(t)))) {
      return yield* invalid(`plot_types must be a list of ${PlotType.values.join(", ")}`)
    }
    const op = c["operation"]
    if (op !== undefined && !(PlotOperation.values as ReadonlyArray<unknown>).includes(op)) {
      return yield* invalid(`operation must be one of ${PlotOperation.values.join(", ")}`)
    }
    const cu = c["commercial_use"]
    const levels = CommercialUseLevel.values as ReadonlyArray<string>
    if (
      cu !== undefined &&
      !(typeof cu === "string" && (cu === "all" || levels.includes(cu))) &&
      !(isStringList(cu) && cu.length > 0 && cu.every((l) => levels.includes(l)))
    ) {
      return yield* invalid(`commercial_use must be all, a level or a list of levels (${levels.join(", ")})`)
    }
    if (c["serviced"] !== undefined && typeof c["serviced"] !== "boolean") return yield* invalid("serviced must be a boolean")
    const sort = c["sort"]
    if (sort !== undefined && !(PlotSort.values as ReadonlyArray<unknown>).includes(sort)) {
      return yield* invalid(`sort must be one of ${PlotSort.values.join(", ")}`)
    }
    const bounds = (lo: unknown, hi: unknown, name: string) =>
      typeof lo === "number" && typeof hi === "number" && lo > hi ? invalid(`${name}_min must not exceed ${name}_max`) : undefined
    const bad =
      bounds(c["plot_area_min"], c["plot_area_max"], "plot_area") ?? bounds(c["sale_price_min"], c["sale_price_max"], "sale_price")
    if (bad) return yield* bad
    const limit = yield* intField(c["limit"], "limit", 1, PLOT_MAX_LIMIT, PLOT_DEFAULT_LIMIT)
    const offset = yield* intField(c["offset"], "offset", 0, Number.MAX_SAFE_INTEGER, 0)
    const { limit: _l, offset: _o, ...rest } = c
    // Spec: the default filter is the first three levels; `all` or any list replaces it.
    const applied = { ...rest, commercial_use: cu ?? [...DEFAULT_COMMERCIAL_USE], sort: sort ?? "commercial_use", limit, offset }
    return { criteria: rest as PlotCriteria, applied, limit, offset }
  })

const sandboxDay = (state: SandboxState) => Math.floor(state.ctx.clock.now() / 86_400_000)

/** Assumed: the quota counts calls past authentication per credential and sandbox day. */
const quota =
  (state: SandboxState) =>
  (account: Account): PlatformError | undefined => {
    if (state.plotDailyQuota <= 0) return undefined
    const key = `${account.spec.id}|${sandboxDay(state)}`
    const used = state.plotCalls.get(key) ?? 0
    if (used >= state.plotDailyQuota) {
      return new PlatformError({ code: "quota_reached", detail: `The daily quota of ${state.plotDailyQuota} plot searches is spent` })
    }
    state.plotCalls.set(key, used + 1)
    return undefined
  }

export const plotRoutes = (state: SandboxState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post(
      "/v1/ai/plots/search",
      operation(state, { cost: PLOT_COST, style: "plot", headers: { "Ai-Version": AI_VERSION }, precheck: quota(state) }, () =>
        Effect.flatMap(Effect.flatMap(jsonBody, parsePlotRequest), ({ criteria, applied, limit, offset }) =>
          Effect.sync(() => {
            const { world, driftRate } = state.ctx
            const dialect = activeDialect(state.ctx)
            const all = world.searchPlots(criteria)
            // Dialects `repeatPage` and `removeAfterFirstPage` (Paging.ts); the query is the criteria without limit and offset.
            const key = queryKey("POST /v1/ai/plots/search", criteria)
            const page = readPage(state.ctx, listOf(all), { key, offset, limit: capLimit(dialect, limit), idOf: (p) => p.id })
            const results = driftRate.platform > 0 ? page.results.map((p) => world.drift(p, "plot", driftRate.platform)) : page.results
            return shapeList(
              dialect,
              {
                scope: PLOT_SCOPE,
                country: "de",
                count: page.count,
                returned: results.length,
                offset,
                criteria: applied,
                note: PLOT_NOTE,
                results
              },
              "shown"
            )
          })
        )
      )
    )
  )
