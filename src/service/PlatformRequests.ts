/**
 * Request rules the platform client checks before anything is sent: the schema folder's request
 * schemas, one per operation, plus the shape of path ids.
 */
import { Effect, type Schema } from "effect"
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

type AnySchema = Schema.Schema<any, any, never>

export const PlatformRequests = {
  premisesSearch: PremisesRequest as AnySchema,
  plotSearch: PlotSearchRequest as AnySchema,
  sourcingSearch: SourcingSearchRequest as AnySchema,
  sourcingDescribe: DescribeRequest as AnySchema,
  sourcingResolve: ResolveRequest as AnySchema,
  sellerLeadsQuery: SellerLeadsQuery as AnySchema,
  checkId
}
