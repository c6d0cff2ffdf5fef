/**
 * Request rules the platform client checks before anything is sent: the schema folder's request
 * schemas, one per operation, plus the shape of path ids.
 */
import { Effect } from "effect"
import { PlotSearchRequest } from "./schema/Plots.js"
import { PremisesRequest } from "./schema/Premises.js"
import { SellerLeadsQuery } from "./schema/SellerLeads.js"
import { DescribeRequest, ResolveRequest, SourcingSearchRequest } from "./schema/Sourcing.js"
import { InvalidRequest } from "./ServiceError.js"

/** A path id must carry its prefix (`prop_`, `lead_`) and no path characters. */
const checkId = (operation: string, id: string, prefix: string) =>
  id.startsWith(prefix) && id.length > prefix.length && !/[/?#\\]/.test(id) && !id.includes("..")
    ? Effect.succeed(id)
    : Effect.fail(
        new InvalidRequest({
          reason: "Path",
          operation,
          detail: `the id must look like ${prefix}<id> (got ${JSON.stringify(id.slice(0, 40))})`
        })
      )

/** Each operation's request schema, as declared: the client's methods take its encoded side as their body. */
export const PlatformRequests = {
  premisesSearch: PremisesRequest,
  plotSearch: PlotSearchRequest,
  sourcingSearch: SourcingSearchRequest,
  sourcingDescribe: DescribeRequest,
  sourcingResolve: ResolveRequest,
  sellerLeadsQuery: SellerLeadsQuery,
  checkId
} as const

/** The body (or query) an operation's client method takes: what its request schema reads. */
export type PlatformBody<K extends Exclude<keyof typeof PlatformRequests, "checkId">> = (typeof PlatformRequests)[K]["Encoded"]
