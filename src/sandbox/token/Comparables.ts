/**
 * Comparables & Valuation on the token host: comparables v2 (every rule of the spec's table, in
 * `ComparablesRules.ts`), comparables v1, valuation prices and the AI Builder start.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { Operation, PROPERTY_TYPES } from "../../service/schema/Enums.js"
import { activeDialect, type ListKind, shapeList } from "../Dialect.js"
import type { SandboxContext } from "../SandboxContext.js"
import type { ComparablesRequest } from "../world/Queries.js"
import type { ComparableResult } from "../world/Records.js"
import { notFoundDetail } from "./Errors.js"
import { COMPARABLES_DISTANCE, checkComparables, checkPoint, defaultSoldOrRentedAfter } from "./ComparablesRules.js"
import { type Handler, apiLink, jsonBody, ok } from "./Http.js"
import { Checker } from "./Validate.js"

/**
 * Assumed: a target point the world cannot place (unknown address or cadastral reference) is
 * 404 `{detail}` (the spec counts 404s on the host without naming them).
 */
const unresolved = notFoundDetail

/**
 * Assumed (docs/ASSUMPTIONS.md "Comparables v1"): body `{coordinates {latitude, longitude},
 * distance (km, 0.05..50, default 5), business_type, property_type, comparables_count (1..50)}`,
 * all but `distance` required; the v2 rules across fields (area required for some types) do not
 * apply.
 */
const checkV1 = (raw: unknown, nowMs: number) =>
  Effect.suspend(() => {
    const c = new Checker()
    const body = c.body(raw)
    const L = ["body"]
    const coordinates =
      body?.coordinates === undefined || body.coordinates === null
        ? (c.add([...L, "coordinates"], "missing", "Field required", body ?? null), undefined)
        : checkPoint(c, body.coordinates, [...L, "coordinates"])
    const distance = c.number(body, "distance", L, { ge: COMPARABLES_DISTANCE.ge, le: COMPARABLES_DISTANCE.le })
    const operation = c.literal(body, "business_type", L, Operation.values, { required: true })
    const type = c.literal(body, "property_type", L, PROPERTY_TYPES, { required: true })
    const count = c.int(body, "comparables_count", L, { required: true, ge: 1, le: 50 })
    return Effect.as(c.result, {
      comparables_count: count!,
      location_boundary: { circle: { distance: distance ?? COMPARABLES_DISTANCE.default, target_point: { coordinates: coordinates! } } },
      sold_or_rented_after: defaultSoldOrRentedAfter(nowMs),
      operation: operation!,
      comparables_types: [type!],
      min_price: 0,
      exclude_outliers: true
    } satisfies ComparablesRequest)
  })

export const makeComparablesHandlers = (ctx: SandboxContext) => {
  const drift = (r: ComparableResult) => (ctx.driftRate.token > 0 ? ctx.world.drift(r, "comparable", ctx.driftRate.token) : r)
  /** `kind`: v2's payload is shown by the spec; v1's is not, so a dialect's `resultsKey` renames its list. */
  const search = (req: ComparablesRequest, kind: ListKind) => {
    const outcome = ctx.world.comparables(req, ctx.clock.now())
    return outcome._tag === "ok"
      ? Effect.succeed(ok(shapeList(activeDialect(ctx), { results: outcome.results.map(drift) }, kind)))
      : Effect.fail(unresolved(outcome.reason))
  }
  return {
    /** Spec: 200 `{results: [comparable result]}`. */
    v2: (): Handler =>
      Effect.gen(function* () {
        const req = yield* Effect.flatMap(jsonBody(), (b) => checkComparables(b, ctx.clock.now()))
        return yield* search(req, "shown")
      }),
    v1: (): Handler =>
      Effect.gen(function* () {
        const req = yield* Effect.flatMap(jsonBody(), (b) => checkV1(b, ctx.clock.now()))
        return yield* search(req, "unshown")
      }),
    /**
     * Assumed (docs/ASSUMPTIONS.md "Valuation prices"): the comparables v2 body ->
     * `{currency: "EUR", sale, rent, comparables_used}`.
     */
    valuation: (): Handler =>
      Effect.gen(function* () {
        const req = yield* Effect.flatMap(jsonBody(), (b) => checkComparables(b, ctx.clock.now()))
        const v = ctx.world.valuation(req, ctx.clock.now())
        if (v === undefined) return yield* unresolved("The target point could not be located")
        return ok(v)
      }),
    /**
     * Assumed (not in the spec nor docs/ASSUMPTIONS.md): body `{valuation_id}` (string or
     * integer, required) -> 200 `{report_id: "rep_<16 hex>", session_url}`, the URL on the API
     * host under `/ai-builder/sessions/<report_id>`.
     */
    aiBuilder: (owner: string): Handler =>
      Effect.gen(function* () {
        const raw = yield* jsonBody()
        const c = new Checker()
        const body = c.body(raw)
        const id = body?.valuation_id
        if (id === undefined || id === null) c.add(["body", "valuation_id"], "missing", "Field required", body ?? null)
        else if (typeof id !== "string" && !(typeof id === "number" && Number.isInteger(id))) {
          c.add(["body", "valuation_id"], "string_type", "Input should be a valid string", id)
        }
        yield* c.result
        const reportId = `rep_${createHash("sha256")
          .update(`ai-builder:${ctx.seed}:${owner}:${String(id)}`)
          .digest("hex")
          .slice(0, 16)}`
        return ok({ report_id: reportId, session_url: apiLink(ctx, `/ai-builder/sessions/${reportId}`, {}) })
      })
  }
}
