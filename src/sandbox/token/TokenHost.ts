/**
 * The sandbox's token host (`{api_url}`): one `HttpRouter` serving the spec's 39 operations.
 * `Sandbox.ts` mounts it on its own port and wraps it with rate limits and fault injection;
 * this router only answers requests.
 *
 * Every route except `POST /login` and `GET /refresh-token` needs a valid, unexpired access
 * token of the current epoch (401 `{detail}`); the alerts routes also need the Alerts
 * subscription (403 `{detail}`, see `Auth.ts`). Per-instance state (feeds, webhook secrets) lives
 * in stores keyed by the `SandboxContext` (`alertsApiFeedStore`, `webhookSecretStore`).
 * Unknown paths fail with `RouteNotFound`, which the server answers (404 `{detail}`).
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import type { SandboxContext } from "../SandboxContext.js"
import { makeAlertsHandlers } from "./Alerts.js"
import { makeAlertsApiHandlers } from "./AlertsApi.js"
import { type Subscription, authenticate, login, makeIssuer, refresh } from "./Auth.js"
import { makeComparablesHandlers } from "./Comparables.js"
import { type Handler, respond } from "./Http.js"
import { makeMarketAnalyticsHandlers } from "./MarketAnalytics.js"
import { makePropertiesHandlers } from "./Properties.js"
import { makeReferencesHandlers } from "./References.js"

export { alertsApiFeedStore } from "./AlertsApi.js"
export { RESTRICTED_USER } from "./Auth.js"
export { webhookSecretStore, type WebhookSecretStore } from "./WebhookSecrets.js"

export const makeTokenRouter = (ctx: SandboxContext): HttpRouter.HttpRouter<never, never> => {
  const issuer = makeIssuer(ctx)
  /** A route behind the bearer check; `need` adds a subscription check. */
  const guarded = (f: (owner: string) => Handler, need?: Subscription) =>
    respond(Effect.flatMap(authenticate(ctx, issuer, need), (user) => f(user.email)))

  const props = makePropertiesHandlers(ctx)
  const comps = makeComparablesHandlers(ctx)
  const market = makeMarketAnalyticsHandlers(ctx)
  const alerts = makeAlertsHandlers(ctx)
  const hooks = makeAlertsApiHandlers(ctx)
  const refs = makeReferencesHandlers(ctx)
  const ma = "/market-analytics-api"
  const la = "/api/v1/listing-alerts"
  const rf = "/api/v1/references"

  const core = HttpRouter.empty.pipe(
    // Authentication
    HttpRouter.post("/login", respond(login(ctx, issuer))),
    HttpRouter.get("/refresh-token", respond(refresh(ctx, issuer))),
    // Properties
    HttpRouter.get("/api/v1/properties/search/:property_id", guarded(props.byId)),
    HttpRouter.post("/api/v1/properties/match-by-listings", guarded(props.matchByListings)),
    HttpRouter.post("/api/v1/properties/search", guarded(props.searchV1)),
    HttpRouter.post("/api/v2/properties/search", guarded(props.searchV2)),
    HttpRouter.post("/api/v1/properties/smart-links", guarded(props.smartLinks)),
    // Comparables & Valuation
    HttpRouter.post("/api/v2/comparables/search", guarded(comps.v2)),
    HttpRouter.post("/api/v1/comparables/search", guarded(comps.v1)),
    HttpRouter.post("/api/v1/valuation/comparables-prices", guarded(comps.valuation)),
    HttpRouter.post("/api/v2/comparables/ai-builder", guarded(comps.aiBuilder)),
    // Area Insights
    HttpRouter.post(`${ma}/time-series`, guarded(market.timeSeries)),
    HttpRouter.post(`${ma}/distributions/bedrooms`, guarded(market.bedrooms)),
    HttpRouter.post(`${ma}/distributions/prices`, guarded(market.prices)),
    HttpRouter.post(`${ma}/distributions/properties`, guarded(market.properties)),
    HttpRouter.post(`${ma}/distributions/time-on-market`, guarded(market.timeOnMarket)),
    HttpRouter.post(`${ma}/analysis`, guarded(market.analysis))
  )
  const rest = HttpRouter.empty.pipe(
    // Alerts, legacy family
    HttpRouter.get(`${la}/feeds`, guarded(alerts.list, "alerts")),
    HttpRouter.post(`${la}/feeds`, guarded(alerts.create, "alerts")),
    HttpRouter.get(`${la}/feeds/:id`, guarded(alerts.read, "alerts")),
    HttpRouter.del(`${la}/feeds/:id`, guarded(alerts.remove, "alerts")),
    HttpRouter.put(`${la}/feeds/:id/update`, guarded(alerts.update, "alerts")),
    HttpRouter.post(`${la}/search`, guarded(alerts.search, "alerts")),
    // Alerts, webhook family
    HttpRouter.get("/alerts-api/feeds", guarded(hooks.list, "alerts")),
    HttpRouter.post("/alerts-api/feeds", guarded(hooks.create, "alerts")),
    HttpRouter.get("/alerts-api/feeds/:feed_id", guarded(hooks.read, "alerts")),
    HttpRouter.del("/alerts-api/feeds/:feed_id", guarded(hooks.remove, "alerts")),
    HttpRouter.put("/alerts-api/webhooks", guarded(hooks.setWebhook, "alerts")),
    HttpRouter.post("/alerts-api/webhooks/rotate-secret", guarded(hooks.rotateSecret, "alerts"))
  )
  const references = HttpRouter.empty.pipe(
    // References
    HttpRouter.get(`${rf}/features`, guarded(refs.features)),
    HttpRouter.get(`${rf}/sources`, guarded(refs.sources)),
    HttpRouter.get(`${rf}/agencies`, guarded(refs.agencies)),
    HttpRouter.get(`${rf}/agents`, guarded(refs.agents)),
    HttpRouter.get(`${rf}/conditions`, guarded(refs.conditions)),
    HttpRouter.get(`${rf}/types`, guarded(refs.types)),
    HttpRouter.post(`${rf}/locations`, guarded(refs.locations)),
    HttpRouter.get(`${rf}/locations/by-coordinates`, guarded(refs.byCoordinates)),
    HttpRouter.post(`${rf}/locations/typeahead`, guarded(refs.typeahead)),
    HttpRouter.post(`${rf}/zipcode-boundary`, guarded(refs.zipcodeBoundary))
  )
  return HttpRouter.concatAll(core, rest, references)
}
