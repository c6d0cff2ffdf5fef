/**
 * The platform host's routes: premises search, plot search, Property Sourcing, Seller Leads and
 * the `/__sandbox/` introspection. Faults, rate limits, request ids and stats are applied
 * around it by `withHost` (HostMiddleware.ts).
 */
import { HttpRouter } from "@effect/platform"
import type { SandboxControl } from "../SandboxControl.js"
import type { SandboxState } from "../SandboxState.js"
import { introspectionRoutes } from "./IntrospectionRoutes.js"
import { plotRoutes } from "./PlotRoutes.js"
import { premisesRoutes } from "./PremisesRoutes.js"
import { sellerLeadRoutes } from "./SellerLeadRoutes.js"
import { sourcingRoutes } from "./SourcingRoutes.js"

export const makePlatformRouter = (state: SandboxState, control: SandboxControl) =>
  HttpRouter.concatAll(
    premisesRoutes(state),
    plotRoutes(state),
    sourcingRoutes(state),
    sellerLeadRoutes(state),
    introspectionRoutes(state, control)
  )
